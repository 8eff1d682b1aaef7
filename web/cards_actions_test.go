package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The sandbox's card routes that change something.
const (
	routeCardStatus     = "/v1/users/{userId}/cards/{cardId}/status"
	routeCardLimits     = "/v1/users/{userId}/cards/{cardId}/set-limit"
	routeCardCancel     = "/v1/users/{userId}/cards/{cardId}/deactivate"
	routeCardActRequest = "/v1/users/{userId}/cards/{cardId}/activate/request"
	routeCardActConfirm = "/v1/users/{userId}/cards/{cardId}/activate/confirm"
	routeCardCreate     = "/v1/users/{userId}/cards"
)

// cardPageToken is the one-time token a rendered page put in the form found by
// selector.
func cardPageToken(t *testing.T, doc *goquery.Document, selector string) string {
	t.Helper()
	tok, _ := doc.Find(selector + ` input[name="form_token"]`).First().Attr("value")
	if !handlers.ValidFormToken(tok) {
		t.Fatalf("no one-time token in %s", selector)
	}
	return tok
}

// cardForm is one of the card forms: where its token is rendered, where it
// posts, and the upstream route it calls.
type cardForm struct {
	name   string
	kind   string // the action's kind and audit row's action
	method string
	route  string
	// page renders the form, found on it by the form selector. The
	// activation confirm form is rendered only in the answer to a code
	// request: it has no page and takes a fresh token.
	page    func(t *testing.T, env *webtest.Env) string
	form    string
	path    func(t *testing.T, env *webtest.Env) string
	values  func(t *testing.T, env *webtest.Env) url.Values
	prepare func(t *testing.T, env *webtest.Env) // puts the card where the form applies
}

func cardPage(name string) func(*testing.T, *webtest.Env) string {
	return func(t *testing.T, env *webtest.Env) string { return "/cards/" + webtest.DemoCard(t, env, name).ID }
}

func cardPath(name, suffix string) func(*testing.T, *webtest.Env) string {
	return func(t *testing.T, env *webtest.Env) string {
		return "/cards/" + webtest.DemoCard(t, env, name).ID + suffix
	}
}

func fixedValues(v url.Values) func(*testing.T, *webtest.Env) url.Values {
	return func(*testing.T, *webtest.Env) url.Values { return v }
}

// issuerOTP is the activation code the sandbox sent the cardholder.
func issuerOTP(t *testing.T, env *webtest.Env, cardID string) (otpID, code string) {
	t.Helper()
	var issuer struct {
		Data struct {
			OTPID   string `json:"otpId"`
			OTPCode string `json:"otpCode"`
		} `json:"data"`
	}
	if err := json.Unmarshal(webtest.SandboxControl(t, env, http.MethodGet, "/_sandbox/cards/"+cardID, nil), &issuer); err != nil {
		t.Fatal(err)
	}
	return issuer.Data.OTPID, issuer.Data.OTPCode
}

// cardForms are every state-changing form of the card area.
func cardForms(c *http.Client) []cardForm {
	chinedu := func(t *testing.T, env *webtest.Env) string {
		_, w := webtest.EmployeeWallet(t, env, "chinedu.eze@acme-payroll.example", "CNGN")
		return "/cards/issue?wallet=" + w.ID
	}
	return []cardForm{
		{name: "freeze", kind: "card.freeze", method: "PUT", route: routeCardStatus,
			page: cardPage("Everyday"), form: `[data-testid="card-status-panel"] form`, path: cardPath("Everyday", "/freeze"),
			values: fixedValues(url.Values{"reason": {"call from the cardholder"}}),
			prepare: func(t *testing.T, env *webtest.Env) {
				webtest.SetIssuerStatus(t, env, webtest.DemoCard(t, env, "Everyday").ID, "active")
			}},
		{name: "unfreeze", kind: "card.unfreeze", method: "PUT", route: routeCardStatus,
			page: cardPage("Everyday"), form: `[data-testid="card-status-panel"] form`, path: cardPath("Everyday", "/unfreeze"),
			values: fixedValues(url.Values{}),
			prepare: func(t *testing.T, env *webtest.Env) {
				webtest.SetIssuerStatus(t, env, webtest.DemoCard(t, env, "Everyday").ID, "frozen")
			}},
		{name: "limits", kind: "card.limits", method: "PUT", route: routeCardLimits,
			page: cardPath("Everyday", "/panels"), form: `[data-testid="limits-form"]`, path: cardPath("Everyday", "/limits"),
			values: fixedValues(url.Values{"total_daily": {"250,000.50"}, "max_single": {"1234.56"}}),
			prepare: func(t *testing.T, env *webtest.Env) {
				webtest.SetIssuerStatus(t, env, webtest.DemoCard(t, env, "Everyday").ID, "active")
			}},
		{name: "cancel", kind: "card.cancel", method: "PUT", route: routeCardCancel,
			page: cardPage("Travel"), form: `[data-testid="card-cancel"]`, path: cardPath("Travel", "/cancel"),
			values: fixedValues(url.Values{"confirm_name": {"Travel"}, "reason": {"left the company"}}),
			prepare: func(t *testing.T, env *webtest.Env) {
				webtest.SetIssuerStatus(t, env, webtest.DemoCard(t, env, "Travel").ID, "frozen")
			}},
		{name: "activation request", kind: "card.activation_request", method: "POST", route: routeCardActRequest,
			page: cardPage("Office card"), form: `form[action$="/activation/request"]`, path: cardPath("Office card", "/activation/request"),
			values: fixedValues(url.Values{"channel": {"sms"}}),
			prepare: func(t *testing.T, env *webtest.Env) {
				webtest.SetIssuerStatus(t, env, webtest.DemoCard(t, env, "Office card").ID, "pending")
			}},
		{name: "activation confirm", kind: "card.activation_confirm", method: "POST", route: routeCardActConfirm,
			path: cardPath("Office card", "/activation/confirm"),
			values: func(t *testing.T, env *webtest.Env) url.Values {
				otp, code := issuerOTP(t, env, webtest.DemoCard(t, env, "Office card").ID)
				if otp == "" { // activated: the code was used up
					otp, code = "used-otp", "123456"
				}
				return url.Values{"otp_id": {otp}, "code": {code}}
			},
			// A card is activated once: later, the same confirmation is sent
			// (and refused) without a new code.
			prepare: func(t *testing.T, env *webtest.Env) {
				card := webtest.DemoCard(t, env, "Office card")
				if live, err := env.API.GetCard(context.Background(), card.ServiceUserID, card.ID); err != nil || live.Activated {
					return
				}
				resp := webtest.PostCardForm(env, c, "/cards/"+card.ID+"/activation/request", url.Values{"channel": {"sms"}})
				doc := webtest.Doc(t, resp)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("code request: %d %q", resp.StatusCode, webtest.TestID(doc, "activation-message"))
				}
			}},
		{name: "issue", kind: "card.issue", method: "POST", route: routeCardCreate,
			page: chinedu, form: `[data-testid="issue-form"]`, path: func(*testing.T, *webtest.Env) string { return "/cards/issue" },
			values: func(t *testing.T, env *webtest.Env) url.Values {
				_, w := webtest.EmployeeWallet(t, env, "chinedu.eze@acme-payroll.example", "CNGN")
				return url.Values{"wallet_id": {w.ID}, "card_name": {"Fuel"}, "card_color": {"#0a0"}, "type": {"virtual"}, "nin": {"12345678901"},
					"nin_holder": {"Chinedu Eze"}, "holder_confirmed": {"1"}}
			},
			prepare: func(t *testing.T, env *webtest.Env) {
				_, w := webtest.EmployeeWallet(t, env, "chinedu.eze@acme-payroll.example", "CNGN")
				webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]string{"smartWalletId": w.ID, "amount": "50000"})
			}},
	}
}

// tokenOf renders the form's page and returns its token.
func (f cardForm) tokenOf(t *testing.T, env *webtest.Env, c *http.Client) string {
	t.Helper()
	if f.page == nil {
		return handlers.NewFormToken()
	}
	return cardPageToken(t, webtest.Doc(t, env.Get(c, f.page(t, env))), f.form)
}

func cardAuditCount(t *testing.T, env *webtest.Env, action string) int {
	t.Helper()
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: action, Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// Every card form: five concurrent posts with the same token make one
// upstream call and one audit row; a second token for the same intent is a
// new action.
func TestCardFormsSendOnce(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	for _, f := range cardForms(c) {
		t.Run(f.name, func(t *testing.T) {
			f.prepare(t, env)
			token := f.tokenOf(t, env, c)
			form := f.values(t, env)
			form.Set(handlers.FormTokenField, token)
			calls, audits := env.Sandbox.RequestCount(f.method, f.route), cardAuditCount(t, env, f.kind)
			for code := range env.PostFormAtOnce(c, f.path(t, env), form, 5) {
				if code >= 500 {
					t.Errorf("post: %d", code)
				}
			}
			if n := env.Sandbox.RequestCount(f.method, f.route) - calls; n != 1 {
				t.Fatalf("%d upstream calls for one form, want 1", n)
			}
			if n := cardAuditCount(t, env, f.kind) - audits; n != 1 {
				t.Fatalf("%d audit rows for one form, want 1", n)
			}
			if a, err := env.Store.ActionByKey(ctx, "form:"+token); err != nil || a.Kind != f.kind || a.State != store.ActionDone {
				t.Fatalf("action %+v %v", a, err)
			}
			// The same intent again, from a freshly rendered form: a new
			// action (the API may refuse it, but it is sent).
			f.prepare(t, env)
			again := f.values(t, env)
			again.Set(handlers.FormTokenField, f.tokenOf(t, env, c))
			resp := env.PostForm(c, f.path(t, env), again)
			resp.Body.Close()
			if n := env.Sandbox.RequestCount(f.method, f.route) - calls; n != 2 {
				t.Fatalf("a second form sent %d calls in all, want 2 (status %d)", n, resp.StatusCode)
			}
			// Without a token nothing is sent.
			again.Del(handlers.FormTokenField)
			resp = env.PostForm(c, f.path(t, env), again)
			resp.Body.Close()
			if n := env.Sandbox.RequestCount(f.method, f.route) - calls; resp.StatusCode != http.StatusBadRequest || n != 2 {
				t.Fatalf("no token: %d, %d calls in all", resp.StatusCode, n)
			}
		})
	}
}

// The API records the change and the answer is lost: the app reads it back
// and finishes the action as done, with one call and no second. An
// activation request cannot be read back: it stays unknown, in words.
func TestCardLostAnswersAreReadBack(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	for _, f := range cardForms(c) {
		t.Run(f.name, func(t *testing.T) {
			f.prepare(t, env)
			form := f.values(t, env)
			token := f.tokenOf(t, env, c)
			form.Set(handlers.FormTokenField, token)
			calls := env.Sandbox.RequestCount(f.method, f.route)
			webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{
				"method": f.method, "route": f.route, "drop": true, "after": true, "times": 1})

			resp := env.PostForm(c, f.path(t, env), form)
			doc := webtest.Doc(t, resp)
			if n := env.Sandbox.RequestCount(f.method, f.route) - calls; n != 1 {
				t.Fatalf("%d calls, want 1", n)
			}
			a, err := env.Store.ActionByKey(ctx, "form:"+token)
			if err != nil {
				t.Fatal(err)
			}
			if f.kind == "card.activation_request" {
				if a.State != store.ActionUnknown || resp.StatusCode != http.StatusBadGateway ||
					!strings.Contains(webtest.TestID(doc, "activation-message"), "cannot be read back") {
					t.Fatalf("unreadable request: %d %+v %q", resp.StatusCode, a, webtest.TestID(doc, "activation-message"))
				}
				return
			}
			if a.State != store.ActionDone || !strings.Contains(webtest.LastAudit(t, env, f.kind).Detail, "confirmed by reading it back") {
				t.Fatalf("after a lost answer: %d %+v", resp.StatusCode, a)
			}
			if resp.StatusCode >= 400 {
				t.Fatalf("a change read back as done answered %d", resp.StatusCode)
			}
		})
	}
	// The mirror took what the read-backs found.
	if hit := webtest.DemoCard(t, env, "Travel"); hit.Status != "canceled" {
		t.Fatalf("cancel read back, index says %q", hit.Status)
	}
	if hit := webtest.DemoCard(t, env, "Office card"); hit.Status != "active" {
		t.Fatalf("activation read back, index says %q", hit.Status)
	}
	hits, _, _ := env.Store.SearchCards(ctx, store.CardSearch{Query: "fuel"})
	if len(hits) != 1 || !hits[0].Reserved || hits[0].ProposalID == "" {
		t.Fatalf("issuance read back: %+v", hits)
	}
}

// The API refuses: the action is refused, the page and the ledger say why
// in the API's words, and nothing is sent again.
func TestCardRefusalIsInTheAPIsWords(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	card := webtest.DemoCard(t, env, "Everyday")
	webtest.SetIssuerStatus(t, env, card.ID, "frozen")
	token := cardPageToken(t, webtest.Doc(t, env.Get(c, "/cards/"+card.ID)), `[data-testid="card-status-panel"]`)
	// The card is reported lost while the page with the unfreeze button is
	// open.
	webtest.SetIssuerStatus(t, env, card.ID, "lost")
	resp := env.PostForm(c, "/cards/"+card.ID+"/unfreeze", url.Values{handlers.FormTokenField: {token}})
	doc := webtest.Doc(t, resp)
	msg := webtest.TestID(doc, "card-control-message")
	if resp.StatusCode != http.StatusConflict || !strings.Contains(msg, "The current status does not allow it") {
		t.Fatalf("refused: %d %q", resp.StatusCode, msg)
	}
	a, _ := env.Store.ActionByKey(ctx, "form:"+token)
	if a.State != store.ActionRefused || !strings.Contains(a.Message, "does not allow") {
		t.Fatalf("action %+v", a)
	}
	if n := env.Sandbox.RequestCount("PUT", routeCardStatus); n != 1 {
		t.Fatalf("%d calls, want 1", n)
	}
	// The same form again: nothing sent, the first outcome shown.
	resp = env.PostForm(c, "/cards/"+card.ID+"/unfreeze", url.Values{handlers.FormTokenField: {token}})
	doc = webtest.Doc(t, resp)
	if n := env.Sandbox.RequestCount("PUT", routeCardStatus); n != 1 || !strings.Contains(webtest.TestID(doc, "card-control-message"), "already sent: refused") {
		t.Fatalf("repeat: %d calls, %q", n, webtest.TestID(doc, "card-control-message"))
	}
}

// A process that died between beginning an action and calling the API
// leaves a begun row: the recovery job reads each back and settles it.
func TestCardBegunActionsAreRecovered(t *testing.T) {
	t.Parallel()
	env, _, support := webtest.NewCardsEnv(t)
	ctx := context.Background()
	actor := store.Actor{StaffID: support.ID, Email: support.Email}
	everyday, travel := webtest.DemoCard(t, env, "Everyday"), webtest.DemoCard(t, env, "Travel")
	begin := func(key, kind, target string, req any) {
		t.Helper()
		if _, _, err := env.Store.BeginAction(ctx, store.NewAction{Key: key, Kind: kind, Target: target, Actor: actor, Request: req}); err != nil {
			t.Fatal(err)
		}
	}
	// The freeze reached the issuer before the crash; the cancel did not.
	begin("form:freeze-crashed", "card.freeze", "card:"+everyday.ID, map[string]any{
		"cardId": everyday.ID, "userId": everyday.ServiceUserID, "status": "BLOCKED", "was": "active"})
	webtest.SetIssuerStatus(t, env, everyday.ID, "frozen")
	begin("form:cancel-crashed", "card.cancel", "card:"+travel.ID, map[string]any{"cardId": travel.ID, "userId": travel.ServiceUserID})
	begin("form:request-crashed", "card.activation_request", "card:x", map[string]any{"cardId": "x", "userId": "y", "channel": "sms"})
	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]store.ActionState{"form:freeze-crashed": store.ActionDone, "form:cancel-crashed": store.ActionRefused,
		"form:request-crashed": store.ActionUnknown} {
		if a, _ := env.Store.ActionByKey(ctx, key); a.State != want {
			t.Errorf("%s: %s (%s), want %s", key, a.State, a.Message, want)
		}
	}
	if hit := webtest.DemoCard(t, env, "Everyday"); hit.Status != "frozen" {
		t.Fatalf("the recovered freeze left the index at %q", hit.Status)
	}
	if a := webtest.LastAudit(t, env, "card.freeze"); a.Outcome != store.OutcomeOK || a.Actor.StaffID != support.ID {
		t.Fatalf("audit %+v", a)
	}
	if n := env.Sandbox.RequestCount("PUT", routeCardStatus) + env.Sandbox.RequestCount("PUT", routeCardCancel); n != 0 {
		t.Fatalf("recovery sent %d writes; it only reads", n)
	}
}

// cardsRefuseAudit makes every audit write fail from now on.
func cardsRefuseAudit(t *testing.T, env *webtest.Env) {
	t.Helper()
	if _, err := env.Store.Pool().Exec(context.Background(), `
		CREATE FUNCTION cards_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'audit refused'; END $$;
		CREATE TRIGGER cards_refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION cards_refuse_audit();`); err != nil {
		t.Fatal(err)
	}
}

// An audit write that fails fails the action: no local change without its
// audit row (the recovery job finishes it later, with its row).
func TestCardAuditFailureChangesNothing(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	card := webtest.DemoCard(t, env, "Everyday")
	_, wallet := webtest.EmployeeWallet(t, env, "chinedu.eze@acme-payroll.example", "CNGN")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]string{"smartWalletId": wallet.ID, "amount": "50000"})
	freezeToken := cardPageToken(t, webtest.Doc(t, env.Get(c, "/cards/"+card.ID)), `[data-testid="card-status-panel"]`)
	issueToken := cardPageToken(t, webtest.Doc(t, env.Get(c, "/cards/issue?wallet="+wallet.ID)), `[data-testid="issue-form"]`)
	cardsRefuseAudit(t, env)

	resp := env.PostForm(c, "/cards/"+card.ID+"/freeze", url.Values{handlers.FormTokenField: {freezeToken}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("freeze with a failing audit: %d", resp.StatusCode)
	}
	if hit := webtest.DemoCard(t, env, "Everyday"); hit.Status != "active" {
		t.Fatalf("the index changed without its audit row: %q", hit.Status)
	}
	resp = env.PostForm(c, "/cards/issue", url.Values{"wallet_id": {wallet.ID}, "card_name": {"Fuel"}, "card_color": {"#0a0"},
		"type": {"virtual"}, "nin": {"12345678901"}, "nin_holder": {"Chinedu Eze"}, "holder_confirmed": {"1"}, handlers.FormTokenField: {issueToken}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("issue with a failing audit: %d", resp.StatusCode)
	}
	if ids, _ := env.Store.WalletCardIDs(ctx, wallet.ID); len(ids) != 0 {
		t.Fatalf("a requested card was indexed without its audit row: %v", ids)
	}
	for _, tok := range []string{freezeToken, issueToken} {
		if a, _ := env.Store.ActionByKey(ctx, "form:"+tok); a.State != store.ActionBegun {
			t.Fatalf("action after a failed finish: %+v (want begun, for the recovery job)", a)
		}
	}
}

// After support requests a card, the page shows where the issuance stands
// and links nothing support may not open (the approval page is for
// finance approvers and owners); an owner gets the link.
func TestCardIssuanceLinksOnlyWhatTheViewerMayOpen(t *testing.T) {
	t.Parallel()
	env, support, _ := webtest.NewCardsEnv(t)
	_, wallet := webtest.EmployeeWallet(t, env, "chinedu.eze@acme-payroll.example", "CNGN")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]string{"smartWalletId": wallet.ID, "amount": "50000"})
	issue := func(c *http.Client, name string) *goquery.Document {
		t.Helper()
		token := cardPageToken(t, webtest.Doc(t, env.Get(c, "/cards/issue?wallet="+wallet.ID)), `[data-testid="issue-form"]`)
		resp := env.PostForm(c, "/cards/issue", url.Values{"wallet_id": {wallet.ID}, "card_name": {name}, "card_color": {"#0a0"},
			"type": {"virtual"}, "nin": {"12345678901"}, "nin_holder": {"Chinedu Eze"}, "holder_confirmed": {"1"}, handlers.FormTokenField: {token}})
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("issue: %d", resp.StatusCode)
		}
		return webtest.Doc(t, resp)
	}
	doc := issue(support, "Fuel")
	if doc.Find(`[data-testid="issue-approval-link"]`).Length() != 0 {
		t.Fatal("support is offered the approval, which answers 403 for them")
	}
	if got := webtest.TestID(doc, "issue-proposal-state"); !strings.Contains(got, "wallet owner") {
		t.Fatalf("the issuance's state in words: %q", got)
	}
	proposalID := doc.Find("#issue-proposal-id").AttrOr("data-full", "")
	// Every link on the pages support is shown about the request opens for
	// them.
	pages := []string{"/cards/" + proposalID, "/cards?q=fuel"}
	links := map[string]bool{}
	collect := func(d *goquery.Document) {
		d.Find(`main a[href^="/"]`).Each(func(_ int, a *goquery.Selection) { links[a.AttrOr("href", "")] = true })
	}
	collect(doc)
	for _, p := range pages {
		d := webtest.Doc(t, env.Get(support, p))
		if p == pages[0] && !strings.Contains(webtest.TestID(d, "card-issuance-state"), "wallet owner") {
			t.Fatalf("the requested card's page does not say where it stands: %q", webtest.TestID(d, "card-issuance-state"))
		}
		if p == pages[0] && !strings.Contains(webtest.TestID(d, "card-issuance-requested"), "support") {
			t.Fatalf("who asked for the card: %q", webtest.TestID(d, "card-issuance-requested"))
		}
		collect(d)
	}
	if len(links) < 3 {
		t.Fatalf("only %d links found: %v", len(links), links)
	}
	for l := range links {
		resp := env.Get(support, l)
		resp.Body.Close()
		if resp.StatusCode == http.StatusForbidden {
			t.Errorf("support is linked to %s, which answers 403", l)
		}
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	doc = issue(owner, "Groceries")
	if href, _ := doc.Find(`[data-testid="issue-approval-link"]`).Attr("href"); href != "/approvals/"+doc.Find("#issue-proposal-id").AttrOr("data-full", "") {
		t.Fatalf("owner's approval link %q", href)
	}
}

// Cards are issued on employees' wallets only: the treasury's wallets are
// neither offered nor accepted.
func TestCardIssueOffersEmployeesWalletsOnly(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	treasury, err := env.Store.EmployeeByEmail(ctx, "treasury@demo.partner.example")
	if err != nil || treasury.Kind != store.KindTreasury {
		t.Fatalf("treasury %+v %v", treasury, err)
	}
	wallets, err := env.Store.WalletsByEmployee(ctx, treasury.ID)
	if err != nil || len(wallets) == 0 {
		t.Fatalf("treasury wallets %v %v", wallets, err)
	}
	for _, q := range []string{"", "treasury", strings.ToLower(treasury.FirstName)} {
		doc := webtest.Doc(t, env.Get(c, "/cards/issue?q="+url.QueryEscape(q)))
		for _, w := range wallets {
			if doc.Find(`a[href="/cards/issue?wallet=`+w.ID+`"]`).Length() != 0 {
				t.Errorf("q=%q offers the treasury's %s wallet", q, w.Currency)
			}
		}
		if q == "" && doc.Find(`[data-testid="issue-wallet-row"]`).Length() == 0 {
			t.Fatal("no employee wallet offered at all")
		}
	}
	for _, w := range wallets {
		if _, ok := map[string]bool{"CNGN": true, "USDB": true}[w.Currency]; !ok {
			continue
		}
		resp := env.Get(c, "/cards/issue?wallet="+w.ID)
		resp.Body.Close()
		if resp.StatusCode != http.StatusConflict {
			t.Errorf("the treasury's %s wallet's form: %d", w.Currency, resp.StatusCode)
		}
		resp = webtest.PostCardForm(env, c, "/cards/issue", url.Values{"wallet_id": {w.ID}, "card_name": {"Treasury"}, "card_color": {"#000"},
			"type": {"virtual"}, "nin": {"12345678901"}})

		resp.Body.Close()
		if resp.StatusCode != http.StatusConflict {
			t.Errorf("issuing on the treasury's %s wallet: %d", w.Currency, resp.StatusCode)
		}
	}
	if n := env.Sandbox.RequestCount("POST", routeCardCreate); n != 0 {
		t.Fatalf("%d card requests sent for the treasury", n)
	}
}

// Card limits show every invalid field at once, as the API does.
func TestCardLimitsShowEveryMistakeAtOnce(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	for _, tc := range []struct{ daily, single, wantDaily, wantSingle string }{
		{"abc", "9999999", "such as 1500", "1,000,000.00 NGN"},
		{"6000000", "0", "5,000,000.00 NGN", "more than zero"},
		{"1,50", "10.001", "comma", "decimal places"},
	} {
		resp := webtest.PostCardForm(env, c, "/cards/"+card.ID+"/limits", url.Values{"total_daily": {tc.daily}, "max_single": {tc.single}})
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s/%s: %d", tc.daily, tc.single, resp.StatusCode)
		}
		if got := webtest.TestID(doc, "limit-daily-error"); !strings.Contains(got, tc.wantDaily) {
			t.Errorf("%s/%s: daily %q, want %q", tc.daily, tc.single, got, tc.wantDaily)
		}
		if got := webtest.TestID(doc, "limit-single-error"); !strings.Contains(got, tc.wantSingle) {
			t.Errorf("%s/%s: single %q, want %q", tc.daily, tc.single, got, tc.wantSingle)
		}
	}
	if n := env.Sandbox.RequestCount("PUT", routeCardLimits); n != 0 {
		t.Fatalf("%d limit changes sent for bad input", n)
	}
}

// A comma is a thousands separator or nothing: "1,50" is refused, never
// read as 150; more decimals than kobo are refused; a grouped amount is
// read as written.
func TestCardLimitsRefuseAmbiguousAmounts(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	card := webtest.DemoCard(t, env, "Everyday")
	path := "/cards/" + card.ID + "/limits"
	for _, daily := range []string{"1,50", "1,5000", "150,00", "1.500,00", "1000.001"} {
		resp := webtest.PostCardForm(env, c, path, url.Values{"total_daily": {daily}, "max_single": {"1"}})
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "limit-daily-error") == "" {
			t.Fatalf("%q: %d %q", daily, resp.StatusCode, webtest.TestID(doc, "limit-daily-error"))
		}
		if v, _ := doc.Find("#limit-daily").Attr("value"); v != daily {
			t.Fatalf("%q: typed value lost (%q)", daily, v)
		}
	}
	if n := env.Sandbox.RequestCount("PUT", routeCardLimits); n != 0 {
		t.Fatalf("%d ambiguous amounts sent", n)
	}
	resp := webtest.PostCardForm(env, c, path, url.Values{"total_daily": {"1,500.50"}, "max_single": {"150"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a grouped amount: %d", resp.StatusCode)
	}
	l, err := env.API.GetCardLimits(ctx, card.ServiceUserID, card.ID)
	if err != nil || l.TotalDailyLimit.String() != "1500.5" || l.MaxSingleTransactionAmount.String() != "150" {
		t.Fatalf("limits %+v %v", l, err)
	}
}
