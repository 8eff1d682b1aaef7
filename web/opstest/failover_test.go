package opstest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/store/localpg"
	"partneradmin/web/webtest"
)

// failoverLoad is what the clients saw while the database failed over.
type failoverLoad struct {
	mu         sync.Mutex
	statuses   map[string]map[int]int // what → status → count
	faults     []string               // transport errors and 500s
	acked      []string               // webhook ids answered 200
	sessions   []*http.Client         // signed in (303 to the start page)
	actions    []string               // ledger keys of card changes answered as done
	firstOK    atomic.Int64           // unix nanos of the first page answered 200 after the promotion
	promotedAt atomic.Int64
}

func (l *failoverLoad) saw(what string, status int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.faults = append(l.faults, fmt.Sprintf("%s: %v", what, err))
		return
	}
	if l.statuses[what] == nil {
		l.statuses[what] = map[int]int{}
	}
	l.statuses[what][status]++
	if status >= 500 && status != http.StatusServiceUnavailable {
		l.faults = append(l.faults, fmt.Sprintf("%s: status %d", what, status))
	}
	if status == http.StatusOK && what == "page" {
		if p := l.promotedAt.Load(); p != 0 {
			l.firstOK.CompareAndSwap(0, time.Now().UnixNano())
		}
	}
}

// TestPostgresFailover runs the app on a primary with a synchronous
// streaming standby, named together in a multi-host DATABASE_URL with
// target_session_attrs=read-write. Under load (pages, sign-ins, webhook
// deliveries, card changes through the ledger) the primary's machine dies
// and the standby is promoted: meanwhile pages answer 503, never 500; the
// app reconnects without a restart; nothing it acknowledged is lost.
func TestPostgresFailover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	primary, err := localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(dir, "primary"), ForTests: true,
		LogFile:  filepath.Join(dir, "primary.log"),
		Settings: []string{"synchronous_commit=on"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = primary.Kill() })
	const db = "partneradmin"
	if err := primary.EnsureDatabase(ctx, db); err != nil {
		t.Fatal(err)
	}
	pool, err := store.Open(ctx, primary.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	pool.Close()
	standby, err := localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(dir, "standby"), ForTests: true,
		LogFile: filepath.Join(dir, "standby.log"), StandbyOf: primary,
		// How often a standby that lost its primary looks for WAL again:
		// a promotion waits for the current wait to end (default 5 s).
		Settings: []string{"wal_retrieve_retry_interval=500ms"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Stop(context.Background()) })
	// From now on each commit waits for the standby: an acknowledged write
	// is on both machines. (Set once the standby streams: until then a
	// commit would wait for it forever.)
	pool, err = store.Open(ctx, primary.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ALTER SYSTEM SET synchronous_standby_names = '*'`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT pg_reload_conf()`); err != nil {
		t.Fatal(err)
	}
	webtest.WaitFor(t, "the standby in synchronous replication", 30*time.Second, func() bool {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'`).Scan(&n)
		return err == nil && n == 1
	})
	pool.Close()

	u, err := url.Parse(primary.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	u.Host += fmt.Sprintf(",127.0.0.1:%d", standby.Port())
	q := u.Query()
	q.Set("target_session_attrs", "read-write")
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	env := webtest.New(t, webtest.Options{DatabaseURL: u.String(), StartWorkers: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	owner := env.CreateStaff(store.RoleOwner)
	support := env.CreateStaff(store.RoleSupport)
	sc := env.Client()
	env.Login(sc, support.Email, support.Password)
	resp := env.PostForm(sc, "/cards/refresh", nil)
	resp.Body.Close()
	card := webtest.DemoCard(t, env, "Everyday")

	load := &failoverLoad{statuses: map[string]map[int]int{}}
	t.Cleanup(func() {
		if t.Failed() {
			load.mu.Lock()
			defer load.mu.Unlock()
			t.Logf("answers by status: %v; acked %d, sessions %d, card changes %d; faults: %v",
				load.statuses, len(load.acked), len(load.sessions), len(load.actions), load.faults[:min(5, len(load.faults))])
		}
	})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Each client sends a request every 20 ms at most: steady load that
	// leaves the machine's two cores to the databases too.
	worker := func(fn func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				fn(i)
			}
		}()
	}

	// Pages, as signed-in people read them.
	for range 4 {
		c := env.Client()
		env.Login(c, owner.Email, owner.Password)
		worker(func(int) {
			for _, p := range []string{"/", "/employees", "/approvals", "/audit"} {
				resp, err := c.Get(env.URL(p))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					load.saw("page", resp.StatusCode, nil)
				} else {
					load.saw("page", 0, err)
				}
			}
		})
	}
	// Sign-ins: each answered one is a session and an audit row.
	worker(func(int) {
		c := env.Client()
		resp, err := c.PostForm(env.URL("/login"), url.Values{"email": {support.Email}, "password": {support.Password}})
		if err != nil {
			load.saw("login", 0, err)
			return
		}
		resp.Body.Close()
		load.saw("login", resp.StatusCode, nil)
		if resp.StatusCode == http.StatusSeeOther && resp.Header.Get("Location") == "/" {
			load.mu.Lock()
			load.sessions = append(load.sessions, c)
			load.mu.Unlock()
		}
	})
	// Webhook deliveries: each answered 200 must be stored.
	worker(func(i int) {
		id := fmt.Sprintf("wh-failover-%d", i)
		body := webtest.EventBody(id, "user.updated", map[string]any{"userId": "unknown-user"})
		resp, err := webtest.Deliver(t, http.DefaultClient, env.Server.URL, secret, id, body)
		if err != nil {
			load.saw("webhook", 0, err)
			return
		}
		load.saw("webhook", resp.StatusCode, nil)
		if resp.StatusCode == http.StatusOK {
			load.mu.Lock()
			load.acked = append(load.acked, id)
			load.mu.Unlock()
		}
	})
	// Card changes through the ledger: each answered as done must have
	// its action recorded as done.
	worker(func(int) {
		resp, err := sc.Get(env.URL("/cards/" + card.ID))
		if err != nil {
			load.saw("card", 0, err)
			return
		}
		doc, derr := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || derr != nil {
			load.saw("card", resp.StatusCode, derr)
			return
		}
		form := doc.Find(`[data-testid="card-status-panel"] form`).First()
		action, _ := form.Attr("action")
		token, _ := form.Find(`input[name="` + handlers.FormTokenField + `"]`).Attr("value")
		if action == "" || token == "" {
			load.saw("card", 0, fmt.Errorf("no freeze or unfreeze form on the card page"))
			return
		}
		v := url.Values{handlers.FormTokenField: {token}, "reason": {"call from the cardholder"}}
		resp, err = sc.PostForm(env.URL(action), v)
		if err != nil {
			load.saw("card", 0, err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		load.saw("card", resp.StatusCode, nil)
		// The card's page, with what was done said on it.
		if resp.StatusCode == http.StatusOK && (strings.Contains(string(b), "Frozen: payments are declined") ||
			strings.Contains(string(b), "Unfrozen: the card can be used again")) {
			load.mu.Lock()
			load.actions = append(load.actions, "form:"+token)
			load.mu.Unlock()
		}
	})

	// Some load on the primary, then its machine dies.
	webtest.WaitFor(t, "load on the primary", 30*time.Second, func() bool {
		load.mu.Lock()
		defer load.mu.Unlock()
		return len(load.acked) >= 5 && len(load.sessions) >= 3 && len(load.actions) >= 2
	})
	killed := time.Now()
	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	// The operator (or the cluster manager) notices pages failing, and
	// promotes the standby.
	webtest.WaitFor(t, "pages answering 503 after the primary died", 30*time.Second, func() bool {
		load.mu.Lock()
		defer load.mu.Unlock()
		return load.statuses["page"][http.StatusServiceUnavailable] > 0
	})
	promoting := time.Now()
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	load.promotedAt.Store(time.Now().UnixNano())
	webtest.WaitFor(t, "a page served after the failover", 60*time.Second, func() bool { return load.firstOK.Load() != 0 })
	recovered := time.Unix(0, load.firstOK.Load()).Sub(killed)
	// More load on the new primary, then stop.
	ackedAtPromotion := func() int { load.mu.Lock(); defer load.mu.Unlock(); return len(load.acked) }()
	webtest.WaitFor(t, "deliveries on the new primary", 30*time.Second, func() bool {
		load.mu.Lock()
		defer load.mu.Unlock()
		return len(load.acked) >= ackedAtPromotion+5
	})
	close(stop)
	wg.Wait()

	load.mu.Lock()
	defer load.mu.Unlock()
	promoted := time.Unix(0, load.promotedAt.Load())
	t.Logf("failover: pages answered 503 from the primary's death; the standby's promotion began %s after it and took %s; the first page was served %s after the death; answers by status: %v",
		promoting.Sub(killed).Round(time.Millisecond), promoted.Sub(promoting).Round(time.Millisecond), recovered.Round(time.Millisecond), load.statuses)
	if len(load.faults) > 0 {
		t.Fatalf("%d requests failed other than with 503, e.g. %s", len(load.faults), strings.Join(load.faults[:min(5, len(load.faults))], "; "))
	}

	// Nothing acknowledged is lost: read on the new primary.
	check, err := store.Open(ctx, standby.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	var stored int
	if err := check.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE webhook_id = ANY($1)`, load.acked).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != len(load.acked) {
		t.Errorf("%d of %d acknowledged webhook deliveries are on the new primary", stored, len(load.acked))
	}
	var done int
	if err := check.QueryRow(ctx, `SELECT count(*) FROM actions WHERE key = ANY($1) AND state = 'done'`, load.actions).Scan(&done); err != nil {
		t.Fatal(err)
	}
	if done != len(load.actions) {
		t.Errorf("%d of %d card changes answered as done are done in the ledger", done, len(load.actions))
	}
	var logins int
	if err := check.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'auth.login' AND outcome = 'ok' AND actor_id = $1`, support.ID).Scan(&logins); err != nil {
		t.Fatal(err)
	}
	if logins < len(load.sessions) {
		t.Errorf("%d sign-in audit rows for %d answered sign-ins", logins, len(load.sessions))
	}
	for i, c := range load.sessions {
		resp, err := c.Get(env.URL("/cards"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("session %d of %d made before or during the failover: /cards answers %d", i+1, len(load.sessions), resp.StatusCode)
		}
	}
}
