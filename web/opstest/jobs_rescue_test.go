package opstest

import (
	"context"
	"testing"
	"time"

	"partneradmin/web/webtest"
)

// A job left "running" by a process killed mid-job runs again within a
// minute or so (river's rescuer, set to the jobs' short length), not after
// river's default hour.
func TestOrphanedJobRunsAgainSoon(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	ctx := context.Background()
	// A job a dead worker took two minutes ago and never finished.
	var id int64
	err := env.Store.Pool().QueryRow(ctx, `
		INSERT INTO river_job (args, kind, max_attempts, queue, state, attempt, attempted_at, attempted_by, scheduled_at, priority)
		VALUES ('{}', 'recover_actions', 25, 'default', 'running', 1, now() - interval '2 minutes', '{dead-worker}', now() - interval '2 minutes', 1)
		RETURNING id`).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	webtest.WaitFor(t, "the orphaned job to be rescued and completed", 90*time.Second, func() bool {
		var state string
		if err := env.Store.Pool().QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, id).Scan(&state); err != nil {
			t.Fatal(err)
		}
		return state == "completed"
	})
}
