package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/handlers/approvals"
	"partneradmin/handlers/mirror"
)

// roundRobin is the load balancer of --replicas: a reverse proxy on
// loopback that sends each request to the next replica in turn, the way a
// production balancer without sticky sessions spreads them. Every page,
// sign-in and webhook delivery of the run goes through it.
type roundRobin struct {
	targets []*url.URL
	next    atomic.Uint64
	served  []atomic.Int64
	srv     *http.Server
	URL     string
}

func startRoundRobin(ctx context.Context, addrs []string) (*roundRobin, error) {
	rr := &roundRobin{served: make([]atomic.Int64, len(addrs))}
	for _, a := range addrs {
		u, err := url.Parse("http://" + a)
		if err != nil {
			return nil, err
		}
		rr.targets = append(rr.targets, u)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := int((rr.next.Add(1) - 1) % uint64(len(rr.targets)))
			rr.served[i].Add(1)
			pr.SetURL(rr.targets[i])
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 128, IdleConnTimeout: 90 * time.Second,
			DisableCompression: true},
		// Redirects and errors are the replicas' own answers, passed on.
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "round robin: "+err.Error(), http.StatusBadGateway)
		},
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rr.srv = &http.Server{Handler: proxy, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = rr.srv.Serve(ln) }()
	rr.URL = "http://" + ln.Addr().String()
	return rr, nil
}

func (rr *roundRobin) close() { _ = rr.srv.Close() }

// counts is how many requests each replica was sent.
func (rr *roundRobin) counts() []int64 {
	out := make([]int64, len(rr.served))
	for i := range rr.served {
		out[i] = rr.served[i].Load()
	}
	return out
}

// replicaChecks are what --replicas proves beyond the figures.
type replicaChecks struct {
	Served []int64 // requests the balancer sent to each replica
	// SessionEverywhere: the owner's session (made through the balancer,
	// on whichever replica) opened the start page on each replica asked
	// directly; SignedOutEverywhere: after signing out through the
	// balancer, each replica asked directly sent the same cookie to the
	// sign-in page.
	SessionEverywhere, SignedOutEverywhere bool
	// Periodic jobs of the run: how many times each ran, and how many
	// periods the run lasted (a job running once across replicas runs at
	// most once a period, plus its run at start).
	SyncRuns, StaleRuns       int
	SyncPeriods, StalePeriods int
}

// checkSessionsOnEveryReplica asks each replica directly for the start page
// with the client's cookies (a cookie is not bound to a port): want is
// http.StatusOK while signed in, or a redirect to /login after signing out.
func checkSessionsOnEveryReplica(ctx context.Context, c *http.Client, addrs []string, signedIn bool) error {
	for _, a := range addrs {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+a+"/", nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		switch {
		case signedIn && resp.StatusCode != http.StatusOK:
			return fmt.Errorf("replica %s: the session made through the balancer got %d (to %q)", a, resp.StatusCode, loc)
		case !signedIn && (resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/login")):
			return fmt.Errorf("replica %s: a signed-out session got %d (to %q), not the sign-in page", a, resp.StatusCode, loc)
		}
	}
	return nil
}

// signOut signs the client out through base (the balancer).
func signOut(ctx context.Context, c *http.Client, base string) error {
	resp, err := postForm(ctx, c, base+"/logout", url.Values{})
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("sign out: status %d", resp.StatusCode)
	}
	return nil
}

// periodicRuns counts the runs of a periodic job kind since start, and the
// periods of every elapsed since then.
func periodicRuns(ctx context.Context, pool *pgxpool.Pool, kind string, since time.Time, every time.Duration) (runs, periods int, err error) {
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1 AND created_at >= $2`, kind, since).Scan(&runs); err != nil {
		return 0, 0, fmt.Errorf("count %s runs: %w", kind, err)
	}
	return runs, int(time.Since(since)/every) + 1, nil
}

// The periods of the periodic jobs the replicas check counts.
const (
	approvalsSyncEvery = approvals.SyncInterval
	staleBalancesEvery = mirror.StaleBalancesInterval
)

// errReplicaCheck is a --replicas check that failed.
var errReplicaCheck = errors.New("replicas")
