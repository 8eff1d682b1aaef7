package web_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// HEAD is GET without the body (RFC 9110 9.3.2): a load balancer's health
// check, an uptime monitor or a link checker asks every page that way and
// gets what GET would answer, never 405.
func TestHeadAnswersLikeGet(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	support, _ := env.SignedIn(store.RoleSupport)
	for _, tc := range []struct {
		c      *http.Client
		path   string
		status int
	}{
		{env.Client(), "/healthz", http.StatusOK},
		{env.Client(), "/login", http.StatusOK},
		{env.Client(), "/static/app.css", http.StatusOK},
		{owner, "/", http.StatusOK},
		{owner, "/employees", http.StatusOK},
		{owner, "/staff.csv", http.StatusOK},
		{support, "/staff", http.StatusForbidden},
		{owner, "/no-such-page", http.StatusNotFound},
	} {
		get := env.Get(tc.c, tc.path)
		get.Body.Close()
		head := env.Do(tc.c, http.MethodHead, tc.path, nil, nil)
		body, _ := io.ReadAll(head.Body)
		head.Body.Close()
		if head.StatusCode != tc.status || get.StatusCode != tc.status {
			t.Errorf("HEAD %s: %d, GET %d, want %d", tc.path, head.StatusCode, get.StatusCode, tc.status)
		}
		if len(body) != 0 {
			t.Errorf("HEAD %s sent a body of %d bytes", tc.path, len(body))
		}
		if h, g := head.Header.Get("Content-Type"), get.Header.Get("Content-Type"); h != g {
			t.Errorf("HEAD %s: Content-Type %q, GET %q", tc.path, h, g)
		}
	}
}

// A 405 names the methods the address takes (RFC 9110 15.5.6: the Allow
// header is a MUST).
func TestMethodNotAllowedNamesTheAllowedMethods(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	for path, want := range map[string][]string{
		"/employees":          {"GET", "HEAD"},
		"/staff":              {"GET", "HEAD", "POST"},
		"/treasury/swap":      {"POST"},
		"/employees/1/delete": {"GET", "HEAD", "POST"},
	} {
		resp := env.Do(owner, http.MethodDelete, path, nil, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("DELETE %s: %d, want 405", path, resp.StatusCode)
			continue
		}
		var got []string
		for _, v := range resp.Header.Values("Allow") {
			for m := range strings.SplitSeq(v, ",") {
				got = append(got, strings.TrimSpace(m))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("DELETE %s: Allow %v, want %v", path, got, want)
		}
	}
}
