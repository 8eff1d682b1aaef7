package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// An action whose outcome the app could not learn is listed for the owner,
// who records what they found; the audit row names them. Other roles may
// neither see nor settle it.
func TestOwnerSettlesAnUnknownActionByHand(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	finance, fin := env.SignedIn(store.RoleFinanceApprover)
	a, _, err := env.Store.BeginAction(ctx, store.NewAction{Key: "form:unknown-one", Kind: "test.opaque", Target: "thing:1",
		Actor: store.Actor{StaffID: fin.ID, Email: fin.Email}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.FinishAction(ctx, a.Key, store.Finish{State: store.ActionUnknown, Message: "The API did not answer."}); err != nil {
		t.Fatal(err)
	}
	path := "/actions/" + strconv.FormatInt(a.ID, 10) + "/resolve"

	owner, ow := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/actions"))
	row := doc.Find(`[data-testid="action-` + strconv.FormatInt(a.ID, 10) + `"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "outcome unknown") || row.Find("form").Length() != 1 {
		t.Fatalf("open action row: %q", row.Text())
	}

	// Refused: support may not see the page; finance may not settle it.
	support, _ := env.SignedIn(store.RoleSupport)
	if resp := env.Get(support, "/actions"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support sees the actions page: %d", resp.StatusCode)
	}
	if resp := env.PostForm(finance, path, url.Values{"outcome": {"done"}, "note": {"checked"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("finance settles an action: %d", resp.StatusCode)
	}
	// Bad input changes nothing.
	for _, c := range []struct {
		form url.Values
		want int
	}{
		{url.Values{"outcome": {"maybe"}, "note": {"checked"}}, http.StatusUnprocessableEntity},
		{url.Values{"outcome": {"done"}, "note": {""}}, http.StatusUnprocessableEntity},
		// Not text at all: refused before the handler, for every form.
		{url.Values{"outcome": {"done"}, "note": {"bad\x00note"}}, http.StatusBadRequest},
		{url.Values{"outcome": {"done"}, "note": {strings.Repeat("x", 501)}}, http.StatusUnprocessableEntity},
	} {
		resp := env.PostForm(owner, path, c.form)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Fatalf("%v: %d, want %d", c.form, resp.StatusCode, c.want)
		}
	}
	if got, _ := env.Store.ActionByKey(ctx, a.Key); got.State != store.ActionUnknown {
		t.Fatalf("bad input changed the action: %+v", got)
	}

	resp := env.PostForm(owner, path, url.Values{"outcome": {"done"}, "note": {"The Partner API dashboard shows it."}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("resolve: %d", resp.StatusCode)
	}
	got, _ := env.Store.ActionByKey(ctx, a.Key)
	if got.State != store.ActionDone || !strings.Contains(got.Message, "dashboard shows it") {
		t.Fatalf("after resolve: %+v", got)
	}
	var actor string
	if err := env.Store.Pool().QueryRow(ctx, `SELECT actor_email FROM audit_log WHERE action = 'test.opaque' AND outcome = 'ok'`).Scan(&actor); err != nil || actor != ow.Email {
		t.Fatalf("audit actor %q (%v), want %q", actor, err, ow.Email)
	}
	// Settled once: a second resolve changes nothing.
	resp = env.PostForm(owner, path, url.Values{"outcome": {"refused"}, "note": {"again"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("second resolve: %d", resp.StatusCode)
	}
	if got, _ := env.Store.ActionByKey(ctx, a.Key); got.State != store.ActionDone {
		t.Fatalf("second resolve changed it: %+v", got)
	}
	// The CSV lists it.
	csv := env.Get(owner, "/actions.csv?all=1")
	defer csv.Body.Close()
	b := new(strings.Builder)
	if _, err := io.Copy(b, csv.Body); err != nil || !strings.Contains(b.String(), "test.opaque") {
		t.Fatalf("csv: %q %v", b.String(), err)
	}
}

// A settle-by-hand form sent with a mistake shows the problem next to that
// row's note, in the summary above, with the note as typed: the owner does
// not type what they checked again.
func TestSettlingByHandKeepsTheNoteAndSaysWhatIsWrongNextToIt(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	owner, ow := env.SignedIn(store.RoleOwner)
	a, _, err := env.Store.BeginAction(ctx, store.NewAction{Key: "form:unknown-kept", Kind: "test.opaque", Target: "thing:2",
		Actor: store.Actor{StaffID: ow.ID, Email: ow.Email}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.FinishAction(ctx, a.Key, store.Finish{State: store.ActionUnknown, Message: "The API did not answer."}); err != nil {
		t.Fatal(err)
	}
	id := "note-" + strconv.FormatInt(a.ID, 10)
	path := "/actions/" + strconv.FormatInt(a.ID, 10) + "/resolve"
	long := "The dashboard shows it. " + strings.Repeat("x", 500)
	for _, c := range []struct{ outcome, note, want string }{
		{"done", long, "500 characters"},
		{"done", "", "Say what you checked"},
		{"maybe", "The dashboard shows it.", "Choose whether"},
		{"done", "Checked\u202e", "U+202E"},
	} {
		resp := env.PostForm(owner, path, url.Values{"outcome": {c.outcome}, "note": {c.note}})
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s %.20q: %d", c.outcome, c.note, resp.StatusCode)
		}
		doc := webtest.Doc(t, resp)
		webtest.FieldProblem(t, doc, id, c.want)
		if v, _ := doc.Find("#" + id).Attr("value"); v != c.note {
			t.Errorf("%s: the note typed was lost: %.30q", c.want, v)
		}
	}
	if got, _ := env.Store.ActionByKey(ctx, a.Key); got.State != store.ActionUnknown {
		t.Fatalf("bad input changed the action: %+v", got)
	}
}
