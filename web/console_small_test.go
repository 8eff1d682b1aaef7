package web_test

import (
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Every page starts with the doctype as html-validate's recommended rules
// spell it.
func TestPagesStartWithTheDoctype(t *testing.T) {
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	c, _ := env.SignedIn(store.RoleOwner)
	for _, p := range []string{"/", "/employees", "/treasury/funding?print=1"} {
		body := webtest.ReadBody(t, env.Get(c, p))
		if !strings.HasPrefix(body, "<!DOCTYPE html>") {
			t.Errorf("%s starts with %q", p, body[:min(len(body), 20)])
		}
	}
}
