package web

import "runtime/debug"

// GCPercent is the garbage collector's target the server runs with unless
// GOGC is set. A request allocates a few hundred kilobytes that die with it
// while the live heap stays small, so Go's default (100) collects many times
// a second under load; 400 collects a quarter as often for a heap that
// stays in the tens of megabytes (the README has the measured effect).
const GCPercent = 400

// TuneRuntime applies GCPercent unless the environment's GOGC says
// otherwise (getenv is os.Getenv). The server's main calls it, and so do the
// benchmarks, so that they measure what runs.
func TuneRuntime(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
