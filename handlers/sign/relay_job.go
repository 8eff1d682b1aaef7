package sign

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/handlers/approvals"
	"partneradmin/store"
)

// RelayInterval is how often unsure relays are resolved and stale links
// expired.
const RelayInterval = 10 * time.Second

// RelayArgs is the periodic job that resolves relays the API did not answer.
type RelayArgs struct{}

// Kind names the job.
func (RelayArgs) Kind() string { return "sign_relay_resolve" }

// InsertOpts: one run per period across replicas.
func (RelayArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByPeriod: RelayInterval}}
}

// RelayWorker runs RelayArgs.
type RelayWorker struct {
	river.WorkerDefaults[RelayArgs]
	H *Handler
}

// Work resolves every unsure relay and expires stale links.
func (w *RelayWorker) Work(ctx context.Context, _ *river.Job[RelayArgs]) error {
	_, err := w.H.ResolveRelays(ctx)
	return err
}

// ResolveRelays looks at each relay the API did not answer. A sign is not
// idempotent, so the proposal is read first: if the API recorded the
// signature (more signatures than before, or the proposal moved on), the
// request is finished; only if the proposal still waits with the same
// count is the kept signature sent again, once per run, until the deadline.
func (h *Handler) ResolveRelays(ctx context.Context) (int, error) {
	now := h.now()
	if _, err := h.Store.ExpireStaleSignRequests(ctx, now); err != nil {
		return 0, err
	}
	ids, err := h.Store.RelayPendingIDs(ctx, now)
	if err != nil {
		return 0, err
	}
	resolved := 0
	for _, id := range ids {
		sr, err := h.Store.TakeRelayPending(ctx, id, now)
		if errors.Is(err, store.ErrSignRequestGone) {
			continue
		}
		if err != nil {
			return resolved, err
		}
		ok, err := h.resolveOne(ctx, sr)
		if err != nil {
			h.Logger.WarnContext(ctx, "sign relay: still unsure", "sign_request", sr.ID, "err", err)
		}
		if ok {
			resolved++
		}
	}
	return resolved, nil
}

func (h *Handler) resolveOne(ctx context.Context, sr store.SignRequest) (bool, error) {
	giveBack := func(err error) (bool, error) {
		_, serr := h.Store.SetSignState(ctx, sr.ID, store.SignChecking, store.SignRelayPending, sr.Error)
		return false, errors.Join(err, serr)
	}
	if sr.Kind != store.SignKindProposal {
		// A workflow has no read-back in the spec: leave it for a person.
		return giveBack(nil)
	}
	cur, err := h.API.GetProposal(ctx, sr.UserID, sr.ProposalID)
	if err != nil {
		return giveBack(err)
	}
	p := approvals.FromAPI(*cur, sr.UserID)
	if cur.CollectedSignatures > sr.CollectedBefore || cur.Status != apiclient.ProposalPendingSignatures {
		state := store.SignSubmitted
		if cur.Status == apiclient.ProposalCompleted {
			state = store.SignCompleted
		}
		return true, h.Store.FinishSignRelay(ctx, sr.ID, state, &p)
	}
	// Certainly not recorded: send the kept signature again, once.
	if err := h.Store.MarkSignRelaying(ctx, sr.ID, sr.Signature, sr.CollectedBefore); err != nil {
		return false, err
	}
	after, err := h.API.SignProposal(ctx, sr.UserID, sr.ProposalID, apiclient.SignProposalRequest{Signature: sr.Signature})
	if err != nil {
		if apiclient.StatusCode(err) == 0 {
			return false, h.Store.MarkSignRelayUnsure(ctx, sr.ID, sr.Error)
		}
		return true, h.Store.RefuseSignRequest(ctx, sr.ID, UpstreamWords(err))
	}
	state := store.SignSubmitted
	if after.Status == apiclient.ProposalCompleted {
		state = store.SignCompleted
	}
	ap := approvals.FromAPI(*after, sr.UserID)
	return true, h.Store.FinishSignRelay(ctx, sr.ID, state, &ap)
}
