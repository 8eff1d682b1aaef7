package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Linking one's account to a wallet admin is a form like every other that
// changes state: it carries a one-time token, and a post without one
// changes nothing.
func TestApproverLinkFormCarriesItsToken(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admin := webtest.TreasuryAdmins(t, env)[0]
	c, s := env.SignedIn(store.RoleFinanceApprover)
	doc := webtest.Doc(t, env.Get(c, "/approvals/link"))
	token := doc.Find(`[data-testid="link-form"] input[name="form_token"]`).AttrOr("value", "")
	if !handlers.ValidFormToken(token) {
		t.Fatalf("the link form's token: %q", token)
	}

	resp := env.PostForm(c, "/approvals/link", url.Values{"service_user_id": {admin}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("without a token: %d, want 400", resp.StatusCode)
	}
	if got, err := env.Store.ApproverLink(context.Background(), s.ID); err != nil || got != "" {
		t.Fatalf("linked without a token: %q %v", got, err)
	}

	resp = env.PostForm(c, "/approvals/link", url.Values{"service_user_id": {admin}, "form_token": {token}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("with the page's token: %d", resp.StatusCode)
	}
	if got, _ := env.Store.ApproverLink(context.Background(), s.ID); got != admin {
		t.Fatalf("link %q, want %q", got, admin)
	}

	// HR admins do not approve: refused, with the token too.
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	resp = env.PostForm(hr, "/approvals/link", webtest.WithFormToken(url.Values{"service_user_id": {admin}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("HR admin: %d, want 403", resp.StatusCode)
	}
}
