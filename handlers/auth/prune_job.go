package auth

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// PruneLoginFailuresArgs is the periodic job that forgets old failed
// sign-ins and old rate-limit hits, long after they stopped counting towards
// their limits, and deletes expired sessions and set-password links.
type PruneLoginFailuresArgs struct{}

// Kind names the job in river's table.
func (PruneLoginFailuresArgs) Kind() string { return "prune_login_failures" }

// PruneLoginFailuresWorker runs the job. Deleting old rows is idempotent.
type PruneLoginFailuresWorker struct {
	river.WorkerDefaults[PruneLoginFailuresArgs]
	Store interface {
		PruneLoginFailures(ctx context.Context, before time.Time) (int64, error)
		PruneRateLimitHits(ctx context.Context, before time.Time) (int64, error)
		PruneSessions(ctx context.Context) (int64, error)
		PruneSetPasswordLinks(ctx context.Context, before time.Time) (int64, error)
	}
	Now func() time.Time
}

// Work deletes failures and hits older than a day, and expired sessions and
// set-password links.
func (w *PruneLoginFailuresWorker) Work(ctx context.Context, job *river.Job[PruneLoginFailuresArgs]) error {
	now := w.Now()
	before := now.Add(-24 * time.Hour)
	if _, err := w.Store.PruneLoginFailures(ctx, before); err != nil {
		return err
	}
	if _, err := w.Store.PruneRateLimitHits(ctx, before); err != nil {
		return err
	}
	if _, err := w.Store.PruneSetPasswordLinks(ctx, now); err != nil {
		return err
	}
	_, err := w.Store.PruneSessions(ctx)
	return err
}
