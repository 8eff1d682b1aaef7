package authtest

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// issueSetPasswordLink has the owner issue a set-password link for a staff member and
// returns its path, read from the staff page.
func issueSetPasswordLink(t *testing.T, env *webtest.Env, owner *http.Client, staffID int64) string {
	t.Helper()
	resp := env.PostForm(owner, "/staff/"+strconv.FormatInt(staffID, 10)+"/set-password-link", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("issue link: %d", resp.StatusCode)
	}
	link := webtest.TestID(webtest.Doc(t, resp), "issued-link-url")
	prefix := env.Config.PublicOrigin + "/set-password/"
	if !strings.HasPrefix(link, prefix) || len(link) < len(prefix)+40 {
		t.Fatalf("issued link %q", link)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

// TestSetPasswordLink: the owner gives a staff member who lost their first
// password a one-time link; they set their own password with it, which signs
// them out everywhere. The link works once, until a newer one replaces it or
// it expires, and only its hash is stored.
func TestSetPasswordLink(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	owner, ownerStaff := env.SignedIn(store.RoleOwner)
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	lost := env.CreateStaff(store.RoleSupport)
	earlier := env.Client()
	env.Login(earlier, lost.Email, lost.Password)

	// Only an owner may issue one.
	resp := env.PostForm(hr, "/staff/"+strconv.FormatInt(lost.ID, 10)+"/set-password-link", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("hr admin issuing a link: %d, want 403", resp.StatusCode)
	}
	var links int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM set_password_links`).Scan(&links); err != nil || links != 0 {
		t.Fatalf("links after a refused request: %d %v", links, err)
	}

	first := issueSetPasswordLink(t, env, owner, lost.ID)
	second := issueSetPasswordLink(t, env, owner, lost.ID)
	rows, err := env.Store.ListAudit(ctx, store.AuditFilter{Action: "staff.set_password_link"})
	if err != nil || len(rows) != 2 || rows[0].Actor.StaffID != ownerStaff.ID || rows[0].Target != "staff:"+strconv.FormatInt(lost.ID, 10) ||
		!strings.Contains(rows[0].Detail, "previous link no longer works") {
		t.Fatalf("audit: %+v %v", rows, err)
	}
	// Only the token's hash is kept.
	token := strings.TrimPrefix(second, "/set-password/")
	sum := sha256.Sum256([]byte(token))
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM set_password_links WHERE token_hash = $1 AND staff_id = $2`, sum[:], lost.ID).Scan(&links); err != nil || links != 1 {
		t.Fatalf("stored link: %d %v", links, err)
	}

	// The newer link replaced the first.
	visitor := env.Client()
	resp = env.Get(visitor, first)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("replaced link: %d, want 404", resp.StatusCode)
	}
	doc := webtest.Doc(t, env.Get(visitor, second))
	if got := webtest.TestID(doc, "set-password-email"); got != lost.Email {
		t.Fatalf("link page for %q, want %q", got, lost.Email)
	}

	// The rules of every chosen password.
	for _, tt := range []struct{ next, confirm, field, want string }{
		{"too short", "too short", "new-error", "at least 12"},
		{"long enough passphrase", "something else entirely", "confirm-error", "differ"},
	} {
		resp := env.PostForm(visitor, second, url.Values{"new": {tt.next}, "confirm": {tt.confirm}})
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%q: %d, want 422", tt.next, resp.StatusCode)
		}
		if got := webtest.TestID(webtest.Doc(t, resp), tt.field); !strings.Contains(got, tt.want) {
			t.Fatalf("%s = %q, want %q", tt.field, got, tt.want)
		}
	}

	const chosen = "my own new passphrase"
	resp = env.PostForm(visitor, second, url.Values{"new": {chosen}, "confirm": {chosen}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("set password: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := webtest.TestID(webtest.Doc(t, env.Get(visitor, "/login")), "flash"); !strings.Contains(got, "password is set") {
		t.Fatalf("flash %q", got)
	}
	waitSignedOut(t, env, earlier)
	env.Login(env.Client(), lost.Email, chosen)
	if resp := env.PostForm(env.Client(), "/login", url.Values{"email": {lost.Email}, "password": {lost.Password}}); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("old password: %d, want 422", resp.StatusCode)
	}
	rows, err = env.Store.ListAudit(ctx, store.AuditFilter{Action: "staff.password"})
	if err != nil || len(rows) != 1 || rows[0].Actor.StaffID != lost.ID || !strings.Contains(rows[0].Detail, "set-password link") {
		t.Fatalf("audit: %+v %v", rows, err)
	}

	// Used once, it is gone.
	resp = env.PostForm(env.Client(), second, url.Values{"new": {"yet another passphrase"}, "confirm": {"yet another passphrase"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("second use: %d, want 404", resp.StatusCode)
	}

	// An expired link does not work.
	expired := issueSetPasswordLink(t, env, owner, lost.ID)
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE set_password_links SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	resp = env.Get(env.Client(), expired)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("expired link: %d, want 404", resp.StatusCode)
	}
	for _, bad := range []string{"/set-password/nonsense", "/set-password/" + strings.Repeat("A", 43)} {
		resp = env.Get(env.Client(), bad)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", bad, resp.StatusCode)
		}
	}

	// A disabled account gets no link.
	if _, err := env.Store.UpdateStaffAccess(ctx, lost.ID, lost.Role, true, store.Actor{}); err != nil {
		t.Fatal(err)
	}
	resp = env.PostForm(owner, "/staff/"+strconv.FormatInt(lost.ID, 10)+"/set-password-link", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("link for a disabled account: %d, want 303", resp.StatusCode)
	}
	if got := webtest.TestID(webtest.Doc(t, env.Get(owner, "/staff")), "flash"); !strings.Contains(got, "is disabled") {
		t.Fatalf("flash %q", got)
	}
}
