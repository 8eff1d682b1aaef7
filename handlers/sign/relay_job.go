package sign

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// A relayed signature whose outcome the API did not give is an open action
// of the ledger: the ledger's recovery job reads it back (readBackSubmit)
// and never sends it again. What is left here is ending links nobody used.

// RelayInterval is how often links past their deadline are expired.
const RelayInterval = 10 * time.Second

// RelayArgs is the periodic job that expires links nobody used in time.
// (Its name predates the ledger; web/app.go registers it by this name.)
type RelayArgs struct{}

// Kind names the job.
func (RelayArgs) Kind() string { return "sign_links_expire" }

// InsertOpts: one run per period across replicas.
func (RelayArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByPeriod: RelayInterval}}
}

// RelayWorker runs RelayArgs.
type RelayWorker struct {
	river.WorkerDefaults[RelayArgs]
	H *Handler
}

// Work expires stale links.
func (w *RelayWorker) Work(ctx context.Context, _ *river.Job[RelayArgs]) error {
	_, err := w.H.ExpireLinks(ctx)
	return err
}

// ExpireLinks ends the unused links whose deadline passed, and says how
// many.
func (h *Handler) ExpireLinks(ctx context.Context) (int64, error) {
	return h.store.ExpireStaleSignRequests(ctx, h.clock())
}
