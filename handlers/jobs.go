package handlers

import "time"

// A background job whose work can be long (a payroll run, a bulk invite,
// an onboarding run) works in parts, each one job attempt: it starts work
// for at most JobPartBudget, waits for the calls in flight (each bounded by
// the ledger's call timeout), and comes back at once for the rest (a
// snooze, which spends no attempt). JobTimeout is what a part may take,
// well over that. River rescues a job left "running" by a killed process
// only once its timeout and RescueStuckJobsAfter have passed, so a short
// timeout is what lets an orphaned run go on soon after a restart.
const (
	JobPartBudget = 20 * time.Second
	JobTimeout    = time.Minute
)
