package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// treasuryWrite is one treasury form: where it posts, the upstream route it
// calls, its ledger kind, and a fresh filled-in form.
type treasuryWrite struct {
	name, path, route, kind string
	form                    func() url.Values
}

func treasuryWrites(t *testing.T, env *webtest.Env, c *http.Client) []treasuryWrite {
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	emily := env.DemoEmployee("Emily").ServiceUserID
	owner := ethsig.KeyAddress(must(ethsig.GenerateKey())).Hex()
	return []treasuryWrite{
		{"transfer", "/treasury/transfer", webtest.ProposalsRoute, "proposal.create", func() url.Values {
			return webtest.WithTreasuryFormToken(t, env, c, "transfer", url.Values{"wallet_id": {usd}, "to_user_id": {emily}, "amount": {"10.25"},
				"description": {"Team lunch"}})

		}},
		{"swap", "/treasury/swap", webtest.ProposalsRoute, "proposal.create", func() url.Values {
			return webtest.QuotedSwapForm(t, env, c, url.Values{"wallet_id": {usd}, "to_stablecoin": {"CNGN"}, "amount": {"20"}})
		}},
		{"send", "/treasury/send", webtest.SendRoute, "proposal.create", func() url.Values {
			return webtest.WithTreasuryFormToken(t, env, c, "send", url.Values{"wallet_id": {usd}, "to_user_id": {emily}, "amount": {"7"}, "note": {"Taxi"}})
		}},
		{"wallet", "/treasury/wallets", webtest.ChallengeRoute, "wallet.owner_proof", func() url.Values {
			return webtest.WithTreasuryFormToken(t, env, c, "wallet", url.Values{"currency": {"GBPe"}, "owner": {owner}})
		}},
		{"withdrawal", "/treasury/withdrawal", webtest.WithdrawalRoute, "crypto_withdrawal.create", func() url.Values {
			form, _ := webtest.WithdrawalForm(t, env, c, usd)
			form.Set("route", "base:USDC")
			form.Set("address", webtest.WithdrawalDestination)
			form.Set("confirm_tail", webtest.WithdrawalAddressTail(form.Get("address")))
			return form
		}},
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Every treasury form: five concurrent posts of one form send one request
// upstream and write one audit row; the same intent on a new form is a new
// request.
func TestTreasuryFormsSendOnceForOneToken(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	for _, w := range treasuryWrites(t, env, c) {
		form := w.form()
		calls, audits := env.Sandbox.RequestCount("POST", w.route), len(webtest.AuditRows(t, env, w.kind))
		// The call is slow, so the posts overlap it.
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": w.route,
			"latencyMs": 300, "times": 1})

		got := env.PostFormAtOnce(c, w.path, form, 5)
		for code := range got {
			if code != http.StatusSeeOther && code != http.StatusCreated {
				t.Errorf("%s: answer %d", w.name, code)
			}
		}
		if n := env.Sandbox.RequestCount("POST", w.route) - calls; n != 1 {
			t.Fatalf("%s: %d upstream calls for one form, want 1", w.name, n)
		}
		if n := len(webtest.AuditRows(t, env, w.kind)) - audits; n != 1 {
			t.Fatalf("%s: %d audit rows for one form, want 1", w.name, n)
		}
		a, err := env.Store.ActionByKey(context.Background(), "form:"+form.Get("form_token"))
		if err != nil || a.State != store.ActionDone || a.Kind != w.kind {
			t.Fatalf("%s: action %+v %v", w.name, a, err)
		}
		// The same intent on a fresh form is sent again.
		resp := env.PostForm(c, w.path, w.form())
		resp.Body.Close()
		if n := env.Sandbox.RequestCount("POST", w.route) - calls; n != 2 || len(webtest.AuditRows(t, env, w.kind))-audits != 2 {
			t.Fatalf("%s: a new form: %d, %d upstream calls", w.name, resp.StatusCode, n)
		}
		// Without a token nothing is sent.
		form = w.form()
		form.Del("form_token")
		resp = env.PostForm(c, w.path, form)
		resp.Body.Close()
		if n := env.Sandbox.RequestCount("POST", w.route) - calls; resp.StatusCode != http.StatusBadRequest || n != 2 {
			t.Fatalf("%s: no token: %d, %d upstream calls", w.name, resp.StatusCode, n)
		}
	}
}

// The API records the proposal and its answer is lost: the app reads the
// wallet's proposals back, finds it, and mirrors it with its creator, with
// no second POST.
func TestTreasuryProposalWithALostAnswerIsReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, staff := env.SignedIn(store.RoleFinanceApprover)
	writes := treasuryWrites(t, env, c)[:3]
	for _, w := range writes {
		before := env.Sandbox.RequestCount("POST", w.route)
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": w.route,
			"drop": true, "after": true, "times": 1})

		form := w.form()
		resp := env.PostForm(c, w.path, form)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/approvals/") {
			t.Fatalf("%s with a lost answer: %d %q", w.name, resp.StatusCode, resp.Header.Get("Location"))
		}
		if n := env.Sandbox.RequestCount("POST", w.route) - before; n != 1 {
			t.Fatalf("%s: %d calls, want 1", w.name, n)
		}
		id := strings.TrimPrefix(resp.Header.Get("Location"), "/approvals/")
		p, err := env.Store.ProposalByID(ctx, id)
		if err != nil || p.CreatedByStaffID != staff.ID {
			t.Fatalf("%s: mirrored %+v %v", w.name, p, err)
		}
		a, _ := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token"))
		if a.State != store.ActionDone || a.Target != "proposal:"+id || a.ReadBacks != 0 {
			t.Fatalf("%s: action %+v", w.name, a)
		}
		rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "proposal.create"})
		if len(rows) == 0 || rows[0].Target != "proposal:"+id || rows[0].Outcome != store.OutcomeOK || !strings.Contains(rows[0].Detail, "reading it back") {
			t.Fatalf("%s: audit %+v", w.name, rows)
		}
	}
	// Each read-back found its own proposal.
	if ps, _ := env.Store.ListQueue(ctx, store.QueueFilter{}); len(ps) != len(writes) {
		t.Fatalf("%d proposals mirrored, want %d", len(ps), len(writes))
	}
}

// The API refuses: the request is refused with the API's words on the page,
// next to the field they concern; nothing is mirrored.
func TestTreasuryRefusalsShowTheAPIsWords(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)
	w := treasuryWrites(t, env, c)

	// The withdrawal's address, refused by the API as invalid.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.WithdrawalRoute,
		"status": 400, "message": "destinationAddress is on a deny list", "times": 1})

	form := w[4].form()
	resp := env.PostForm(c, w[4].path, form)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-address-error"), "deny list") {
		t.Fatalf("refused withdrawal: %d %q", resp.StatusCode, webtest.TestID(doc, "f-address-error"))
	}
	if a, _ := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token")); a.State != store.ActionRefused || webtest.WithdrawalRows(t, env) != 0 {
		t.Fatalf("refused withdrawal: %+v, %d rows", a, webtest.WithdrawalRows(t, env))
	}

	// The owner-proof challenge, refused as another partner's user.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ChallengeRoute,
		"status": 403, "message": "User does not belong to this partner", "times": 1})

	resp = env.PostForm(c, w[3].path, w[3].form())
	doc = webtest.Doc(t, resp)
	if msg := webtest.TestID(doc, "treasury-error"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(msg, "User does not belong to this partner") {
		t.Fatalf("refused challenge: %d %q", resp.StatusCode, msg)
	}
	if doc.Find(`[data-testid="sign-link"]`).Length() != 0 {
		t.Fatal("a refused challenge shows a link")
	}

	// A swap refused by the API: its words above the form, what was typed kept.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ProposalsRoute,
		"status": 409, "message": "Wallet is being migrated", "times": 1})

	resp = env.PostForm(c, w[1].path, w[1].form())
	doc = webtest.Doc(t, resp)
	if msg := webtest.TestID(doc, "treasury-error"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(msg, "Wallet is being migrated") ||
		doc.Find("#swap-amount").AttrOr("value", "") != "20" {
		t.Fatalf("refused swap: %d %q", resp.StatusCode, msg)
	}
	if ps, _ := env.Store.ListQueue(ctx, store.QueueFilter{}); len(ps) != 0 {
		t.Fatalf("refused requests mirrored %d proposals", len(ps))
	}
}

// A process that died between beginning an action and learning its
// outcome leaves a begun row; the recovery job resolves it: a proposal the
// API has is found and mirrored with its creator, one it has not is
// concluded as not done, and a withdrawal (which cannot be read back) is
// left for a person with words for them.
func TestTreasuryBegunActionsAreResolvedByTheRecoveryJob(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, staff := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	emily := env.DemoEmployee("Emily").ServiceUserID
	begin := func(key, kind, target string, req map[string]any) {
		t.Helper()
		if _, fresh, err := env.Store.BeginAction(ctx, store.NewAction{Key: key, Kind: kind, Target: target, Actor: staff.Actor(), Request: req}); err != nil || !fresh {
			t.Fatalf("begin %s: %v", key, err)
		}
	}
	transfer := func(description string) map[string]any {
		return map[string]any{"form": "transfer", "ownerUserId": env.Demo.TreasuryUserID, "walletId": usd, "type": "TRANSFER",
			"currency": "USDB", "amount": "31.5", "toUserId": emily, "description": description}
	}
	// The call was made (the API has the proposal), the answer never
	// recorded.
	begin("form:crashed-after-the-call", "proposal.create", "wallet:"+usd, transfer("Crashed after"))
	made, err := env.API.CreateTransferProposal(ctx, env.Demo.TreasuryUserID, usd, apiclient.TransferProposal{
		ToUserID: emily, Amount: decimal.RequireFromString("31.50"), Currency: "USDB", Description: "Crashed after"})
	if err != nil {
		t.Fatal(err)
	}
	// The call was never made.
	begin("form:crashed-before-the-call", "proposal.create", "wallet:"+usd, transfer("Crashed before"))
	// A withdrawal whose call may or may not have been made.
	id, err := env.Store.ReserveCryptoWithdrawalID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	begin("form:crashed-withdrawal", "crypto_withdrawal.create", "crypto_withdrawal:"+strconv.FormatInt(id, 10), map[string]any{
		"id": id, "userId": env.Demo.TreasuryUserID, "walletId": usd, "currency": "USDB", "balanceSeen": "100",
		"destinationChain": "base", "destinationCurrency": "USDC", "destinationAddress": webtest.WithdrawalDestination})
	page := "/treasury/withdrawal/" + strconv.FormatInt(id, 10)
	doc := webtest.Doc(t, env.Get(c, page))
	if st, _ := doc.Find(`[data-testid="withdrawal-state"]`).Attr("data-state"); st != string(store.ActionBegun) ||
		doc.Find(`#withdrawal-body[hx-get]`).Length() != 1 {
		t.Fatalf("a begun withdrawal: %q", st)
	}
	calls := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) + env.Sandbox.RequestCount("POST", webtest.WithdrawalRoute)

	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if a, _ := env.Store.ActionByKey(ctx, "form:crashed-after-the-call"); a.State != store.ActionDone || a.Target != "proposal:"+made.ID {
		t.Fatalf("after the call: %+v", a)
	}
	if p, err := env.Store.ProposalByID(ctx, made.ID); err != nil || p.CreatedByStaffID != staff.ID {
		t.Fatalf("recovered proposal: %+v %v", p, err)
	}
	if a, _ := env.Store.ActionByKey(ctx, "form:crashed-before-the-call"); a.State != store.ActionRefused {
		t.Fatalf("before the call: %+v", a)
	}
	if a, _ := env.Store.ActionByKey(ctx, "form:crashed-withdrawal"); a.State != store.ActionUnknown || !strings.Contains(a.Message, "cannot be read back") {
		t.Fatalf("withdrawal: %+v", a)
	}
	doc = webtest.Doc(t, env.Get(c, page))
	if st, _ := doc.Find(`[data-testid="withdrawal-state"]`).Attr("data-state"); st != string(store.ActionUnknown) ||
		!strings.Contains(webtest.TestID(doc, "withdrawal-record-error"), "expires by itself") || doc.Find(`#withdrawal-body[hx-get]`).Length() != 0 {
		t.Fatalf("the withdrawal after recovery: %q %q", st, webtest.TestID(doc, "withdrawal-record-error"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) + env.Sandbox.RequestCount("POST", webtest.WithdrawalRoute); n != calls {
		t.Fatalf("the recovery sent %d requests", n-calls)
	}
}

// An audit write that fails fails the request: a created proposal is not
// mirrored and a withdrawal not recorded without their audit rows; the
// action stays begun for the recovery job.
func TestTreasuryAuditFailureChangesNothing(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)
	w := treasuryWrites(t, env, c)
	transfer, withdrawal := w[0].form(), w[4].form()
	refuseAudit(t, env)
	for _, tc := range []struct {
		path string
		form url.Values
	}{{w[0].path, transfer}, {w[4].path, withdrawal}} {
		resp := env.PostForm(c, tc.path, tc.form)
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError {
			t.Fatalf("%s with a failing audit: %d", tc.path, resp.StatusCode)
		}
		if a, _ := env.Store.ActionByKey(ctx, "form:"+tc.form.Get("form_token")); a.State != store.ActionBegun {
			t.Fatalf("%s: action %+v, want begun", tc.path, a)
		}
	}
	if ps, _ := env.Store.ListQueue(ctx, store.QueueFilter{}); len(ps) != 0 {
		t.Fatalf("%d proposals mirrored without their audit rows", len(ps))
	}
	if n := webtest.WithdrawalRows(t, env); n != 0 {
		t.Fatalf("%d withdrawals recorded without their audit rows", n)
	}
	id, _ := strconv.ParseInt(strings.TrimPrefix(mustAction(t, env, withdrawal).Target, "crypto_withdrawal:"), 10, 64)
	if _, err := env.Store.CryptoWithdrawalByID(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("withdrawal %d: %v", id, err)
	}
}

func mustAction(t *testing.T, env *webtest.Env, form url.Values) store.Action {
	t.Helper()
	a, err := env.Store.ActionByKey(context.Background(), "form:"+form.Get("form_token"))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Amounts: a decimal comma is refused with what to type instead, more
// decimals than the token has are refused, and nothing is sent.
func TestTreasuryAmountsAreReadStrictly(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	for _, tc := range []struct{ amount, want string }{
		{"1,50", "1,50 is not an amount: use a point for decimals (1.50)."},
		{"0.000000000000000001", "at most 2 decimal places"},
		{"12,34,5", "a comma may only separate thousands"},
	} {
		resp := env.PostForm(c, "/treasury/transfer", webtest.WithTreasuryFormToken(t, env, c, "transfer", url.Values{"wallet_id": {usd},
			"to_user_id": {env.DemoEmployee("Emily").ServiceUserID}, "amount": {tc.amount}}))
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "transfer-amount-error"), tc.want) {
			t.Fatalf("%q: %d %q", tc.amount, resp.StatusCode, webtest.TestID(doc, "transfer-amount-error"))
		}
		if v := doc.Find("#transfer-amount").AttrOr("value", ""); v != tc.amount {
			t.Fatalf("%q: typed amount lost: %q", tc.amount, v)
		}
		webtest.FieldProblem(t, doc, "transfer-amount", tc.want)
		if doc.Find(`#transfer-wallet option[value="`+usd+`"][selected]`).Length() != 1 ||
			doc.Find(`[data-testid="transfer-to-results"] input[name="to_user_id"][checked]`).AttrOr("value", "") != env.DemoEmployee("Emily").ServiceUserID {
			t.Fatalf("%q: the chosen wallet or recipient was lost", tc.amount)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute); n != 0 {
		t.Fatalf("%d proposals sent for refused amounts", n)
	}
}
