package a11ytest

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// htmlValidate is the pinned html-validate, run by npx.
const htmlValidate = "html-validate@9.5.5"

// The ten main pages, as the demo company's owner sees them, pass
// html-validate's recommended rules (testdata/htmlvalidate.cjs says which
// are off and why).
func TestTenMainPagesPassHTMLValidate(t *testing.T) {
	npx, err := exec.LookPath("npx")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npx (node) is needed to run html-validate")
		}
		t.Skip("npx not found: html-validate is not run (install node and npm)")
	}
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, c)
	employee, _ := webtest.Doc(t, env.Get(c, "/employees")).Find(`[data-testid="employee-name"]`).First().Attr("href")
	ps, err := env.Store.ListQueue(t.Context(), store.QueueFilter{})
	if err != nil || len(ps) == 0 {
		t.Fatalf("no proposal to show: %v", err)
	}
	dir := t.TempDir()
	var files []string
	for name, path := range map[string]string{
		"start": "/", "employees": "/employees", "employee": employee, "approvals": "/approvals",
		"proposal": "/approvals/" + ps[0].ID, "treasury": "/treasury", "payroll": "/payroll", "money-out": "/money-out",
		"cards": "/cards", "audit": "/audit",
	} {
		resp := env.Get(c, path)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		f := filepath.Join(dir, name+".html")
		if err := os.WriteFile(f, body, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	cfg, err := filepath.Abs("testdata/htmlvalidate.cjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), npx, append([]string{"--yes", htmlValidate, "--config", cfg, "--formatter", "text"}, files...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("html-validate: %v\n%s", err, strings.ReplaceAll(string(out), dir+"/", ""))
	}
}
