// Package notify tells staff when their action is needed: a proposal waits
// for their approval, a signing link they issued is about to expire, a
// payroll run finished with failed rows, webhook deliveries are failing, an
// employee needs action, a change of the money controls is proposed or
// takes effect. A periodic scan finds what is due and records one
// notification per (kind, subject, recipient, channel); a send job delivers
// each by email (SMTP) or to the team's chat webhook, once. Each staff
// member chooses what they receive at /account/notifications.
package notify

import (
	"log/slog"
	"time"

	"partneradmin/handlers"
	"partneradmin/store"
)

// Kind is one kind of notification, and the permission its recipients
// hold: a kind is offered to, and sent to, only the roles that may act on
// it.
type Kind struct {
	Name       string
	Label      string
	Permission store.Permission
}

// Kind names, as stored.
const (
	KindProposalApproval = "proposal_approval"
	KindSignLinkExpiring = "sign_link_expiring"
	KindPayrollFailed    = "payroll_failed_rows"
	KindWebhookFailing   = "webhook_failing"
	KindEmployeeAction   = "employee_action"
	KindPolicyChange     = "policy_change"
)

// Kinds lists every kind, in the order the preferences page shows them.
func Kinds() []Kind {
	return []Kind{
		{Name: KindProposalApproval, Label: "A proposal waits for my approval", Permission: store.PermApprovalsAct},
		{Name: KindSignLinkExpiring, Label: "A signing link I issued expires in a few minutes", Permission: store.PermApprovalsAct},
		{Name: KindPayrollFailed, Label: "A payroll run finished with rows that were not sent", Permission: store.PermTreasury},
		{Name: KindWebhookFailing, Label: "Webhook deliveries from the Partner API are failing", Permission: store.PermSettings},
		{Name: KindEmployeeAction, Label: "An employee needs action", Permission: store.PermEmployeesWrite},
		// spec of the money controls: a change of policy "is announced to
		// every owner and finance approver ... when proposed and when it
		// takes effect".
		{Name: KindPolicyChange, Label: "A change of the money controls is proposed or takes effect", Permission: store.PermApprovalsAct},
	}
}

// KindsFor lists the kinds a role may receive.
func KindsFor(r store.Role) []Kind {
	var out []Kind
	for _, k := range Kinds() {
		if r.Can(k.Permission) {
			out = append(out, k)
		}
	}
	return out
}

func kindByName(name string) (Kind, bool) {
	for _, k := range Kinds() {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Timing of the scan and the send.
const (
	// ScanInterval is how often the scan looks for what is due. Signing
	// links live 15 minutes; a minute's scan warns in time.
	ScanInterval = time.Minute
	// SignLinkWarning is how long before a signing link expires its issuer
	// is told.
	SignLinkWarning = 5 * time.Minute
	// sendTimeout bounds one delivery. It is well under river's rescue of
	// stuck jobs (a minute), so a job run again after a rescue never
	// overlaps the one still sending.
	sendTimeout = 30 * time.Second
	// stuckAfter is when a notification still "sending" is taken as left
	// by a process that stopped mid-send.
	stuckAfter = 2 * time.Minute
	// lookBack bounds what the scan considers news: proposals changed,
	// runs finished, flags raised and delivery failures within it.
	lookBack = 72 * time.Hour
	// maxAttempts is the tries of a message certainly not delivered.
	maxAttempts = 6
)

// Options configure the channels. A channel left nil is off; with both off
// notifications are disabled.
type Options struct {
	Mail *Mailer
	Chat *ChatPoster
}

// Handler is the notifications area: the preferences page, the scan and
// the send jobs.
type Handler struct {
	handlers.Deps
	mail   *Mailer
	chat   *ChatPoster
	logger *slog.Logger
}

// New builds the area.
func New(d handlers.Deps, o Options) *Handler {
	return &Handler{Deps: d, mail: o.Mail, chat: o.Chat, logger: d.Logger.With("component", "notify")}
}

// Enabled reports whether any channel is configured.
func (h *Handler) Enabled() bool { return h.mail != nil || h.chat != nil }

// channels lists the configured channels.
func (h *Handler) channels() []string {
	var out []string
	if h.mail != nil {
		out = append(out, store.ChannelEmail)
	}
	if h.chat != nil {
		out = append(out, store.ChannelChat)
	}
	return out
}

// DisabledMessage says why notifications are off, for the log at start and
// the preferences page ("" when at least one channel is on).
func (h *Handler) DisabledMessage() string {
	if h.Enabled() {
		return ""
	}
	return "Notifications are disabled: neither SMTP_URL (email) nor CHAT_WEBHOOK_URL (chat) is set."
}

// LogStart writes the line that says at start which channels are on.
func (h *Handler) LogStart() {
	if msg := h.DisabledMessage(); msg != "" {
		h.logger.Warn(msg)
		return
	}
	h.logger.Info("notifications enabled", "email", h.mail != nil, "chat", h.chat != nil)
}
