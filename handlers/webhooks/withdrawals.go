package webhooks

import (
	"errors"
	"fmt"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/views"
)

// webhookActor is the system actor of what a delivery changes (the same
// name the employees area records).
var webhookActor = store.Actor{Email: "webhook"}

// withdrawalSettled processes employee.withdrawal.completed / .failed (and
// their wallet.* names): the withdrawal is recorded in the activity feed as
// any money movement, and when it is a crypto withdrawal this app started
// from the treasury (named by the payload's reference, the id the create
// call returned), its outcome on the rail is recorded with its audit row in
// the event's own transaction (processEvent). The spec shows no payload
// field beyond userId and amount; the sandbox sends smartWalletId,
// reference, rail and, on a failure, reason.
func (h *Handler) withdrawalSettled(ev store.WebhookEvent, env *apiclient.Event) (Outcome, effects, error) {
	out, eff, err := h.moneyMovement(store.ActivityWithdrawal)(ev, env)
	if err != nil || out.State != store.EventProcessed {
		return out, eff, err
	}
	f := payloadFields(env.Payload)
	s := store.WithdrawalSettlement{EventID: ev.ID, WebhookID: ev.WebhookID, EventType: env.EventType,
		UpstreamID: fieldString(f, "reference", "withdrawalId"), WorkflowID: fieldString(f, "workflowId"),
		WalletID: fieldString(f, "smartWalletId", "sourceSmartWalletId"), UserID: userIn(f),
		Completed: statusOf(env.EventType) == "completed", Reason: fieldString(f, "reason", "failureReason", "message"),
		By: webhookActor}
	if s.UpstreamID == "" && s.WorkflowID == "" {
		out.Note += "; names no withdrawal reference: not a crypto withdrawal of this app, nothing else to do"
		return out, eff, nil
	}
	if !s.Completed {
		s.FailureWords = views.WithdrawalFailureWords(s.Reason)
	}
	eff.settle = &s
	return out, eff, nil
}

// settleNote is the event log's words for what a settlement did.
func settleNote(s store.WithdrawalSettlement, r store.SettleResult) string {
	ref := s.UpstreamID
	if ref == "" {
		ref = "workflow " + s.WorkflowID
	}
	c := r.Withdrawal
	switch {
	case !r.Known:
		return "no crypto withdrawal of this app has reference " + ref + ": not ours, nothing else to do"
	case r.Changed && c.State == store.WithdrawalCompleted:
		return fmt.Sprintf("crypto withdrawal %d marked completed", c.ID)
	case r.Changed:
		return fmt.Sprintf("crypto withdrawal %d marked failed: %s", c.ID, orNone(c.FailureReason))
	case c.Settled() && c.SettledEventID == s.EventID:
		return fmt.Sprintf("crypto withdrawal %d was already %s by this event; nothing changed", c.ID, settledWord(c))
	case c.Settled():
		return fmt.Sprintf("crypto withdrawal %d was already %s (event %d); nothing changed", c.ID, settledWord(c), c.SettledEventID)
	}
	return fmt.Sprintf("crypto withdrawal %d is %s, not waiting for the rail; nothing changed", c.ID, c.State)
}

func settledWord(c store.CryptoWithdrawal) string {
	if c.State == store.WithdrawalCompleted {
		return "completed"
	}
	return "failed"
}

func orNone(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return reason
}

// errSettledElsewhere rolls back a run whose event another run recorded
// meanwhile: what it changed belongs to that run.
var errSettledElsewhere = errors.New("webhooks: the event was recorded by another run")
