package web_test

import (
	"net/http"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestDetailPagesLeadBackToTheListAsLeft: a proposal's and a card's page
// lead back to their list with the filters the viewer had, and never to
// another site.
func TestDetailPagesLeadBackToTheListAsLeft(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Travel reimbursement")
	for _, tc := range []struct{ referer, want string }{
		{env.URL("/approvals?status=PENDING_APPROVALS&who=oli"), "/approvals?status=PENDING_APPROVALS&who=oli"},
		{"", "/approvals"},
		{"https://elsewhere.example/approvals?status=FAILED", "/approvals"},
	} {
		h := http.Header{}
		if tc.referer != "" {
			h.Set("Referer", tc.referer)
		}
		doc := webtest.Doc(t, env.Do(c, http.MethodGet, "/approvals/"+id, nil, h))
		if got, _ := doc.Find(`[data-testid="back-link"]`).Attr("href"); got != tc.want {
			t.Errorf("referer %q: back to %q, want %q", tc.referer, got, tc.want)
		}
		if doc.Find(`[data-testid="proposal-title"]`).Text() != "Travel reimbursement" {
			t.Errorf("title %q", doc.Find(`[data-testid="proposal-title"]`).Text())
		}
	}
}
