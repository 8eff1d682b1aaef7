package faulttest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// When the Partner API hangs, every page still answers: its reads share one
// budget, and the page says the API did not answer instead of leaving the
// browser waiting past the server's write timeout (30 s a read, four tries,
// used to add up to minutes).
func TestEveryPageAnswersWhenTheAPIHangs(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	owner, _ := env.SignedIn(store.RoleOwner)
	// The card index, so that a card page has a card to show.
	resp := env.PostForm(owner, "/cards/refresh", url.Values{})
	resp.Body.Close()
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
	if ids["/cards/"] == "" || ids["/employees/"] == "" {
		t.Fatalf("the demo company has no card or linked employee to read: %v", ids)
	}

	// Every Partner API route now takes a minute to answer.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"route": "*", "latencyMs": 60000})
	patient := *owner
	patient.Timeout = 30 * time.Second // far beyond the page budget, far below the old wait
	var patterns, paths []string
	for _, rt := range env.App.Routes() {
		if rt.Method != http.MethodGet || strings.Contains(rt.Pattern, "{token}") || strings.Contains(rt.Pattern, "{rid}") ||
			strings.HasPrefix(rt.Pattern, "/static") {
			continue
		}
		path := rt.Pattern
		if strings.Contains(path, "{id}") {
			id := ""
			for prefix, v := range ids {
				if strings.HasPrefix(path, prefix) {
					id = v
				}
			}
			if id == "" {
				continue
			}
			path = strings.ReplaceAll(path, "{id}", id)
		}
		patterns, paths = append(patterns, rt.Pattern), append(paths, path)
	}
	// All pages at once: each waits out its budget, and one after the
	// other those waits added up.
	answers := make([]struct {
		status int
		err    error
	}, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodGet, env.URL(path), nil)
			if err != nil {
				answers[i].err = err
				return
			}
			resp, err := patient.Do(req)
			if err != nil {
				answers[i].err = err
				return
			}
			resp.Body.Close()
			answers[i].status = resp.StatusCode
		})
	}
	wg.Wait()
	for i, pattern := range patterns {
		t.Run(pattern, func(t *testing.T) {
			if err := answers[i].err; err != nil {
				t.Fatalf("no answer: %v", err)
			}
			if answers[i].status == http.StatusInternalServerError {
				t.Fatalf("500 when the API hangs")
			}
		})
	}
}
