package web

import "runtime/debug"

// GCPercent is the garbage collector's target the server runs with unless
// GOGC is set. A request allocates a few hundred kilobytes that die with it
// while the live heap stays small, so Go's default (100) collects many times
// a second under load; 400 collects a quarter as often for a heap that
// stays in the tens of megabytes (the README has the measured effect).
const GCPercent = 400

// MemoryLimit is the soft memory limit the server runs with unless
// GOMEMLIMIT is set. With GCPercent at 400 one collection made while the
// start-up's argon2id hashes hold their 32 MiB each set a heap target that
// let the process grow to about 190 MiB before settling near 50 MiB; a soft
// limit makes the collector run earlier instead (a single bench run with
// 150 MiB peaked at 158 MiB). It is above the password hashing's own budget
// (four hashes at once, 128 MiB) plus the app's live heap, so logins under
// load do not make the collector run back to back, and below the 200 MiB
// the README's budget allows.
const MemoryLimit = 180 << 20

// TuneRuntime applies GCPercent and MemoryLimit unless the environment's
// GOGC or GOMEMLIMIT says otherwise (getenv is os.Getenv). The server's main
// calls it, and so do the benchmarks, so that they measure what runs.
func TuneRuntime(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
