package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5"
	"github.com/pquerna/otp/totp"

	"partneradmin/apiclient"
	"partneradmin/handlers/webhooks"
	"partneradmin/store/pgtest"
	"partneradmin/web/nginxtest"
	"partneradmin/web/webtest"
)

// The rolling restart's load: clients looping over signed-in pages, and
// senders posting webhook deliveries, all through nginx.
const (
	rollingClients = 32
	rollingSenders = 8 // of rollingClients
)

// rollingPages are the signed-in pages the clients read: each answers 200
// from the database alone.
var rollingPages = []string{"/", "/staff", "/audit", "/events", "/approvals", "/account/sessions"}

// TestRollingRestartDropsNothing runs three replicas of the binary behind
// nginx, keeps 32 clients busy through nginx (signed-in pages and signed
// webhook deliveries), and restarts each replica in turn as a rollout
// does: SIGTERM, its exit, the same binary started on the same port, its
// /readyz. No request fails, every acknowledged delivery is stored once
// and processed once, and every background job the deliveries started
// finishes.
func TestRollingRestartDropsNothing(t *testing.T) {
	t.Parallel()
	if _, err := nginxtest.Binary(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	bin := buildBinary(t)
	dsn := pgtest.NewDatabase(t)
	apiURL, apiKey := startSandbox(t)
	const ownerEmail, ownerPassword = "owner@partner.example", "a rolling restart"
	envOf := func(addr string) map[string]string {
		return map[string]string{
			"DATABASE_URL": dsn, "PARTNER_API_BASE_URL": apiURL, "PARTNER_API_KEY": apiKey,
			"ENCRYPTION_KEY": strings.Repeat("4d", 32), "OWNER_EMAIL": ownerEmail, "OWNER_PASSWORD": ownerPassword,
			"ADDR": addr, "PUBLIC_ORIGIN": "http://127.0.0.1", "DATA_DIR": t.TempDir(), "TRUSTED_PROXIES": "127.0.0.1",
		}
	}
	// Fixed ports, so that a replica started again takes its old place in
	// nginx's list.
	addrs := make([]string, 3)
	for i := range addrs {
		addrs[i] = freeLoopbackAddr(t)
	}
	replicas := make([]*replica, len(addrs))
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { replicas[i], errs[i] = startReplica(t, bin, envOf(addrs[i])) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i := range replicas {
		waitReady(t, i, addrs[i])
	}
	lb := nginxtest.Start(t, addrs...)

	jar := signInJar(t, lb.URL, ownerEmail, ownerPassword)
	secret := subscribeWebhooks(t, &http.Client{Jar: jar, Timeout: 30 * time.Second}, lb.URL)

	// The load runs until stopLoad; each client finishes the request it
	// has started.
	var (
		sent, posted, failed atomic.Int64
		mu                   sync.Mutex
		failures             []string
		acked                []string
	)
	fail := func(what string) {
		failed.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, what)
		}
	}
	loadCtx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var load sync.WaitGroup
	loadStart := time.Now()
	for w := range rollingClients {
		c := &http.Client{Jar: jar, Timeout: 30 * time.Second,
			Transport:     &http.Transport{MaxIdleConnsPerHost: 2},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		defer c.CloseIdleConnections()
		load.Go(func() {
			for n := 0; loadCtx.Err() == nil; n++ {
				sent.Add(1)
				if w < rollingSenders {
					posted.Add(1)
					id := fmt.Sprintf("roll-%d-%d", w, n)
					status, err := deliver(c, lb.URL, secret, id)
					switch {
					case err != nil:
						fail(fmt.Sprintf("delivery %s: %v", id, err))
					case status != http.StatusOK:
						fail(fmt.Sprintf("delivery %s: %d", id, status))
					default:
						mu.Lock()
						acked = append(acked, id)
						mu.Unlock()
					}
					continue
				}
				page := rollingPages[n%len(rollingPages)]
				status, err := statusOf(c.Get(lb.URL + page))
				if err != nil {
					fail(fmt.Sprintf("GET %s: %v", page, err))
				} else if status != http.StatusOK {
					fail(fmt.Sprintf("GET %s: %d", page, status))
				}
			}
		})
	}
	// The load is steady before the first restart, and between restarts.
	steady := func(what string) {
		t.Helper()
		from := sent.Load()
		webtest.WaitFor(t, what, time.Minute, func() bool { return sent.Load() >= from+300 })
	}
	steady("load under way")

	restarts := make([]time.Duration, len(replicas))
	drains := make([]time.Duration, len(replicas))
	for i, r := range replicas {
		before, err := lb.Served()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-r.done:
			r.done <- err
			if err != nil {
				t.Fatalf("replica %d after SIGTERM: %v\n%s", i+1, err, r.stderr)
			}
		case <-time.After(time.Minute):
			t.Fatalf("replica %d does not exit within a minute of SIGTERM\n%s", i+1, r.stderr)
		}
		drains[i] = time.Since(start)
		again, err := startReplica(t, bin, envOf(addrs[i]))
		if err != nil {
			t.Fatal(err)
		}
		replicas[i] = again
		waitReady(t, i, addrs[i])
		restarts[i] = time.Since(start)
		// nginx sends the new process its share again.
		webtest.WaitFor(t, fmt.Sprintf("replica %d serving again through nginx", i+1), time.Minute, func() bool {
			now, err := lb.Served()
			return err == nil && now[i] > before[i]+10
		})
		steady(fmt.Sprintf("load after restarting replica %d", i+1))
	}
	stopLoad()
	load.Wait()
	loadFor := time.Since(loadStart)

	// Every acknowledged delivery was stored once and processed once, and
	// the jobs behind them (and any other) have finished: none is left
	// running by a process that went away, or waiting.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var unfinished string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("at the end: %s", unfinished)
		}
	})
	webtest.WaitFor(t, "every delivery processed and every job finished", time.Minute, func() bool {
		var queued int
		var jobs []string
		err := conn.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM webhook_events WHERE webhook_id LIKE 'roll-%' AND state = 'queued'),
			(SELECT coalesce(array_agg(kind || ' ' || state::text ORDER BY id), '{}') FROM river_job
				WHERE state IN ('available', 'running', 'retryable', 'pending'))`).Scan(&queued, &jobs)
		unfinished = fmt.Sprintf("%d deliveries queued, %d jobs waiting or running %.300q (%v)", queued, len(jobs), jobs, err)
		return err == nil && queued == 0 && len(jobs) == 0
	})
	rows, err := conn.Query(ctx, `SELECT webhook_id, count(*), sum(processed_count), bool_and(state = 'processed')
		FROM webhook_events WHERE webhook_id LIKE 'roll-%' GROUP BY webhook_id`)
	if err != nil {
		t.Fatal(err)
	}
	type stored struct {
		rows, processed int
		done            bool
	}
	got := map[string]stored{}
	for rows.Next() {
		var id string
		var s stored
		if err := rows.Scan(&id, &s.rows, &s.processed, &s.done); err != nil {
			t.Fatal(err)
		}
		got[id] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var lost, duplicated, notProcessed int
	for _, id := range acked {
		s, ok := got[id]
		switch {
		case !ok:
			lost++
		case s.rows != 1 || s.processed > 1:
			duplicated++
		case !s.done || s.processed != 1:
			notProcessed++
		}
	}
	var discarded, rescued int
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state IN ('discarded', 'cancelled')),
		count(*) FILTER (WHERE kind = $1 AND attempt > 1) FROM river_job`, webhooks.DrainArgs{}.Kind()).Scan(&discarded, &rescued); err != nil {
		t.Fatal(err)
	}

	t.Logf("load for %s through nginx, %d clients (%d sending webhooks): %d requests sent (%d page views, %d deliveries), %d failed; %d deliveries acknowledged, %d lost, %d duplicated, %d not processed once",
		loadFor.Round(time.Second), rollingClients, rollingSenders, sent.Load(), sent.Load()-posted.Load(), posted.Load(), failed.Load(), len(acked), lost, duplicated, notProcessed)
	for i := range restarts {
		t.Logf("replica %d: exited %s after SIGTERM, ready again %s after it", i+1, drains[i].Round(10*time.Millisecond), restarts[i].Round(10*time.Millisecond))
	}
	t.Logf("jobs: %s; %d discarded or cancelled; %d delivery jobs run more than once", unfinished, discarded, rescued)
	t.Logf("nginx sent %d requests again to another replica", retriedByNginx(t, lb))
	if n := failed.Load(); n != 0 {
		log := lb.ErrorLog()
		t.Errorf("%d requests failed during the rolling restart, the first: %q\nnginx's error log ends:\n%s", n, failures, log[max(0, len(log)-3000):])
	}
	if len(acked) == 0 {
		t.Error("no delivery was acknowledged")
	}
	if lost != 0 || duplicated != 0 || notProcessed != 0 {
		t.Errorf("of %d acknowledged deliveries: %d lost, %d stored or processed twice, %d not processed once", len(acked), lost, duplicated, notProcessed)
	}
	if discarded != 0 {
		t.Errorf("%d jobs discarded or cancelled", discarded)
	}
}

// retriedByNginx counts the requests nginx's access log shows sent to
// more than one replica ($upstream_addr "a, b").
func retriedByNginx(t *testing.T, lb *nginxtest.Server) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(lb.Dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) > 2 && strings.HasSuffix(f[1], ",") {
			n++
		}
	}
	return n
}

// freeLoopbackAddr is a loopback host:port nobody listens on now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitReady waits for a replica's readiness probe to answer 200.
func waitReady(t *testing.T, i int, addr string) {
	t.Helper()
	webtest.WaitFor(t, fmt.Sprintf("replica %d ready", i+1), time.Minute, func() bool {
		return getStatus("http://"+addr+"/readyz") == http.StatusOK
	})
}

// signInJar signs in at base as a browser does and returns the cookies.
func signInJar(t *testing.T, base, email, password string) http.CookieJar {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	doc := fetchDoc(t, c, base+"/login")
	form := url.Values{"email": {email}, "password": {password}}
	doc.Find(`form[action="/login"] input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		form.Set(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	resp, err := c.PostForm(base+"/login", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path == "/login" {
		t.Fatalf("signing in ended on %s with %d", resp.Request.URL.Path, resp.StatusCode)
	}
	if resp.Request.URL.Path == "/account/security" {
		enrolTOTP(t, c, base)
	}
	return jar
}

// enrolTOTP sets up an authenticator app for the signed-in owner, whose
// role must have a second factor against a configured Partner API: the
// key the security page shows, then a code from it.
func enrolTOTP(t *testing.T, c *http.Client, base string) {
	t.Helper()
	resp, err := c.PostForm(base+"/account/security/totp/start", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(doc.Find(`[data-testid="totp-secret"]`).Text())
	if key == "" {
		t.Fatalf("enrol a second factor: %d, no key on the page", resp.StatusCode)
	}
	code, err := totp.GenerateCode(key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	status, err := statusOf(c.PostForm(base+"/account/security/totp", url.Values{"code": {code}}))
	if err != nil || status != http.StatusOK {
		t.Fatalf("enrol a second factor: confirm: %d %v", status, err)
	}
	fetchDoc(t, c, base+"/")
}

// subscribeWebhooks creates the webhook subscription on the settings page,
// as an owner does, and returns the secret the page shows once.
func subscribeWebhooks(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	form := fetchDoc(t, c, base+"/settings/webhooks").Find(`form#webhook-form`)
	values := url.Values{"form_token": {form.Find(`input[name="form_token"]`).AttrOr("value", "")},
		"callback_url": {base + webhooks.ReceiverPath}}
	form.Find(`input[name="events"]`).Each(func(_ int, in *goquery.Selection) {
		values.Add("events", in.AttrOr("value", ""))
	})
	resp, err := c.PostForm(base+"/settings/webhooks", values)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(doc.Find(`[data-testid="secret-value"]`).Text())
	if resp.StatusCode != http.StatusCreated || secret == "" {
		t.Fatalf("create webhook subscription: %d, no secret shown:\n%.600s", resp.StatusCode, strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
	return secret
}

func fetchDoc(t *testing.T, c *http.Client, u string) *goquery.Document {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// deliver posts a signed delivery as the Partner API's sender does and
// returns the status the receiver answered.
func deliver(c *http.Client, base, secret, id string) (int, error) {
	body := webtest.EventBody(id, apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-rolling", "amount": "5"})
	req, err := http.NewRequest(http.MethodPost, base+webhooks.ReceiverPath, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(apiclient.HeaderWebhookSignature, apiclient.SignBody(secret, body))
	req.Header.Set(apiclient.HeaderWebhookID, id)
	req.Header.Set(apiclient.HeaderSourceEventID, "src-"+id)
	return statusOf(c.Do(req))
}

// statusOf is a response's status, its body read to the end.
func statusOf(resp *http.Response, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}
