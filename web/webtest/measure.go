// Latency measurement for the benchmarks of several test packages.

package webtest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// MeasureGets sends b.N GETs of path from clients concurrent clients with
// signed's cookies (as htmx's polls when hx) and reports the latencies' p50
// and p99 (ms) as metrics; BENCH_CLIENTS overrides clients. It asserts
// nothing about time.
func MeasureGets(b *testing.B, env *Env, signed *http.Client, path string, clients int, hx bool) (p50, p99 float64) {
	b.Helper()
	client := &http.Client{Jar: signed.Jar, Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	get := func() (time.Duration, error) {
		req, _ := http.NewRequest(http.MethodGet, env.URL(path), nil)
		if hx {
			req.Header.Set("HX-Request", "true")
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("status %d", resp.StatusCode)
		}
		return time.Since(start), err
	}
	if _, err := get(); err != nil {
		b.Fatal(err)
	}
	if n, err := strconv.Atoi(os.Getenv("BENCH_CLIENTS")); err == nil && n > 0 {
		clients = n
	}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Value
	b.ResetTimer()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				d, err := get()
				if err != nil {
					failed.Store(err)
					return
				}
				lat[i] = d
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000
	}
	p50, p99 = pct(0.50), pct(0.99)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	b.ReportMetric(0, "ns/op")
	return p50, p99
}
