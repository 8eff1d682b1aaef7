package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"slices"
	"sync"
	"time"
)

// newClient is the load generator's client: keep-alive connections, up to
// 64 idle per host, no compression asked (so the app and the bare handler
// send the same bytes), cookies kept.
func newClient() *http.Client {
	jar, _ := cookiejar.New(nil) // never fails without options
	return &http.Client{
		Jar:     jar,
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        128,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
		// The bench looks at redirects itself.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// latencies are one run's request durations, sorted when read.
type latencies []time.Duration

func (l latencies) pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[int(float64(len(l)-1)*p)]
}

// roundResult is one round of one page against one server.
type roundResult struct {
	Requests      int
	Elapsed       time.Duration
	P50, P95, P99 time.Duration
	// AppCPU and PGCPU are the CPU time the app's process and PostgreSQL
	// spent per request during the round (zero: not measured).
	AppCPU, PGCPU time.Duration
}

func (r roundResult) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// drive sends GETs of url from conns concurrent connections for d and
// records every request's latency. Any answer other than want, or any
// transport error, ends the round with an error: a figure over failed
// requests would flatter the server.
func drive(ctx context.Context, client *http.Client, url string, want, conns int, d time.Duration) (roundResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		all   latencies
		first error
		wg    sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make(latencies, 0, 4096)
			var err error
			for time.Now().Before(deadline) && ctx.Err() == nil {
				var took time.Duration
				if took, err = get(ctx, client, url, want); err != nil {
					break
				}
				local = append(local, took)
			}
			mu.Lock()
			defer mu.Unlock()
			all = append(all, local...)
			if err != nil && first == nil && !errors.Is(err, context.Canceled) {
				first = err
				cancel()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if first != nil {
		return roundResult{}, first
	}
	if err := ctx.Err(); err != nil && len(all) == 0 {
		return roundResult{}, err
	}
	slices.Sort(all)
	return roundResult{Requests: len(all), Elapsed: elapsed, P50: all.pct(0.50), P95: all.pct(0.95), P99: all.pct(0.99)}, nil
}

// get sends one GET and reads the whole body.
func get(ctx context.Context, client *http.Client, url string, want int) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != want {
		return 0, fmt.Errorf("GET %s: status %d, want %d", url, resp.StatusCode, want)
	}
	return took, nil
}

// median of a few values (the lower middle for an even count).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func medianDur(v []time.Duration) time.Duration {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
