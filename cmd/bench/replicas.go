package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/handlers/approvals"
	"partneradmin/handlers/userstate"
	"partneradmin/web/nginxtest"
)

// roundRobin is the load balancer of --replicas: nginx (Debian's package,
// web/nginxtest) on loopback, sending each request to the next replica in
// turn, the way a production balancer without sticky sessions spreads
// them. Every page, sign-in and webhook delivery of the run goes through
// it.
type roundRobin struct {
	nginx    *nginxtest.Server
	URL      string
	replicas int
}

func startRoundRobin(ctx context.Context, addrs []string) (*roundRobin, error) {
	s, err := nginxtest.Run(ctx, nginxtest.Options{Upstreams: addrs})
	if err != nil {
		return nil, err
	}
	return &roundRobin{nginx: s, URL: s.URL, replicas: len(addrs)}, nil
}

func (rr *roundRobin) close() { _ = rr.nginx.Stop() }

// counts is how many requests nginx sent to each replica (its access log);
// all zero when the log cannot be read, which the replica checks refuse.
func (rr *roundRobin) counts() []int64 {
	n, err := rr.nginx.Served()
	if err != nil {
		return make([]int64, rr.replicas)
	}
	return n
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
	staleBalancesEvery = userstate.StaleBalancesInterval
)

// errReplicaCheck is a --replicas check that failed.
var errReplicaCheck = errors.New("replicas")
