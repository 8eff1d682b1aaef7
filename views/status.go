package views

import "strings"

// Status words: the ONE mapping from every state the console shows (the
// API's enums and our own) to the words a person reads and the colour of
// its chip. Handlers and views ask Status; nothing else spells a state.

// Status kinds: which enum a value belongs to.
const (
	StatusInvite        = "invite"         // an employee's invite (store.Invite…)
	StatusReadiness     = "readiness"      // a currency's readiness (store.Ready…)
	StatusProposal      = "proposal"       // a proposal (store.Proposal…, the API's)
	StatusProposalType  = "proposal_type"  // a proposal\'s type (the API\'s)
	StatusSign          = "sign"           // a sign request (store.Sign…)
	StatusAction        = "action"         // an upstream request (store.Action…)
	StatusWithdrawal    = "withdrawal"     // a crypto withdrawal (store.Withdrawal…)
	StatusBankPayout    = "bank_payout"    // a bank payout (store.BankPayout…)
	StatusSepa          = "sepa"           // a SEPA to MXN order
	StatusMexico        = "mexico"         // a Mexican offramp order (apiclient.MexicoOrder…)
	StatusCash          = "cash"           // a LATAM cash order (the provider's, upper case)
	StatusCashType      = "cash_type"      // a LATAM cash order's type (FUND, SEND)
	StatusBankAccount   = "bank_account"   // the treasury's virtual bank account (the API's)
	StatusBulkRow       = "bulk_row"       // a row of a bulk invite (store.BulkRow…)
	StatusPayrollRow    = "payroll_row"    // a row of a payroll run
	StatusPayrollRun    = "payroll_run"    // a payroll run (store.Payroll…)
	StatusCard          = "card"           // a card (CardStatus)
	StatusCardFunding   = "card_funding"   // a card\'s funding policy (the API\'s)
	StatusCardLifecycle = "card_lifecycle" // a card\'s fund lifecycle (the API\'s)
	StatusWebhookEvent  = "webhook_event"  // a webhook delivery
	StatusStaff         = "staff"          // a staff account: "active" or "disabled"
	StatusAuditOutcome  = "audit_outcome"  // an audit row's outcome (store.Outcome…)
	StatusRail          = "rail"           // a currency rail's onboarding (the API's, an open set)
)

// Chip tones; the stylesheet colours .badge-<tone>.
const (
	ToneOK      = "ok"
	ToneBad     = "bad"
	ToneWarn    = "warn"
	ToneInfo    = "info"
	ToneNeutral = "neutral"
)

// StatusWord is a state as a person reads it, and its chip's tone.
type StatusWord struct {
	Label string
	Tone  string
}

var statusWords = map[string]map[string]StatusWord{
	StatusInvite: {
		"invited":         {"invited", ToneInfo},
		"linked":          {"linked", ToneOK},
		"kyc_submitted":   {"identity checks sent", ToneOK},
		"action_required": {"needs action", ToneWarn},
		"deleted":         {"deleted", ToneBad},
	},
	StatusReadiness: {
		"not_read":    {"not read yet", ToneNeutral},
		"not_started": {"not started", ToneNeutral},
		"missing":     {"missing fields", ToneWarn},
		"ready":       {"ready to activate", ToneInfo},
		"onboarding":  {"being set up", ToneWarn},
		"active":      {"active", ToneOK},
		"failed":      {"failed", ToneBad},
		"rejected":    {"rejected", ToneBad},
	},
	StatusProposal: {
		"PENDING_APPROVALS":  {"waiting for approvals", ToneWarn},
		"PENDING_SIGNATURES": {"waiting for the owner's signature", ToneWarn},
		"SUBMITTED":          {"signed, being executed", ToneInfo},
		"READY_TO_EXECUTE":   {"signed, being executed", ToneInfo},
		"EXECUTING":          {"being executed", ToneInfo},
		"COMPLETED":          {"completed", ToneOK},
		"FAILED":             {"failed", ToneBad},
		"REJECTED":           {"rejected", ToneBad},
		"EXPIRED":            {"expired", ToneBad},
	},
	StatusProposalType: {
		"":                 {"proposal", ToneNeutral},
		"TRANSFER":         {"transfer", ToneNeutral},
		"SWAP":             {"swap", ToneNeutral},
		"CARD_ISSUANCE":    {"card issuance", ToneNeutral},
		"NIGERIAN_OFFRAMP": {"Nigerian bank withdrawal", ToneNeutral},
	},
	StatusSign: {
		"waiting":       {"waiting for the device", ToneWarn},
		"opened":        {"opened on the device", ToneWarn},
		"checking":      {"signature checked, sending", ToneInfo},
		"relaying":      {"signature checked, sending", ToneInfo},
		"relay_pending": {"the API did not answer: reading it back", ToneWarn},
		"submitted":     {"submitted", ToneOK},
		"completed":     {"completed", ToneOK},
		"expired":       {"expired", ToneBad},
		"refused":       {"refused", ToneBad},
		"superseded":    {"replaced by a newer link", ToneNeutral},
		"failed":        {"failed", ToneBad},
	},
	StatusAction: {
		"begun":   {"sending", ToneWarn},
		"done":    {"done", ToneOK},
		"refused": {"refused", ToneBad},
		"unknown": {"outcome unknown", ToneWarn},
	},
	StatusWithdrawal: {
		"begun":              {"sending", ToneWarn},
		"awaiting_signature": {"waiting for the owner's signature", ToneWarn},
		"created":            {"opened", ToneOK},
		"done":               {"opened", ToneOK},
		"completed":          {"completed: settled at the destination", ToneOK},
		"rail_failed":        {"failed: the rail did not complete it", ToneBad},
		"refused":            {"refused", ToneBad},
		"unknown":            {"outcome unknown", ToneWarn},
	},
	StatusBankPayout: {
		"begun":              {"sending", ToneWarn},
		"awaiting_signature": {"waiting for the owner's signature", ToneWarn},
		"created":            {"opened", ToneInfo},
		"processing":         {"signed: the rail is paying it out", ToneInfo},
		"completed":          {"completed", ToneOK},
		"failed":             {"failed", ToneBad},
		"refused":            {"refused", ToneBad},
		"unknown":            {"outcome unknown", ToneWarn},
	},
	StatusSepa: {
		"begun":      {"sending", ToneWarn},
		"prepared":   {"prepared: waiting for the owner's signature", ToneWarn},
		"processing": {"signed: the bank transfer is on its way", ToneInfo},
		"completed":  {"completed: paid to the IBAN", ToneOK},
		"failed":     {"failed: the transfer was returned and the amount refunded to the wallet", ToneBad},
		"expired":    {"expired: it was not signed in time; nothing left the wallet", ToneBad},
		"refused":    {"refused", ToneBad},
		"unknown":    {"outcome unknown", ToneWarn},
	},
	StatusMexico: {
		"begun":     {"sending", ToneWarn},
		"created":   {"created: waiting for the owner's signatures", ToneWarn},
		"funded":    {"funded: the burn is signed and the pesos are on their way", ToneInfo},
		"completed": {"completed: pesos paid to the registered bank account", ToneOK},
		"failed":    {"failed", ToneBad},
		"refunded":  {"refunded: the payout failed and the tokens went back to the wallet", ToneBad},
		"canceled":  {"canceled: the quote expired before the burn was signed; nothing left the wallet", ToneBad},
		"refused":   {"refused", ToneBad},
		"unknown":   {"outcome unknown", ToneWarn},
	},
	StatusCash: {
		"CREATED":         {"created: waiting for the payer", ToneWarn},
		"READY":           {"ready to be paid or picked up", ToneInfo},
		"PAYMENT_STARTED": {"payment started", ToneInfo},
		"COMPLETED":       {"completed", ToneOK},
		"CANCELLED":       {"cancelled", ToneBad},
		"CANCELED":        {"cancelled", ToneBad},
		"EXPIRED":         {"expired", ToneBad},
		"FAILED":          {"failed", ToneBad},
	},
	StatusCashType: {
		"FUND": {"cash in", ToneNeutral},
		"SEND": {"cash out", ToneNeutral},
	},
	StatusBankAccount: {
		"none":         {"not requested", ToneNeutral},
		"provisioning": {"being set up", ToneWarn},
		"pending":      {"waiting for the bank", ToneWarn},
		"active":       {"active: receives deposits", ToneOK},
		"failed":       {"failed", ToneBad},
		"rejected":     {"rejected", ToneBad},
	},
	StatusBulkRow: {
		"invalid": {"not sent: invalid", ToneBad},
		"queued":  {"waiting", ToneNeutral},
		"sending": {"sending", ToneWarn},
		"sent":    {"sent", ToneOK},
		"error":   {"error", ToneBad},
		"unknown": {"outcome unknown", ToneWarn},
	},
	StatusPayrollRow: {
		"invalid":  {"not sent: invalid", ToneBad},
		"sending":  {"sending", ToneWarn},
		"unknown":  {"outcome unknown", ToneWarn},
		"refused":  {"refused by the Partner API", ToneBad},
		"sent":     {"proposal created", ToneOK},
		"canceled": {"canceled: not sent", ToneNeutral},
		"ready":    {"ready to send", ToneInfo},
		"queued":   {"waiting to be sent", ToneNeutral},
	},
	StatusPayrollRun: {
		"preview":  {"preview: nothing sent", ToneInfo},
		"sending":  {"sending", ToneWarn},
		"sent":     {"sent", ToneOK},
		"canceled": {"canceled", ToneNeutral},
	},
	StatusCard: {
		"":            {"unknown", ToneNeutral},
		"reserved":    {"requested", ToneWarn},
		"active":      {"active", ToneOK},
		"frozen":      {"frozen", ToneWarn},
		"blocked":     {"frozen", ToneWarn},
		"canceled":    {"cancelled", ToneBad},
		"cancelled":   {"cancelled", ToneBad},
		"deactivated": {"cancelled", ToneBad},
		"pending":     {"not activated", ToneWarn},
		"lost":        {"lost", ToneBad},
		"stolen":      {"stolen", ToneBad},
		"restricted":  {"restricted", ToneWarn},
		"inactive":    {"inactive", ToneWarn},
	},
	StatusCardFunding: {
		"SAFE":     {"funded by the company", ToneNeutral},
		"PERSONAL": {"funded by the employee", ToneNeutral},
		"BOTH":     {"funded by the company or the employee", ToneNeutral},
	},
	StatusCardLifecycle: {
		"ONE_TIME":   {"funded once", ToneNeutral},
		"REPEATABLE": {"can be topped up", ToneNeutral},
	},
	StatusWebhookEvent: {
		"received":    {"received", ToneNeutral},
		"processing":  {"processing", ToneWarn},
		"processed":   {"processed", ToneOK},
		"failed":      {"failed", ToneBad},
		"unparseable": {"could not be read", ToneBad},
	},
	StatusStaff: {
		"active":   {"active", ToneOK},
		"disabled": {"disabled", ToneBad},
	},
	StatusRail: {
		"":            {"not started", ToneNeutral},
		"none":        {"not started", ToneNeutral},
		"not_started": {"not started", ToneNeutral},
		"pending":     {"being set up", ToneWarn},
		"in_progress": {"being set up", ToneWarn},
		"active":      {"active", ToneOK},
		"failed":      {"failed", ToneBad},
		"rejected":    {"rejected", ToneBad},
	},
	StatusAuditOutcome: {
		"ok":      {"done", ToneOK},
		"failed":  {"failed", ToneBad},
		"denied":  {"denied", ToneBad},
		"refused": {"refused", ToneBad},
		"unknown": {"outcome unknown", ToneWarn},
	},
}

// Status is a state of the given kind in people's words with its tone. A
// value the table does not know (the API's sets are open) is said in
// lower case with spaces, in a neutral chip.
func Status(kind, value string) StatusWord {
	if w, ok := statusWords[kind][value]; ok {
		return w
	}
	if kind == StatusCard {
		if w, ok := statusWords[kind][strings.ToLower(strings.TrimSpace(value))]; ok {
			return w
		}
	}
	return StatusWord{Label: strings.ToLower(strings.ReplaceAll(value, "_", " ")), Tone: ToneNeutral}
}

// KnownStatus is the table's words for a state, and whether it has any.
func KnownStatus(kind, value string) (StatusWord, bool) {
	w, ok := statusWords[kind][value]
	return w, ok
}

// StatusLabel is Status's words alone.
func StatusLabel(kind, value string) string { return Status(kind, value).Label }

// StatusClass is the chip's class for a state: "badge-<tone>".
func StatusClass(kind, value string) string { return "badge-" + Status(kind, value).Tone }

// ReadinessLabel is a readiness state in words, with the count of missing
// fields ("missing 3 fields").
func ReadinessLabel(state string, missing int) string {
	if state == "missing" && missing > 0 {
		return "missing " + plural(missing, "field")
	}
	return StatusLabel(StatusReadiness, state)
}
