package views

import (
	"strconv"
	"strings"
	"time"
)

// ActionsView is the page of upstream writes (the action ledger).
type ActionsView struct {
	// Open shows only actions whose outcome is not settled.
	Open       bool
	Rows       []ActionRow
	NextBefore int64 // 0 when this is the last page
	// CanResolve: the viewer may settle an open action by hand.
	CanResolve bool
	Error      string
	// Resolve is a settle-by-hand form sent with a mistake: its row shows
	// the note as typed and each problem next to the form.
	Resolve ActionResolve
}

// ActionResolve is one row's settle-by-hand form as it was sent.
type ActionResolve struct {
	ID     int64
	Note   string
	Fields FieldErrors // "note", "outcome"
}

// ActionRow is one upstream write as shown.
type ActionRow struct {
	ID         int64
	BegunAt    time.Time
	Actor      string
	Kind       string
	Target     string
	State      string // the ledger state, for the badge
	StateLabel string
	Message    string
	// Open: the outcome is not settled (a person may resolve it).
	Open bool
}

// ActionStateClass is the chip class of a ledger state (Status).
func ActionStateClass(state string) string { return StatusClass(StatusAction, state) }

// actionKindWords are the ledger's request kinds in people's words.
var actionKindWords = map[string]string{
	"proposal.create":                     "proposal created",
	"proposal.approve":                    "proposal approved",
	"proposal.approve_again":              "failed proposal approved again",
	"proposal.reject":                     "proposal rejected",
	"bank_payout.create":                  "bank payout",
	"crypto_withdrawal.create":            "crypto withdrawal",
	"cash_order.fund":                     "cash pay-in",
	"cash_order.send":                     "cash pay-out",
	"mx_offramp.quote":                    "Mexican offramp quote",
	"ngn_withdrawal_account.create":       "Nigerian bank account registered",
	"ngn_offramp.create":                  "Nigerian bank withdrawal",
	"sepa_payout.prepare":                 "SEPA payout",
	"sepa_payout.eur_provider_start":      "EUR provider onboarding started",
	"treasury.rail.start":                 "treasury rail onboarding started",
	"treasury.rail.mx_kyc_activate":       "treasury Mexican identity check activated",
	"treasury.rail.eur_authorize":         "EUR provider authorization sent to the owner's phone",
	"payroll.send":                        "payroll run sent",
	"payroll.transfer":                    "payroll transfer",
	"payroll.cancel":                      "payroll run canceled",
	"payroll.again":                       "payroll run of refused rows",
	"sign_request.create":                 "signing link issued",
	"sign_request.submit":                 "owner signature sent",
	"sign_batch.create":                   "batch signing link issued",
	"sign_batch.submit":                   "batch owner signature sent",
	"wallet.owner_proof":                  "treasury wallet owner proof",
	"treasury.usd_onboarding.start":       "USD bank account requested",
	"card.issue":                          "card issued",
	"card.freeze":                         "card frozen",
	"card.unfreeze":                       "card unfrozen",
	"card.cancel":                         "card cancelled",
	"card.limits":                         "card limits changed",
	"card.activation_request":             "card activation requested",
	"card.activation_confirm":             "card activation confirmed",
	"employee.invite":                     "employee invited",
	"employee.reinvite":                   "employee invited again",
	"employee.delete":                     "employee deleted",
	"employee.reactivate":                 "employee reactivated",
	"employee.bulk_invite.row":            "bulk invite: one employee",
	"employee.bulk_invite.start":          "bulk invite started",
	"employee.kyc.occupation":             "occupation sent for identity checks",
	"employee.kyc_action_cleared":         "identity check action marked resolved",
	"employee.onboarding.start":           "currency set up for an employee",
	"employee.onboarding.retry_usd":       "USD account retried",
	"employee.onboarding.mx_kyc_activate": "Mexican identity check started",

	// Audit actions that are not requests to the Partner API.
	"access.denied":                   "access refused",
	"approver.link":                   "approver linked to an employee",
	"auth.login":                      "signed in",
	"auth.login_sso":                  "signed in with the identity provider",
	"auth.password_change":            "password changed",
	"auth.recovery_code":              "recovery code used",
	"auth.recovery_codes":             "recovery codes made",
	"auth.second_factor":              "second factor proved",
	"auth.second_factor.enrol":        "second factor added",
	"auth.second_factor.remove":       "second factor removed",
	"auth.sessions.end":               "sessions ended",
	"bank_payout.settle":              "bank payout settled",
	"cards.index_refresh":             "card list refreshed",
	"crypto_withdrawal.settle":        "crypto withdrawal settled",
	"employee.bulk_invite.finish":     "bulk invite finished",
	"employee.bulk_invite.upload":     "bulk invite file uploaded",
	"employee.kyc_action_required":    "identity check needs an action",
	"employee.link":                   "employee linked",
	"employee.onboarding.bulk_finish": "currency set up for many employees: finished",
	"employee.onboarding.bulk_start":  "currency set up for many employees: started",
	"notifications.preferences":       "notification choices changed",
	"payroll.approve":                 "payroll run approved",
	"payroll.approve.finish":          "payroll run approvals finished",
	"payroll.create":                  "payroll run made",
	"payroll.send.finish":             "payroll run sent: finished",
	"settings.second_factor":          "second factor rules changed",
	"settings.sign_in":                "sign-in settings changed",
	"staff.create":                    "staff member added",
	"staff.password":                  "staff password set",
	"staff.second_factor_reset":       "staff member's second factors reset",
	"staff.set_password_link":         "set-password link made",
	"staff.update":                    "staff member changed",
	"webhooks.event.replay":           "webhook delivery processed again",
	"webhooks.reconcile":              "reconciliation ran",
	"webhooks.reconcile.request":      "reconciliation asked for",
	"webhooks.secret.adopt":           "webhook secret adopted",
	"webhooks.secret.rotate":          "webhook secret rotated",
	"webhooks.subscription.create":    "webhook subscription made",
	"webhooks.subscription.update":    "webhook subscription changed",
}

// ActionKindLabel is a ledger request's kind, or an audit row's action, in
// people's words; one the table does not know is said with spaces.
func ActionKindLabel(kind string) string {
	if w, ok := actionKindWords[kind]; ok {
		return w
	}
	r := strings.NewReplacer(".", ": ", "_", " ")
	return r.Replace(kind)
}

// ActionTarget splits a ledger target ("proposal:0x12…") into what it is
// and its id, for the id to be shortened.
func ActionTarget(target string) (what, id string) {
	if w, i, ok := strings.Cut(target, ":"); ok {
		return strings.ReplaceAll(w, "_", " "), i
	}
	return "", target
}

func resolveNoteID(id int64) string { return "note-" + strconv.FormatInt(id, 10) }

// resolveOf is row id's form as sent with a mistake (empty for the others).
func (v ActionsView) resolveOf(id int64) ActionResolve {
	if v.Resolve.ID == id {
		return v.Resolve
	}
	return ActionResolve{}
}

// resolveError is what the note's field says: the outcome's problem first
// (the buttons have no field of their own), then the note's.
func resolveError(fe FieldErrors) string {
	return strings.TrimSpace(fe.Get("outcome") + " " + fe.Get("note"))
}
