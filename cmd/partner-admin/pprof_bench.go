//go:build benchpprof

package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"
)

// Built only by `go run ./cmd/bench --pprof DIR` (the benchpprof tag): the
// Go profiler on its own loopback listener, BENCH_PPROF_ADDR, never on the
// app's routes. A normal build has none of this.
func init() {
	addr := os.Getenv("BENCH_PPROF_ADDR")
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(os.Stderr, "BENCH_PPROF_ADDR %q: only a loopback host:port; profiler not started\n", addr)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); err != nil {
			fmt.Fprintf(os.Stderr, "bench profiler: %v\n", err)
		}
	}()
}
