package faulttest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// pageFaultDeadline is how long a person waits for a page under an upstream
// fault in these tests: the page budget (4 s) plus rendering on a busy
// machine, and well below the 12 s the slow API takes, so a page that waits
// for the API instead of its budget fails the test.
const pageFaultDeadline = 10 * time.Second

// everyPage is the path of every GET page of the route table the demo
// company can fill in (a card, a proposal, a linked employee, an event).
func everyPage(t *testing.T, env *webtest.Env, owner *http.Client) []string {
	t.Helper()
	ctx := context.Background()
	resp := env.PostForm(owner, "/cards/refresh", url.Values{})
	resp.Body.Close()
	webtest.SyncQueue(t, env, owner)
	ids := map[string]string{}
	for prefix, q := range map[string]string{
		"/cards/":     `SELECT id FROM cards ORDER BY id LIMIT 1`,
		"/approvals/": `SELECT id FROM proposals ORDER BY id LIMIT 1`,
		"/employees/": `SELECT id::text FROM employees WHERE service_user_id <> '' ORDER BY id LIMIT 1`,
		"/events/":    `SELECT id::text FROM webhook_events ORDER BY id LIMIT 1`,
	} {
		var id string
		if err := env.Store.Pool().QueryRow(ctx, q).Scan(&id); err == nil {
			ids[prefix] = id
		}
	}
	if ids["/cards/"] == "" || ids["/employees/"] == "" || ids["/approvals/"] == "" {
		t.Fatalf("the demo company has no card, proposal or linked employee to read: %v", ids)
	}
	var out []string
	for _, rt := range env.App.Routes() {
		if rt.Method != http.MethodGet || strings.Contains(rt.Pattern, "{token}") || strings.Contains(rt.Pattern, "{rid}") ||
			strings.HasPrefix(rt.Pattern, "/static") || strings.HasPrefix(rt.Pattern, "/webhooks") {
			continue
		}
		path := rt.Pattern
		if strings.Contains(path, "{") {
			id := ""
			for prefix, v := range ids {
				if strings.HasPrefix(path, prefix) && strings.Count(path, "{") == 1 && strings.Contains(path, "{id}") {
					id = v
				}
			}
			if id == "" {
				continue
			}
			path = strings.ReplaceAll(path, "{id}", id)
		}
		out = append(out, path)
	}
	return out
}

// upstreamRequests is how many requests reached the sandbox's API routes.
func upstreamRequests(t *testing.T, env *webtest.Env) int {
	t.Helper()
	var counts struct {
		Data []struct {
			Count int `json:"count"`
		} `json:"data"`
	}
	if err := json.Unmarshal(webtest.SandboxControl(t, env, http.MethodGet, "/_sandbox/requests", nil), &counts); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range counts.Data {
		n += c.Count
	}
	return n
}

// pageAnswer is one page fetched under a fault.
type pageAnswer struct {
	status int
	body   string
	err    error
}

// getPage fetches a page as the signed-in client would, giving up after
// pageFaultDeadline.
func getPage(env *webtest.Env, c *http.Client, path string) pageAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), pageFaultDeadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.URL(path), nil)
	if err != nil {
		return pageAnswer{err: err}
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		return pageAnswer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return pageAnswer{status: resp.StatusCode, body: string(b), err: err}
}

// getPages fetches every page at once.
func getPages(env *webtest.Env, c *http.Client, paths []string) map[string]pageAnswer {
	var mu sync.Mutex
	var wg sync.WaitGroup
	out := map[string]pageAnswer{}
	for _, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := getPage(env, c, p)
			mu.Lock()
			out[p] = a
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// upstreamFailure is a status a page may answer when the API failed it
// (with its own page saying so): a bad gateway, unavailable, or a timeout.
func upstreamFailure(status int) bool {
	return status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// TestEveryPageUnderUpstreamFaults walks every GET page of the route table
// under each upstream fault, all pages at once:
//   - 1 s latency on every call: each page answers as it does with a fast
//     API, with its data and no failure message;
//   - 12 s latency (past the page budget): each page answers before the
//     person's deadline, and a page that reads the API says the API did not
//     answer;
//   - a burst of 5xx then success (one page at a time): the read is retried
//     and the page shows its data;
//   - 5xx on every call, connections reset on every call, and the API down
//     (its listener closed, connections refused): each page answers, and a
//     page that reads the API says it failed in a sentence.
//
// No page ever answers 500 or shows an error's text.
func TestEveryPageUnderUpstreamFaults(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	pages := everyPage(t, env, owner)
	if len(pages) < 30 {
		t.Fatalf("only %d pages found", len(pages))
	}

	// Baseline, one page at a time: its answer with a healthy API, and
	// whether it reads the API at all.
	base := map[string]pageAnswer{}
	reads := map[string]bool{}
	for _, p := range pages {
		before := upstreamRequests(t, env)
		a := getPage(env, owner, p)
		if a.err != nil || a.status >= 500 {
			t.Fatalf("%s with a healthy API: %d %v", p, a.status, a.err)
		}
		if w := webtest.ContainsAny(a.body, []string{"did not answer", "failed ("}); w != "" {
			t.Fatalf("%s says %q with a healthy API", p, w)
		}
		base[p] = a
		reads[p] = upstreamRequests(t, env) > before && p != "/readyz"
	}
	var readers []string
	for _, p := range pages {
		if reads[p] {
			readers = append(readers, p)
		}
	}
	t.Logf("%d pages, %d of them read the Partner API: %v", len(pages), len(readers), readers)

	check := func(t *testing.T, fault string, answers map[string]pageAnswer, wantData bool) {
		t.Helper()
		for _, p := range pages {
			a := answers[p]
			switch {
			case errors.Is(a.err, context.DeadlineExceeded):
				t.Errorf("%s: %s: no answer within %s", fault, p, pageFaultDeadline)
				continue
			case a.err != nil:
				t.Errorf("%s: %s: %v", fault, p, a.err)
				continue
			case a.status == http.StatusInternalServerError:
				t.Errorf("%s: %s answered 500", fault, p)
				continue
			case a.status != base[p].status && (wantData || !upstreamFailure(a.status)):
				t.Errorf("%s: %s answered %d, %d with a healthy API", fault, p, a.status, base[p].status)
			}
			if p == "/metrics" || p == "/readyz" || p == "/healthz" {
				continue // not pages: /readyz reports the upstream from its own periodic probe
			}
			if w := webtest.ContainsAny(a.body, webtest.ErrorLeaks); w != "" {
				t.Errorf("%s: %s shows %q", fault, p, w)
			}
			failed := webtest.ContainsAny(a.body, webtest.APIFailureWords)
			if wantData && failed != "" && webtest.ContainsAny(base[p].body, []string{failed}) == "" {
				t.Errorf("%s: %s says %q instead of showing its data", fault, p, failed)
			}
			if !wantData && reads[p] && failed == "" {
				t.Errorf("%s: %s reads the API but does not say it failed", fault, p)
			}
		}
	}
	fault := func(t *testing.T, f map[string]any) {
		t.Helper()
		webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", f)
	}

	t.Run("1s latency", func(t *testing.T) {
		fault(t, map[string]any{"route": "*", "latencyMs": 1000})
		check(t, "1 s latency", getPages(env, owner, pages), true)
	})
	t.Run("12s latency", func(t *testing.T) {
		fault(t, map[string]any{"route": "*", "latencyMs": 12000})
		check(t, "12 s latency", getPages(env, owner, pages), false)
	})
	t.Run("5xx burst", func(t *testing.T) {
		webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
		answers := map[string]pageAnswer{}
		for _, p := range readers {
			// Two failures, then the API answers: the third try succeeds.
			webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"route": "*", "status": 503, "times": 2})
			answers[p] = getPage(env, owner, p)
			webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
		}
		for _, p := range pages {
			if _, ok := answers[p]; !ok {
				answers[p] = base[p]
			}
		}
		check(t, "a burst of two 503s", answers, true)
	})
	t.Run("5xx", func(t *testing.T) {
		fault(t, map[string]any{"route": "*", "status": 503})
		check(t, "503 on every call", getPages(env, owner, pages), false)
	})
	t.Run("reset", func(t *testing.T) {
		fault(t, map[string]any{"route": "*", "reset": true})
		check(t, "connections reset", getPages(env, owner, pages), false)
	})
	t.Run("down", func(t *testing.T) {
		webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
		env.SandboxHTTP.Close()
		check(t, "the API down", getPages(env, owner, pages), false)
	})
}
