package auth

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// PruneLoginFailuresArgs is the periodic job that forgets old failed
// sign-ins, long after they stopped counting towards the limit.
type PruneLoginFailuresArgs struct{}

// Kind names the job in river's table.
func (PruneLoginFailuresArgs) Kind() string { return "prune_login_failures" }

// PruneLoginFailuresWorker runs the job. Deleting old rows is idempotent.
type PruneLoginFailuresWorker struct {
	river.WorkerDefaults[PruneLoginFailuresArgs]
	Store interface {
		PruneLoginFailures(ctx context.Context, before time.Time) (int64, error)
	}
	Now func() time.Time
}

// Work deletes failures older than a day.
func (w *PruneLoginFailuresWorker) Work(ctx context.Context, job *river.Job[PruneLoginFailuresArgs]) error {
	_, err := w.Store.PruneLoginFailures(ctx, w.Now().Add(-24*time.Hour))
	return err
}
