package moneytest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/views"
	"partneradmin/web/webtest"
)

// A Nigerian offramp's page shows its proposal's state, which approvers
// and the owner's device change elsewhere: the page follows it (htmx
// polling of its own record) until the proposal is final, then stops.
func TestMoneyOutNigeriaOfframpPageFollowsItsProposal(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	form := webtest.NigeriaAmountStep(t, env, c)
	form.Set("wallet_id", webtest.TreasuryWallet(t, env, "USDB").ID)
	form.Set("amount", "10")
	resp := env.PostForm(c, "/money-out/nigeria/offramp", form)
	resp.Body.Close()
	page := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || page == "" {
		t.Fatalf("offramp: %d %q", resp.StatusCode, page)
	}
	doc := webtest.Doc(t, env.Get(c, page))
	rec := doc.Find(`[data-testid="ngn-offramp"]`)
	if got := rec.AttrOr("hx-get", ""); got != page || rec.AttrOr("hx-trigger", "") == "" || rec.AttrOr("hx-select", "") != "#ngn-offramp" {
		t.Fatalf("the record does not follow its proposal: hx-get %q trigger %q select %q", got, rec.AttrOr("hx-trigger", ""), rec.AttrOr("hx-select", ""))
	}
	id := strings.TrimPrefix(doc.Find(`[data-testid="ngn-proposal-link"]`).AttrOr("href", ""), "/approvals/")
	tag, err := env.Store.Pool().Exec(context.Background(), `UPDATE proposals SET status = 'COMPLETED' WHERE id = $1`, id)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("complete proposal %q: %v %d", id, err, tag.RowsAffected())
	}
	doc = webtest.Doc(t, env.Get(c, page))
	rec = doc.Find(`[data-testid="ngn-offramp"]`)
	if _, polls := rec.Attr("hx-get"); polls {
		t.Fatal("the record still polls after its proposal completed")
	}
	if got := rec.Text(); !strings.Contains(got, views.StatusLabel(views.StatusProposal, "COMPLETED")) {
		t.Fatalf("completed proposal not shown: %q", got)
	}
}
