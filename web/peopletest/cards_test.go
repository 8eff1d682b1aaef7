package peopletest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// htmxPost posts a form as htmx does, with a fresh one-time token (unless
// it has one).
func htmxPost(t *testing.T, env *webtest.Env, c *http.Client, path string, form url.Values) *goquery.Document {
	t.Helper()
	resp := env.Do(c, http.MethodPost, path, strings.NewReader(webtest.WithFormTokenUnlessSet(form).Encode()), http.Header{
		"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"},
	})
	// A refusal (or a repeat not done) keeps its 4xx, which static/app.js
	// makes htmx swap: the fragment says what happened either way.
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusConflict && resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("htmx POST %s: %d", path, resp.StatusCode)
	}
	return webtest.Doc(t, resp)
}

func cardStatus(doc *goquery.Document) string {
	s, _ := doc.Find(`[data-testid="card-status"]`).First().Attr("data-status")
	return s
}

func TestCardSearchFindsByNameEmailCardAndLastFour(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	everyday := webtest.DemoCard(t, env, "Everyday")
	for _, q := range []string{"adaeze", "ADAEZE.OKAFOR@", "everyday", everyday.Last4, everyday.ID[:8]} {
		resp := env.Get(c, "/cards?q="+url.QueryEscape(q))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("search %q: %d", q, resp.StatusCode)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control %q", cc)
		}
		doc := webtest.Doc(t, resp)
		found := false
		doc.Find(`[data-testid="card-row"]`).Each(func(_ int, s *goquery.Selection) {
			if id, _ := s.Attr("data-card-id"); id == everyday.ID {
				found = true
				if st, _ := s.Find(`[data-testid="card-status"]`).Attr("data-status"); st != "active" {
					t.Errorf("row status %q", st)
				}
				if s.Find(`[data-testid="card-swatch"] rect`).AttrOr("fill", "") != "#1E88E5" {
					t.Errorf("swatch %q", s.Find(`[data-testid="card-swatch"] rect`).AttrOr("fill", ""))
				}
				if got := webtest.TestID(goquery.NewDocumentFromNode(s.Nodes[0]), "card-funded"); got != "yes" {
					t.Errorf("funded %q", got)
				}
				if s.Find(`[data-testid="card-freeze"]`).Length() != 1 {
					t.Error("no freeze button one click from the search")
				}
			}
		})
		if !found {
			t.Errorf("search %q did not find Everyday", q)
		}
	}
	// Reserved entries show their proposal state; support, who may not
	// open approvals, sees it in words and no link; the owner gets the link.
	doc := webtest.Doc(t, env.Get(c, "/cards?q=subscriptions"))
	row := doc.Find(`[data-testid="card-row"]`).First()
	if st, _ := row.Find(`[data-testid="card-status"]`).Attr("data-status"); st != "reserved" {
		t.Fatalf("reserved row status %q", st)
	}
	if row.Find(`[data-testid="card-approval-link"]`).Length() != 0 || !strings.Contains(row.Text(), "proposal waiting for the owner's signature") ||
		strings.Contains(row.Text(), "PENDING_SIGNATURES") ||
		!strings.Contains(row.Find(`[data-testid="card-issuance-state"]`).Text(), "waiting for the wallet owner to sign") {
		t.Fatalf("reserved row for support: %q", row.Text())
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	odoc := webtest.Doc(t, env.Get(owner, "/cards?q=subscriptions"))
	if href, _ := odoc.Find(`[data-testid="card-row"] [data-testid="card-approval-link"]`).Attr("href"); !strings.HasPrefix(href, "/approvals/") {
		t.Fatalf("owner's reserved row: link %q", href)
	}
	// CSV export of the search.
	resp := env.Get(c, "/cards.csv?q=adaeze")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || !strings.HasPrefix(string(body), "card_id,employee,") {
		t.Fatalf("csv %q: %s", resp.Header.Get("Content-Type"), body)
	}
	for _, name := range []string{"Everyday", "Office card", "Travel", "Old card", "Closed", "Subscriptions"} {
		if !strings.Contains(string(body), ","+name+",") {
			t.Errorf("csv lacks %s", name)
		}
	}
}

func TestCardFreezeAndUnfreezeInPlace(t *testing.T) {
	t.Parallel()
	env, c, support := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	doc := htmxPost(t, env, c, "/cards/"+card.ID+"/freeze", url.Values{"reason": {"customer lost wallet"}})
	if got := cardStatus(doc); got != "frozen" {
		t.Fatalf("badge after freeze %q: %s", got, webtest.TestID(doc, "card-control-message"))
	}
	if doc.Find(`[data-testid="card-unfreeze"]`).Length() != 1 {
		t.Fatal("no unfreeze button after freezing")
	}
	live, err := env.API.GetCard(context.Background(), card.ServiceUserID, card.ID)
	if err != nil || !strings.EqualFold(string(live.Status), "frozen") {
		t.Fatalf("issuer status %v %v", live, err)
	}
	a := webtest.LastAudit(t, env, "card.freeze")
	if a.Outcome != store.OutcomeOK || a.Actor.StaffID != support.ID || a.Target != "card:"+card.ID || !strings.Contains(a.Detail, "customer lost wallet") || !strings.Contains(a.Detail, "BLOCKED") {
		t.Fatalf("audit %+v", a)
	}
	doc = htmxPost(t, env, c, "/cards/"+card.ID+"/unfreeze", url.Values{"view": {"row"}})
	if got := cardStatus(doc); got != "active" {
		t.Fatalf("badge after unfreeze %q", got)
	}
	if a := webtest.LastAudit(t, env, "card.unfreeze"); a.Outcome != store.OutcomeOK || !strings.Contains(a.Detail, "ACTIVE") {
		t.Fatalf("audit %+v", a)
	}
}

// TestCardStatusTransitions drives every issuer status of the spec through
// the sandbox and tries both actions: the allowed ones change the card; a
// card already in the wanted state gets nothing sent; the refused ones are
// refused in the API's words, re-read the status and explain it, and
// nothing is retried.
func TestCardStatusTransitions(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	card := webtest.DemoCard(t, env, "Everyday")
	const statusRoute = "/v1/users/{userId}/cards/{cardId}/status"
	cases := []struct {
		status, action string
		wantBadge      string
		wantOutcome    string // "" when nothing is sent
		wantMessage    string
		wantNote       string
	}{
		{"active", "freeze", "frozen", store.OutcomeOK, "Frozen: payments are declined", ""},
		{"active", "unfreeze", "active", "", "already active; nothing was sent", "can be used"},
		{"frozen", "freeze", "frozen", "", "already frozen; nothing was sent", "payments are declined"},
		{"frozen", "unfreeze", "active", store.OutcomeOK, "Unfrozen", "can be used"},
		{"pending", "freeze", "pending", store.OutcomeRefused, "does not allow", "never activated"},
		{"pending", "unfreeze", "pending", store.OutcomeRefused, "does not allow", "unfreezing (ACTIVE) does not activate it"},
		{"inactive", "freeze", "inactive", store.OutcomeRefused, "does not allow", "inactive"},
		{"inactive", "unfreeze", "inactive", store.OutcomeRefused, "does not allow", "inactive"},
		{"restricted", "freeze", "restricted", store.OutcomeRefused, "does not allow", "restricted this card"},
		{"restricted", "unfreeze", "restricted", store.OutcomeRefused, "does not allow", "restricted this card"},
		{"lost", "unfreeze", "lost", store.OutcomeRefused, "does not allow", "A lost card cannot be unfrozen"},
		{"lost", "freeze", "lost", store.OutcomeRefused, "does not allow", "Reported lost"},
		{"stolen", "unfreeze", "stolen", store.OutcomeRefused, "does not allow", "A stolen card cannot be unfrozen"},
		{"canceled", "unfreeze", "canceled", store.OutcomeRefused, "does not allow", "Cancelled permanently"},
		{"canceled", "freeze", "canceled", store.OutcomeRefused, "does not allow", "Cancelled permanently"},
	}
	for _, tc := range cases {
		t.Run(tc.status+" "+tc.action, func(t *testing.T) {
			webtest.SetIssuerStatus(t, env, card.ID, tc.status)
			audits, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "card." + tc.action})
			puts := env.Sandbox.RequestCount("PUT", statusRoute)
			doc := htmxPost(t, env, c, "/cards/"+card.ID+"/"+tc.action, nil)
			if got := cardStatus(doc); got != tc.wantBadge {
				t.Errorf("badge %q, want %q", got, tc.wantBadge)
			}
			if msg := webtest.TestID(doc, "card-control-message"); !strings.Contains(msg, tc.wantMessage) {
				t.Errorf("message %q, want %q", msg, tc.wantMessage)
			}
			if note := webtest.TestID(doc, "card-status-note"); tc.wantNote != "" && !strings.Contains(note, tc.wantNote) {
				t.Errorf("note %q, want %q", note, tc.wantNote)
			}
			after, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "card." + tc.action})
			sent := env.Sandbox.RequestCount("PUT", statusRoute) - puts
			if tc.wantOutcome == "" {
				if sent != 0 || len(after) != len(audits) {
					t.Errorf("nothing to send: %d PUTs, %d new audit rows", sent, len(after)-len(audits))
				}
			} else {
				if sent != 1 || len(after) != len(audits)+1 {
					t.Fatalf("%d PUTs, %d new audit rows, want 1 and 1", sent, len(after)-len(audits))
				}
				if a := after[0]; a.Outcome != tc.wantOutcome || a.Target != "card:"+card.ID {
					t.Errorf("audit %+v, want outcome %s", a, tc.wantOutcome)
				}
			}
			live, err := env.API.GetCard(ctx, card.ServiceUserID, card.ID)
			if err != nil {
				t.Fatal(err)
			}
			if string(live.Status) != tc.wantBadge {
				t.Errorf("issuer status %q, want %q", live.Status, tc.wantBadge)
			}
		})
	}

	// A physical card never activated: the page offers activation, and
	// "unfreezing" it is refused with the reason.
	office := webtest.DemoCard(t, env, "Office card")
	doc := htmxPost(t, env, c, "/cards/"+office.ID+"/unfreeze", nil)
	if note := webtest.TestID(doc, "card-status-note"); !strings.Contains(note, "never activated") {
		t.Fatalf("pending physical card: %q", note)
	}

	// A reserved entry (requested, not issued) has nothing to freeze.
	reserved := webtest.DemoCard(t, env, "Subscriptions")
	doc = htmxPost(t, env, c, "/cards/"+reserved.ID+"/freeze", nil)
	if got := cardStatus(doc); got != "reserved" || !strings.Contains(webtest.TestID(doc, "card-control-message"), "not issued yet") {
		t.Fatalf("reserved: %q %q", got, webtest.TestID(doc, "card-control-message"))
	}
	resp := env.Get(c, "/cards/"+reserved.ID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reserved detail: %d", resp.StatusCode)
	}
	rdoc := webtest.Doc(t, resp)
	if rdoc.Find(`[data-testid="card-reserved"] [data-testid="card-approval-link"]`).Length() != 0 {
		t.Fatal("support is offered the approval, which they may not open")
	}
	if got, _ := rdoc.Find(`[data-testid="card-proposal-status"]`).Attr("data-status"); got != "PENDING_SIGNATURES" {
		t.Fatalf("proposal status %q", got)
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	odoc := webtest.Doc(t, env.Get(owner, "/cards/"+reserved.ID))
	if href, _ := odoc.Find(`[data-testid="card-reserved"] [data-testid="card-approval-link"]`).Attr("href"); href != "/approvals/"+reserved.ID {
		t.Fatalf("owner's approval link %q", href)
	}
}

// TestCardFreezeRolesAndRefusals: HR admins and finance approvers cannot
// freeze (403, audited as denied, nothing sent); the owner can.
func TestCardFreezeRolesAndRefusals(t *testing.T) {
	t.Parallel()
	env, _, _ := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleFinanceApprover} {
		c, s := env.SignedIn(role)
		for _, action := range []string{"freeze", "unfreeze", "limits", "cancel", "activation/request"} {
			resp := webtest.PostCardForm(env, c, "/cards/"+card.ID+"/"+action, url.Values{"confirm_name": {"Everyday"}})
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("%s %s: %d, want 403", role, action, resp.StatusCode)
			}
		}
		resp := env.Get(c, "/cards")
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s reads cards: %d", role, resp.StatusCode)
		}
		a := webtest.LastAudit(t, env, "access.denied")
		if a.Actor.StaffID != s.ID || a.Outcome != store.OutcomeDenied {
			t.Fatalf("denied audit %+v", a)
		}
	}
	live, _ := env.API.GetCard(context.Background(), card.ServiceUserID, card.ID)
	if string(live.Status) != "active" {
		t.Fatalf("refused roles changed the card: %s", live.Status)
	}
	owner, o := env.SignedIn(store.RoleOwner)
	doc := htmxPost(t, env, owner, "/cards/"+card.ID+"/freeze", nil)
	if cardStatus(doc) != "frozen" {
		t.Fatalf("owner freeze: %q", cardStatus(doc))
	}
	if a := webtest.LastAudit(t, env, "card.freeze"); a.Actor.StaffID != o.ID || a.Outcome != store.OutcomeOK {
		t.Fatalf("owner audit %+v", a)
	}
}

// TestCardFreezeInFlightAndUpstreamFailure: a form whose first sending is
// still in flight sends nothing; a failed write is never retried, and the
// page says where the card stands.
func TestCardFreezeInFlightAndUpstreamFailure(t *testing.T) {
	t.Parallel()
	env, c, support := webtest.NewCardsEnv(t)
	ctx := context.Background()
	card := webtest.DemoCard(t, env, "Everyday")
	const statusRoute = "/v1/users/{userId}/cards/{cardId}/status"
	token := handlers.NewFormToken()
	if _, _, err := env.Store.BeginAction(ctx, store.NewAction{Key: "form:" + token, Kind: "card.freeze", Target: "card:" + card.ID,
		Actor: store.Actor{StaffID: support.ID, Email: support.Email}}); err != nil {
		t.Fatal(err)
	}
	doc := htmxPost(t, env, c, "/cards/"+card.ID+"/freeze", url.Values{handlers.FormTokenField: {token}})
	if !strings.Contains(webtest.TestID(doc, "card-control-message"), "still being processed") {
		t.Fatalf("second click: %q", webtest.TestID(doc, "card-control-message"))
	}
	if n := env.Sandbox.RequestCount("PUT", statusRoute); n != 0 {
		t.Fatalf("second click sent %d requests", n)
	}

	// One 503 on the status route: a retry would succeed, so a frozen card
	// afterwards would mean the app retried blindly.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{
		"method": "PUT", "route": statusRoute, "status": 503, "times": 1})

	doc = htmxPost(t, env, c, "/cards/"+card.ID+"/freeze", url.Values{"reason": {"phone call"}})
	msg := webtest.TestID(doc, "card-control-message")
	if cardStatus(doc) != "active" || !strings.Contains(msg, "Do not send it again meanwhile") {
		t.Fatalf("after failure: %q %q", cardStatus(doc), msg)
	}
	if n := env.Sandbox.RequestCount("PUT", statusRoute); n != 1 {
		t.Fatalf("the write was retried: %d PUTs", n)
	}
	if live, _ := env.API.GetCard(ctx, card.ServiceUserID, card.ID); string(live.Status) != "active" {
		t.Fatalf("the write was retried: %s", live.Status)
	}
	if a := webtest.LastAudit(t, env, "card.freeze"); a.Outcome != store.OutcomeUnknown || !strings.Contains(a.Detail, "not recorded so far") {
		t.Fatalf("audit %+v", a)
	}
	// Without htmx, the whole page answers with the real status.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{
		"method": "PUT", "route": statusRoute, "status": 503, "times": 1})

	resp := webtest.PostCardForm(env, c, "/cards/"+card.ID+"/freeze", nil)
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("plain form failure: %d", resp.StatusCode)
	}
	resp.Body.Close()
	// Bad input (too long, a control character) is refused with 422, kept,
	// and nothing is sent.
	for _, reason := range []string{strings.Repeat("x", 201), "bad\treason"} {
		resp = webtest.PostCardForm(env, c, "/cards/"+card.ID+"/freeze", url.Values{"reason": {reason}})
		pdoc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(pdoc, "card-control-message") == "" {
			t.Fatalf("reason %q: %d", reason[:5], resp.StatusCode)
		}
		if v, _ := pdoc.Find(`[data-testid="card-reason"]`).Attr("value"); len(reason) == 201 && v != reason {
			t.Fatal("reason typed was lost")
		}
	}
	if n := env.Sandbox.RequestCount("PUT", statusRoute); n != 2 {
		t.Fatalf("%d PUTs, want 2", n)
	}
}

// TestCardDetailShowsMinorAndMajorUnitsAlike: the same 1,234.56 NGN spend
// is shown from the ledger (minor-unit string "-123456") and from the
// transactions route (major-unit number 1234.56), both with the currency.
func TestCardDetailShowsMinorAndMajorUnitsAlike(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/cards/"+card.ID+"/spend", map[string]string{
		"amount": "1234.56", "fee": "0", "merchantName": "Unit Test Stores"})

	resp := env.Get(c, "/cards/"+card.ID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("detail: %d", resp.StatusCode)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("Cache-Control %q", cc)
	}
	doc := webtest.Doc(t, resp)
	loadPanels(t, env, c, doc)
	if cfg, _ := doc.Find(`meta[name="htmx-config"]`).Attr("content"); !strings.Contains(cfg, `"historyCacheSize":0`) {
		t.Fatalf("htmx history cache not off: %s", cfg)
	}
	ledger := doc.Find(`[data-testid="ledger-amount"]`).First().Text()
	txn := doc.Find(`[data-testid="txn-amount"]`).First().Text()
	if strings.TrimSpace(ledger) != "-1,234.56 NGN" || strings.TrimSpace(txn) != "1,234.56 NGN" {
		t.Fatalf("ledger %q (minor units) vs transaction %q (major units)", ledger, txn)
	}
	// 250,000.00 NGN seeded, minus 3 spends with fees and this one.
	if got := webtest.TestID(doc, "card-balance-amount"); !strings.HasSuffix(got, " NGN") || !strings.Contains(got, ",") {
		t.Fatalf("balance %q", got)
	}
	if st := cardStatus(doc); st != "active" || !strings.Contains(webtest.TestID(doc, "card-status-age"), "live") {
		t.Fatalf("live status %q %q", st, webtest.TestID(doc, "card-status-age"))
	}
	if got := webtest.TestID(doc, "limit-daily-cap"); got != "5,000,000.00 NGN" {
		t.Fatalf("provider cap %q", got)
	}
	// The status poll answers 204 while nothing changed, and the new badge
	// when the issuer changed it.
	resp = env.Get(c, "/cards/"+card.ID+"/status?seen=active")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("poll unchanged: %d", resp.StatusCode)
	}
	webtest.SetIssuerStatus(t, env, card.ID, "lost")
	doc = webtest.Doc(t, env.Get(c, "/cards/"+card.ID+"/status?seen=active"))
	if cardStatus(doc) != "lost" || doc.Find(`[data-testid="card-unfreeze"], [data-testid="card-freeze"]`).Length() != 0 {
		t.Fatalf("poll after change: %q", cardStatus(doc))
	}
	// The search list now says the last seen status, and how old it is.
	doc = webtest.Doc(t, env.Get(c, "/cards?q=everyday"))
	if cardStatus(doc) != "lost" || !strings.Contains(webtest.TestID(doc, "card-status-age"), "last seen") {
		t.Fatalf("index status %q %q", cardStatus(doc), webtest.TestID(doc, "card-status-age"))
	}
	// When the live read fails, the page says the status is not live.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{
		"method": "GET", "route": "/v1/users/{userId}/cards/{cardId}", "status": 404})

	doc = webtest.Doc(t, env.Get(c, "/cards/"+card.ID))
	if !strings.Contains(webtest.TestID(doc, "card-upstream-error"), "not the live one") || !strings.Contains(webtest.TestID(doc, "card-status-age"), "not live") {
		t.Fatalf("stale status not flagged: %q", webtest.TestID(doc, "card-upstream-error"))
	}
}

func TestCardTransactionsFiltersPagingAndCSV(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	before, err := env.API.ListCardTransactions(context.Background(), card.ServiceUserID, card.ID, apiclient.CardTransactionQuery{Size: 100, Status: "COMPLETED"})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(before.Transactions); i < 25; i++ {
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/cards/"+card.ID+"/spend", map[string]string{"amount": "10.5", "fee": "0.25"})
	}
	h := http.Header{"Hx-Request": {"true"}}
	resp := env.Do(c, http.MethodGet, "/cards/"+card.ID+"/transactions?status=COMPLETED", nil, h)
	doc := webtest.Doc(t, resp)
	if n := doc.Find(`[data-testid="txn-row"]`).Length(); n != 20 {
		t.Fatalf("first page rows %d", n)
	}
	next, _ := doc.Find(`[data-testid="txn-next"]`).Attr("href")
	if !strings.Contains(next, "page=2") || !strings.Contains(next, "status=COMPLETED") {
		t.Fatalf("next link %q", next)
	}
	doc = webtest.Doc(t, env.Do(c, http.MethodGet, next, nil, h))
	if n := doc.Find(`[data-testid="txn-row"]`).Length(); n != 5 { // 25 completed spends in all
		t.Fatalf("second page rows %d", n)
	}
	// Date filters: a day with no spends, and bad input kept with a message.
	doc = webtest.Doc(t, env.Get(c, "/cards/"+card.ID+"/transactions?from=2001-01-01&to=2001-01-02"))
	if doc.Find(`[data-testid="txn-row"]`).Length() != 0 || webtest.TestID(doc, "txn-empty") == "" {
		t.Fatal("old dates returned rows")
	}
	resp = env.Get(c, "/cards/"+card.ID+"/transactions?from=2026-02-10&to=2026-02-01")
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "txn-to-error"), "before the start") {
		t.Fatalf("bad range: %d", resp.StatusCode)
	}
	if v, _ := doc.Find("#txn-from").Attr("value"); v != "2026-02-10" {
		t.Fatalf("typed date lost: %q", v)
	}
	resp = env.Get(c, "/cards/"+card.ID+"/transactions.csv")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || !strings.Contains(string(body), ",10.5,0.25,NGN") {
		t.Fatalf("csv: %s", body)
	}
}

// TestCardActivityFeedFromWebhooks: card.transaction.created and
// card.fulfillment.updated land in the feed through RecordCardActivity
// (the webhooks receiver's hook), with decimal amount and fee, once.
func TestCardActivityFeedFromWebhooks(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	amount, fee := decimal.RequireFromString("1234.56"), decimal.RequireFromString("12.30")
	for i := 0; i < 2; i++ { // a redelivery changes nothing
		added, err := env.Store.RecordCardActivity(context.Background(), store.CardActivity{
			EventKey: "wh-1", CardID: card.ID, Kind: store.CardActivityTransaction, Status: "COMPLETED",
			Amount: &amount, Fee: &fee, Currency: "NGN", Merchant: "Shoprite Lekki", OccurredAt: time.Now()})
		if err != nil || added != (i == 0) {
			t.Fatalf("record %d: %v %v", i, added, err)
		}
	}
	if _, err := env.Store.RecordCardActivity(context.Background(), store.CardActivity{
		EventKey: "wh-2", CardID: card.ID, Kind: store.CardActivityFulfillment, Status: "shipped", OccurredAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	doc := webtest.Doc(t, env.Do(c, http.MethodGet, "/cards/"+card.ID+"/activity", nil, http.Header{"Hx-Request": {"true"}}))
	rows := doc.Find(`[data-testid="activity-row"]`)
	if rows.Length() != 2 {
		t.Fatalf("activity rows %d", rows.Length())
	}
	if got := strings.TrimSpace(doc.Find(`[data-testid="activity-amount"]`).Eq(1).Text()); got != "1,234.56 NGN" {
		t.Fatalf("amount %q", got)
	}
	if !strings.Contains(rows.Eq(1).Text(), "12.30 NGN") || !strings.Contains(rows.Eq(0).Text(), "shipped") {
		t.Fatalf("rows %q", rows.Text())
	}
}

func TestCardLimits(t *testing.T) {
	t.Parallel()
	env, c, support := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	path := "/cards/" + card.ID + "/limits"
	cases := []struct {
		daily, single, field, want string
	}{
		{"", "100", "limit-daily-error", "Enter an amount"},
		{"abc", "100", "limit-daily-error", "such as 1500"},
		{"1000.555", "100", "limit-daily-error", "at most 2 decimal places"},
		{"1,50", "100", "limit-daily-error", "comma only separates thousands"},
		{"-5", "100", "limit-daily-error", "more than zero"},
		{"6000000", "100", "limit-daily-error", "5,000,000.00 NGN"},
		{"100000", "1000001", "limit-single-error", "1,000,000.00 NGN"},
		{"1000", "2000", "limit-single-error", "more than the daily limit"},
	}
	for _, tc := range cases {
		resp := webtest.PostCardForm(env, c, path, url.Values{"total_daily": {tc.daily}, "max_single": {tc.single}})
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s/%s: %d", tc.daily, tc.single, resp.StatusCode)
		}
		if got := webtest.TestID(doc, tc.field); !strings.Contains(got, tc.want) {
			t.Errorf("%s/%s: %s = %q, want %q", tc.daily, tc.single, tc.field, got, tc.want)
		}
		if v, _ := doc.Find("#limit-daily").Attr("value"); v != tc.daily {
			t.Errorf("typed daily lost: %q", v)
		}
	}
	limits, _ := env.API.GetCardLimits(context.Background(), card.ServiceUserID, card.ID)
	if limits.TotalDailyLimit.String() != "1000000" {
		t.Fatalf("bad input changed the limits: %s", limits.TotalDailyLimit)
	}
	resp := webtest.PostCardForm(env, c, path, url.Values{"total_daily": {"250,000.50"}, "max_single": {"1234.56"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	limits, _ = env.API.GetCardLimits(context.Background(), card.ServiceUserID, card.ID)
	if limits.TotalDailyLimit.String() != "250000.5" || limits.MaxSingleTransactionAmount.String() != "1234.56" {
		t.Fatalf("limits %s %s", limits.TotalDailyLimit, limits.MaxSingleTransactionAmount)
	}
	a := webtest.LastAudit(t, env, "card.limits")
	if a.Outcome != store.OutcomeOK || a.Actor.StaffID != support.ID || !strings.Contains(a.Detail, "daily 250,000.50 NGN, single 1,234.56 NGN") {
		t.Fatalf("audit %+v", a)
	}
	// Upstream refuses: audited as refused, the API's words next to the
	// fields it names, input kept.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "PUT",
		"route": "/v1/users/{userId}/cards/{cardId}/set-limit", "status": 400, "times": 1,
		"message": "maxSingleTransactionAmount must not exceed the issuer's limit for this card"})

	resp = webtest.PostCardForm(env, c, path, url.Values{"total_daily": {"1000"}, "max_single": {"10"}})
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "limit-single-error"), "issuer's limit") ||
		!strings.Contains(webtest.TestID(doc, "limits-error"), "not changed") {
		t.Fatalf("refused limits: %d %q %q", resp.StatusCode, webtest.TestID(doc, "limits-error"), webtest.TestID(doc, "limit-single-error"))
	}
	if v, _ := doc.Find("#limit-single").Attr("value"); v != "10" {
		t.Fatalf("typed limit lost: %q", v)
	}
	if a := webtest.LastAudit(t, env, "card.limits"); a.Outcome != store.OutcomeRefused {
		t.Fatalf("audit %+v", a)
	}
}

func TestCardCancel(t *testing.T) {
	t.Parallel()
	env, c, support := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Travel")
	path := "/cards/" + card.ID + "/cancel"
	resp := webtest.PostCardForm(env, c, path, url.Values{"confirm_name": {"travel"}, "reason": {"left the company"}})
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "cancel-name-error"), "Travel") {
		t.Fatalf("wrong name: %d %q", resp.StatusCode, webtest.TestID(doc, "cancel-name-error"))
	}
	if v, _ := doc.Find("#cancel-reason").Attr("value"); v != "left the company" {
		t.Fatalf("reason lost: %q", v)
	}
	if !strings.Contains(doc.Find(`[data-testid="card-cancel"]`).Text(), "cannot be undone") {
		t.Fatal("the confirmation does not say it cannot be undone")
	}
	if live, _ := env.API.GetCard(context.Background(), card.ServiceUserID, card.ID); string(live.Status) != "frozen" {
		t.Fatalf("wrong name cancelled the card: %s", live.Status)
	}
	resp = webtest.PostCardForm(env, c, path, url.Values{"confirm_name": {"Travel"}, "reason": {"left the company"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	if live, _ := env.API.GetCard(context.Background(), card.ServiceUserID, card.ID); string(live.Status) != "canceled" {
		t.Fatalf("issuer status %s", live.Status)
	}
	a := webtest.LastAudit(t, env, "card.cancel")
	if a.Outcome != store.OutcomeOK || a.Actor.StaffID != support.ID || !strings.Contains(a.Detail, "left the company") {
		t.Fatalf("audit %+v", a)
	}
	doc = webtest.Doc(t, env.Get(c, "/cards/"+card.ID))
	loadPanels(t, env, c, doc)
	if doc.Find(`[data-testid="card-cancel"]`).Length() != 0 || doc.Find(`[data-testid="limits-form"]`).Length() != 0 {
		t.Fatal("a cancelled card still offers cancel or limits")
	}
	// Cancelling again: the issuer refuses, audited, not retried.
	resp = webtest.PostCardForm(env, c, path, url.Values{"confirm_name": {"Travel"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("second cancel: %d", resp.StatusCode)
	}
	if a := webtest.LastAudit(t, env, "card.cancel"); a.Outcome != store.OutcomeRefused {
		t.Fatalf("audit %+v", a)
	}
}

// TestCardActivation walks the physical card activation: code request by
// sms, a wrong code, an expired code, then the right one.
func TestCardActivation(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Office card")
	doc := webtest.Doc(t, env.Get(c, "/cards/"+card.ID))
	if doc.Find(`[data-testid="card-activation"]`).Length() != 1 {
		t.Fatal("no activation for a pending physical card")
	}
	request := func() (otpID, expires string) {
		t.Helper()
		resp := webtest.PostCardForm(env, c, "/cards/"+card.ID+"/activation/request", url.Values{"channel": {"sms"}})
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request: %d %q", resp.StatusCode, webtest.TestID(doc, "activation-message"))
		}
		if !strings.Contains(webtest.TestID(doc, "activation-expiry"), "expires in 10 minutes") {
			t.Fatalf("expiry %q", webtest.TestID(doc, "activation-expiry"))
		}
		otp, _ := doc.Find(`input[name="otp_id"]`).Attr("value")
		exp, _ := doc.Find(`input[name="expires_at"]`).Attr("value")
		return otp, exp
	}
	otp, exp := request()
	if a := webtest.LastAudit(t, env, "card.activation_request"); a.Outcome != store.OutcomeOK || !strings.Contains(a.Detail, "sms") {
		t.Fatalf("audit %+v", a)
	}
	for code, want := range map[string]string{"12345": "exactly 6 digits", "abcdef": "exactly 6 digits"} {
		resp := webtest.PostCardForm(env, c, "/cards/"+card.ID+"/activation/confirm", url.Values{"otp_id": {otp}, "expires_at": {exp}, "code": {code}})
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "activation-code-error"), want) {
			t.Fatalf("code %q: %d %q", code, resp.StatusCode, webtest.TestID(doc, "activation-code-error"))
		}
	}
	// The page knows when the code expires (expiresInMinutes): past it, it
	// says so without sending anything.
	resp := webtest.PostCardForm(env, c, "/cards/"+card.ID+"/activation/confirm", url.Values{"otp_id": {otp}, "code": {"123456"},
		"expires_at": {time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}})

	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "activation-code-error"), "expired") {
		t.Fatalf("locally expired: %d %q", resp.StatusCode, webtest.TestID(doc, "activation-code-error"))
	}
	var issuer struct {
		Data struct {
			OTPCode string `json:"otpCode"`
		} `json:"data"`
	}
	if err := json.Unmarshal(webtest.SandboxControl(t, env, http.MethodGet, "/_sandbox/cards/"+card.ID, nil), &issuer); err != nil {
		t.Fatal(err)
	}
	wrong := "000000"
	if issuer.Data.OTPCode == wrong {
		wrong = "111111"
	}
	resp = webtest.PostCardForm(env, c, "/cards/"+card.ID+"/activation/confirm", url.Values{"otp_id": {otp}, "expires_at": {exp}, "code": {wrong}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "activation-message"), "Invalid activation code") {
		t.Fatalf("wrong code: %d %q", resp.StatusCode, webtest.TestID(doc, "activation-message"))
	}
	if a := webtest.LastAudit(t, env, "card.activation_confirm"); a.Outcome != store.OutcomeRefused {
		t.Fatalf("audit %+v", a)
	}
	// The issuer's clock passes the code's expiry: the API says so.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/clock/advance", map[string]any{"seconds": 11 * 60})
	resp = webtest.PostCardForm(env, c, "/cards/"+card.ID+"/activation/confirm", url.Values{"otp_id": {otp}, "code": {issuer.Data.OTPCode}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "activation-message"), "expired") {
		t.Fatalf("expired code: %d %q", resp.StatusCode, webtest.TestID(doc, "activation-message"))
	}
	if doc.Find(`[data-testid="activation-request"]`).Length() != 1 {
		t.Fatal("no way to request a new code after expiry")
	}
	otp, exp = request()
	if err := json.Unmarshal(webtest.SandboxControl(t, env, http.MethodGet, "/_sandbox/cards/"+card.ID, nil), &issuer); err != nil {
		t.Fatal(err)
	}
	resp = webtest.PostCardForm(env, c, "/cards/"+card.ID+"/activation/confirm", url.Values{"otp_id": {otp}, "expires_at": {exp}, "code": {issuer.Data.OTPCode}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirm: %d", resp.StatusCode)
	}
	if live, _ := env.API.GetCard(context.Background(), card.ServiceUserID, card.ID); string(live.Status) != "active" {
		t.Fatalf("after activation: %s", live.Status)
	}
	if a := webtest.LastAudit(t, env, "card.activation_confirm"); a.Outcome != store.OutcomeOK {
		t.Fatalf("audit %+v", a)
	}
	// Activating again: refused by the issuer, explained.
	resp = webtest.PostCardForm(env, c, "/cards/"+card.ID+"/activation/request", url.Values{"channel": {"email"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "activation-message"), "not waiting for activation") {
		t.Fatalf("second activation: %d %q", resp.StatusCode, webtest.TestID(doc, "activation-message"))
	}
	// A virtual card needs none.
	virtual := webtest.DemoCard(t, env, "Everyday")
	resp = webtest.PostCardForm(env, c, "/cards/"+virtual.ID+"/activation/request", url.Values{"channel": {"sms"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("virtual activation: %d", resp.StatusCode)
	}
}

func TestCardIssuance(t *testing.T) {
	t.Parallel()
	env, c, support := webtest.NewCardsEnv(t)
	emp, wallet := webtest.EmployeeWallet(t, env, "chinedu.eze@acme-payroll.example", "CNGN")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]string{"smartWalletId": wallet.ID, "amount": "50000"})

	doc := webtest.Doc(t, env.Get(c, "/cards/issue?q=chinedu"))
	href, _ := doc.Find(`[data-testid="issue-wallet-link"]`).First().Attr("href")
	if href != "/cards/issue?wallet="+wallet.ID {
		t.Fatalf("wallet link %q", href)
	}
	doc = webtest.Doc(t, env.Get(c, href))
	if doc.Find("#issue-nin").Length() != 1 {
		t.Fatal("the NIN is not asked for an employee who never had a card")
	}
	token, _ := doc.Find(`[data-testid="issue-form"] input[name="form_token"]`).Attr("value")
	if !handlers.ValidFormToken(token) {
		t.Fatalf("the form carries no one-time token: %q", token)
	}

	// Every field rule, with what was typed kept (never the NIN or PAN).
	nin, pan := "12345678901", "5399834711112222"
	bad := url.Values{"wallet_id": {wallet.ID}, "card_name": {strings.Repeat("n", 51)}, "card_color": {"#12345"},
		"type": {"physical"}, "nin": {"1234"}, "delivery_phone": {"+44 20 7946 0958"}, "delivery_address": {""}}
	resp := webtest.PostCardForm(env, c, "/cards/issue", bad)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(body))
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad input: %d", resp.StatusCode)
	}
	for id, want := range map[string]string{"issue-name-error": "1 to 50", "issue-color-error": "#RGB", "issue-nin-error": "11 digits",
		"issue-address-error": "delivery address", "issue-dstate-error": "delivery state", "issue-phone-error": "+234, 234 or 0"} {
		if got := webtest.TestID(doc, id); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if v, _ := doc.Find("#issue-color").Attr("value"); v != "#12345" {
		t.Errorf("colour typed lost: %q", v)
	}
	// The summary at the top links to each field, in the form's order.
	var links []string
	doc.Find(`[data-testid="error-summary"] a`).Each(func(_ int, a *goquery.Selection) { links = append(links, a.AttrOr("href", "")) })
	if want := "#issue-name #issue-color #issue-nin #issue-address #issue-dstate #issue-phone"; strings.Join(links, " ") != want {
		t.Errorf("summary links %v, want %s", links, want)
	}
	resp = webtest.PostCardForm(env, c, "/cards/issue", url.Values{"wallet_id": {wallet.ID}, "card_name": {"Fuel"}, "card_color": {"#0a0"},
		"type": {"virtual"}, "nin": {nin}, "pan": {pan}})

	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || strings.Contains(string(body), pan) || strings.Contains(string(body), nin) {
		t.Fatalf("virtual with pan: %d, or the PAN/NIN was echoed", resp.StatusCode)
	}
	if got, _ := goquery.NewDocumentFromReader(bytes.NewReader(body)); !strings.Contains(webtest.TestID(got, "issue-pan-error"), "physical") {
		t.Fatalf("pan message %q", webtest.TestID(got, "issue-pan-error"))
	}
	if n, _ := env.API.ListCards(context.Background(), emp.ServiceUserID, wallet.ID); len(n) != 0 {
		t.Fatalf("bad input reached the API: %d cards", len(n))
	}

	// A good request: the fee after, the proposal in the approval queue.
	resp = webtest.PostCardForm(env, c, "/cards/issue", url.Values{"wallet_id": {wallet.ID}, "card_name": {"Fuel"}, "card_color": {"#0a0"},
		"type": {"virtual"}, "nin": {nin}, "nin_holder": {"Chinedu Eze"}, "holder_confirmed": {"1"}, "form_token": {token}})

	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("issue: %d %q", resp.StatusCode, webtest.TestID(doc, "issue-message"))
	}
	if got := webtest.TestID(doc, "issue-fee"); got != "1,000.00 NGN (CNGN)" {
		t.Fatalf("fee %q", got)
	}
	proposalID := doc.Find("#issue-proposal-id").AttrOr("data-full", "")
	if link, _ := doc.Find(`[data-testid="issue-card-link"]`).Attr("href"); link != "/cards/"+proposalID || proposalID == "" {
		t.Fatalf("requested card link %q for %q", link, proposalID)
	}
	if got := webtest.TestID(doc, "issue-sign-state"); !strings.Contains(got, "sign payload is ready") {
		t.Fatalf("sign state %q", got)
	}
	a := webtest.LastAudit(t, env, "card.issue")
	if a.Outcome != store.OutcomeOK || a.Actor.StaffID != support.ID || !strings.Contains(a.Detail, proposalID) || !strings.Contains(a.Detail, "1,000.00 NGN") || strings.Contains(a.Detail, nin) {
		t.Fatalf("audit %+v", a)
	}
	hit, err := env.Store.CardByID(context.Background(), proposalID)
	if err != nil || !hit.Reserved || hit.CardName != "Fuel" {
		t.Fatalf("reserved entry %+v %v", hit, err)
	}
	// The next card for the same employee does not ask for the NIN.
	doc = webtest.Doc(t, env.Get(c, "/cards/issue?wallet="+wallet.ID))
	if doc.Find("#issue-nin").Length() != 0 {
		t.Fatal("the NIN is asked again")
	}
}

func TestCardIssuanceRefusals(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	emp, _ := webtest.EmployeeWallet(t, env, "emily.carter@acme-payroll.example", "USDB")

	// A legacy CNGN wallet: the API answers migrationRequired with a hint.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/users/"+emp.ServiceUserID+"/legacy-wallets",
		map[string]string{"currency": "CNGN", "userOwnerAddress": "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"})

	syncer := &userstate.Syncer{API: env.API, Store: env.Store, Now: time.Now}
	if err := syncer.SyncWallets(ctx, emp); err != nil {
		t.Fatal(err)
	}
	_, legacy := webtest.EmployeeWallet(t, env, emp.Email, "CNGN")
	doc := webtest.Doc(t, env.Get(c, "/cards/issue?wallet="+legacy.ID))
	if webtest.TestID(doc, "issue-legacy") == "" {
		t.Fatal("legacy wallet not flagged on the form")
	}
	resp := webtest.PostCardForm(env, c, "/cards/issue", url.Values{"wallet_id": {legacy.ID}, "card_name": {"Old"}, "card_color": {"#000"},
		"type": {"virtual"}, "nin": {"12345678901"}, "nin_holder": {"Emily Carter"}, "holder_confirmed": {"1"}})

	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "issue-migration-hint"), "legacy") {
		t.Fatalf("legacy: %d %q", resp.StatusCode, webtest.TestID(doc, "issue-migration-hint"))
	}
	// The API answered (nothing is unknown) and issued nothing: the audit
	// row says so, and no card is indexed.
	if a := webtest.LastAudit(t, env, "card.issue"); !strings.Contains(a.Detail, "not issued: legacy wallet, migration required") {
		t.Fatalf("audit %+v", a)
	}
	if ids, _ := env.Store.WalletCardIDs(ctx, legacy.ID); len(ids) != 0 {
		t.Fatalf("a legacy wallet's refusal indexed cards: %v", ids)
	}

	// The index thinks Emily had a card (stale), the API says she is not
	// enrolled: E101 asks for the NIN next to its field.
	_, usd := webtest.EmployeeWallet(t, env, emp.Email, "USDB")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]string{"smartWalletId": usd.ID, "amount": "100"})
	if err := env.Store.UpsertCard(ctx, store.CardEntry{ID: "stale-entry", WalletID: usd.ID, EmployeeID: emp.ID, CardName: "Ghost",
		Currency: "USD", Type: "virtual", Status: "RESERVED", Reserved: true}, time.Now()); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"wallet_id": {usd.ID}, "card_name": {"Travel USD"}, "card_color": {"#123456"}, "type": {"virtual"}}
	resp = webtest.PostCardForm(env, c, "/cards/issue", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "issue-nin-error"), "not enrolled") {
		t.Fatalf("E101: %d %q", resp.StatusCode, webtest.TestID(doc, "issue-nin-error"))
	}
	if v, _ := doc.Find("#issue-name").Attr("value"); v != "Travel USD" {
		t.Fatalf("name lost: %q", v)
	}

	// An upstream fault on the create: not retried, read back (nothing
	// there), the user told not to send it again meanwhile, the input kept.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{
		"method": "POST", "route": "/v1/users/{userId}/cards", "status": 503, "times": 1})

	form.Set("nin", "12345678901")
	resp = webtest.PostCardForm(env, c, "/cards/issue", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(webtest.TestID(doc, "issue-message"), "Do not send it again meanwhile") {
		t.Fatalf("fault: %d %q", resp.StatusCode, webtest.TestID(doc, "issue-message"))
	}
	if v, _ := doc.Find("#issue-name").Attr("value"); v != "Travel USD" {
		t.Fatalf("name lost after a fault: %q", v)
	}
	if cards, _ := env.API.ListCards(ctx, emp.ServiceUserID, usd.ID); len(cards) != 0 {
		t.Fatalf("the create was retried: %d cards", len(cards))
	}
	if a := webtest.LastAudit(t, env, "card.issue"); a.Outcome != store.OutcomeUnknown {
		t.Fatalf("audit %+v", a)
	}
	if n := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/cards"); n != 3 {
		t.Fatalf("%d creates sent, want 3 (legacy, E101, the fault)", n)
	}
}

// TestCardPANCanary pushes a known test card number through every card flow
// the sandbox supports that takes one (issuing on an existing physical
// card, activation, bad input) and asserts it appears in no log line, no
// table of the store and no response.
func TestCardPANCanary(t *testing.T) {
	t.Parallel()
	const pan = "4000056655665556"
	env, c, _ := webtest.NewCardsEnv(t)
	ctx := context.Background()
	var bodies []string
	keep := func(resp *http.Response) *goquery.Document {
		t.Helper()
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		bodies = append(bodies, string(b))
		for k, v := range resp.Header {
			bodies = append(bodies, k+": "+strings.Join(v, ","))
		}
		doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(b))
		return doc
	}
	_, wallet := webtest.EmployeeWallet(t, env, "adaeze.okafor@acme-payroll.example", "CNGN")
	issue := url.Values{"wallet_id": {wallet.ID}, "card_name": {"Canary"}, "card_color": {"#FFEB3B"}, "type": {"physical"}, "pan": {pan}}
	// Bad input around the number: re-rendered without it.
	bad := url.Values{}
	for k, v := range issue {
		bad[k] = v
	}
	bad.Set("card_name", "")
	keep(webtest.PostCardForm(env, c, "/cards/issue", bad))
	bad.Set("pan", pan+"123") // 19 digits + 3: too long
	keep(webtest.PostCardForm(env, c, "/cards/issue", bad))
	bad.Set("type", "virtual")
	bad.Set("pan", pan)
	keep(webtest.PostCardForm(env, c, "/cards/issue", bad))
	// The real thing: an existing physical card, which skips delivery.
	resp := webtest.PostCardForm(env, c, "/cards/issue", issue)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("issue with pan: %d", resp.StatusCode)
	}
	keep(resp)
	// Activation of the demo's pending physical card with the number.
	office := webtest.DemoCard(t, env, "Office card")
	keep(webtest.PostCardForm(env, c, "/cards/"+office.ID+"/activation/request", url.Values{"channel": {"sms"}, "pan": {pan}}))
	keep(webtest.PostCardForm(env, c, "/cards/"+office.ID+"/activation/request", url.Values{"channel": {"sms"}, "pan": {pan + "0000"}}))
	// Every page that shows cards.
	keep(env.PostForm(c, "/cards/refresh", nil))
	for _, p := range []string{"/cards", "/cards?q=canary", "/cards?q=5556", "/cards.csv", "/cards/" + office.ID, "/cards/" + office.ID + "/panels", "/cards/" + office.ID + "/transactions.csv"} {
		keep(env.Get(c, p))
	}
	hits, _, _ := env.Store.SearchCards(ctx, store.CardSearch{Query: "canary"})
	for _, h := range hits {
		keep(env.Get(c, "/cards/"+h.ID))
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	keep(env.Get(owner, "/audit"))
	keep(env.Get(owner, "/audit.csv"))

	needles := []string{pan, pan[:12], "4000 0566 5566 5556"}
	for _, n := range needles {
		for i, b := range bodies {
			if strings.Contains(b, n) {
				t.Errorf("response %d contains the card number (%q)", i, n)
			}
		}
		if strings.Contains(env.Logs.String(), n) {
			t.Errorf("a log line contains the card number (%q)", n)
		}
	}
	// Every table of the store, as text.
	rows, err := env.Store.Pool().Query(ctx, `SELECT table_schema || '.' || table_name FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if len(tables) < 5 {
		t.Fatalf("only %d tables", len(tables))
	}
	for _, tbl := range tables {
		var dump *string
		if err := env.Store.Pool().QueryRow(ctx, `SELECT string_agg(t::text, E'\n') FROM `+pgx.Identifier(strings.Split(tbl, ".")).Sanitize()+` t`).Scan(&dump); err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
		for _, n := range needles {
			if dump != nil && strings.Contains(*dump, n) {
				t.Errorf("table %s holds the card number", tbl)
			}
		}
	}
}

// TestCardDetailForEveryStatus: the detail page shows every issuer status
// live, in words, with the one button it allows.
func TestCardDetailForEveryStatus(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	for status, button := range map[string]string{"active": "card-freeze", "pending": "card-freeze", "inactive": "card-freeze",
		"restricted": "card-freeze", "frozen": "card-unfreeze", "lost": "", "stolen": "", "canceled": ""} {
		webtest.SetIssuerStatus(t, env, card.ID, status)
		resp := env.Get(c, "/cards/"+card.ID)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusOK || cardStatus(doc) != status {
			t.Fatalf("%s: %d, badge %q", status, resp.StatusCode, cardStatus(doc))
		}
		if webtest.TestID(doc, "card-status-note") == "" {
			t.Errorf("%s: no words for the status", status)
		}
		for _, b := range []string{"card-freeze", "card-unfreeze"} {
			if got := doc.Find(`[data-testid="card-status-panel"] [data-testid="` + b + `"]`).Length(); got != map[bool]int{true: 1}[b == button] {
				t.Errorf("%s: %d %s buttons", status, got, b)
			}
		}
		if status == "canceled" && doc.Find(`[data-testid="card-cancel"]`).Length() != 0 {
			t.Error("a cancelled card offers cancel")
		}
	}
	reserved := webtest.DemoCard(t, env, "Subscriptions")
	doc := webtest.Doc(t, env.Get(c, "/cards/"+reserved.ID))
	if cardStatus(doc) != "reserved" || doc.Find(`[data-testid="card-freeze"]`).Length() != 0 {
		t.Fatalf("reserved detail: %q", cardStatus(doc))
	}
}

// TestCardSpendWebhookReachesTheActivityFeed: a spend at the sandbox fires
// card.transaction.created; the webhooks receiver records it through
// store.RecordCardActivity and the card's feed shows its decimal amount and
// fee.
func TestCardSpendWebhookReachesTheActivityFeed(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	if env.Demo.WebhookSecret == "" {
		t.Fatal("the demo has no webhook subscription")
	}
	if err := env.App.AdoptWebhookSecret(context.Background(), env.Demo.WebhookSecret); err != nil {
		t.Fatal(err)
	}
	c, _ := env.SignedIn(store.RoleSupport)
	resp := env.PostForm(c, "/cards/refresh", nil)
	resp.Body.Close()
	card := webtest.DemoCard(t, env, "Everyday")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/cards/"+card.ID+"/spend", map[string]string{
		"amount": "1234.56", "fee": "12.3", "merchantName": "Webhook Mart"})

	var row *goquery.Selection
	webtest.WaitFor(t, "the spend to reach the feed", 30*time.Second, func() bool {
		doc := webtest.Doc(t, env.Do(c, http.MethodGet, "/cards/"+card.ID+"/activity", nil, http.Header{"Hx-Request": {"true"}}))
		row = doc.Find(`[data-testid="activity-row"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
			return strings.Contains(s.Text(), "Webhook Mart")
		})
		return row.Length() == 1
	})
	if got := strings.TrimSpace(row.Find(`[data-testid="activity-amount"]`).Text()); got != "1,234.56 NGN" || !strings.Contains(row.Text(), "12.30 NGN") {
		t.Fatalf("feed row %q", row.Text())
	}
}

// The cards CSV is the list the search shows: a search the page refuses
// (here over 100 characters, that once became its first 100) is refused by
// the export too, not widened or cut into another search.
func TestCardsCSVRefusesTheSearchThePageRefuses(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	q := "adaeze" + strings.Repeat(" ", 95) + "x"
	page := env.Get(c, "/cards?q="+url.QueryEscape(q))
	page.Body.Close()
	resp := env.Get(c, "/cards.csv?q="+url.QueryEscape(q))
	body := webtest.ReadBody(t, resp)
	if page.StatusCode != http.StatusBadRequest || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("page %d, csv %d, want both 400", page.StatusCode, resp.StatusCode)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || !strings.Contains(body, "100 characters") {
		t.Fatalf("csv answer %q: %.300s", resp.Header.Get("Content-Type"), body)
	}
}
