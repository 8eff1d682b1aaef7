package faulttest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// An activity export the database cannot read is an error page, not a
// file with the header alone, which accounting would read as a period with
// no activity.
func TestActivityCSVThatCannotBeReadIsNotAnEmptyFile(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	if _, err := env.Store.Pool().Exec(context.Background(), `ALTER TABLE activity RENAME TO activity_away`); err != nil {
		t.Fatal(err)
	}
	resp := env.Get(c, "/activity.csv")
	body := webtest.ReadBody(t, resp)
	if resp.StatusCode != http.StatusInternalServerError || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("unreadable feed exported as %d %q: %.200q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// The same for the approvals history's export.
func TestApprovalHistoryCSVThatCannotBeReadIsNotAnEmptyFile(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	if _, err := env.Store.Pool().Exec(context.Background(), `ALTER TABLE proposals RENAME TO proposals_away`); err != nil {
		t.Fatal(err)
	}
	resp := env.Get(c, "/approvals/history.csv")
	body := webtest.ReadBody(t, resp)
	if resp.StatusCode != http.StatusInternalServerError || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("unreadable history exported as %d %q: %.200q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// The same for the audit log's and the Partner API requests' exports.
func TestAuditAndActionsCSVThatCannotBeReadAreNotEmptyFiles(t *testing.T) {
	t.Parallel()
	for path, table := range map[string]string{"/audit.csv": "audit_log", "/actions.csv": "actions"} {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			env := webtest.New(t, webtest.Options{})
			c, _ := env.SignedIn(store.RoleOwner)
			if _, err := env.Store.Pool().Exec(context.Background(), `ALTER TABLE `+table+` RENAME TO `+table+`_away`); err != nil {
				t.Fatal(err)
			}
			resp := env.Get(c, path)
			body := webtest.ReadBody(t, resp)
			if resp.StatusCode != http.StatusInternalServerError || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
				t.Fatalf("unreadable %s exported as %d %q: %.200q", table, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}
}
