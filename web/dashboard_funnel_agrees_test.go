package web_test

import (
	"github.com/PuerkitoBio/goquery"

	"strconv"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The start page's invite funnel and readiness table read one source: with
// the demo company (whose KYC events the app never saw), the employees with
// a currency active are at least as many as the most of any currency, and
// every one of them has submitted KYC.
func TestStartPageFunnelAgreesWithReadiness(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	doc := webtest.Doc(t, env.Get(c, "/"))
	stages := tableColumn(doc, "invite-funnel", "0")
	if len(stages) != 5 {
		t.Fatalf("funnel stages %q", stages)
	}
	n := make([]int, len(stages))
	for i, s := range stages {
		v, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			t.Fatalf("stage %d: %q", i, s)
		}
		n[i] = v
	}
	kyc, active := n[2], n[3]
	most := 0
	doc.Find(`[data-testid="readiness-row"] td[data-state="active"]`).Each(func(_ int, td *goquery.Selection) {
		if v, err := strconv.Atoi(strings.TrimSpace(td.Text())); err == nil && v > most {
			most = v
		}
	})
	if most == 0 {
		t.Fatal("the demo company has no active currency in the readiness table")
	}
	if active < most || kyc < active {
		t.Fatalf("funnel: KYC submitted %d, a currency active %d; readiness table: up to %d active in one currency", kyc, active, most)
	}
}
