package views

import (
	"strings"
	"time"
)

// ApprovalQueueView is the approval queue page.
type ApprovalQueueView struct {
	Filter QueueFilterForm
	Types  []string
	// EmployeeName names Filter.Employee (a link from an employee's page).
	EmployeeName string
	Rows         []ProposalRow
	// LinkedAs is the wallet admin the viewer approves as ("" when not
	// linked: "needs my approval" then has nothing to show).
	LinkedAs  string
	CanAct    bool
	SyncedAgo string
	PollURL   string // the fragment URL with the current filters
	CSVURL    string
	// Total counts every matching proposal (more than Total when
	// TotalOver); the page shows PageSize of them, newest first, with
	// OlderURL to the next ones.
	Total     int
	TotalOver bool
	OlderURL  string
	NewestURL string
	// SignBatchToken is the one-time token of the "Sign selected from one
	// QR code" form (outside the polled table, so it stays); ReturnTo is
	// the queue as shown, for the batch page's way back.
	SignBatchToken string
	ReturnTo       string
}

// QueueFilterForm is the queue's filter form, as the user set it.
type QueueFilterForm struct {
	Mine     bool   // needs my approval
	Status   string // "", PENDING_SIGNATURES or FAILED
	Type     string
	Employee string // serviceUserId
	// Who matches the owner's or the recipient's name or email, anywhere
	// in them (search as you type).
	Who string
	// Fields says which filter was not usable (it is then not applied).
	Fields FieldErrors
}

// Choice is one option of a select on the approval pages.
type Choice struct {
	Value string
	Label string
}

// ProposalRow is one proposal in the queue.
type ProposalRow struct {
	ID          string
	Type        string
	Amount      Amount
	From        string
	To          string
	Description string
	// Status is the proposal's state as the API spells it (it chooses the
	// badge); StatusLabel says it in people's words.
	Status      string
	StatusLabel string
	Approvals   string // "1 of 2"
	Signatures  string // "0 of 1"
	Created     time.Time
	Deadline    *time.Time // while signing
	// Now is when the row was read: the age and the deadline are said
	// relative to it ("5 min ago", "in 9 minutes").
	Now     time.Time
	NeedsMe bool
	// Selectable: the row waits for signatures and the viewer may send it
	// to the owner's device with others of the same owner (a checkbox of
	// the queue's "Sign selected" form). Owner is the owner's
	// serviceUserId.
	Selectable bool
	Owner      string
	// Policy is what the money controls say of a waiting value-moving
	// proposal, in a few words ("Within limits"); PolicyOK whether it
	// passes them.
	Policy   string
	PolicyOK bool
}

// Title names the proposal for a person: its description, or its type
// and recipient when it has none ("Transfer to Ada Obi").
func (r ProposalRow) Title() string {
	if strings.TrimSpace(r.Description) != "" {
		return r.Description
	}
	return Capitalize(ProposalTypeLabel(r.Type)) + " to " + r.To
}

// ProposalTypeLabel is a proposal's type in words ("transfer").
func ProposalTypeLabel(t string) string { return StatusLabel(StatusProposalType, t) }

// ProposalBadgeClass is the chip class of a proposal's state (Status).
func ProposalBadgeClass(status string) string { return StatusClass(StatusProposal, status) }

// ProposalStateAllows says what a proposal's state allows, after the
// spec's proposal state table.
func ProposalStateAllows(status string) string {
	switch status {
	case "PENDING_APPROVALS":
		return "It waits for its wallet's admins to approve it; it may also be rejected."
	case "PENDING_SIGNATURES":
		return "It is approved and waits for the owner's signature on their device; it may also be rejected."
	case "SUBMITTED", "READY_TO_EXECUTE", "EXECUTING":
		return "The owner signed it and it is being executed: nothing is left to decide, and it can no longer be rejected. It completes once execution settles."
	case "COMPLETED":
		return "It was executed: nothing is left to decide."
	case "FAILED":
		return "It failed. Approving it again restarts its workflow (approvals and signatures are collected again); it may also be rejected."
	case "REJECTED":
		return "It was rejected and abandoned: nothing is left to decide."
	case "EXPIRED":
		return "It expired before it was signed: nothing is left to decide."
	}
	return "Nothing can be decided in this state."
}

// ProposalDetailView is one proposal with its timeline and actions.
type ProposalDetailView struct {
	// BackURL is the queue as the viewer left it (with its filters).
	BackURL      string
	Row          ProposalRow
	WalletID     string
	OwnerUserID  string
	ToAddress    string
	ToStablecoin string
	SlippageBps  int
	Rejection    string
	Failure      string
	ApprovedBy   []string
	Timeline     []TimelineEntry
	Device       DeviceSummary
	// PollURL re-reads the summary and the actions; it carries the
	// version shown, so an unchanged proposal answers 204 and what is
	// typed in its forms stays.
	PollURL string
	// Actions the viewer may take now, and why not when they may not.
	CanApprove      bool
	CanApproveAgain bool
	CanReject       bool
	CanSign         bool
	// SignInFlight: the owner's signature is on its way to the API, so no
	// new link is offered.
	SignInFlight  bool
	BlockedReason string
	// Controls is the money controls' check of the proposal (nil: it
	// moves no value out).
	Controls *PolicyCheckView
	// One-time tokens of the forms (handlers.NewFormToken).
	ApproveToken string
	RejectToken  string
	SignToken    string
	RejectForm   RejectForm
	ActionError  string
	Sign         *SignPanel // the latest sign request
}

// Decides reports whether the viewer has any decision to make here.
func (v ProposalDetailView) Decides() bool {
	return v.CanApprove || v.CanApproveAgain || v.CanReject || v.CanSign
}

// DeviceSummary is what the owner sees on the device.
type DeviceSummary struct {
	Title        string
	Amount       string
	From         string
	To           string
	Description  string
	OwnerAddress string
}

// TimelineEntry is one line of a proposal's timeline.
type TimelineEntry struct {
	At     time.Time
	Kind   string
	Actor  string
	Detail string
}

// RejectForm is the reject form, as typed.
type RejectForm struct {
	Reason string
	Fields FieldErrors
}

// ApproverLinkView is the page where a finance approver (or owner) links
// their account to a wallet admin.
type ApproverLinkView struct {
	Current string
	Admins  []Choice
	Fields  FieldErrors
	Value   string
	// Token is the form's one-time token.
	Token string
	// Unavailable, when set, says why the admins cannot be listed; the
	// form is not shown.
	Unavailable string
}

// SignPanel shows a sign request on the approver's page: the QR code and
// link (only in the answer that created it: the token is never stored), the
// countdown and the live state.
type SignPanel struct {
	ID        int64
	Link      string
	QRDataURL string
	ExpiresAt time.Time
	// State is the sign request's state (store.SignState); it chooses the
	// badge. Label says it in people's words.
	State   string
	Label   string
	Error   string
	Final   bool
	PollURL string
	Steps   []SignStep
}

// SignBadgeClass is the chip class of a sign request's state (Status).
func SignBadgeClass(state string) string { return StatusClass(StatusSign, state) }

// SignIssuedView is the page that shows a link just issued for a proposal:
// its QR code, once.
type SignIssuedView struct {
	ProposalID string
	Device     DeviceSummary
	Panel      SignPanel
}

// SignStep is one step of the sign request's progress.
type SignStep struct {
	Label string
	Done  bool
}

// SignDeviceView is the human page of a sign link opened in a browser.
type SignDeviceView struct {
	Known    bool
	Gone     string // why the link can no longer be used
	Kind     string
	Summary  DeviceSummary
	Deadline time.Time
}

// timelineKinds are a proposal timeline's entries in words.
var timelineKinds = map[string]string{
	"created": "created", "status": "state changed", "approved": "approved", "approved_again": "approved again",
	"rejected": "rejected", "sign_request": "sent to the owner's device", "sign_opened": "opened on the device",
	"signature_submitted": "signature sent",
}

// timelineRequests are our requests about a proposal, by ledger kind.
var timelineRequests = map[string]string{
	"proposal.approve": "approval", "proposal.reject": "rejection", "proposal.sign_request": "signing link",
}

// TimelineKindLabel is a timeline entry's kind in words; a request of
// ours that did not take effect ("proposal.approve refused") is said with
// its state ("approval refused").
func TimelineKindLabel(kind string) string {
	if w, ok := timelineKinds[kind]; ok {
		return w
	}
	req, state, ok := strings.Cut(kind, " ")
	w, known := timelineRequests[req]
	if !known {
		w = "request " + strings.ReplaceAll(strings.ReplaceAll(req, "_", " "), ".", " ")
	}
	if ok {
		w += " " + StatusLabel(StatusAction, state)
	}
	return w
}

// TimelineDetail is an entry's detail; a change of state ("A → B: why")
// is said in words.
func TimelineDetail(e TimelineEntry) string {
	if e.Kind == "created" {
		if st, ok := strings.CutPrefix(e.Detail, "status "); ok {
			return StatusLabel(StatusProposal, st)
		}
	}
	if e.Kind != "status" {
		return e.Detail
	}
	change, why, _ := strings.Cut(e.Detail, ": ")
	from, to, ok := strings.Cut(change, " → ")
	if !ok {
		return e.Detail
	}
	s := "from " + StatusLabel(StatusProposal, from) + " to " + StatusLabel(StatusProposal, to)
	if why != "" {
		s += ": " + why
	}
	return s
}
