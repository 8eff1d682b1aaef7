package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The company's activity: a deposit that arrived by webhook and proposals
// that completed, newest first, with filters, pages and a CSV for
// accounting; finance and the owner read it, HR and support do not.
func TestActivityFeedFiltersPagesAndExports(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	emily := env.DemoEmployee("Emily").ServiceUserID
	wallets, err := env.API.ListWallets(ctx, emily)
	if err != nil || len(wallets) == 0 {
		t.Fatalf("wallets: %v %v", wallets, err)
	}
	body, _ := json.Marshal(map[string]string{"smartWalletId": wallets[0].ID, "amount": "25.75"})
	resp, err := http.Post(env.SandboxURL+"/_sandbox/deposits", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("deposit: %v %v", resp, err)
	}
	resp.Body.Close()
	webtest.WaitFor(t, "the deposit in the feed", 30*time.Second, func() bool {
		doc := webtest.Doc(t, env.Get(c, "/activity?kind=deposit&employee="+emily))
		return strings.Contains(doc.Find(`[data-testid="activity-row"][data-kind="deposit"] [data-testid="activity-amount"]`).Text(), "25.75")
	})

	// 105 completed transfers, each a minute apart, the newest an hour ago.
	treasury, _ := env.Store.TreasuryUsers(ctx)
	base := time.Now().Add(-time.Hour)
	for i := range 105 {
		at := base.Add(-time.Duration(i) * time.Minute)
		_, err := env.Store.UpsertProposal(ctx, store.Proposal{ID: fmt.Sprintf("feed-%03d", i), WalletID: "w-feed", OwnerUserID: treasury[0].ServiceUserID,
			Type: "TRANSFER", Status: store.ProposalCompleted, Currency: "USDB", Amount: decimal.New(int64(1000+i), -2), ToUserID: emily,
			CreatedAt: at, UpdatedAt: at})
		if err != nil {
			t.Fatal(err)
		}
	}

	rows := func(path string) (*http.Response, []string, string) {
		t.Helper()
		resp := env.Get(c, path)
		doc := webtest.Doc(t, resp)
		var kinds []string
		doc.Find(`[data-testid="activity-row"]`).Each(func(_ int, s *goquery.Selection) {
			kinds = append(kinds, s.AttrOr("data-kind", ""))
		})
		return resp, kinds, doc.Find(`[data-testid="activity-older"]`).AttrOr("href", "")
	}
	_, kinds, older := rows("/activity?employee=" + emily)
	if len(kinds) != 100 || kinds[0] != "deposit" || kinds[1] != "transfer" || older == "" {
		t.Fatalf("first page: %d lines, first %v, older %q", len(kinds), kinds[:min(2, len(kinds))], older)
	}
	// The first page refreshes its lines (the part alone, with the
	// filter); older pages stay as they are.
	live := webtest.Doc(t, env.Get(c, "/activity?employee="+emily)).Find(`[data-testid="activity-results"]`)
	if got := live.AttrOr("hx-get", ""); got != "/activity?employee="+emily {
		t.Fatalf("first page refreshes from %q", got)
	}
	if _, ok := webtest.Doc(t, env.Get(c, older)).Find(`[data-testid="activity-results"]`).Attr("hx-get"); ok {
		t.Fatal("an older page refreshes itself")
	}
	part := webtest.Doc(t, env.Do(c, http.MethodGet, "/activity?employee="+emily, nil, http.Header{"Hx-Request": {"true"}}))
	if part.Find("h1").Length() != 0 || part.Find(`[data-testid="activity-row"]`).Length() != 100 {
		t.Fatalf("the refresh answers the whole page, or not the lines (%d)", part.Find(`[data-testid="activity-row"]`).Length())
	}
	_, kinds, older = rows(older)
	if len(kinds) < 6 || older != "" {
		t.Fatalf("second page: %d lines, older %q", len(kinds), older)
	}
	if _, kinds, _ = rows("/activity?kind=transfer&currency=usdb&employee=" + emily); len(kinds) != 100 {
		t.Fatalf("transfers: %d", len(kinds))
	}
	if _, kinds, _ = rows("/activity?currency=CNGN&employee=" + emily); len(kinds) != 0 {
		t.Fatalf("CNGN: %d lines", len(kinds))
	}
	day := base.Format(time.DateOnly)
	if _, kinds, _ = rows("/activity?kind=transfer&employee=" + emily + "&from=" + time.Now().AddDate(0, 0, 1).Format(time.DateOnly)); len(kinds) != 0 {
		t.Fatalf("from tomorrow: %d lines", len(kinds))
	}
	// Bad filters: refused in words, nothing listed.
	for _, q := range []string{"kind=bogus", "currency=US$", "from=2026-13-01", "from=" + day + "&to=2020-01-01", "before=x"} {
		resp, kinds, _ := rows("/activity?" + q)
		if resp.StatusCode != http.StatusBadRequest || len(kinds) != 0 {
			t.Errorf("%s: %d, %d lines", q, resp.StatusCode, len(kinds))
		}
	}
	// The CSV: every line of the filter, decimals as the API gave them.
	resp = env.Get(c, "/activity.csv?employee="+emily)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 107 || !strings.HasPrefix(lines[0], "date,kind,employee,service_user_id,amount,currency,fee,reference,status") ||
		!strings.Contains(lines[1], ",deposit,") || !strings.Contains(lines[1], ",25.75,") || !strings.Contains(string(b), ",10.5,USDB,,feed-050,completed,") {
		t.Fatalf("csv (%d lines):\n%s", len(lines), strings.Join(lines[:min(3, len(lines))], "\n"))
	}

	owner, _ := env.SignedIn(store.RoleOwner)
	if resp := env.Get(owner, "/activity"); resp.StatusCode != http.StatusOK {
		t.Errorf("owner: %d", resp.StatusCode)
	}
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		o, _ := env.SignedIn(role)
		for _, p := range []string{"/activity", "/activity.csv"} {
			resp := env.Get(o, p)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: %d", role, p, resp.StatusCode)
			}
		}
	}
}
