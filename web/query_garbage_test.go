package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A page link a person edited by hand (a cursor past the end of an
// integer, a negative page, a date that is not one) is a person's mistake,
// not the server's: every GET page answers it without a 5xx.
func TestEveryPageSurvivesGarbageQueryParameters(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	victim := env.CreateStaff(store.RoleSupport)
	params := []string{"before", "after", "after_id", "page", "from", "to", "since", "state", "type", "all", "view", "wallet", "currency"}
	values := []string{"99999999999999999999999", "9223372036854775807", "2147483648", "-1", "junk", "2026-13-45", "1e400"}
	for _, rt := range env.App.Routes() {
		if rt.Method != http.MethodGet || strings.Contains(rt.Pattern, "{token}") || strings.HasPrefix(rt.Pattern, "/static") {
			continue
		}
		path := strings.ReplaceAll(rt.Pattern, "{id}", strconv.FormatInt(victim.ID, 10))
		path = strings.NewReplacer("{rid}", "1", "{run}", "1", "{currency}", "usd").Replace(path)
		for _, p := range params {
			for _, v := range values {
				resp := env.Get(owner, path+"?"+url.Values{p: {v}}.Encode())
				resp.Body.Close()
				if resp.StatusCode >= 500 {
					t.Errorf("GET %s?%s=%s: %d", path, p, v, resp.StatusCode)
				}
			}
		}
	}
}
