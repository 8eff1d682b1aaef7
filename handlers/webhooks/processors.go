package webhooks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/handlers/inbound"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
)

// EmployeeEvent is an event about one employee, as the area that applies
// it receives it.
type EmployeeEvent = inbound.EmployeeEvent

// Employees is what processing needs from the employees area (invites,
// employees, onboarding snapshots). Every method must be idempotent: an
// event can arrive more than once, out of order, and be replayed; read the
// current state from the API where the payload is not enough. Each method
// runs outside any transaction of this package and returns the outcome to
// record (NoLocalEmployee when it does not know the user yet).
type Employees interface {
	// LinkInvite marks the invite linked and records the serviceUserId.
	LinkInvite(ctx context.Context, p apiclient.EmployeeLinkedPayload, e EmployeeEvent) (Outcome, error)
	// Unlink records that the employee left the partner.
	Unlink(ctx context.Context, e EmployeeEvent) (Outcome, error)
	// RecordVBA notes a provisioned virtual bank account (read it with
	// GET /vba/usd or the deposit accounts).
	RecordVBA(ctx context.Context, e EmployeeEvent) (Outcome, error)
	// RefreshOnboarding re-reads the onboarding status into the snapshot;
	// onboarding.completed also clears the employee's action-required flag
	// (the rail is active: nothing further is asked).
	RefreshOnboarding(ctx context.Context, e EmployeeEvent) (Outcome, error)
	// FlagKYCAction flags the employee as needing an action (often a selfie).
	FlagKYCAction(ctx context.Context, e EmployeeEvent) (Outcome, error)
}

// NoEmployees stands in until the employees area exists: it knows no
// employee, so every employee event is kept for reconciliation with the
// reason recorded.
type NoEmployees struct{}

// LinkInvite implements Employees.
func (NoEmployees) LinkInvite(_ context.Context, p apiclient.EmployeeLinkedPayload, _ EmployeeEvent) (Outcome, error) {
	o := inbound.NoLocalEmployee(p.ServiceUserID)
	if p.InvitationID != "" {
		o.Note = "no local invite known for invitationId " + p.InvitationID + " (serviceUserId " + p.ServiceUserID + "); kept for reconciliation"
	}
	return o, nil
}

// Unlink implements Employees.
func (NoEmployees) Unlink(_ context.Context, e EmployeeEvent) (Outcome, error) {
	return inbound.NoLocalEmployee(e.ServiceUserID), nil
}

// RecordVBA implements Employees.
func (NoEmployees) RecordVBA(_ context.Context, e EmployeeEvent) (Outcome, error) {
	return inbound.NoLocalEmployee(e.ServiceUserID), nil
}

// RefreshOnboarding implements Employees.
func (NoEmployees) RefreshOnboarding(_ context.Context, e EmployeeEvent) (Outcome, error) {
	return inbound.NoLocalEmployee(e.ServiceUserID), nil
}

// FlagKYCAction implements Employees.
func (NoEmployees) FlagKYCAction(_ context.Context, e EmployeeEvent) (Outcome, error) {
	return inbound.NoLocalEmployee(e.ServiceUserID), nil
}

func employeeEventOf(ev store.WebhookEvent, env *apiclient.Event) EmployeeEvent {
	return EmployeeEvent{EventID: ev.ID, EventType: env.EventType, ServiceUserID: userOf(env), Payload: env.Payload, At: occurredAt(ev, env),
		ReceivedAt: ev.ReceivedAt}
}

// employeeHandoff runs an Employees method before the transaction and
// records its outcome in it.
func (h *Handler) employeeHandoff(call func(ctx context.Context, ev store.WebhookEvent, env *apiclient.Event) (Outcome, error)) (processor, prepare) {
	var got Outcome
	pre := func(ctx context.Context, ev store.WebhookEvent, env *apiclient.Event) (Outcome, error) {
		o, err := call(ctx, ev, env)
		got = o
		return Outcome{}, err
	}
	proc := func(store.WebhookEvent, *apiclient.Event) (Outcome, effects, error) { return got, effects{}, nil }
	return proc, pre
}

func (h *Handler) employeeLinked(ctx context.Context, ev store.WebhookEvent, env *apiclient.Event) (Outcome, error) {
	decoded, err := env.Decode()
	if err != nil {
		return badPayload(err), nil
	}
	p := decoded.(*apiclient.EmployeeLinkedPayload)
	return h.Employees.LinkInvite(ctx, *p, employeeEventOf(ev, env))
}

func badPayload(err error) Outcome {
	return Outcome{State: store.EventFailed, Note: "payload does not match the spec: " + apiclient.EventReason(err)}
}

// statusOf is the last word of an event type: completed, failed, refunded,
// processing.
func statusOf(eventType string) string {
	if i := strings.LastIndexByte(eventType, '.'); i >= 0 {
		return eventType[i+1:]
	}
	return eventType
}

// moneyMovement records a deposit or withdrawal in the activity feed.
func (h *Handler) moneyMovement(kind string) processor {
	return func(ev store.WebhookEvent, env *apiclient.Event) (Outcome, effects, error) {
		decoded, err := env.Decode()
		if err != nil {
			return badPayload(err), effects{}, nil
		}
		p := decoded.(*apiclient.MoneyMovementPayload)
		f := payloadFields(env.Payload)
		user := p.UserID
		if user == "" {
			user = userIn(f)
		}
		amount := p.Amount
		a := store.Activity{
			WebhookEventID: ev.ID, ServiceUserID: user, Kind: kind, EventType: env.EventType, Status: statusOf(env.EventType),
			Amount: &amount, Currency: fieldString(f, "currency", "displayCurrency"),
			Reference: fieldString(f, "reference", "transactionId", "id"), Description: fieldString(f, "source", "description"),
			OccurredAt: occurredAt(ev, env),
		}
		out := processed(user, "%s %s %s %s in the activity feed of %s", kind, statusOf(env.EventType), amount.String(), a.Currency, user)
		eff := effects{activity: []store.Activity{a}}
		switch {
		case h.API == nil:
			out.Note += "; balances not refreshed: no Partner API connected"
		case validID(user):
			eff.refresh = []string{user}
			out.Note += "; balance refresh queued"
		}
		return out, eff, nil
	}
}

// RefreshBalancesArgs reads one user's balances from the API into the
// mirror. Money events enqueue it instead of calling the API themselves, so
// a burst of deposits for one employee costs one API call per second: the
// job is unique per user and second, and scheduled just after that second
// ends, so it always reads after every event that asked for it.
type RefreshBalancesArgs struct {
	ServiceUserID string `json:"service_user_id"`
}

// Kind names the job.
func (RefreshBalancesArgs) Kind() string { return "webhooks_refresh_balances" }

// InsertOpts makes the job unique per user and second.
func (RefreshBalancesArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueName, MaxAttempts: 8, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: refreshPeriod}}
}

const refreshPeriod = time.Second

// queueBalanceRefresh enqueues the refresh of a user's balances inside tx,
// scheduled after the current period ends.
func (h *Handler) queueBalanceRefresh(ctx context.Context, tx pgx.Tx, user string) error {
	if h.Queue == nil {
		return errNoQueue
	}
	at := h.now().UTC().Truncate(refreshPeriod).Add(refreshPeriod + refreshPeriod/4)
	_, err := h.Queue.InsertTx(ctx, tx, RefreshBalancesArgs{ServiceUserID: user}, &river.InsertOpts{ScheduledAt: at})
	return err
}

// RefreshBalancesWorker runs RefreshBalancesArgs jobs.
type RefreshBalancesWorker struct {
	river.WorkerDefaults[RefreshBalancesArgs]
	H *Handler
}

// Work reads the balances (the current state, whatever order events came
// in) and stores them; a user the API does not know (any more) is left.
func (w *RefreshBalancesWorker) Work(ctx context.Context, job *river.Job[RefreshBalancesArgs]) error {
	if w.H.API == nil {
		return nil
	}
	_, _, err := userstate.RefreshBalances(ctx, w.H.Store, w.H.API, job.Args.ServiceUserID, w.H.now())
	if apiclient.IsNotFound(err) || apiclient.IsForbidden(err) {
		w.H.Logger.InfoContext(ctx, "balances not refreshed", "service_user_id", job.Args.ServiceUserID, "status", apiclient.StatusCode(err))
		return nil
	}
	if err != nil {
		return fmt.Errorf("webhooks: refresh balances of %s: %w", job.Args.ServiceUserID, err)
	}
	return nil
}

func apiStatus(err error) string {
	if code := apiclient.StatusCode(err); code != 0 {
		return fmt.Sprintf("the API answered %d", code)
	}
	return "the API call failed"
}

// cardTransaction records a card spend with its decimal amount and fee, in
// the activity feed and the card's own feed (shown on the card page).
func (h *Handler) cardTransaction(ev store.WebhookEvent, env *apiclient.Event) (Outcome, effects, error) {
	decoded, err := env.Decode()
	if err != nil {
		return badPayload(err), effects{}, nil
	}
	p := decoded.(*apiclient.CardTransactionPayload)
	f := payloadFields(env.Payload)
	user := userIn(f)
	amount, fee := p.Amount, p.Fee
	a := store.Activity{
		WebhookEventID: ev.ID, ServiceUserID: user, Kind: store.ActivityCardTransaction, EventType: env.EventType,
		Status: fieldString(f, "status"), Amount: &amount, Fee: &fee, Currency: fieldString(f, "currency"),
		Reference:   fieldString(f, "transactionId", "cardId"),
		Description: strings.TrimSpace("card " + fieldString(f, "cardId") + " " + fieldString(f, "merchantName")),
		OccurredAt:  occurredAt(ev, env),
	}
	eff := effects{activity: []store.Activity{a}}
	if card := fieldString(f, "cardId"); card != "" {
		eff.cards = append(eff.cards, store.CardActivity{
			EventKey: ev.WebhookID, CardID: card, Kind: store.CardActivityTransaction, Status: a.Status,
			Amount: &amount, Fee: &fee, Currency: a.Currency, Merchant: fieldString(f, "merchantName"), OccurredAt: a.OccurredAt,
		})
	}
	return processed(user, "card transaction %s %s (fee %s) in the activity feeds", amount.String(), a.Currency, fee.String()), eff, nil
}

// cardFulfillment records a card's fulfilment change; the live status is
// read from GET /cards/{cardId} (DESIGN.md 7), since events may be stale.
func (h *Handler) cardFulfillment(ev store.WebhookEvent, env *apiclient.Event) (Outcome, effects, error) {
	f := payloadFields(env.Payload)
	user := userIn(f)
	a := store.Activity{
		WebhookEventID: ev.ID, ServiceUserID: user, Kind: store.ActivityCardFulfillment, EventType: env.EventType,
		Status: fieldString(f, "status", "fulfillmentStatus"), Reference: fieldString(f, "cardId"),
		Description: strings.TrimSpace(fieldString(f, "type") + " card " + fieldString(f, "cardId")), OccurredAt: occurredAt(ev, env),
	}
	eff := effects{activity: []store.Activity{a}}
	if a.Reference != "" {
		eff.cards = append(eff.cards, store.CardActivity{
			EventKey: ev.WebhookID, CardID: a.Reference, Kind: store.CardActivityFulfillment, Status: a.Status,
			Detail: a.Description, OccurredAt: a.OccurredAt,
		})
	}
	return processed(user, "card %s fulfilment %q in the activity feeds", a.Reference, a.Status), eff, nil
}

func (h *Handler) readCardStatus(ctx context.Context, _ store.WebhookEvent, env *apiclient.Event) (Outcome, error) {
	f := payloadFields(env.Payload)
	user, card := userIn(f), fieldString(f, "cardId")
	if h.API == nil || user == "" || card == "" {
		return Outcome{}, nil
	}
	c, err := h.API.GetCard(ctx, user, card)
	if err != nil {
		if apiclient.IsNotFound(err) || apiclient.IsForbidden(err) {
			return Outcome{Note: "live status not read: " + apiStatus(err)}, nil
		}
		return Outcome{}, fmt.Errorf("webhooks: read card %s: %w", card, err)
	}
	return Outcome{Note: "live card status " + string(c.Status)}, nil
}
