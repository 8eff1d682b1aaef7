package opstest

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers/approvals"
	"partneradmin/handlers/auth"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/web"
	"partneradmin/web/nginxtest"
	"partneradmin/web/webtest"
)

// loopback is what TRUSTED_PROXIES says of nginx: it reaches the replicas
// from 127.0.0.1.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// balance puts nginx in front of the replicas.
func balance(t *testing.T, replicas ...*webtest.Env) *nginxtest.Server {
	t.Helper()
	addrs := make([]string, len(replicas))
	for i, r := range replicas {
		addrs[i] = r.Server.Listener.Addr().String()
	}
	return nginxtest.Start(t, addrs...)
}

// TestTwoReplicasShareOneDatabase runs two apps over one PostgreSQL, as
// two replicas behind a load balancer, and checks that nothing one of them
// keeps in memory is dishonest about what the other did: sessions, logout,
// disabling and role changes take effect on both at the next request, a
// webhook delivered to both is processed once, login limits count across
// both, and periodic jobs are scheduled once (river's leader).
func TestTwoReplicasShareOneDatabase(t *testing.T) {
	t.Parallel()
	key := web.Secret(strings.Repeat("5a", 32))
	a := webtest.New(t, webtest.Options{StartWorkers: true, EncryptionKey: key, TrustedProxies: loopback})
	b := webtest.New(t, webtest.Options{StartWorkers: true, ReplicaOf: a, TrustedProxies: loopback})
	ctx := context.Background()
	// Both replicas are running; one becomes leader and schedules the
	// periodic jobs that run at start (counted at the end of the test).
	periodic := map[string]time.Duration{auth.PruneLoginFailuresArgs{}.Kind(): time.Hour,
		approvals.SyncArgs{}.Kind(): approvals.SyncInterval, webhooks.RetentionArgs{}.Kind(): webhooks.RetentionInterval}
	for kind := range periodic {
		webtest.WaitFor(t, kind+" scheduled", 30*time.Second, func() bool { return jobCount(t, a, kind) >= 1 })
	}

	// Signing in through nginx, then pages served by both in turn.
	lb := balance(t, a, b)
	owner := a.CreateStaff(store.RoleOwner)
	c := a.Client()
	resp, err := c.PostForm(lb.URL+"/login", url.Values{"email": {owner.Email}, "password": {owner.Password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login through the balancer: %d", resp.StatusCode)
	}
	for i := range 6 {
		resp, err := c.Get(lb.URL + "/staff")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d through the balancer: %d\n%s", i, resp.StatusCode, lb.ErrorLog())
		}
	}
	if served, err := lb.Served(); err != nil || served[0] == 0 || served[1] == 0 {
		t.Fatalf("nginx sent %v requests to the replicas (%v), want some to each", served, err)
	}

	// A session made on A is valid on B; logging out on A ends it on B.
	sc := a.Client()
	a.Login(sc, owner.Email, owner.Password)
	if s := webtest.Status(t, b, sc, "/staff"); s != http.StatusOK {
		t.Fatalf("session from A on B: %d", s)
	}
	resp = a.PostForm(sc, "/logout", nil)
	resp.Body.Close()
	if s := webtest.Status(t, b, sc, "/staff"); s != http.StatusSeeOther {
		t.Fatalf("B after logout on A: %d", s)
	}

	// Disable on A, role change on B: each takes effect on the other
	// replica at its next request (both replicas have served the member
	// before, so any copy in memory is warm).
	oc := a.Client()
	a.Login(oc, owner.Email, owner.Password)
	support := a.CreateStaff(store.RoleSupport)
	hr := a.CreateStaff(store.RoleHRAdmin)
	supportC, hrC := a.Client(), a.Client()
	a.Login(supportC, support.Email, support.Password)
	a.Login(hrC, hr.Email, hr.Password)
	for _, env := range []*webtest.Env{a, b} {
		if s := webtest.Status(t, env, supportC, "/cards"); s != http.StatusOK {
			t.Fatalf("support on /cards: %d", s)
		}
		if s := webtest.Status(t, env, hrC, "/employees"); s != http.StatusOK {
			t.Fatalf("hr on /employees: %d", s)
		}
		if s := webtest.Status(t, env, hrC, "/cards"); s != http.StatusForbidden {
			t.Fatalf("hr on /cards: %d", s)
		}
	}
	resp = a.PostForm(oc, "/staff/"+strconv.FormatInt(support.ID, 10)+"/disable", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	if s := webtest.Status(t, b, supportC, "/cards"); s != http.StatusSeeOther {
		t.Fatalf("disabled on A, still in on B: %d", s)
	}
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}}
	resp = b.Do(oc, http.MethodPost, "/staff/"+strconv.FormatInt(hr.ID, 10)+"/role", strings.NewReader("role=support"), h)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("role change on B: %d", resp.StatusCode)
	}
	if s := webtest.Status(t, a, hrC, "/cards"); s != http.StatusOK {
		t.Fatalf("role changed on B, A still refuses the new role: %d", s)
	}
	if s := webtest.Status(t, a, hrC, "/employees/invite"); s != http.StatusForbidden {
		t.Fatalf("role changed on B, A still grants the old role: %d", s)
	}

	// A webhook delivered to both at once is stored once and processed once.
	if err := a.App.AdoptWebhookSecret(ctx, a.Demo.WebhookSecret); err != nil {
		t.Fatal(err)
	}
	body := webtest.EventBody("wh-replicas-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-replicas", "amount": "5"})
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i, env := range []*webtest.Env{a, b} {
		wg.Go(func() {
			resp, err := webtest.Deliver(t, http.DefaultClient, env.Server.URL, a.Demo.WebhookSecret, "wh-replicas-1", body)
			if err != nil {
				t.Error(err)
				return
			}
			codes[i] = resp.StatusCode
		})
	}
	wg.Wait()
	if codes[0] != http.StatusOK || codes[1] != http.StatusOK {
		t.Fatalf("deliveries answered %v", codes)
	}
	webtest.WaitFor(t, "processing", 30*time.Second, func() bool { return webtest.EventByWebhookID(t, a, "wh-replicas-1").State == store.EventProcessed })
	ev := webtest.EventByWebhookID(t, a, "wh-replicas-1")
	if ev.Duplicates != 1 || ev.ProcessedCount != 1 || webtest.ActivityCount(t, a, ev.ID) != 1 {
		t.Fatalf("delivered to both: %d duplicates, processed %d times, %d activity rows", ev.Duplicates, ev.ProcessedCount, webtest.ActivityCount(t, a, ev.ID))
	}

	// Login limits count across both: wrong passwords alternately on A
	// and B reach the per-account limit together.
	victim := a.CreateStaff(store.RoleSupport)
	for i := range auth.MaxAccountFailures {
		env := []*webtest.Env{a, b}[i%2]
		ans, err := webtest.PostLogin(env, env.Client(), url.Values{"email": {victim.Email}, "password": {"wrong guess " + strconv.Itoa(i)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Status != http.StatusUnprocessableEntity {
			t.Fatalf("wrong password %d: %d %q", i, ans.Status, ans.Text)
		}
	}
	for _, env := range []*webtest.Env{a, b} {
		ans, err := webtest.PostLogin(env, env.Client(), url.Values{"email": {victim.Email}, "password": {victim.Password}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Status != http.StatusTooManyRequests || !strings.Contains(ans.Text, "Too many failed sign-ins") {
			t.Fatalf("after %d failures spread over both replicas: %d %q", auth.MaxAccountFailures, ans.Status, ans.Text)
		}
	}

	// Periodic jobs that run at start were scheduled once per period, by
	// river's leader, though both replicas have been running all along:
	// two schedulers would have made two of a kind close together.
	for kind, every := range periodic {
		at := jobTimes(t, a, kind)
		if len(at) == 0 {
			t.Errorf("periodic job %s never scheduled", kind)
		}
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < every/2 {
				t.Errorf("periodic job %s scheduled twice %s apart by two replicas, want once a period (%s)", kind, gap, every)
			}
		}
	}
}

// jobTimes is when the jobs of a kind were inserted, oldest first.
func jobTimes(t *testing.T, env *webtest.Env, kind string) []time.Time {
	t.Helper()
	rows, err := env.Store.Pool().Query(context.Background(), `SELECT created_at FROM river_job WHERE kind = $1 ORDER BY created_at`, kind)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jobCount(t *testing.T, env *webtest.Env, kind string) int {
	t.Helper()
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = $1`, kind).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The approval queue's total is what the database says at the request,
// whichever replica serves it: a proposal one replica's sync records (or
// moves out of the queue) counts on the other at its next view, with no
// copy of the count kept by either.
func TestTwoReplicasShowTheQueueTotalAtOnce(t *testing.T) {
	t.Parallel()
	a := webtest.New(t, webtest.Options{EncryptionKey: web.Secret(strings.Repeat("5b", 32))})
	b := webtest.New(t, webtest.Options{ReplicaOf: a})
	ctx := context.Background()
	webtest.SeedQueue(t, a, 60)
	signed, _ := a.SignedIn(store.RoleFinanceApprover)
	count := func(env *webtest.Env, path string) string {
		t.Helper()
		return webtest.TestID(webtest.Doc(t, env.Get(signed, path)), "queue-count")
	}
	for _, path := range []string{"/approvals", "/approvals?status=FAILED"} {
		for _, env := range []*webtest.Env{a, b} {
			count(env, path) // both replicas have shown the queue
		}
	}
	if got := count(b, "/approvals"); !strings.Contains(got, "60 proposals, 50 shown") {
		t.Fatalf("B before: %q", got)
	}
	// A's sync records a new failed proposal and sees a waiting one fail.
	p, err := a.Store.ProposalByID(ctx, "bench-00002") // FAILED
	if err != nil {
		t.Fatal(err)
	}
	fresh := p
	fresh.ID, fresh.CreatedAt = "bench-new", time.Now()
	if _, err := a.Store.UpsertProposal(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	waiting, err := a.Store.ProposalByID(ctx, "bench-00001") // PENDING_SIGNATURES
	if err != nil {
		t.Fatal(err)
	}
	waiting.Status, waiting.UpdatedAt = store.ProposalFailed, waiting.UpdatedAt.Add(time.Second)
	if _, err := a.Store.UpsertProposal(ctx, waiting); err != nil {
		t.Fatal(err)
	}
	for _, env := range []*webtest.Env{b, a} {
		if got := count(env, "/approvals"); !strings.Contains(got, "61 proposals, 50 shown") {
			t.Errorf("whole queue after one more: %q", got)
		}
		if got := count(env, "/approvals?status=FAILED"); !strings.Contains(got, "22 proposals") {
			t.Errorf("failed ones after two more: %q", got)
		}
	}
}
