package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"partneradmin/store"
)

// SendArgs is the job that delivers one notification. It carries the row's
// id only: the message and the address are read from the row.
type SendArgs struct {
	ID int64 `json:"id"`
}

// Kind is river's name for the job.
func (SendArgs) Kind() string { return "notify.send" }

// InsertOpts: a message certainly not delivered is tried again, a few
// times, with river's backoff.
func (SendArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: maxAttempts} }

// SendWorker runs SendArgs.
type SendWorker struct {
	river.WorkerDefaults[SendArgs]
	H *Handler
}

// Timeout leaves room for one delivery and the bookkeeping around it.
func (w *SendWorker) Timeout(*river.Job[SendArgs]) time.Duration { return sendTimeout + 15*time.Second }

// errNotDelivered makes river try a job again.
var errNotDelivered = errors.New("notify: not delivered")

// Work delivers the notification once:
//
//  1. Claim: pending → sending, committed before anything is sent. A
//     notification in any other state is not sent: sent is done; failed
//     and uncertain wait for a person; and sending means an earlier run of
//     this job stopped mid-send (the process died, or river rescued the
//     job), so whether the message left is unknown — it is marked
//     uncertain and reported, never sent again blindly.
//  2. Send once.
//  3. Record the outcome: sent; pending again when the message was
//     certainly not delivered (river tries again; on the last try, failed);
//     failed when refused for good; uncertain when it may have been
//     delivered.
func (w *SendWorker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	h := w.H
	n, claimed, err := h.Store.ClaimNotification(ctx, job.Args.ID, h.Now())
	if errors.Is(err, store.ErrNotFound) {
		return nil // its staff member was deleted
	}
	if err != nil {
		return err
	}
	if !claimed {
		if n.State == store.NotificationSending {
			if _, err := h.Store.FinishNotification(ctx, n.ID, store.NotificationUncertain,
				"an earlier attempt stopped while sending it: it may or may not have been delivered, so it is not sent again", h.Now()); err != nil {
				return err
			}
			h.logger.WarnContext(ctx, "notification outcome unknown: an earlier attempt stopped while sending it; not sent again",
				"notification", n.ID, "kind", n.Kind, "channel", n.Channel, "recipient", n.Recipient)
		}
		return nil
	}
	// Told at scan time; checked again now, in case the staff member was
	// disabled or changed role since.
	res := result{refused, "the staff member may no longer receive it (disabled, or their role changed)"}
	if mayReceive(n) {
		res = h.deliver(ctx, n)
	}
	// The outcome is recorded even if the job's context ends now: the
	// message has gone (or not) whatever happens to the job.
	rctx := context.WithoutCancel(ctx)
	state := store.NotificationSent
	switch res.outcome {
	case notDelivered:
		state = store.NotificationPending
		if job.Attempt >= job.MaxAttempts {
			state = store.NotificationFailed
			res.why += fmt.Sprintf(" (gave up after %d tries)", job.Attempt)
		}
	case refused:
		state = store.NotificationFailed
	case uncertain:
		state = store.NotificationUncertain
	}
	if _, err := h.Store.FinishNotification(rctx, n.ID, state, res.why, h.Now()); err != nil {
		// Left "sending": the next run of this job, or the scan's sweep,
		// marks it uncertain. Never sent twice.
		return err
	}
	switch state {
	case store.NotificationPending:
		h.logger.InfoContext(ctx, "notification not delivered; will try again", "notification", n.ID, "channel", n.Channel, "why", res.why)
		return fmt.Errorf("%w: %s", errNotDelivered, res.why)
	case store.NotificationFailed, store.NotificationUncertain:
		h.logger.WarnContext(ctx, "notification "+state, "notification", n.ID, "kind", n.Kind, "channel", n.Channel,
			"recipient", n.Recipient, "why", res.why)
	}
	return nil
}

// mayReceive reports whether the notification's recipient may still have
// it: the team chat always; a staff member while active and in a role
// that may see its kind.
func mayReceive(n store.Notification) bool {
	if n.StaffID == 0 {
		return true
	}
	k, ok := kindByName(n.Kind)
	return ok && !n.StaffDisabled && n.StaffRole.Can(k.Permission)
}

// deliver sends the notification on its channel.
func (h *Handler) deliver(ctx context.Context, n store.Notification) result {
	switch n.Channel {
	case store.ChannelEmail:
		if h.mail == nil {
			return result{refused, "email is not configured (SMTP_URL)"}
		}
		return h.mail.Send(ctx, n.Email, n.Title, n.Body, h.Now())
	case store.ChannelChat:
		if h.chat == nil {
			return result{refused, "chat is not configured (CHAT_WEBHOOK_URL)"}
		}
		return h.chat.Post(ctx, n.Body)
	}
	return result{refused, "unknown channel " + n.Channel}
}
