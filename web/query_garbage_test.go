package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A page link a person edited by hand (a cursor past the end of an
// integer, a negative page, a date that is not one) is a person's mistake,
// not the server's: every GET page answers it without a 5xx.
func TestEveryPageSurvivesGarbageQueryParameters(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	victim := env.CreateStaff(store.RoleSupport)
	params := []string{"before", "after", "after_id", "page", "from", "to", "since", "state", "type", "all", "view", "wallet", "currency"}
	values := []string{"99999999999999999999999", "9223372036854775807", "2147483648", "-1", "junk", "2026-13-45", "1e400"}
	type query struct{ path, param, value string }
	queries := make(chan query)
	var wg sync.WaitGroup
	// Four at a time: the requests are independent, and one after the
	// other they kept one core busy while the other had nothing to do.
	for range 4 {
		wg.Go(func() {
			for q := range queries {
				status, err := getStatus(env, owner, q.path+"?"+url.Values{q.param: {q.value}}.Encode())
				if err != nil {
					t.Errorf("GET %s?%s=%s: %v", q.path, q.param, q.value, err)
				} else if status >= 500 {
					t.Errorf("GET %s?%s=%s: %d", q.path, q.param, q.value, status)
				}
			}
		})
	}
	for _, rt := range env.App.Routes() {
		if rt.Method != http.MethodGet || strings.Contains(rt.Pattern, "{token}") || strings.HasPrefix(rt.Pattern, "/static") {
			continue
		}
		path := strings.ReplaceAll(rt.Pattern, "{id}", strconv.FormatInt(victim.ID, 10))
		path = strings.NewReplacer("{rid}", "1", "{run}", "1", "{currency}", "usd").Replace(path)
		for _, p := range params {
			for _, v := range values {
				queries <- query{path, p, v}
			}
		}
	}
	close(queries)
	wg.Wait()
}

// getStatus is env.Get for a goroutine other than the test's (which must
// not end the test): the request as a page of this site sends it, and its
// answer's status.
func getStatus(env *webtest.Env, c *http.Client, path string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, env.URL(path), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// The requests and event logs refuse a page link they did not make, as the
// audit log does, and list nothing from it; a real cursor past a 32-bit
// integer still pages.
func TestLogsRefuseAPageLinkTheyDidNotMake(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	for _, tc := range []struct {
		path, testID string
		status       int
	}{
		{"/actions?all=1&before=junk", "actions-error", http.StatusBadRequest},
		{"/actions?before=-4", "actions-error", http.StatusBadRequest},
		{"/events?before=junk", "events-before-error", http.StatusUnprocessableEntity},
		{"/events?before=0", "events-before-error", http.StatusUnprocessableEntity},
		{"/approvals?before=junk", "queue-before-error", http.StatusBadRequest},
		{"/approvals?status=open&before=2026-11-27T10:00:00Z", "queue-before-error", http.StatusBadRequest},
	} {
		resp := env.Get(owner, tc.path)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != tc.status || webtest.TestID(doc, tc.testID) == "" {
			t.Errorf("%s: %d, message %q", tc.path, resp.StatusCode, webtest.TestID(doc, tc.testID))
		}
		if n := doc.Find(`[data-testid="proposal-row"], [data-testid="event-row"], [data-testid="action-row"]`).Length(); n != 0 {
			t.Errorf("%s: %d rows listed under a page link the log did not make", tc.path, n)
		}
	}
	for _, path := range []string{"/actions?all=1&before=2147483648", "/events?before=2147483648", "/approvals?before=2026-11-27T10:00:00Z|p-1"} {
		if resp := env.Get(owner, path); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d, want 200", path, resp.StatusCode)
			resp.Body.Close()
		} else {
			resp.Body.Close()
		}
	}
	resp := env.Get(owner, "/actions.csv?before=junk")
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("CSV with a junk page link: %d, want 400", resp.StatusCode)
	}
}
