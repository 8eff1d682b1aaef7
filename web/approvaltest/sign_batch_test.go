package approvaltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"partneradmin/store"
	"partneradmin/web"
	"partneradmin/web/webtest"
)

// batchForm is the queue's "Sign selected" form for these proposals.
func batchForm(ids ...string) url.Values {
	v := webtest.WithFormToken(url.Values{"return_to": {"/approvals?status=PENDING_SIGNATURES"}})
	for _, id := range ids {
		v.Add("proposal_id", id)
	}
	return v
}

// createBatch posts a batch and returns its link's path and its page.
func createBatch(t testing.TB, env *webtest.Env, c *http.Client, ids ...string) (string, string) {
	t.Helper()
	resp := env.PostForm(c, "/approvals/sign-batch", batchForm(ids...))
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("create batch: %d %s", resp.StatusCode, b)
	}
	doc := webtest.Doc(t, resp)
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(u.Path, "/sign/") {
		t.Fatalf("link %q", link)
	}
	poll, _ := doc.Find(`#sign-batch-state`).Attr("hx-get")
	if !strings.HasPrefix(poll, "/approvals/sign-batch/") {
		t.Fatalf("poll %q", poll)
	}
	return u.Path, poll
}

// batchItemJSON is one item of a batch's device GET.
type batchItemJSON struct {
	ProposalID string `json:"proposalId"`
	Hash       string `json:"hash"`
	Summary    string `json:"summary"`
	State      string `json:"state"`
	Error      string `json:"error"`
}

func batchGet(t testing.TB, env *webtest.Env, path string) (int, []batchItemJSON) {
	t.Helper()
	code, m := webtest.DeviceGet(t, env, path)
	if code != http.StatusOK {
		return code, nil
	}
	if m["kind"] != "batch" {
		t.Fatalf("kind %v", m["kind"])
	}
	b, _ := json.Marshal(m["items"])
	var items []batchItemJSON
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	return code, items
}

// batchAnswerItem is one item of a batch's device POST answer.
type batchAnswerItem struct {
	ProposalID string `json:"proposalId"`
	State      string `json:"state"`
	Relayed    bool   `json:"relayed"`
	Error      string `json:"error"`
}

func batchPost(t testing.TB, env *webtest.Env, path string, body any) (int, []batchAnswerItem) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(env.URL(path), "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Items []batchAnswerItem `json:"items"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&ans)
	return resp.StatusCode, ans.Items
}

// signBatch signs every ready item raw with key.
func signBatch(t testing.TB, key *secp256k1.PrivateKey, items []batchItemJSON) map[string]any {
	t.Helper()
	var sigs []map[string]string
	for _, it := range items {
		if it.State != "ready" {
			t.Fatalf("item %s is %s: %s", it.ProposalID, it.State, it.Error)
		}
		sigs = append(sigs, map[string]string{"proposalId": it.ProposalID, "signature": webtest.SignHash(t, key, it.Hash).Hex()})
	}
	return map[string]any{"signatures": sigs}
}

func countRows(t *testing.T, env *webtest.Env, query string) int {
	t.Helper()
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBatchCreateRefusesWhatCannotBeSignedTogether(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	webtest.SyncQueue(t, env, c)
	ids := env.ProposalsAwaitingSignature(2, "5.00")
	card := webtest.ProposalID(t, env, "Card issuance: Subscriptions") // Adaeze's, waiting for signatures
	stipend := webtest.ProposalID(t, env, "November stipend")          // waiting for approvals

	for _, tc := range []struct {
		name string
		form url.Values
		want string
	}{
		{"another owner", batchForm(ids[0], card, ids[1]), "one QR code signs the proposals of one owner"},
		{"not awaiting signatures", batchForm(ids[0], stipend), "only a proposal waiting for the owner's signature"},
		{"unknown", batchForm(ids[0], "no-such-proposal"), "no-such-proposal is not known here"},
		{"nothing selected", batchForm(), "Select at least one proposal"},
		{"overlong id", batchForm(ids[0], strings.Repeat("x", 101)), "proposal id is not valid"},
		{"too many", func() url.Values {
			v := batchForm()
			for i := range store.MaxSignBatchItems + 1 {
				v.Add("proposal_id", fmt.Sprintf("p-%d", i))
			}
			return v
		}(), fmt.Sprintf("at most %d proposals", store.MaxSignBatchItems)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := env.PostForm(c, "/approvals/sign-batch", tc.form)
			doc := webtest.Doc(t, resp)
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "sign-batch-problems"), tc.want) {
				t.Fatalf("%d %q", resp.StatusCode, webtest.TestID(doc, "sign-batch-problems"))
			}
			if back, _ := doc.Find(`[data-testid="sign-batch-back"]`).Attr("href"); back != "/approvals?status=PENDING_SIGNATURES" {
				t.Fatalf("back to %q", back)
			}
		})
	}
	if n := countRows(t, env, `SELECT count(*) FROM sign_batches`); n != 0 {
		t.Fatalf("%d batches stored", n)
	}
	if n := countRows(t, env, `SELECT count(*) FROM actions WHERE kind LIKE 'sign_batch.%'`); n != 0 {
		t.Fatalf("%d batch actions stored", n)
	}
	if n := env.Sandbox.RequestCount("GET", webtest.SignPayloadRoute); n != 0 {
		t.Fatalf("%d sign payloads read", n)
	}

	// A return_to that leaves the site leads back to this site's root.
	v := batchForm(ids[0], stipend)
	v.Set("return_to", "//evil.example/x")
	doc := webtest.Doc(t, env.PostForm(c, "/approvals/sign-batch", v))
	if back, _ := doc.Find(`[data-testid="sign-batch-back"]`).Attr("href"); back != "/" {
		t.Fatalf("back to %q", back)
	}
}

func TestBatchCreateIsForApproversOnly(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ids := env.ProposalsAwaitingSignature(1, "5.00")
	for _, role := range []store.Role{store.RoleSupport, store.RoleHRAdmin} {
		c, _ := env.SignedIn(role)
		if resp := env.PostForm(c, "/approvals/sign-batch", batchForm(ids...)); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %d", role, resp.StatusCode)
		}
	}
	if n := countRows(t, env, `SELECT count(*) FROM sign_batches`); n != 0 {
		t.Fatalf("%d batches stored", n)
	}
	for _, role := range []store.Role{store.RoleFinanceApprover, store.RoleOwner} {
		c, _ := env.SignedIn(role)
		createBatch(t, env, c, ids...)
	}
	if n := countRows(t, env, `SELECT count(*) FROM sign_batches`); n != 2 {
		t.Fatalf("%d batches stored", n)
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "sign_batch.create"})
	if len(rows) != 2 || rows[0].Outcome != store.OutcomeOK {
		t.Fatalf("audit %+v", rows)
	}
}

func TestBatchConcurrentCreatesWithOneFormTokenMakeOneRequest(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	ids := env.ProposalsAwaitingSignature(3, "5.00")
	form := batchForm(ids...)
	const n = 5
	got := env.PostFormAtOnce(c, "/approvals/sign-batch", form, n)
	created, repeats := got[http.StatusCreated], got[http.StatusSeeOther]
	if created != 1 || repeats != n-1 {
		t.Fatalf("%d created, %d repeats", created, repeats)
	}
	if got := countRows(t, env, `SELECT count(*) FROM sign_batches`); got != 1 {
		t.Fatalf("%d batches", got)
	}
	if got := countRows(t, env, `SELECT count(*) FROM sign_batch_items`); got != 3 {
		t.Fatalf("%d items", got)
	}
	// The same token again leads to the batch's page, which never shows the
	// link again.
	resp := env.PostForm(c, "/approvals/sign-batch", form)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/approvals/sign-batch/") {
		t.Fatalf("repeat: %d %q", resp.StatusCode, loc)
	}
	doc := webtest.Doc(t, env.Get(c, loc))
	if doc.Find(`[data-testid="sign-link"]`).Length() != 0 || doc.Find(`[data-testid="sign-qr"]`).Length() != 0 ||
		doc.Find(`[data-testid="sign-batch-item"]`).Length() != 3 {
		t.Fatalf("batch page: %q", webtest.TestID(doc, "sign-batch-state"))
	}
}

func TestBatchReplayedPostRelaysNothingTwice(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	ids := env.ProposalsAwaitingSignature(3, "9.99")
	key := webtest.OwnerKey(t, env, "treasury")
	path, page := createBatch(t, env, c, ids...)

	// A browser is told to use the wallet app.
	resp := env.Get(env.Client(), path)
	if doc := webtest.Doc(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(webtest.TestID(doc, "sign-device"), "wallet app") {
		t.Fatalf("browser page: %d", resp.StatusCode)
	}
	code, items := batchGet(t, env, path)
	if code != http.StatusOK || len(items) != 3 {
		t.Fatalf("device get: %d %+v", code, items)
	}
	for i, it := range items {
		if it.ProposalID != ids[i] || !strings.Contains(it.Summary, "9.99 USD (USDB) to Emily") || !strings.Contains(it.Summary, "Batch item") {
			t.Fatalf("item %d: %+v", i, it)
		}
	}
	body := signBatch(t, key, items)
	code, ans := batchPost(t, env, path, body)
	if code != http.StatusOK || len(ans) != 3 {
		t.Fatalf("post: %d %+v", code, ans)
	}
	for _, a := range ans {
		if a.State != store.SignSubmitted || !a.Relayed {
			t.Fatalf("answer %+v", a)
		}
	}
	// The same POST again: every item was sent once already.
	code, ans = batchPost(t, env, path, body)
	if code != http.StatusOK || len(ans) != 3 {
		t.Fatalf("replay: %d %+v", code, ans)
	}
	for _, a := range ans {
		if a.Relayed || !strings.Contains(a.Error, "already sent") {
			t.Fatalf("replayed answer %+v", a)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SignRoute); n != 3 {
		t.Fatalf("%d sign calls upstream, want 3", n)
	}
	if code, _ := webtest.DeviceGet(t, env, path); code != http.StatusGone {
		t.Fatalf("get after use: %d", code)
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "sign_batch.submit"})
	if len(rows) != 3 {
		t.Fatalf("%d submit audit rows", len(rows))
	}
	// The approver's page: every item relayed, polling until they complete.
	doc := webtest.Doc(t, env.Do(c, http.MethodGet, page, nil, http.Header{"HX-Request": {"true"}}))
	if got := webtest.TestID(doc, "sign-batch-counts"); !strings.HasPrefix(got, "3 relayed, 0 refused, 0 expired, 0 waiting") {
		t.Fatalf("counts %q", got)
	}
	doc.Find(`[data-testid="sign-batch-item"]`).Each(func(_ int, s *goquery.Selection) {
		if st, _ := s.Attr("data-state"); st != store.SignSubmitted {
			t.Errorf("item state %q", st)
		}
	})
}

func TestBatchPastItsDeadlineSendsNothing(t *testing.T) {
	t.Parallel()
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	env := webtest.New(t, webtest.Options{Now: now})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	ids := env.ProposalsAwaitingSignature(2, "1.00")
	key := webtest.OwnerKey(t, env, "treasury")
	path, page := createBatch(t, env, c, ids...)
	_, items := batchGet(t, env, path)
	body := signBatch(t, key, items)
	offset.Store(int64(16 * time.Minute))
	if code, _ := batchPost(t, env, path, body); code != http.StatusGone {
		t.Fatalf("post after the deadline: %d", code)
	}
	if code, _ := webtest.DeviceGet(t, env, path); code != http.StatusGone {
		t.Fatalf("get after the deadline: %d", code)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SignRoute); n != 0 {
		t.Fatalf("%d sign calls upstream", n)
	}
	doc := webtest.Doc(t, env.Get(c, page))
	if got := webtest.TestID(doc, "sign-batch-counts"); !strings.HasPrefix(got, "0 relayed, 0 refused, 2 expired, 0 waiting") {
		t.Fatalf("counts %q", got)
	}
}

func TestBatchSignLinkTemplateIsCheckedAtStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tpl string
		ok  bool
	}{
		{"", true}, // the default: the link itself
		{"{link}", true},
		{"myapp://sign?link={link}", true},
		{"https://wallet.example/open?u={link}", true},
		{"myapp://sign", false},
		{"myapp://sign?link={lnk}", false},
		{"sign?link={link}", false},
		{"myapp://sign?link={link} ", false},
		{"myapp://si\x01gn?link={link}", false},
	} {
		env := map[string]string{"SIGN_LINK_TEMPLATE": tc.tpl}
		cfg, err := web.ParseConfig([]string{"partner-admin"}, func(k string) string { return env[k] }, io.Discard)
		if (err == nil) != tc.ok {
			t.Errorf("SIGN_LINK_TEMPLATE %q: %v", tc.tpl, err)
		}
		if err != nil && !strings.Contains(err.Error(), "SIGN_LINK_TEMPLATE") {
			t.Errorf("error does not name the setting: %v", err)
		}
		if tc.ok && cfg.SignLinkTemplate != tc.tpl && !(tc.tpl == "" && cfg.SignLinkTemplate == "{link}") {
			t.Errorf("template %q kept as %q", tc.tpl, cfg.SignLinkTemplate)
		}
	}
	// The flag too.
	if _, err := web.ParseConfig([]string{"partner-admin", "--sign-link-template", "myapp://x"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Error("flag without {link} accepted")
	}
}

// BenchmarkBatchRelay measures relaying a batch of 200 items
// (BENCH_BATCH_ITEMS sets another size, up to store.MaxSignBatchItems): the
// device's GET of every fresh hash, then its POST of every signature, with
// 50 ms of injected latency on every upstream call. It prints the
// durations.
//
//	go test -run '^$' -bench BatchRelay -benchtime 1x ./web/
//	BENCH_BATCH_ITEMS=1000 go test -run '^$' -bench BatchRelay -benchtime 1x ./web/
func BenchmarkBatchRelay(b *testing.B) {
	n := 200
	if v, err := strconv.Atoi(os.Getenv("BENCH_BATCH_ITEMS")); err == nil && v > 0 && v <= store.MaxSignBatchItems {
		n = v
	}
	for range b.N {
		b.StopTimer()
		env := webtest.New(b, webtest.Options{})
		c, _ := env.SignedIn(store.RoleFinanceApprover)
		ids := env.ProposalsAwaitingSignature(n, "1.00")
		key := webtest.OwnerKey(b, env, "treasury")
		path, _ := createBatch(b, env, c, ids...)
		webtest.SandboxControl(b, env, http.MethodPost, "/_sandbox/faults", map[string]any{"route": "*", "latencyMs": 50})
		b.StartTimer()
		start := time.Now()
		_, items := batchGet(b, env, path)
		got := time.Since(start)
		body := signBatch(b, key, items)
		posted := time.Now()
		code, ans := batchPost(b, env, path, body)
		post := time.Since(posted)
		b.StopTimer()
		relayed := 0
		for _, a := range ans {
			if a.Relayed && a.State == store.SignSubmitted {
				relayed++
			}
		}
		if code != http.StatusOK || relayed != n || env.Sandbox.RequestCount("POST", webtest.SignRoute) != n {
			b.Fatalf("post %d: %d of %d relayed, %d sign calls", code, relayed, n, env.Sandbox.RequestCount("POST", webtest.SignRoute))
		}
		fmt.Printf("%d-item batch, 50 ms upstream latency: device GET %s, POST (check and relay all) %s, total %s\n",
			n, got.Round(time.Millisecond), post.Round(time.Millisecond), (got + post).Round(time.Millisecond))
	}
}

func TestBatchItemWithoutAnAnswerIsReadBackNeverSentAgain(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	ids := env.ProposalsAwaitingSignature(2, "4.00")
	key := webtest.OwnerKey(t, env, "treasury")
	path, page := createBatch(t, env, c, ids...)
	_, items := batchGet(t, env, path)
	// The first sign call to arrive is dropped before the sandbox handles
	// it: no answer, nothing recorded.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.SignRoute, "drop": true, "times": 1})
	code, ans := batchPost(t, env, path, signBatch(t, key, items))
	if code != http.StatusOK || len(ans) != 2 {
		t.Fatalf("post: %d %+v", code, ans)
	}
	states := map[string]int{}
	for _, a := range ans {
		states[a.State]++
	}
	if states[store.SignSubmitted] != 1 || states[store.SignRelayPending] != 1 {
		t.Fatalf("answers %+v", ans)
	}
	if _, err := env.App.Actions().Recover(context.Background(), time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	doc := webtest.Doc(t, env.Get(c, page))
	if got := webtest.TestID(doc, "sign-batch-counts"); !strings.HasPrefix(got, "1 relayed, 1 refused") ||
		!strings.Contains(webtest.TestID(doc, "sign-batch-item-error"), "not recorded") {
		t.Fatalf("after recovery: %q %q", got, webtest.TestID(doc, "sign-batch-item-error"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SignRoute); n != 2 {
		t.Fatalf("%d sign calls upstream, want 2", n)
	}
}

func TestBatchQueueOffersCheckboxesOnRowsAwaitingSignatures(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	webtest.SyncQueue(t, env, c)
	doc := webtest.Doc(t, env.Get(c, "/approvals"))
	if doc.Find(`[data-testid="sign-batch-form"]`).Length() != 1 {
		t.Fatal("no sign-selected form")
	}
	doc.Find(`[data-testid="proposal-row"]`).Each(func(_ int, row *goquery.Selection) {
		st, _ := row.Find(`[data-testid="proposal-status"]`).Attr("data-status")
		box := row.Find(`[data-testid="proposal-select"]`)
		if (st == "PENDING_SIGNATURES") != (box.Length() == 1) {
			t.Errorf("row %s in %s has %d checkboxes", row.AttrOr("data-id", ""), st, box.Length())
		}
		if box.Length() == 1 && (box.AttrOr("form", "") != "sign-batch-form" || box.AttrOr("value", "") != row.AttrOr("data-id", "")) {
			t.Errorf("checkbox %v", box.Nodes[0].Attr)
		}
	})
	if doc.Find(`[data-testid="proposal-select"]`).Length() == 0 {
		t.Fatal("no row awaiting signatures offers a checkbox")
	}
	// The table's poll keeps the ticks (hx-preserve) and carries no form.
	frag := webtest.Doc(t, env.Do(c, http.MethodGet, "/approvals", nil, http.Header{"HX-Request": {"true"}}))
	if frag.Find(`[data-testid="sign-batch-form"]`).Length() != 0 || frag.Find(`[data-testid="proposal-select"][hx-preserve]`).Length() == 0 {
		t.Fatal("polled table")
	}
}

func TestBatchReplacesOpenSingleLinksOfItsProposals(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	ids := env.ProposalsAwaitingSignature(2, "2.00")
	key := webtest.OwnerKey(t, env, "treasury")
	single := webtest.IssueSignLink(t, env, c, ids[0])
	_, req := webtest.DeviceGet(t, env, single.Path)
	createBatch(t, env, c, ids...)
	code, ans := webtest.DevicePost(t, env, single.Path, webtest.SignHash(t, key, req["hashToSign"]).Hex())
	if code != http.StatusGone || !strings.Contains(ans["error"].(string), "replaced") {
		t.Fatalf("single link after the batch: %d %v", code, ans)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SignRoute); n != 0 {
		t.Fatalf("%d sign calls upstream", n)
	}
}
