package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Every page starts with the doctype as html-validate's recommended rules
// spell it.
func TestPagesStartWithTheDoctype(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	c, _ := env.SignedIn(store.RoleOwner)
	for _, p := range []string{"/", "/employees", "/treasury/funding?print=1"} {
		body := webtest.ReadBody(t, env.Get(c, p))
		if !strings.HasPrefix(body, "<!DOCTYPE html>") {
			t.Errorf("%s starts with %q", p, body[:min(len(body), 20)])
		}
	}
}

// One row is "1 row"; a Latin-1 upload is told to save the file as UTF-8.
func TestBulkUploadCountsAndEncodingInWords(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	resp := webtest.UploadBulkInvite(t, env, c, "one.csv", webtest.BulkInviteCSV(1))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, env.Get(c, resp.Header.Get("Location")))
	if got := webtest.TestID(doc, "bulk-summary"); !strings.HasPrefix(got, "1 row:") {
		t.Fatalf("one row: %q", got)
	}
	latin1 := strings.Replace(string(webtest.BulkInviteCSV(1)), "Bulk Person 0", "Diego Mart\xednez", 1)
	resp = webtest.UploadBulkInvite(t, env, c, "latin1.csv", []byte(latin1))
	if body := webtest.ReadBody(t, resp); !strings.Contains(body, "save the file as UTF-8") {
		t.Fatalf("Latin-1 upload: %d\n%s", resp.StatusCode, body)
	}
}

// The page of a just-issued signing link offers to open it on this phone
// before the QR code (shown at phone width only, by app.css).
func TestSignPageOffersThisPhoneBeforeTheQRCode(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Team lunch")
	resp := env.PostForm(c, "/approvals/"+id+"/sign-requests", webtest.WithFormToken(url.Values{}))
	doc := webtest.Doc(t, resp)
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	both := doc.Find(`[data-testid="sign-open-here"], [data-testid="sign-qr"]`)
	first, _ := both.First().Attr("data-testid")
	href, _ := doc.Find(`[data-testid="sign-open-here"]`).Attr("href")
	if resp.StatusCode != http.StatusCreated || both.Length() != 2 || first != "sign-open-here" || href != link || link == "" {
		t.Fatalf("%d: %d of the two, %q first, opens %q for %q", resp.StatusCode, both.Length(), first, href, link)
	}
	if !doc.Find(`[data-testid="sign-open-here"]`).Parent().HasClass("on-phone") {
		t.Fatal("the link is not marked for phones only")
	}
}
