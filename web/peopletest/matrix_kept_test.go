package peopletest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/views"
	"partneradmin/web/webtest"
)

var formTokenAttr = regexp.MustCompile(`name="form_token" value="([^"]+)"`)

// matrixBody is the matrix page's markup and the form tokens in it.
func matrixBody(t *testing.T, env *webtest.Env, c *http.Client, path string) (string, []string) {
	t.Helper()
	resp := env.Get(c, path)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
	}
	var tokens []string
	for _, m := range formTokenAttr.FindAllStringSubmatch(string(b), -1) {
		tokens = append(tokens, m[1])
	}
	return string(b), tokens
}

// TestMatrixKeptPartsStayRight: the readiness matrix keeps the markup of
// its footer, its filter selects and its bulk-start forms with its read.
// Each request still gets new form tokens, one per form, that the app
// takes; the selects show each filter's own values; the footer counts
// the rows shown; a change of readiness shows in the kept parts at once.
func TestMatrixKeptPartsStayRight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := webtest.LinkedDemoEmployee(t, env, false)
	now := time.Now()
	if err := env.Store.SaveOnboarding(ctx, e.ID, nil, []store.ReadinessCell{
		{Currency: "USD", State: store.ReadyToActivate, ReadAt: now},
		{Currency: "CAD", State: store.ReadyToActivate, ReadAt: now},
	}); err != nil {
		t.Fatal(err)
	}

	// Two views of the same read: the same page but for new tokens.
	first, firstTokens := matrixBody(t, env, hr, "/employees/readiness")
	second, secondTokens := matrixBody(t, env, hr, "/employees/readiness")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(second))
	forms := doc.Find(`[data-testid="bulk-start"] form`).Length()
	if forms < 2 || len(secondTokens) != len(firstTokens) || doc.Find(`form input[name="form_token"]`).Length() != len(secondTokens) {
		t.Fatalf("%d bulk forms, tokens %d then %d", forms, len(firstTokens), len(secondTokens))
	}
	seen := map[string]bool{}
	for _, tok := range append(append([]string{}, firstTokens...), secondTokens...) {
		if seen[tok] || strings.HasPrefix(tok, "form-token-") {
			t.Fatalf("token %q given twice, or the kept markup's marker shown", tok)
		}
		seen[tok] = true
	}
	for i := range firstTokens {
		first = strings.Replace(first, firstTokens[i], "TOKEN", 1)
		second = strings.Replace(second, secondTokens[i], "TOKEN", 1)
	}
	if first != second {
		t.Fatal("two views of the same read differ other than in their tokens")
	}
	offer := func(doc *goquery.Document, cur string) string { return webtest.TestID(doc, "bulk-start-submit-"+cur) }
	before := offer(doc, "CAD")

	// A token from the kept markup starts a run.
	tok, _ := doc.Find(`[data-testid="bulk-start-CAD"] input[name="form_token"]`).Attr("value")
	resp := env.PostForm(hr, "/employees/readiness/start", url.Values{"form_token": {tok}, "currency": {"CAD"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/employees/onboarding-runs/") {
		t.Fatalf("bulk start with a kept form's token: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	// Each filter's selects show its own values.
	for _, q := range []url.Values{{"currency": {"CAD"}, "readiness": {"ready"}}, {"currency": {"USD"}}, {"state": {"linked"}, "readiness": {"active"}}} {
		doc := webtest.Doc(t, env.Get(hr, "/employees/readiness?"+q.Encode()))
		for _, name := range []string{"state", "currency", "readiness"} {
			if got := doc.Find(`select[name="`+name+`"] option[selected]`).AttrOr("value", ""); got != q.Get(name) {
				t.Errorf("%s: %s shows %q selected", q.Encode(), name, got)
			}
		}
		// The footer counts the rows shown.
		for _, cur := range store.ReadinessCurrencies() {
			counts := map[string]int{}
			doc.Find(`[data-testid="matrix-row"] [data-testid="readiness-` + cur + `"]`).Each(func(_ int, s *goquery.Selection) {
				counts[s.AttrOr("data-state", "")]++
			})
			total := webtest.TestID(doc, "totals-"+cur)
			for st, n := range counts {
				if want := fmt.Sprintf("%d %s", n, views.StatusLabel(views.StatusReadiness, st)); !strings.Contains(total, want) {
					t.Errorf("%s %s: footer %q lacks %q", q.Encode(), cur, total, want)
				}
			}
		}
	}

	// The employee's CAD rail is now active: the kept offer no longer
	// counts them.
	if err := env.Store.SaveOnboarding(ctx, e.ID, nil, []store.ReadinessCell{{Currency: "CAD", State: store.ReadyActive, ReadAt: now}}); err != nil {
		t.Fatal(err)
	}
	doc = webtest.Doc(t, env.Get(hr, "/employees/readiness"))
	if after := offer(doc, "CAD"); after == before {
		t.Fatalf("the CAD offer still says %q after an employee became active", after)
	}
}
