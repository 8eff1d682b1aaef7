package webhooks

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// RetentionInterval is how often the body retention job runs.
const RetentionInterval = time.Hour

// retentionBatch bounds one statement of the job, so no transaction holds
// many rows locked at once.
const retentionBatch = 1000

// RetentionArgs is the periodic job that blanks the bodies of processed
// events older than the retention (WEBHOOK_BODY_RETENTION). River's leader
// schedules it, so it runs once across replicas.
type RetentionArgs struct{}

// Kind names the job in river's table.
func (RetentionArgs) Kind() string { return "webhook_body_retention" }

// RetentionWorker runs the job.
type RetentionWorker struct {
	river.WorkerDefaults[RetentionArgs]
	Store interface {
		RemoveWebhookBodies(ctx context.Context, cutoff, now time.Time, limit int) (int, error)
	}
	// Retention is how long a processed event keeps its body; 0 keeps it.
	Retention time.Duration
	Now       func() time.Time
	Logger    *slog.Logger
}

// Work blanks the bodies due, in batches, and logs how many it removed.
func (w *RetentionWorker) Work(ctx context.Context, _ *river.Job[RetentionArgs]) error {
	_, err := w.Run(ctx)
	return err
}

// Run removes the bodies due now and returns how many it removed.
func (w *RetentionWorker) Run(ctx context.Context) (int, error) {
	if w.Retention <= 0 {
		return 0, nil
	}
	now := w.Now()
	cutoff := now.Add(-w.Retention)
	total := 0
	for {
		n, err := w.Store.RemoveWebhookBodies(ctx, cutoff, now, retentionBatch)
		total += n
		if err != nil {
			w.Logger.ErrorContext(ctx, "webhook body retention", "removed", total, "err", err)
			return total, err
		}
		if n < retentionBatch {
			break
		}
	}
	w.Logger.InfoContext(ctx, "webhook body retention", "removed", total, "received_before", cutoff, "retention_days", RetentionDays(w.Retention))
	return total, nil
}

// RetentionDays is a retention in whole days, rounded up, as pages say it.
func RetentionDays(d time.Duration) int {
	return int((d + 24*time.Hour - 1) / (24 * time.Hour))
}
