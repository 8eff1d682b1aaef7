package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// faultAction is one state-changing form that calls the Partner API: who
// posts it, the upstream write it makes, and how to fill it in, built with
// the helpers of its area's own tests.
type faultAction struct {
	name          string
	by            store.Role
	method, route string
	// also are other writes the form makes (method, route): each is sent
	// at most once too.
	also [][2]string
	// device: posted by the wallet owner's device as JSON {signature}
	// (form holds it), without a session.
	device bool
	// idempotent: the API takes the write more than once with one effect
	// (start-usa, by the spec), so the client may retry it.
	idempotent bool
	// prepare puts things where the form applies (with a healthy API) and
	// returns where the form posts and what it posts, one-time token
	// included.
	prepare func(t *testing.T, env *webtest.Env, c *http.Client) (path string, form url.Values)
}

// withFreshToken is the form with a one-time token, keeping a token it has.
func withFreshToken(v url.Values) url.Values {
	if v.Get(handlers.FormTokenField) != "" {
		return v
	}
	return webtest.WithFormToken(v)
}

// faultActions are the state-changing forms of every area that write to
// the Partner API.
func faultActions(t *testing.T, env *webtest.Env, clients map[store.Role]*http.Client) []faultAction {
	var out []faultAction
	for _, f := range cardForms(clients[store.RoleSupport]) {
		out = append(out, faultAction{name: "card " + f.name, by: store.RoleSupport, method: f.method, route: f.route,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				f.prepare(t, env)
				form := f.values(t, env)
				form.Set(handlers.FormTokenField, f.tokenOf(t, env, c))
				return f.path(t, env), form
			}})
	}
	for _, f := range empForms() {
		if f.method == "" {
			continue // a local form: nothing goes upstream
		}
		prepare := f.prepare
		if f.name == "delete" {
			// Not the employee the reactivation deletes first: that one
			// may be left deleted by a fault.
			prepare = func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				return fmt.Sprintf("/employees/%d/delete", lastLinkedWithoutBalance(t, env).ID), nil
			}
		}
		out = append(out, faultAction{name: "employee " + f.name, by: store.RoleHRAdmin, method: f.method, route: f.route,
			idempotent: f.route == routeStartUSA,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				path, form := prepare(t, env, c)
				return path, withFreshToken(form)
			}})
	}
	for _, w := range treasuryWrites(t, env, clients[store.RoleOwner]) {
		out = append(out, faultAction{name: "treasury " + w.name, by: store.RoleOwner, method: http.MethodPost, route: w.route,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				// Filled in by the client that posts it: a swap's quote is
				// its session's.
				for _, mine := range treasuryWrites(t, env, c) {
					if mine.name == w.name {
						return mine.path, mine.form()
					}
				}
				t.Fatalf("no treasury form %q", w.name)
				return "", nil
			}})
	}
	for _, w := range approvalWrites(t, env) {
		if w.method != http.MethodPost {
			continue // the sign link reads the payload; it writes nothing upstream
		}
		out = append(out, faultAction{name: "approval " + w.name, by: store.RoleFinanceApprover, method: w.method, route: w.route,
			prepare: func(*testing.T, *webtest.Env, *http.Client) (string, url.Values) {
				return w.path, webtest.WithFormToken(w.fields)
			}})
	}
	// Money out, each rail's confirm step, filled in by its own tests'
	// helpers.
	out = append(out,
		faultAction{name: "money-out payout", by: store.RoleOwner, method: http.MethodPost, route: webtest.PayoutRoute,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				form, _ := webtest.PayoutReview(t, env, c, "CAN", "can-rbc", "can-rbc-00002", "1234567", "1,250.50")
				return "/money-out/payout/confirm", form
			}},
		faultAction{name: "money-out NGN account", by: store.RoleFinanceApprover, method: http.MethodPost, route: webtest.NigeriaAccountRoute,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				return "/money-out/nigeria/account", webtest.NigeriaHolderStep(t, env, c)
			}},
		faultAction{name: "money-out NGN offramp", by: store.RoleFinanceApprover, method: http.MethodPost, route: webtest.NigeriaOfframpRoute,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				form := webtest.NigeriaAmountStep(t, env, c)
				form.Set("wallet_id", webtest.TreasuryWallet(t, env, "CNGN").ID)
				form.Set("amount", "500")
				return "/money-out/nigeria/offramp", form
			}},
		faultAction{name: "money-out cash fund", by: store.RoleFinanceApprover, method: http.MethodPost, route: webtest.CashFundRoute,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				return "/money-out/cash/fund", webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {webtest.TreasuryWallet(t, env, "USDB").ID},
					"country": {"MX"}, "price": {"250.00"}, "price_currency": {"USD"}, "description": {"Field office float"}})

			}},
		faultAction{name: "money-out cash send", by: store.RoleFinanceApprover, method: http.MethodPost, route: webtest.CashSendRoute,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				return "/money-out/cash/send", webtest.CashForm(t, env, c, "send", url.Values{"wallet_id": {webtest.TreasuryWallet(t, env, "USDB").ID},
					"country": {"CO"}, "price": {"75.50"}, "price_currency": {"USD"}, "description": {"Courier pay"}})

			}},
	)
	out = append(out,
		faultAction{name: "money-out SEPA", by: store.RoleOwner, method: http.MethodPost, route: webtest.SEPAPrepareRoute,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				webtest.SEPAReady(t, env)
				form := webtest.SEPAForm(t, env, c)
				form.Set("confirm", "1")
				return "/money-out/sepa", form
			}},
		faultAction{name: "money-out MXN", by: store.RoleOwner, method: http.MethodPost, route: webtest.MexicoQuoteRoute,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				webtest.MexicoReady(t, env)
				return "/money-out/mexico", webtest.MexicoQuoteForm(t, env, c, "1000")
			}},
		faultAction{name: "treasury rail start USD", by: store.RoleOwner, method: http.MethodPost, route: webtest.StartUSARoute, idempotent: true,
			also: [][2]string{{http.MethodPost, routeActivate}},
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				webtest.EditSandboxState(t, env, func(st map[string]any) {
					webtest.SandboxObject(st, "users", env.Demo.TreasuryUserID, "onboarding")["USD"] = "failed"
				})
				return "/treasury/rails/usd/start", url.Values{"form_token": {env.FormToken(c, "/treasury/rails/usd", `[data-testid="usd-start-form"]`)},
					"identity_level": {apiclient.IdentityLevelIDAndLiveness}}
			}},
	)
	out = append(out, faultAction{name: "device signature relay", by: store.RoleFinanceApprover, method: http.MethodPost, route: webtest.SignRoute,
		device: true,
		prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
			l := webtest.IssueSignLink(t, env, c, env.ProposalsAwaitingSignature(1, "3")[0])
			_, req := webtest.DeviceGet(t, env, l.Path)
			return l.Path, url.Values{"signature": {webtest.SignHash(t, webtest.OwnerKey(t, env, "treasury"), req["hashToSign"]).Hex()}}
		}})
	out = append(out, faultAction{name: "onboarding start EUR", by: store.RoleOwner, method: http.MethodPost, route: startRoutes["EUR"],
		also: [][2]string{{http.MethodPost, routeActivate}},
		prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
			e := readyEmployee(t, env, "eur@faults.example", "GBR", apiclient.EURe, apiclient.USDB)
			page := fmt.Sprintf("/employees/%d", e.ID)
			return startPath(e.ID, "EUR"), url.Values{"identity_level": {"id-only"},
				"form_token": {env.FormToken(c, page, `[data-testid="start-form-EUR"]`)}}
		}})
	out = append(out, faultAction{name: "webhook subscription", by: store.RoleOwner, method: http.MethodPatch, route: "/v1/webhooks/config",
		prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
			cfg, err := env.API.GetWebhookConfig(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return "/settings/webhooks/update", url.Values{"callback_url": {cfg.CallbackURL}, "events": {"employee.linked"},
				"active": {"true"}, "form_token": {webtest.WebhookFormToken(env, c)}}
		}})
	return out
}

// lastLinkedWithoutBalance is the last linked demo employee without money
// (linkedDemoEmployee finds the first).
func lastLinkedWithoutBalance(t *testing.T, env *webtest.Env) store.Employee {
	t.Helper()
	ctx := context.Background()
	for i := len(env.Demo.Employees) - 1; i >= 0; i-- {
		d := env.Demo.Employees[i]
		if d.ServiceUserID == "" {
			continue
		}
		balances, err := env.API.ListBalances(ctx, d.ServiceUserID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(balances, func(b apiclient.WalletBalance) bool { return b.Balance.IsPositive() }) {
			e, err := env.Store.EmployeeByServiceUserID(ctx, d.ServiceUserID)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
	}
	t.Fatal("no linked demo employee without money")
	return store.Employee{}
}

// actionFault is one way the upstream fails a write.
type actionFault struct {
	name string
	// fault is the sandbox fault for the action's write (nil: the API is
	// taken down instead).
	fault func(a faultAction) map[string]any
	// reaches: the write reaches the API (it is counted once).
	reaches bool
	// together: the actions are posted at once (a slow fault), in rounds
	// of actions with distinct upstream routes.
	together bool
}

var actionFaults = []actionFault{
	{name: "5xx burst", reaches: true, fault: func(a faultAction) map[string]any {
		return map[string]any{"method": a.method, "route": a.route, "status": 503, "times": 3}
	}},
	{name: "reset", reaches: true, fault: func(a faultAction) map[string]any {
		return map[string]any{"method": a.method, "route": a.route, "reset": true, "times": 1}
	}},
	{name: "answer lost after the write", reaches: true, fault: func(a faultAction) map[string]any {
		return map[string]any{"method": a.method, "route": a.route, "drop": true, "after": true, "times": 1}
	}},
	{name: "12s latency", reaches: true, together: true, fault: func(a faultAction) map[string]any {
		return map[string]any{"method": a.method, "route": a.route, "latencyMs": 12000, "times": 1}
	}},
	{name: "down"},
}

// posted is one action's form posted under a fault.
type posted struct {
	a     faultAction
	c     *http.Client
	path  string
	form  url.Values
	calls int // upstream calls on its route before the post
	// alsoCalls are the calls on its other writes' routes before the post.
	alsoCalls []int
	resp      *http.Response
	body      string
	err       error
	// againErr is the error of the same form posted once more.
	againErr error
}

// TestEveryActionUnderUpstreamFaults posts every state-changing form that
// writes to the Partner API under each upstream fault (5xx burst, reset,
// an answer lost after the write, 12 s latency, the API down) and checks
// that the write is sent at most once, also when the person sends the
// same form again and when the recovery job settles it later; that the
// outcome is settled and shown in words (done, refused with the reason,
// or unknown and being checked); and that a form shown again keeps what
// was typed.
func TestEveryActionUnderUpstreamFaults(t *testing.T) {
	t.Parallel() // mostly waiting on the slow API: its faults run at once, after the serial tests (the page faults are in web/faulttest)
	for _, fault := range actionFaults {
		t.Run(fault.name, func(t *testing.T) {
			t.Parallel()
			env := webtest.New(t, webtest.Options{})
			admin := webtest.TreasuryAdmins(t, env)[1]
			signIn := func(r store.Role) *http.Client {
				if r == store.RoleFinanceApprover {
					c, _ := webtest.Approver(t, env, admin)
					return c
				}
				c, _ := env.SignedIn(r)
				return c
			}
			clients := map[store.Role]*http.Client{}
			for _, r := range []store.Role{store.RoleOwner, store.RoleSupport, store.RoleHRAdmin, store.RoleFinanceApprover} {
				clients[r] = signIn(r)
			}
			resp := env.PostForm(clients[store.RoleOwner], "/cards/refresh", nil)
			resp.Body.Close()
			webtest.SyncQueue(t, env, clients[store.RoleOwner])
			actions := faultActions(t, env, clients)

			var rounds [][]faultAction
			switch {
			case fault.fault == nil:
				rounds = [][]faultAction{actions}
			case fault.together:
				rounds = distinctRoutes(actions)
			default:
				for _, a := range actions {
					rounds = append(rounds, []faultAction{a})
				}
			}
			for _, round := range rounds {
				var ps []*posted
				for _, a := range round {
					c := clients[a.by]
					if len(round) > 1 {
						// Forms posted at once: each its own session, so
						// each answer's flash message is its own.
						c = signIn(a.by)
					}
					path, form := a.prepare(t, env, c)
					ps = append(ps, &posted{a: a, c: c, path: path, form: form})
				}
				if fault.fault == nil {
					env.SandboxHTTP.Close()
				} else {
					webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
					for _, p := range ps {
						webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", fault.fault(p.a))
					}
				}
				for _, p := range ps {
					p.calls = env.Sandbox.RequestCount(p.a.method, p.a.route)
					for _, o := range p.a.also {
						p.alsoCalls = append(p.alsoCalls, env.Sandbox.RequestCount(o[0], o[1]))
					}
				}
				var wg sync.WaitGroup
				for _, p := range ps {
					wg.Add(1)
					go func() {
						defer wg.Done()
						p.post(env)
					}()
				}
				wg.Wait()
				if fault.fault != nil {
					webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
				}
				want := 0
				if fault.reaches {
					want = 1
				}
				for _, p := range ps {
					t.Run(p.a.name, func(t *testing.T) { p.check(t, env, fault.name, want) })
				}
				if fault.fault == nil {
					// The API comes back at the same address; the app is
					// not restarted.
					reopenSandbox(t, env)
				}
				// The recovery job settles what is left open by reading it
				// back, never by sending it again.
				if _, err := env.App.Actions().Recover(context.Background(), time.Now().Add(5*time.Minute)); err != nil {
					t.Fatal(err)
				}
				for _, p := range ps {
					if n := p.sent(env); !p.countOK(n, want) {
						t.Errorf("%s: after the recovery job: %d upstream calls in all, want %d", p.a.name, n, want)
					}
					a, err := env.Store.ActionByKey(context.Background(), "form:"+p.form.Get(handlers.FormTokenField))
					if err == nil && !a.State.Finished() && !strings.Contains(a.Message, "cannot be read back") {
						t.Errorf("%s: still %s after the recovery job read it back: %q", p.a.name, a.State, a.Message)
					}
					if fault.fault == nil && err == nil && a.State == store.ActionDone {
						t.Errorf("%s: done, though the API never received it", p.a.name)
					}
				}
			}
		})
	}
}

// reopenSandbox serves the sandbox again at the address whose listener was
// closed: the Partner API is back after an outage.
func reopenSandbox(t *testing.T, env *webtest.Env) {
	t.Helper()
	l, err := net.Listen("tcp", env.SandboxHTTP.Listener.Addr().String())
	if err != nil {
		t.Fatalf("the API's address is not free again: %v", err)
	}
	srv := &http.Server{Handler: env.Sandbox, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
}

// distinctRoutes splits actions into rounds in which no two share an
// upstream route, so each round's calls can be counted per route.
func distinctRoutes(actions []faultAction) [][]faultAction {
	var rounds [][]faultAction
	var used []map[[2]string]bool
next:
	for _, a := range actions {
		k := [2]string{a.method, a.route}
		for i := range rounds {
			if !used[i][k] {
				rounds[i] = append(rounds[i], a)
				used[i][k] = true
				continue next
			}
		}
		rounds = append(rounds, []faultAction{a})
		used = append(used, map[[2]string]bool{k: true})
	}
	return rounds
}

// faultPostTimeout is how long a person waits for a posted form: the
// app's own upstream write timeout (30 s) and a read-back, with room.
const faultPostTimeout = 60 * time.Second

// post sends the form, then sends it once more as a person who saw no
// clear outcome would (the second answer is not kept: only what it sent).
func (p *posted) post(env *webtest.Env) {
	p.resp, p.body, p.err = p.send(env, http.MethodPost, p.path)
	if p.err != nil {
		return
	}
	if p.resp.StatusCode == http.StatusSeeOther {
		// Where the app sends the person: the outcome is shown there.
		var landed *http.Response
		landed, p.body, p.err = p.send(env, http.MethodGet, p.resp.Header.Get("Location"))
		if p.err == nil && landed.StatusCode >= 400 {
			p.err = fmt.Errorf("the page after the post answered %d", landed.StatusCode)
		}
	}
	_, _, p.againErr = p.send(env, http.MethodPost, p.path)
}

func (p *posted) send(env *webtest.Env, method, path string) (*http.Response, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), faultPostTimeout)
	defer cancel()
	var body io.Reader
	contentType := "application/x-www-form-urlencoded"
	if method == http.MethodPost {
		body = strings.NewReader(p.form.Encode())
		if p.a.device {
			b, err := json.Marshal(map[string]string{"signature": p.form.Get("signature")})
			if err != nil {
				return nil, "", err
			}
			body, contentType = bytes.NewReader(b), "application/json"
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, env.URL(path), body)
	if err != nil {
		return nil, "", err
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	c := p.c
	if p.a.device {
		c = http.DefaultClient // the owner's phone: no session
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// sent is how many calls the action's route received since its post.
func (p *posted) sent(env *webtest.Env) int {
	return env.Sandbox.RequestCount(p.a.method, p.a.route) - p.calls
}

// countOK: the write went upstream as often as it should: once (or, for an
// idempotent one, once and its client's retries), or never when the API was
// down.
func (p *posted) countOK(n, want int) bool {
	if p.a.idempotent && want == 1 {
		return n >= 1 && n <= apiclient.DefaultRetryPolicy().MaxAttempts
	}
	return n == want
}

// Fields whose value is not shown again by design: one-time codes and the
// references of a quote or a code the API issued (a new one is needed), and
// identification numbers (never echoed).
var notEchoed = map[string]bool{handlers.FormTokenField: true, "nin": true, "bvn": true, "code": true, "otp_id": true,
	"quote_id": true, "confirm": true}

// Words that tell the person an outcome is not known yet and is checked.
var uncertainWords = []string{"Do not send it again", "before sending it again", "reads it back", "keeps checking"}

func (p *posted) check(t *testing.T, env *webtest.Env, fault string, wantCalls int) {
	ctx := context.Background()
	if p.err != nil {
		t.Fatalf("no answer: %v", p.err)
	}
	defer func() {
		for i, o := range p.a.also {
			if n := env.Sandbox.RequestCount(o[0], o[1]) - p.alsoCalls[i]; n > 1 {
				t.Errorf("%s %s: sent %d times", o[0], o[1], n)
			}
		}
	}()
	if n := p.sent(env); !p.countOK(n, wantCalls) {
		t.Errorf("%d upstream calls, want %d", n, wantCalls)
	}
	status, body := p.resp.StatusCode, p.body
	if status == http.StatusInternalServerError || status == http.StatusBadRequest {
		t.Errorf("answered %d", status)
	}
	if w := webtest.ContainsAny(body, webtest.ErrorLeaks); w != "" {
		t.Errorf("the answer shows %q", w)
	}
	a, err := env.Store.ActionByKey(ctx, "form:"+p.form.Get(handlers.FormTokenField))
	if err == nil && !a.State.Finished() && a.State != store.ActionUnknown {
		t.Errorf("the action was left %s", a.State)
	}
	switch {
	case err != nil && p.sent(env) > 0:
		// Sent under another key (an approval's key is the approval).
		if webtest.ContainsAny(body, append(uncertainWords, "Done", "approved", "Approved")) == "" && status >= 300 && status != http.StatusSeeOther {
			t.Errorf("sent, and the answer (%d) says neither done nor being checked", status)
		}
	case err != nil:
		// Never begun: the app refused before sending (it could not read
		// what it checks first); the answer says so.
		if webtest.ContainsAny(body, append(webtest.APIFailureWords, "nothing was sent", "Nothing was sent")) == "" {
			t.Errorf("nothing was sent, and the answer (%d) does not say why", status)
		}
	case a.State == store.ActionUnknown:
		if webtest.ContainsAny(body, uncertainWords) == "" {
			t.Errorf("the outcome is unknown, and the answer (%d) does not say it is being checked: %q", status, a.Message)
		}
	case a.State == store.ActionRefused:
		if !strings.Contains(body, html.EscapeString(a.Message)) {
			t.Errorf("refused, and the answer (%d) does not give the reason %q", status, a.Message)
		}
	}
	if a.State != store.ActionDone {
		// Not done (refused, unknown, or never sent): what was typed is
		// on the page, to check, correct or send later.
		for k, vs := range p.form {
			for _, v := range vs {
				if !notEchoed[k] && !p.a.device && v != "" && !strings.Contains(body, html.EscapeString(v)) {
					t.Errorf("%s=%q typed, not on the answer (%d)", k, v, status)
				}
			}
		}
	}
	// The person sent the same form again: nothing more went upstream.
	if p.againErr != nil {
		t.Errorf("the same form again: no answer: %v", p.againErr)
	}
	if n := p.sent(env); !p.countOK(n, wantCalls) {
		t.Errorf("the same form sent again: %d upstream calls in all, want %d", n, wantCalls)
	}
}
