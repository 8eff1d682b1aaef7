package notify

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"partneradmin/handlers/proposal"
	"partneradmin/store"
)

// ScanArgs is the periodic job that finds what is due.
type ScanArgs struct{}

// Kind is river's name for the job.
func (ScanArgs) Kind() string { return "notify.scan" }

// InsertOpts: one scan at a time across replicas; a missed one is made up
// by the next.
func (ScanArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByPeriod: ScanInterval}}
}

// ScanWorker runs ScanArgs.
type ScanWorker struct {
	river.WorkerDefaults[ScanArgs]
	H *Handler
}

// Work scans once.
func (w *ScanWorker) Work(ctx context.Context, _ *river.Job[ScanArgs]) error {
	_, err := w.H.Scan(ctx)
	return err
}

// event is something that needs someone's action, before recipients are
// chosen: its kind, subject (the unique part of its key), the page that
// needs the action, the words for each channel, and who it is for.
type event struct {
	kind    string
	subject string
	path    string
	// title and body are the email's; body may carry what the recipient's
	// role may see (a proposal's type and amount for approvers).
	title, body string
	// chat is the team channel's text: no amounts, no names, only what
	// happened and the link, since who reads the channel is not known.
	chat string
	// wants reports whether a staff member (whose role already holds the
	// kind's permission) is a recipient.
	wants func(store.Staff) bool
}

// Scan records the notifications now due and enqueues their sending, then
// marks uncertain the ones left "sending" by a stopped process. It returns
// how many were recorded.
func (h *Handler) Scan(ctx context.Context) (int, error) {
	now := h.Now()
	if swept, err := h.Store.SweepSendingNotifications(ctx, now.Add(-stuckAfter)); err != nil {
		return 0, err
	} else {
		for _, n := range swept {
			h.logger.WarnContext(ctx, "notification outcome unknown: the app stopped while sending it; not sent again",
				"notification", n.ID, "kind", n.Kind, "channel", n.Channel, "recipient", n.Recipient)
		}
	}
	if !h.Enabled() {
		return 0, nil
	}
	events, err := h.due(ctx, now)
	if err != nil {
		return 0, err
	}
	if len(events) == 0 {
		return 0, nil
	}
	staff, err := h.Store.ListStaff(ctx)
	if err != nil {
		return 0, err
	}
	optOuts, err := h.Store.NotificationOptOuts(ctx)
	if err != nil {
		return 0, err
	}
	var intents []store.NotificationIntent
	for _, ev := range events {
		k, _ := kindByName(ev.kind)
		chatWanted := false
		for _, s := range staff {
			if s.Disabled || !s.Role.Can(k.Permission) || !ev.wants(s) {
				continue
			}
			for _, ch := range h.channels() {
				if optOuts[s.ID][store.PreferenceKey(ev.kind, ch)] {
					continue
				}
				if ch == store.ChannelChat {
					chatWanted = true
					continue
				}
				intents = append(intents, store.NotificationIntent{Kind: ev.kind, Subject: ev.subject,
					Recipient: store.StaffRecipient(s.ID), Channel: ch, StaffID: s.ID, Title: ev.title,
					Body: ev.body, Link: h.link(ev.path)})
			}
		}
		if chatWanted {
			intents = append(intents, store.NotificationIntent{Kind: ev.kind, Subject: ev.subject,
				Recipient: store.ChatRecipient, Channel: store.ChannelChat, Title: ev.chat, Body: ev.chat, Link: h.link(ev.path)})
		}
	}
	ids, err := h.Store.AddNotifications(ctx, intents, func(ctx context.Context, tx pgx.Tx, id int64) error {
		_, err := h.Queue.InsertTx(ctx, tx, SendArgs{ID: id}, nil)
		return err
	})
	if err != nil {
		return 0, err
	}
	if len(ids) > 0 {
		h.logger.InfoContext(ctx, "notifications due", "count", len(ids))
	}
	return len(ids), nil
}

// link is the absolute URL of a page of the app.
func (h *Handler) link(path string) string { return h.Config.PublicOrigin + path }

// due collects the events of every source.
func (h *Handler) due(ctx context.Context, now time.Time) ([]event, error) {
	since := now.Add(-lookBack)
	var out []event
	for _, source := range []func(ctx context.Context, since, now time.Time) ([]event, error){
		h.approvalsDue, h.signLinksDue, h.payrollDue, h.webhooksDue, h.employeesDue, h.policyChangesDue,
	} {
		events, err := source(ctx, since, now)
		if err != nil {
			return nil, err
		}
		out = append(out, events...)
	}
	return out, nil
}

// approvalsDue are the events of proposals waiting for an approver.
func (h *Handler) approvalsDue(ctx context.Context, since, now time.Time) ([]event, error) {
	var out []event
	proposals, err := h.Store.ProposalsAwaitingApproval(ctx, since)
	if err != nil {
		return nil, err
	}
	for _, p := range proposals {
		amount := proposal.Money(store.Proposal{Amount: p.Amount, Currency: p.Currency}).String()
		kind := strings.ToLower(proposal.TypeLabel(store.Proposal{Type: p.Type}))
		out = append(out, event{
			kind: KindProposalApproval, subject: "proposal:" + p.ID + ":" + strconv.Itoa(p.Round),
			path:  "/approvals/" + p.ID,
			title: "A proposal waits for your approval: " + kind + " of " + amount,
			body: "A " + kind + " proposal of " + amount + " waits for your approval.\n\n" +
				"Open it to approve or reject it:\n" + h.link("/approvals/"+p.ID) + "\n",
			chat: "A proposal waits for approval: " + h.link("/approvals/"+p.ID),
			wants: func(s store.Staff) bool {
				// As the queue's "waiting for me": linked to a wallet
				// admin who has not approved yet, and not its creator.
				return s.ServiceUserID != "" && !slices.Contains(p.Approvals, s.ServiceUserID) && s.ID != p.CreatedBy
			},
		})
	}
	return out, nil
}

// signLinksDue are the events of signing links about to expire unsigned.
func (h *Handler) signLinksDue(ctx context.Context, since, now time.Time) ([]event, error) {
	var out []event
	links, err := h.Store.SignLinksExpiring(ctx, now, now.Add(SignLinkWarning))
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		subject, path := "sign_request:"+strconv.FormatInt(l.RequestID, 10), "/approvals/"+l.ProposalID
		if l.BatchID != 0 {
			subject, path = "sign_batch:"+strconv.FormatInt(l.BatchID, 10), "/approvals/sign-batch/"+strconv.FormatInt(l.BatchID, 10)
		}
		at := l.ExpiresAt.UTC().Format("15:04 MST")
		createdBy := l.CreatedBy
		out = append(out, event{
			kind: KindSignLinkExpiring, subject: subject, path: path,
			title: "Your signing link expires at " + at,
			body: "The signing link you issued for the owner's device expires at " + at + " and has not been signed yet.\n\n" +
				"Open the page to follow it up or issue a new link:\n" + h.link(path) + "\n",
			chat:  "A signing link expires at " + at + " unsigned: " + h.link(path),
			wants: func(s store.Staff) bool { return s.ID == createdBy },
		})
	}
	return out, nil
}

// payrollDue are the events of payroll runs that finished with rows not sent.
func (h *Handler) payrollDue(ctx context.Context, since, now time.Time) ([]event, error) {
	var out []event
	runs, err := h.Store.PayrollRunsWithFailedRows(ctx, since)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		path := "/payroll/" + strconv.FormatInt(r.RunID, 10)
		rows := "rows were"
		if r.Failed == 1 {
			rows = "row was"
		}
		name := plainText(r.Name, 80)
		out = append(out, event{
			kind: KindPayrollFailed, subject: "payroll:" + strconv.FormatInt(r.RunID, 10), path: path,
			title: fmt.Sprintf("Payroll run %q: %d %s not sent", name, r.Failed, rows),
			body: fmt.Sprintf("The payroll run %q finished, and %d %s refused by the API or could not be confirmed.\n\n"+
				"Open the run to see which and what to do:\n%s\n", name, r.Failed, rows, h.link(path)),
			chat:  "A payroll run finished with rows that were not sent: " + h.link(path),
			wants: func(store.Staff) bool { return true },
		})
	}
	return out, nil
}

// webhooksDue are the events of hours in which webhook deliveries failed.
func (h *Handler) webhooksDue(ctx context.Context, since, now time.Time) ([]event, error) {
	var out []event
	hours, err := h.Store.WebhookFailureHours(ctx, since)
	if err != nil {
		return nil, err
	}
	for _, f := range hours {
		path := "/events?state=failed"
		if f.Failed == 0 {
			path = "/settings/webhooks"
		}
		from := f.Hour.UTC()
		span := from.Format("2 Jan 15:04") + "–" + from.Add(time.Hour).Format("15:04 MST")
		out = append(out, event{
			kind: KindWebhookFailing, subject: "webhooks:" + from.Format("2006-01-02T15"), path: path,
			title: "Webhook deliveries are failing",
			body: fmt.Sprintf("Between %s, %d webhook deliveries from the Partner API failed to process and %d were refused for a bad signature.\n\n"+
				"Open the event log:\n%s\n", span, f.Failed, f.SignatureFailures, h.link(path)),
			chat:  "Webhook deliveries from the Partner API are failing (" + span + "): " + h.link(path),
			wants: func(store.Staff) bool { return true },
		})
	}
	return out, nil
}

// employeesDue are the events of employees the API asked to act.
func (h *Handler) employeesDue(ctx context.Context, since, now time.Time) ([]event, error) {
	var out []event
	flagged, err := h.Store.EmployeesNeedingAction(ctx, since)
	if err != nil {
		return nil, err
	}
	for _, e := range flagged {
		path := "/employees/" + strconv.FormatInt(e.ID, 10)
		// No name, and not what was asked (an ID document, a selfie):
		// the page says it to whoever signs in.
		out = append(out, event{
			kind: KindEmployeeAction, subject: "employee:" + strconv.FormatInt(e.ID, 10) + ":" + strconv.FormatInt(e.FlaggedAt.UnixMicro(), 10),
			path: path, title: "An employee needs action",
			body:  "The Partner API asked an employee to do something before their account can go on.\n\nOpen their page:\n" + h.link(path) + "\n",
			chat:  "An employee needs action: " + h.link(path),
			wants: func(store.Staff) bool { return true },
		})
	}
	return out, nil
}

// policyChangesDue are the events of money-control changes proposed or come into force.
func (h *Handler) policyChangesDue(ctx context.Context, since, now time.Time) ([]event, error) {
	var out []event
	changes, err := h.Store.PolicyChangesToAnnounce(ctx, since, now)
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		path, id := "/controls#changes", strconv.FormatInt(c.ID, 10)
		what, subject := "proposed", "policy_change:"+id+":proposed"
		next := "A second owner approves or rejects it on the Money controls page; it takes effect after the cooling-off period."
		if c.Effective {
			what, subject = "in force from "+c.At.UTC().Format("2 Jan 2006 15:04 MST"), "policy_change:"+id+":effective"
			next = "It applies to every request from now on."
		}
		summary := plainText(c.Summary, 200)
		out = append(out, event{
			kind: KindPolicyChange, subject: subject, path: path,
			title: "Money controls: " + strings.ToLower(c.Kind.Label()) + " change " + what,
			body: "A change of the money controls (" + strings.ToLower(c.Kind.Label()) + ") is " + what + ": " + summary + "\n\n" + next +
				"\n\nOpen the Money controls page:\n" + h.link(path) + "\n",
			chat:  "A change of the money controls is " + what + ": " + h.link(path),
			wants: func(store.Staff) bool { return true },
		})
	}
	return out, nil
}

// plainText keeps a name given by a person fit for a mail's subject: no
// control characters, at most max characters.
func plainText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}
