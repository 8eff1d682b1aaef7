package handlers_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// linkRecord stands for a rail's record that waits for a signature.
type linkRecord struct {
	ID            int64
	SignRequestID int64
}

// fakeSigner records what the sign area was asked to issue.
type fakeSigner struct {
	err   error
	calls []signCall
}

type signCall struct {
	by               store.Actor
	userID, walletID string
	req              apiclient.SignatureRequest
	what             string
}

func (f *fakeSigner) IssueWorkflow(_ context.Context, by store.Actor, userID, walletID string, req apiclient.SignatureRequest, what string) (views.SignPanel, error) {
	f.calls = append(f.calls, signCall{by, userID, walletID, req, what})
	if f.err != nil {
		return views.SignPanel{}, f.err
	}
	return views.SignPanel{ID: 42, Link: "https://example.test/s/tok"}, nil
}

// shown is one call of Show.
type shown struct {
	rec    linkRecord
	status int
	panel  *views.SignPanel
	errMsg string
}

type linkRig struct {
	links   *handlers.SignLinks[linkRecord]
	signer  *fakeSigner
	log     *bytes.Buffer
	shown   []shown
	kept    []int64
	loadErr error
	why     string
	checkE  error
	keepErr error
}

func newLinkRig() *linkRig {
	g := &linkRig{signer: &fakeSigner{}, log: &bytes.Buffer{}}
	deadline := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	g.links = &handlers.SignLinks[linkRecord]{
		Base:       &handlers.Base{Logger: slog.New(slog.NewTextHandler(g.log, nil))},
		Sign:       g.signer,
		LogMessage: "test: issue the signing link",
		Failed:     "The link could not be issued.",
		Load: func(_ context.Context, id int64) (linkRecord, error) {
			if g.loadErr != nil {
				return linkRecord{}, g.loadErr
			}
			return linkRecord{ID: id, SignRequestID: 3}, nil
		},
		Check: func(_ context.Context, rec linkRecord) (linkRecord, string, error) { return rec, g.why, g.checkE },
		Signature: func(rec linkRecord) handlers.Signature {
			return handlers.Signature{UserID: "user-1", WalletID: "wallet-1", WorkflowID: "wf-1", HashToSign: "0xabc",
				Deadline: &deadline, What: "Payout of 5 USDB", Log: []any{"record", rec.ID}}
		},
		Keep: func(_ context.Context, rec linkRecord, id int64) (linkRecord, error) {
			g.kept = append(g.kept, id)
			rec.SignRequestID = id
			return rec, g.keepErr
		},
		Show: func(w http.ResponseWriter, _ *http.Request, rec linkRecord, status int, _ string, panel *views.SignPanel, errMsg string) {
			g.shown = append(g.shown, shown{rec, status, panel, errMsg})
			w.WriteHeader(status)
		},
	}
	return g
}

// routed is a request to a route with {id} = id, signed in as staff 9.
func routed(method, id string) *http.Request {
	r := httptest.NewRequest(method, "/records/"+id, nil)
	rctx := chi.NewRouteContext()
	rctx.URLParams.Add("id", id)
	ctx := context.WithValue(r.Context(), chi.RouteCtxKey, rctx)
	ctx = handlers.WithViewer(ctx, &handlers.Viewer{Staff: store.Staff{ID: 9, Email: "owner@example.test"}})
	return r.WithContext(ctx)
}

// reissue posts to the record's sign-request route.
func (g *linkRig) reissue(id string) int {
	w := httptest.NewRecorder()
	g.links.Reissue(w, routed(http.MethodPost, id))
	return w.Code
}

// detail gets the record's page; notOpened records the id it was asked
// for.
func (g *linkRig) detail(id string, notOpened *[]int64) int {
	w := httptest.NewRecorder()
	g.links.Detail(w, routed(http.MethodGet, id), func(w http.ResponseWriter, _ *http.Request, id int64) {
		*notOpened = append(*notOpened, id)
		w.WriteHeader(http.StatusAccepted)
	})
	return w.Code
}

func TestSignLinksDetail(t *testing.T) {
	g := newLinkRig()
	var asked []int64
	if code := g.detail("7", &asked); code != http.StatusOK || len(asked) != 0 {
		t.Fatalf("record: %d, request shown for %v", code, asked)
	}
	if len(g.shown) != 1 || g.shown[0].rec != (linkRecord{ID: 7, SignRequestID: 3}) || g.shown[0].panel != nil || g.shown[0].errMsg != "" {
		t.Fatalf("shown %+v", g.shown)
	}
	if len(g.signer.calls) != 0 {
		t.Fatalf("the page issued %d links", len(g.signer.calls))
	}

	// No record: the API has not opened it, so the request is shown.
	g.loadErr = store.ErrNotFound
	if code := g.detail("8", &asked); code != http.StatusAccepted || len(asked) != 1 || asked[0] != 8 {
		t.Fatalf("no record: %d, request shown for %v", code, asked)
	}
	g.loadErr = errors.New("db down")
	if code := g.detail("8", &asked); code != http.StatusInternalServerError {
		t.Fatalf("load fails: %d", code)
	}
	if code := g.detail("eight", &asked); code != http.StatusNotFound || len(asked) != 1 || len(g.shown) != 1 {
		t.Fatalf("bad id: %d, request shown for %v, %d records shown", code, asked, len(g.shown))
	}
}

func TestSignLinksReissueIssuesAndKeepsTheNewLink(t *testing.T) {
	g := newLinkRig()
	if code := g.reissue("7"); code != http.StatusCreated {
		t.Fatalf("status %d", code)
	}
	if len(g.signer.calls) != 1 {
		t.Fatalf("%d links issued", len(g.signer.calls))
	}
	c := g.signer.calls[0]
	want := apiclient.SignatureRequest{WorkflowID: "wf-1", HashToSign: "0xabc", Deadline: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	if c.userID != "user-1" || c.walletID != "wallet-1" || c.req != want || c.what != "Payout of 5 USDB" || c.by.StaffID != 9 {
		t.Fatalf("issued %+v", c)
	}
	if len(g.kept) != 1 || g.kept[0] != 42 {
		t.Fatalf("kept %v", g.kept)
	}
	if len(g.shown) != 1 || g.shown[0].rec != (linkRecord{ID: 7, SignRequestID: 42}) || g.shown[0].panel == nil ||
		g.shown[0].panel.Link == "" || g.shown[0].errMsg != "" {
		t.Fatalf("shown %+v", g.shown)
	}
}

func TestSignLinksReissueRefusesWithTheRailsReason(t *testing.T) {
	g := newLinkRig()
	g.why = "The quote expired."
	if code := g.reissue("7"); code != http.StatusConflict {
		t.Fatalf("status %d", code)
	}
	if len(g.signer.calls) != 0 || len(g.kept) != 0 {
		t.Fatalf("issued %d, kept %v", len(g.signer.calls), g.kept)
	}
	if len(g.shown) != 1 || g.shown[0].errMsg != "The quote expired." || g.shown[0].panel != nil || g.shown[0].rec.SignRequestID != 3 {
		t.Fatalf("shown %+v", g.shown)
	}
}

func TestSignLinksWhenTheSignAreaCannotIssue(t *testing.T) {
	g := newLinkRig()
	g.signer.err = errors.New("wallet not mirrored")
	if code := g.reissue("7"); code != http.StatusBadGateway {
		t.Fatalf("status %d", code)
	}
	if len(g.kept) != 0 {
		t.Fatalf("kept %v after a failed issue", g.kept)
	}
	if len(g.shown) != 1 || g.shown[0].errMsg != "The link could not be issued." || g.shown[0].rec.SignRequestID != 3 {
		t.Fatalf("shown %+v", g.shown)
	}
	if l := g.log.String(); !strings.Contains(l, "test: issue the signing link") || !strings.Contains(l, "record=7") ||
		!strings.Contains(l, "wallet not mirrored") {
		t.Fatalf("log %q", l)
	}
}

func TestSignLinksReissueErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   string
		set  func(*linkRig)
		want int
	}{
		{"id not a number", "x7", func(*linkRig) {}, http.StatusNotFound},
		{"no such record", "7", func(g *linkRig) { g.loadErr = store.ErrNotFound }, http.StatusNotFound},
		{"load fails", "7", func(g *linkRig) { g.loadErr = errors.New("db down") }, http.StatusInternalServerError},
		{"check fails", "7", func(g *linkRig) { g.checkE = errors.New("db down") }, http.StatusInternalServerError},
		{"keep fails", "7", func(g *linkRig) { g.keepErr = errors.New("db down") }, http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newLinkRig()
			tc.set(g)
			if code := g.reissue(tc.id); code != tc.want {
				t.Fatalf("status %d, want %d", code, tc.want)
			}
			if len(g.shown) != 0 {
				t.Fatalf("record shown %+v", g.shown)
			}
		})
	}
}

func TestEarliestDeadline(t *testing.T) {
	early, late := time.Unix(100, 0), time.Unix(200, 0)
	for _, tc := range []struct {
		a, b, want *time.Time
	}{
		{nil, nil, nil},
		{&early, nil, &early},
		{nil, &late, &late},
		{&early, &late, &early},
		{&late, &early, &early},
	} {
		if got := handlers.EarliestDeadline(tc.a, tc.b); got != tc.want {
			t.Errorf("EarliestDeadline(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSignatureOnItsWay(t *testing.T) {
	if handlers.SignatureOnItsWay(nil) {
		t.Error("no link: on its way")
	}
	for state, want := range map[store.SignState]bool{store.SignWaiting: false, store.SignOpened: false, store.SignRelaying: true,
		store.SignRelayPending: true, store.SignSubmitted: true, store.SignCompleted: true, store.SignRefused: false,
		store.SignExpired: false, store.SignSuperseded: false} {
		if got := handlers.SignatureOnItsWay(&store.SignRequest{State: state}); got != want {
			t.Errorf("%s: %v, want %v", state, got, want)
		}
	}
}
