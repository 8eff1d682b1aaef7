package moneytest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

func TestTreasuryTransferIsCreatedOnceAndItsCreatorCannotApprove(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, s := webtest.Approver(t, env, admins[0])
	usd := webtest.TreasuryWallet(t, env, "USDB").ID

	doc := webtest.Doc(t, env.Get(c, "/treasury"))
	if doc.Find(`[data-testid="transfer-form"]`).Length() != 1 || !strings.Contains(doc.Find("#transfer-wallet").Text(), "249,500.00 USD (USDB)") {
		t.Fatalf("form: %q", doc.Find("#transfer-wallet").Text())
	}

	// Bad input: messages next to the fields, typed values kept, nothing sent.
	tok := webtest.TreasuryFormToken(t, env, c, "transfer")
	resp := env.PostForm(c, "/treasury/transfer", url.Values{"wallet_id": {usd}, "to_user_id": {""}, "amount": {"1e3"},
		"description": {strings.Repeat("d", 501)}, "form_token": {tok}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad transfer: %d", resp.StatusCode)
	}
	for _, id := range []string{"transfer-to-error", "transfer-amount-error", "transfer-description-error"} {
		if webtest.TestID(doc, id) == "" {
			t.Errorf("no %s", id)
		}
	}
	if !strings.Contains(webtest.TestID(doc, "transfer-to-error"), "Choose the employee") || doc.Find("#transfer-to").AttrOr("aria-invalid", "") != "true" {
		t.Errorf("recipient message: %q", webtest.TestID(doc, "transfer-to-error"))
	}
	if v, _ := doc.Find("#transfer-amount").Attr("value"); v != "1e3" {
		t.Errorf("amount lost: %q", v)
	}
	// Nothing was begun with the token: the form shown again keeps it.
	if v, _ := doc.Find(`[data-testid="transfer-form"] input[name="form_token"]`).Attr("value"); v != tok {
		t.Errorf("the token changed after a validation error: %q, was %q", v, tok)
	}
	resp = env.PostForm(c, "/treasury/transfer", url.Values{"wallet_id": {usd}, "to_user_id": {env.DemoEmployee("Emily").ServiceUserID}, "amount": {"250000.01"}, "form_token": {tok}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "transfer-amount-error"), "More than the wallet holds") {
		t.Fatalf("over balance: %d %q", resp.StatusCode, webtest.TestID(doc, "transfer-amount-error"))
	}
	// The recipient has no USDB account: the API's refusal is shown at the
	// field, the recipient still chosen and named.
	resp = env.PostForm(c, "/treasury/transfer", url.Values{"wallet_id": {usd}, "to_search": {"okafor"}, "to_user_id": {env.DemoEmployee("Adaeze").ServiceUserID}, "amount": {"10"}, "form_token": {tok}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "transfer-to-error"), "no active account") {
		t.Fatalf("no account: %d %q", resp.StatusCode, webtest.TestID(doc, "transfer-to-error"))
	}
	if v, _ := doc.Find(`[data-testid="transfer-form"] input[name="form_token"]`).Attr("value"); v == tok || v == "" {
		t.Fatalf("the refused form offers its spent token again: %q", v)
	}
	chosen := doc.Find(`#transfer-to-results input[name=to_user_id][checked]`)
	if chosen.Length() != 1 || chosen.AttrOr("value", "") != env.DemoEmployee("Adaeze").ServiceUserID || !strings.Contains(chosen.Parent().Text(), "Adaeze Okafor") {
		t.Fatalf("recipient lost: %d %q", chosen.Length(), chosen.Parent().Text())
	}
	if doc.Find("#transfer-to").AttrOr("value", "") != "okafor" || !strings.Contains(doc.Find("#transfer-to").AttrOr("aria-describedby", ""), "transfer-to-error") {
		t.Fatal("search box: typed text lost or error not described")
	}
	if ps, _ := env.Store.ListQueue(context.Background(), store.QueueFilter{}); len(ps) != 0 {
		t.Fatalf("bad input created %d proposals", len(ps))
	}

	// The recipient is the value of the radio button the search offers.
	doc = recipientSearch(t, env, c, url.Values{"picker": {"transfer-to"}, "to_search": {"emily car"}})
	emily := doc.Find(`input[name=to_user_id]`)
	if emily.Length() != 1 || !strings.Contains(emily.Parent().Text(), "Emily Carter") {
		t.Fatalf("search for Emily: %v", recipientOptions(doc.Selection))
	}
	resp = env.PostForm(c, "/treasury/transfer", webtest.WithTreasuryFormToken(t, env, c, "transfer", url.Values{"wallet_id": {usd}, "to_search": {"emily car"},
		"to_user_id": {emily.AttrOr("value", "")}, "amount": {"1,234.56"}, "description": {"Conference travel"}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/approvals/") {
		t.Fatalf("transfer: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/approvals/")
	p, err := env.Store.ProposalByID(context.Background(), id)
	if err != nil || p.CreatedByStaffID != s.ID || p.Amount.String() != "1234.56" || p.Type != "TRANSFER" || p.ToUserID != env.DemoEmployee("Emily").ServiceUserID {
		t.Fatalf("recorded: %+v %v", p, err)
	}
	doc = webtest.Doc(t, env.Get(c, "/approvals/"+id))
	if !strings.Contains(webtest.TestID(doc, "flash"), "1,234.56 was read as 1234.56") {
		t.Errorf("the flash does not say how the grouped amount was read: %q", webtest.TestID(doc, "flash"))
	}
	if doc.Find(`[data-testid="approve"]`).Length() != 0 || !strings.Contains(webtest.TestID(doc, "blocked-reason"), "someone else") {
		t.Fatal("the creator is offered approve")
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "proposal.create"})
	outcomes := map[string]int{}
	for _, r := range rows {
		outcomes[r.Outcome]++
	}
	if outcomes[store.OutcomeOK] != 1 || outcomes[store.OutcomeRefused] != 1 {
		t.Fatalf("audit %v", outcomes)
	}

	// HR admins may not move treasury money.
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	if resp := env.PostForm(hr, "/treasury/transfer", url.Values{"wallet_id": {usd}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("hr admin: %d", resp.StatusCode)
	}
	if resp := env.Get(hr, "/treasury/recipients?to_search=emily"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("hr admin searching recipients: %d", resp.StatusCode)
	}
}

func TestTreasurySwapAndSend(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID

	resp := env.PostForm(c, "/treasury/swap", webtest.WithTreasuryFormToken(t, env, c, "swap", url.Values{"wallet_id": {usd}, "to_stablecoin": {"USDB"}, "amount": {"10"}, "slippage_bps": {"501"}}))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "swap-to-error") == "" || webtest.TestID(doc, "swap-slippage-error") == "" {
		t.Fatalf("bad swap: %d", resp.StatusCode)
	}
	resp = env.PostForm(c, "/treasury/swap", webtest.QuotedSwapForm(t, env, c, url.Values{"wallet_id": {usd}, "to_stablecoin": {"CNGN"}, "amount": {"100.5"}, "slippage_bps": {"50"}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("swap: %d", resp.StatusCode)
	}
	p, _ := env.Store.ProposalByID(context.Background(), strings.TrimPrefix(resp.Header.Get("Location"), "/approvals/"))
	if p.Type != "SWAP" || p.ToStablecoin != "CNGN" || p.SlippageBps != 50 || p.Amount.String() != "100.5" {
		t.Fatalf("swap recorded: %+v", p)
	}

	// A refused send keeps its recipient chosen in the send form's picker only.
	resp = env.PostForm(c, "/treasury/send", webtest.WithTreasuryFormToken(t, env, c, "send", url.Values{"wallet_id": {usd}, "to_search": {"oli"}, "to_user_id": {env.DemoEmployee("Oliver").ServiceUserID}, "amount": {""}}))
	doc = webtest.Doc(t, resp)
	chosen := doc.Find(`#send-to-results input[name=to_user_id][checked]`)
	if resp.StatusCode != http.StatusUnprocessableEntity || chosen.AttrOr("value", "") != env.DemoEmployee("Oliver").ServiceUserID ||
		!strings.Contains(chosen.Parent().Text(), "Oliver Smith") || doc.Find(`#transfer-to-results input`).Length() != 0 {
		t.Fatalf("bad send: %d, chosen %d", resp.StatusCode, chosen.Length())
	}
	resp = env.PostForm(c, "/treasury/send", webtest.WithTreasuryFormToken(t, env, c, "send", url.Values{"wallet_id": {usd}, "to_user_id": {env.DemoEmployee("Oliver").ServiceUserID}, "amount": {"12.30"}, "note": {"Taxi"}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("send: %d", resp.StatusCode)
	}
	p, _ = env.Store.ProposalByID(context.Background(), strings.TrimPrefix(resp.Header.Get("Location"), "/approvals/"))
	if p.Type != "TRANSFER" || p.Description != "Taxi" || p.ToUserID != env.DemoEmployee("Oliver").ServiceUserID {
		t.Fatalf("send recorded: %+v", p)
	}
}

func TestTreasuryCreateDuringAnOutageKeepsTheInputAndSendsOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST",
		"route": "/v1/users/{userId}/smart-wallets/{smartWalletId}/proposals", "drop": true, "times": 1})

	form := webtest.WithTreasuryFormToken(t, env, c, "transfer", url.Values{"wallet_id": {usd}, "to_user_id": {env.DemoEmployee("Emily").ServiceUserID},
		"amount": {"42.00"}, "description": {"Lunch"}})

	resp := env.PostForm(c, "/treasury/transfer", form)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(webtest.TestID(doc, "treasury-error"), "not recorded so far") ||
		!strings.Contains(webtest.TestID(doc, "treasury-error"), "approval queue") {
		t.Fatalf("outage: %d %q", resp.StatusCode, webtest.TestID(doc, "treasury-error"))
	}
	if v, _ := doc.Find("#transfer-amount").Attr("value"); v != "42.00" || doc.Find("#transfer-description").Text() != "Lunch" {
		t.Fatalf("input lost: %q", v)
	}
	// Not retried behind the user's back: no proposal exists upstream.
	ps, err := env.API.ListProposals(ctx, env.Demo.TreasuryUserID, usd)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Description == "Lunch" {
			t.Fatalf("a proposal was created: %+v", p)
		}
	}
	rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "proposal.create"})
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeUnknown {
		t.Fatalf("audit %+v", rows)
	}
	// The recovery job reads it back once the call can no longer land, and
	// concludes that nothing was done.
	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if a, err := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token")); err != nil || a.State != store.ActionRefused {
		t.Fatalf("after recovery: %+v %v", a, err)
	}
	if n := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/smart-wallets/{smartWalletId}/proposals"); n != 1 {
		t.Fatalf("%d create calls, want 1", n)
	}
}

// A recipient the picker would not offer (unknown to the app, or deleted) is
// refused at the field before anything goes upstream, in both forms.
func TestTreasuryRefusesARecipientThePickerWouldNotOffer(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	oliver := env.DemoEmployee("Oliver").ServiceUserID
	if _, err := env.Store.Pool().Exec(context.Background(), `UPDATE employees SET deleted_at = now() WHERE service_user_id = $1`, oliver); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"svc-nobody", oliver} {
		for _, form := range []struct {
			path string
			vals url.Values
		}{
			{"/treasury/transfer", url.Values{"wallet_id": {usd}, "to_user_id": {to}, "amount": {"10"}, "to_search": {"oliv"}}},
			{"/treasury/send", url.Values{"wallet_id": {usd}, "to_user_id": {to}, "amount": {"10"}, "to_search": {"oliv"}}},
		} {
			resp := env.PostForm(c, form.path, form.vals)
			doc := webtest.Doc(t, resp)
			id := strings.TrimPrefix(form.path, "/treasury/") + "-to-error"
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, id), "not a linked employee") {
				t.Fatalf("%s to %s: %d %q", form.path, to, resp.StatusCode, webtest.TestID(doc, id))
			}
			if v := doc.Find("#"+strings.TrimSuffix(id, "-error")).AttrOr("value", ""); v != "oliv" {
				t.Fatalf("%s: typed search lost: %q", form.path, v)
			}
		}
	}
	if ps, _ := env.Store.ListQueue(context.Background(), store.QueueFilter{}); len(ps) != 0 {
		t.Fatalf("refused recipients created %d proposals", len(ps))
	}
}
