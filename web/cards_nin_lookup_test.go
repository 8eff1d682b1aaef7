package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// sandboxNIN is the one NIN the sandbox knows (its test persona).
const sandboxNIN = "22222222222"

// A first card for an employee who never had one needs the NIN looked up
// and its holder confirmed, as the direct onboarding's KYC page does: the
// form refuses a NIN sent without the lookup or without the confirmation,
// shows the holder once (never the number), and then requests the card.
// HR, who may not issue cards, may not look a NIN up here either.
func TestCardIssueNeedsNINLookupBeforeFirstCard(t *testing.T) {
	t.Parallel()
	env, support, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	_, wallet := webtest.EmployeeWallet(t, env, "chinedu.eze@acme-payroll.example", "CNGN")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]string{"smartWalletId": wallet.ID, "amount": "50000"})
	doc := webtest.Doc(t, env.Get(support, "/cards/issue?wallet="+wallet.ID))
	if doc.Find(`[data-testid="issue-nin-check"]`).Length() != 1 {
		t.Fatal("the form of a first card offers no NIN lookup")
	}
	token := cardPageToken(t, doc, `[data-testid="issue-form"]`)
	form := func(extra url.Values) url.Values {
		v := url.Values{"wallet_id": {wallet.ID}, "card_name": {"Fuel"}, "card_color": {"#0a0"}, "type": {"virtual"},
			"nin": {sandboxNIN}, handlers.FormTokenField: {token}}
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	noCard := func(step string) {
		t.Helper()
		if ids, err := env.Store.WalletCardIDs(ctx, wallet.ID); err != nil || len(ids) != 0 {
			t.Fatalf("%s: a card was requested (%v, %v)", step, ids, err)
		}
	}

	resp := env.PostForm(support, "/cards/issue", form(nil))
	wantCardStatus(t, resp, http.StatusUnprocessableEntity)
	if !strings.Contains(webtest.Doc(t, resp).Text(), "Look up the NIN first, then confirm whose it is.") {
		t.Fatal("a NIN sent without the lookup is not refused with words")
	}
	noCard("without the lookup")

	resp = env.PostForm(support, "/cards/issue/nin-lookup", form(url.Values{"nin": {"12345678901"}}))
	wantCardStatus(t, resp, http.StatusUnprocessableEntity)
	if got := webtest.TestID(webtest.Doc(t, resp), "issue-nin-problem"); !strings.Contains(got, "knows no one with this NIN") {
		t.Fatalf("an unknown NIN says %q", got)
	}

	resp = env.PostForm(support, "/cards/issue/nin-lookup", form(nil))
	wantCardStatus(t, resp, http.StatusOK)
	doc = webtest.Doc(t, resp)
	holder := webtest.TestID(doc, "issue-nin-holder-name")
	if holder != "Chioma Adaeze Okonkwo" {
		t.Fatalf("holder %q", holder)
	}
	if kept, _ := doc.Find(`[data-testid="issue-form"] input[name="nin_holder"]`).Attr("value"); kept != holder {
		t.Fatalf("the form does not carry the holder for the confirmation: %q", kept)
	}
	if name, _ := doc.Find(`[data-testid="issue-form"] input[name="card_name"]`).Attr("value"); name != "Fuel" {
		t.Errorf("the lookup lost the form's values: card name %q", name)
	}
	if strings.Contains(doc.Text(), sandboxNIN) || strings.Contains(env.Logs.String(), sandboxNIN) {
		t.Error("the NIN is drawn back or logged")
	}

	resp = env.PostForm(support, "/cards/issue", form(url.Values{"nin_holder": {holder}}))
	wantCardStatus(t, resp, http.StatusUnprocessableEntity)
	if doc := webtest.Doc(t, resp); doc.Find(`#issue-holder_confirmed`).Length() != 1 ||
		!strings.Contains(doc.Text(), "Tick the box to confirm the NIN belongs to this employee") {
		t.Fatal("an unconfirmed holder is not asked for")
	}
	noCard("without the confirmation")

	resp = env.PostForm(support, "/cards/issue", form(url.Values{"nin_holder": {holder}, "holder_confirmed": {"1"}}))
	wantCardStatus(t, resp, http.StatusCreated)
	if ids, _ := env.Store.WalletCardIDs(ctx, wallet.ID); len(ids) != 1 {
		t.Fatalf("cards requested: %v", ids)
	}

	hr, _ := env.SignedIn(store.RoleHRAdmin)
	resp = env.PostForm(hr, "/cards/issue/nin-lookup", form(url.Values{handlers.FormTokenField: {handlers.NewFormToken()}}))
	wantCardStatus(t, resp, http.StatusForbidden)
}

func wantCardStatus(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		resp.Body.Close()
		t.Fatalf("status %d, want %d", resp.StatusCode, want)
	}
}
