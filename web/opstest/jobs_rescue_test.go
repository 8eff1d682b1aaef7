package opstest

import (
	"context"
	"testing"
	"time"

	"partneradmin/web/webtest"
)

// A job left "running" by a process killed mid-job runs again within a
// minute or so (river's rescuer, set to the jobs' short length), not after
// river's default hour, nor after a long job's own timeout: the jobs that
// send long runs (bulk invites, onboarding starts, payroll) work in parts
// with a short timeout each.
func TestOrphanedJobRunsAgainSoon(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	ctx := context.Background()
	// Jobs a dead worker took two minutes ago and never finished. The runs
	// they name do not exist: taken again, each fails at once (and is
	// retried later), which is enough to show it was rescued.
	jobs := map[string]string{
		"recover_actions":            `{}`,
		"employees_bulk_invite":      `{"run_id": 987654}`,
		"employees_onboarding_start": `{"run_id": 987654}`,
		"payroll_send":               `{"run_id": 987654, "by": {"email": "test"}}`,
		"payroll_approve":            `{"approval_id": 987654}`,
	}
	ids := map[string]int64{}
	for kind, args := range jobs {
		var id int64
		err := env.Store.Pool().QueryRow(ctx, `
			INSERT INTO river_job (args, kind, max_attempts, queue, state, attempt, attempted_at, attempted_by, scheduled_at, priority)
			VALUES ($1, $2, 25, 'default', 'running', 1, now() - interval '2 minutes', '{dead-worker}', now() - interval '2 minutes', 1)
			RETURNING id`, args, kind).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		ids[kind] = id
	}
	webtest.WaitFor(t, "the orphaned jobs to be rescued and taken again", 90*time.Second, func() bool {
		for kind, id := range ids {
			var state string
			var attempt int
			if err := env.Store.Pool().QueryRow(ctx, `SELECT state, attempt FROM river_job WHERE id = $1`, id).Scan(&state, &attempt); err != nil {
				t.Fatal(err)
			}
			if kind == "recover_actions" && state != "completed" {
				return false
			}
			if state == "running" && attempt == 1 || state == "available" || state == "retryable" && attempt == 1 {
				return false
			}
		}
		return true
	})
}
