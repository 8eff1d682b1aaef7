package moneytest

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

const quoteRoute = "/v1/users/{userId}/exchange/quote"

// A swap is proposed only at a firm quote the proposer saw: what leaves,
// what arrives, the convert preview and the expiry. No quote, a quote for
// another swap, or an expired one sends nothing.
func TestTreasurySwapIsProposedOnlyAtAFreshQuote(t *testing.T) {
	t.Parallel()
	var offset atomic.Int64
	env := webtest.New(t, webtest.Options{Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	swap := url.Values{"wallet_id": {usd}, "to_stablecoin": {"CNGN"}, "amount": {"100"}, "slippage_bps": {"50"}}
	sent := func() int { return env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) }
	before := sent()

	// The form offers a quote, not a proposal.
	doc := webtest.Doc(t, env.Get(c, "/treasury"))
	if doc.Find(`[data-testid="swap-submit"]`).Length() != 0 || doc.Find(`[data-testid="swap-quote-submit"]`).Length() != 1 {
		t.Fatal("the swap form proposes before a quote")
	}
	// No quote: refused, nothing sent.
	resp := env.PostForm(c, "/treasury/swap", webtest.WithTreasuryFormToken(t, env, c, "swap", swap))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "swap-quote-error"), "Get a quote first") {
		t.Fatalf("no quote: %d %q", resp.StatusCode, webtest.TestID(doc, "swap-quote-error"))
	}

	// The quote: what leaves, what arrives, the preview, the expiry.
	quotes := env.Sandbox.RequestCount("POST", quoteRoute)
	form := webtest.WithTreasuryFormToken(t, env, c, "swap", swap)
	resp = env.PostForm(c, "/treasury/swap/quote", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || env.Sandbox.RequestCount("POST", quoteRoute)-quotes != 1 {
		t.Fatalf("quote: %d", resp.StatusCode)
	}
	if from := webtest.TestID(doc, "quote-from"); from != "100.00 USD (USDB)" {
		t.Fatalf("quote from %q", from)
	}
	to, preview := webtest.TestID(doc, "quote-to"), webtest.TestID(doc, "quote-preview")
	if !strings.HasSuffix(to, " NGN (CNGN)") || to != preview || webtest.TestID(doc, "quote-rate") == "" ||
		doc.Find(`[data-testid="quote-expiry"] time[data-countdown]`).Length() != 1 {
		t.Fatalf("quote shows %q, preview %q", to, preview)
	}
	if v := doc.Find("#swap-amount").AttrOr("value", ""); v != "100" || doc.Find(`[data-testid="swap-submit"]`).Length() != 1 {
		t.Fatalf("after the quote the form lost what was typed (%q) or offers no proposal", v)
	}
	id := doc.Find(`[data-testid="swap-quote"] input[name="quote_id"]`).AttrOr("value", "")
	if tok := doc.Find(`[data-testid="swap-form"] input[name="form_token"]`).AttrOr("value", ""); tok != form.Get("form_token") {
		t.Fatalf("the quote spent the form's token: %q", tok)
	}
	form.Set("quote_id", id)

	// Another amount than quoted: refused.
	other := url.Values{}
	for k, v := range form {
		other[k] = v
	}
	other.Set("amount", "101")
	resp = env.PostForm(c, "/treasury/swap", other)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "swap-quote-error"), "another swap") {
		t.Fatalf("changed amount: %d %q", resp.StatusCode, webtest.TestID(doc, "swap-quote-error"))
	}
	// Expired: refused.
	offset.Store(int64(31 * time.Second))
	resp = env.PostForm(c, "/treasury/swap", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "swap-quote-error"), "expired") {
		t.Fatalf("expired: %d %q", resp.StatusCode, webtest.TestID(doc, "swap-quote-error"))
	}
	if n := sent() - before; n != 0 {
		t.Fatalf("%d proposals sent without a fresh quote", n)
	}

	// A fresh quote: proposed once, the quote kept with the action.
	offset.Store(0)
	form = webtest.QuotedSwapForm(t, env, c, swap)
	resp = env.PostForm(c, "/treasury/swap", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || sent()-before != 1 {
		t.Fatalf("fresh quote: %d, %d sent", resp.StatusCode, sent()-before)
	}
	a, err := env.Store.ActionByKey(t.Context(), "form:"+form.Get("form_token"))
	if err != nil || !strings.Contains(string(a.Request), form.Get("quote_id")) {
		t.Fatalf("the action does not keep its quote: %s %v", a.Request, err)
	}

	// Roles that may not move value may not ask for quotes either.
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	resp = env.PostForm(hr, "/treasury/swap/quote", swap)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("hr quote: %d", resp.StatusCode)
	}
}
