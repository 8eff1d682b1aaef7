package opstest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A payroll run whose sending process is killed with SIGKILL while calls
// are in flight (the API has recorded them, its answers are slow) is
// finished by the next process within two minutes of its start: river
// rescues the orphaned job once its short timeout has passed, the rows
// the dead process left begun are read back rather than sent again, and
// the rows it never started are sent. Every row is created upstream
// exactly once.
func TestPayrollRunKilledMidSendFinishesAfterRestart(t *testing.T) {
	t.Parallel()
	bin := buildApp(t)
	env := webtest.New(t, webtest.Options{}) // no workers here: the child processes run the job
	c, _ := env.SignedIn(store.RoleOwner)
	ctx := context.Background()

	const rows = 14
	var file strings.Builder
	file.WriteString("employee,amount,currency,description\n")
	for _, id := range webtest.SandboxPayees(t, env, "kill", rows) {
		file.WriteString(id + ",1.00,USD,November salary\n")
	}
	id := webtest.CreatePayroll(t, env, c, file.String())
	// The first three creates answer at once; every later one is recorded
	// upstream and then answered only after a minute: the dead process's
	// calls are in flight when it is killed, and the API has them.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ProposalsRoute,
		"latencyMs": 1, "after": true, "times": 3})
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ProposalsRoute,
		"latencyMs": 60000, "after": true})
	doc := webtest.PayrollPage(t, env, c, id)
	resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {webtest.FormTokenOf(t, doc, "payroll-send-form")}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("send: %d", resp.StatusCode)
	}

	actions := func(state store.ActionState) int {
		var n int
		if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM actions WHERE key LIKE $1 AND state = $2`,
			fmt.Sprintf("payroll:%d:%%", id), state).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	creates := func() int { return env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) }

	first := startApp(t, bin, env, "first")
	// Three rows done, eight (the job's concurrency) in flight, the rest
	// not started: the state holds for a minute, so the kill lands in it.
	webtest.WaitFor(t, "three rows sent and eight in flight", time.Minute, func() bool {
		return creates() == 11 && actions(store.ActionDone) == 3 && actions(store.ActionBegun) == 8
	})
	first.kill(t)
	if creates() != 11 || actions(store.ActionBegun) != 8 {
		t.Fatalf("after the kill: %d creates, %d rows begun", creates(), actions(store.ActionBegun))
	}
	var jobState string
	if err := env.Store.Pool().QueryRow(ctx, `SELECT state FROM river_job WHERE kind = 'payroll_send'`).Scan(&jobState); err != nil || jobState != "running" {
		t.Fatalf("the killed process's job is %q (%v), want running", jobState, err)
	}
	webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)

	restarted := time.Now()
	startApp(t, bin, env, "second")
	webtest.WaitFor(t, "the run sent within two minutes of the restart", 2*time.Minute, func() bool {
		run, err := env.Store.PayrollRunByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return run.State == store.PayrollSent
	})
	t.Logf("run sent %s after the restart", time.Since(restarted).Round(time.Second))

	if n := creates(); n != rows {
		t.Errorf("%d creates upstream, want %d (one per row)", n, rows)
	}
	got, err := env.Store.PayrollRows(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range got {
		if r.ProposalID == "" || seen[r.ProposalID] || r.ActionState != store.ActionDone {
			t.Errorf("line %d: proposal %q, action %s", r.Line, r.ProposalID, r.ActionState)
		}
		seen[r.ProposalID] = true
	}
	ps, err := env.API.ListProposals(ctx, env.Demo.TreasuryUserID, webtest.TreasuryWallet(t, env, "USDB").ID)
	if err != nil {
		t.Fatal(err)
	}
	perRow := map[string]int{}
	for _, p := range ps {
		if strings.Contains(p.Description, fmt.Sprintf("payroll run %d,", id)) {
			perRow[p.Description]++
			if !seen[p.ID] {
				t.Errorf("upstream proposal %s (%q) is no row's", p.ID, p.Description)
			}
		}
	}
	if len(perRow) != rows {
		t.Errorf("%d rows have upstream proposals, want %d", len(perRow), rows)
	}
	for d, n := range perRow {
		if n != 1 {
			t.Errorf("%q created %d times", d, n)
		}
	}
	audit, err := env.Store.ListAudit(ctx, store.AuditFilter{Action: "payroll.transfer"})
	if err != nil {
		t.Fatal(err)
	}
	confirmed := 0
	for _, a := range audit {
		if strings.Contains(a.Detail, fmt.Sprintf("payroll run %d ", id)) && strings.Contains(a.Detail, "confirmed by reading it back") {
			confirmed++
		}
	}
	if confirmed != 8 {
		t.Errorf("%d rows confirmed by reading them back, want the 8 the dead process left in flight", confirmed)
	}
}

// buildApp builds cmd/partner-admin into the test's directory.
func buildApp(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "partner-admin")
	out, err := exec.Command("go", "build", "-o", bin, "partneradmin/cmd/partner-admin").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// appProcess is the app run as a child process against the test's
// database and sandbox.
type appProcess struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startApp starts the app and waits until it listens (its workers are
// started before that).
func startApp(t *testing.T, bin string, env *webtest.Env, name string) *appProcess {
	t.Helper()
	dir := t.TempDir()
	p := &appProcess{log: filepath.Join(dir, name+".log"), done: make(chan struct{})}
	logf, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	p.cmd = exec.Command(bin)
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "ADDR=127.0.0.1:0", "DATA_DIR=" + dir,
		"DATABASE_URL=" + env.DatabaseURL, "PARTNER_API_BASE_URL=" + env.SandboxURL, "PARTNER_API_KEY=" + env.Demo.APIKey,
		"ENCRYPTION_KEY=" + strings.Repeat("ab", 32), "LOG_LEVEL=info"}
	p.cmd.Stderr = logf
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "listening on http://") {
				close(listening)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			b, _ := os.ReadFile(p.log)
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			t.Logf("%s process log:\n%s", name, b)
		}
	})
	select {
	case <-listening:
	case <-p.done:
		b, _ := os.ReadFile(p.log)
		t.Fatalf("%s process exited before listening: %s", name, b)
	case <-time.After(time.Minute):
		t.Fatalf("%s process did not listen within a minute", name)
	}
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *appProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
}
