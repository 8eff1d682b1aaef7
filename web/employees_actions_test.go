package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Upstream routes of the employees area, as the sandbox names them.
const (
	routeInvite     = "/v1/partners/employees/invite"
	routeUser       = "/v1/users/{userId}"
	routeReactivate = "/v1/users/{userId}/reactivate"
	routeKYC        = "/v1/users/{userId}/kyc"
	routeStartUSA   = "/v1/users/{userId}/onboarding/start-usa"
)

// empPostConcurrently sends the same form n times at once, as a double click
// or several tabs would, and returns the statuses.
func empPostConcurrently(t *testing.T, env *webtest.Env, c *http.Client, path string, form url.Values, n int) []int {
	t.Helper()
	statuses := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest(http.MethodPost, env.URL(path), strings.NewReader(form.Encode()))
			if err != nil {
				errs[i] = err
				return
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			resp, err := c.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return statuses
}

func empAuditCount(t *testing.T, env *webtest.Env, action string) int {
	t.Helper()
	return len(webtest.AuditRows(t, env, action))
}

// linkedInvitee invites an email through the app and links it as the
// employee would, returning the linked employee.
func linkedInvitee(t *testing.T, env *webtest.Env, c *http.Client, email string) store.Employee {
	t.Helper()
	resp := env.PostForm(c, "/employees/invite", webtest.WithFormToken(webtest.UKInviteForm(email)))
	resp.Body.Close()
	webtest.LinkThroughSandbox(t, env, email)
	resp = env.PostForm(c, "/employees/reconcile", nil)
	resp.Body.Close()
	e, err := env.Store.EmployeeByEmail(context.Background(), email)
	if err != nil || e.ServiceUserID == "" {
		t.Fatalf("not linked: %+v %v", e, err)
	}
	return e
}

// empForm is one state-changing form of the area: how to prepare what it
// acts on, what it calls upstream (nothing for a local form), and what a
// second token for the same intent does.
type empForm struct {
	name          string
	kind          string // the action, and its audit row's action
	method, route string // the upstream call; "" for a local form
	prepare       func(t *testing.T, env *webtest.Env, c *http.Client) (path string, form url.Values)
	// secondCalls is how many upstream calls a second token makes (a new
	// action: the domain decides, the ledger does not repeat the first).
	secondCalls int
	// changes counts what a local form changed (nil for upstream forms).
	changes func(t *testing.T, env *webtest.Env) int
}

func empForms() []empForm {
	return []empForm{
		{name: "invite", kind: "employee.invite", method: "POST", route: routeInvite,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				return "/employees/invite", webtest.UKInviteForm("once@acme.example")
			}},
		{name: "re-invite", kind: "employee.reinvite", method: "POST", route: routeInvite, secondCalls: 1,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				resp := env.PostForm(c, "/employees/invite", webtest.WithFormToken(webtest.UKInviteForm("again@acme.example")))
				resp.Body.Close()
				e, err := env.Store.EmployeeByEmail(context.Background(), "again@acme.example")
				if err != nil {
					t.Fatal(err)
				}
				return fmt.Sprintf("/employees/%d/reinvite", e.ID), nil
			}},
		{name: "delete", kind: "employee.delete", method: "DELETE", route: routeUser,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				return fmt.Sprintf("/employees/%d/delete", webtest.LinkedDemoEmployee(t, env, false).ID), nil
			}},
		{name: "reactivate", kind: "employee.reactivate", method: "POST", route: routeReactivate,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				e := webtest.LinkedDemoEmployee(t, env, false)
				resp := env.PostForm(c, fmt.Sprintf("/employees/%d/delete", e.ID), webtest.WithFormToken(nil))
				resp.Body.Close()
				return fmt.Sprintf("/employees/%d/reactivate", e.ID), nil
			}},
		{name: "occupation", kind: "employee.kyc.occupation", method: "PATCH", route: routeKYC, secondCalls: 1,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				e := linkedInvitee(t, env, c, "occupation@acme.example")
				return fmt.Sprintf("/employees/%d/occupation", e.ID), url.Values{"occupation_code": {"15-1252"}}
			}},
		{name: "retry USD", kind: "employee.onboarding.retry_usd", method: "POST", route: routeStartUSA,
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				return fmt.Sprintf("/employees/%d/usd/retry", webtest.MirroredDemoEmployee(t, env, "Marcus").ID), nil
			}},
		{name: "bulk send", kind: "employee.bulk_invite.start",
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				resp := webtest.UploadBulkInvite(t, env, c, "three.csv", webtest.BulkInviteCSV(3))
				resp.Body.Close()
				if resp.StatusCode != http.StatusSeeOther {
					t.Fatalf("upload: %d", resp.StatusCode)
				}
				return resp.Header.Get("Location") + "/send", nil
			},
			changes: func(t *testing.T, env *webtest.Env) int {
				var n int
				if err := env.Store.Pool().QueryRow(context.Background(),
					`SELECT count(*) FROM river_job WHERE kind = 'employees_bulk_invite'`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}},
		{name: "mark as resolved", kind: "employee.kyc_action_cleared",
			prepare: func(t *testing.T, env *webtest.Env, c *http.Client) (string, url.Values) {
				e := webtest.LinkedDemoEmployee(t, env, false)
				if _, err := env.Store.FlagActionRequired(context.Background(), e.ServiceUserID, "a selfie in the app", store.Actor{Email: "webhook"}); err != nil {
					t.Fatal(err)
				}
				return fmt.Sprintf("/employees/%d/action-required/resolve", e.ID), url.Values{"confirm": {"1"}}
			},
			changes: func(t *testing.T, env *webtest.Env) int {
				rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "employee.kyc_action_cleared"})
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, r := range rows {
					if r.Outcome == store.OutcomeOK {
						n++
					}
				}
				return n
			}},
	}
}

// TestEmployeeFormsSendOnce: five concurrent posts of one form (one token)
// make one upstream call (or one local change) and one audit row; a second
// token is a new action, which the domain answers on its own terms.
func TestEmployeeFormsSendOnce(t *testing.T) {
	t.Parallel()
	for _, f := range empForms() {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			env := webtest.New(t, webtest.Options{})
			c, _ := env.SignedIn(store.RoleHRAdmin)
			path, values := f.prepare(t, env, c)
			count := func() int {
				if f.changes != nil {
					return f.changes(t, env)
				}
				return env.Sandbox.RequestCount(f.method, f.route)
			}
			calls, audits := count(), empAuditCount(t, env, f.kind)
			form := webtest.WithFormToken(values)
			for _, status := range empPostConcurrently(t, env, c, path, form, 5) {
				if status >= 500 || status == http.StatusBadRequest {
					t.Fatalf("a post answered %d", status)
				}
			}
			if n := count() - calls; n != 1 {
				t.Fatalf("%d calls for five posts of one form, want 1", n)
			}
			if n := empAuditCount(t, env, f.kind) - audits; n != 1 {
				t.Fatalf("%d audit rows for one form, want 1", n)
			}
			// The same token again: nothing is sent, the page says what the
			// first post did.
			resp := env.PostForm(c, path, form)
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("repeat: %d", resp.StatusCode)
			}
			doc := webtest.Doc(t, env.Get(c, resp.Header.Get("Location")))
			if !strings.Contains(webtest.TestID(doc, "flash"), "already sent") {
				t.Fatalf("repeat flash %q", webtest.TestID(doc, "flash"))
			}
			if n := count() - calls; n != 1 {
				t.Fatalf("the repeated token sent again: %d calls", n)
			}
			// A second token is a new action.
			before := count()
			resp = env.PostForm(c, path, webtest.WithFormToken(values))
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				t.Fatalf("second token: %d", resp.StatusCode)
			}
			if f.changes == nil {
				if n := count() - before; n != f.secondCalls {
					t.Fatalf("second token made %d calls, want %d", n, f.secondCalls)
				}
			}
		})
	}
}

// TestEmployeeFormsWithoutTokenSendNothing: a post without a valid token
// is refused before anything is stored or sent.
func TestEmployeeFormsWithoutTokenSendNothing(t *testing.T) {
	t.Parallel()
	for _, f := range empForms() {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			env := webtest.New(t, webtest.Options{})
			c, _ := env.SignedIn(store.RoleHRAdmin)
			path, values := f.prepare(t, env, c)
			calls, audits := env.Sandbox.RequestCount(f.method, f.route), empAuditCount(t, env, f.kind)
			for _, token := range []string{"", "not-a-token"} {
				form := url.Values{}
				for k, v := range values {
					form[k] = v
				}
				if token != "" {
					form.Set(handlers.FormTokenField, token)
				}
				resp := env.PostForm(c, path, form)
				resp.Body.Close()
				if resp.StatusCode != http.StatusBadRequest {
					t.Errorf("token %q: %d", token, resp.StatusCode)
				}
			}
			if f.method != "" && env.Sandbox.RequestCount(f.method, f.route) != calls {
				t.Error("a post without a token called the API")
			}
			if empAuditCount(t, env, f.kind) != audits {
				t.Error("a post without a token was audited as an action")
			}
		})
	}
}

// TestEmployeeFormsCarryTokens: every state-changing form the area renders
// carries its one-time token.
func TestEmployeeFormsCarryTokens(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: false})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	failed := webtest.MirroredDemoEmployee(t, env, "Marcus")
	if _, err := env.Store.FlagActionRequired(context.Background(), failed.ServiceUserID, "a selfie", store.Actor{Email: "webhook"}); err != nil {
		t.Fatal(err)
	}
	invited := linkedInvitee(t, env, c, "tokens@acme.example")
	resp := webtest.UploadBulkInvite(t, env, c, "t.csv", webtest.BulkInviteCSV(2))
	resp.Body.Close()
	// A start form is offered only with the rail's wallet (the demo's
	// employees have USDB wallets only).
	ready := readyEmployee(t, env, "tokens-ready@start.example", "GBR", apiclient.USDB)
	pages := []string{"/employees/invite", fmt.Sprintf("/employees/%d", failed.ID), fmt.Sprintf("/employees/%d/delete", failed.ID),
		fmt.Sprintf("/employees/%d", invited.ID), fmt.Sprintf("/employees/%d", ready.ID), resp.Header.Get("Location")}
	forms := 0
	for _, p := range pages {
		doc := webtest.Doc(t, env.Get(c, p))
		doc.Find(`form[method="post"]`).Each(func(_ int, s *goquery.Selection) {
			action, _ := s.Attr("action")
			if !strings.HasPrefix(action, "/employees") || strings.HasSuffix(action, "/refresh") || strings.HasSuffix(action, "/reconcile") {
				return // another area's form, or one that only reads
			}
			forms++
			if tok, _ := s.Find(`input[name="form_token"]`).Attr("value"); !handlers.ValidFormToken(tok) {
				t.Errorf("%s: form %s has no token", p, action)
			}
		})
	}
	if forms < 6 {
		t.Fatalf("only %d forms found", forms)
	}
}

// afterFault makes the upstream record the next write on a route, then drop
// the connection: the caller does not learn the outcome.
func afterFault(t *testing.T, env *webtest.Env, method, route string) {
	t.Helper()
	webtest.SandboxControlData(t, env, "POST", "/_sandbox/faults", map[string]any{"method": method, "route": route, "drop": true, "after": true, "times": 1}, nil)
}

// TestEmployeeLostAnswersAreReadBack: the API records a deletion or a
// reactivation and the answer is lost; the app reads the user back (a
// deleted user's endpoints answer 404) and finishes the action as done,
// without sending it again.
func TestEmployeeLostAnswersAreReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	e := webtest.LinkedDemoEmployee(t, env, false)

	afterFault(t, env, "DELETE", routeUser)
	resp := env.PostForm(c, fmt.Sprintf("/employees/%d/delete", e.ID), webtest.WithFormToken(nil))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete after a lost answer: %d", resp.StatusCode)
	}
	if n := env.Sandbox.RequestCount("DELETE", routeUser); n != 1 {
		t.Fatalf("%d DELETE calls, want 1", n)
	}
	if got, _ := env.Store.EmployeeByID(context.Background(), e.ID); got.InviteState != store.InviteDeleted {
		t.Fatalf("not recorded as deleted: %+v", got)
	}
	rows := webtest.AuditRows(t, env, "employee.delete")
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK || !strings.Contains(rows[0].Detail, "reading it back") {
		t.Fatalf("delete audit %+v", rows)
	}

	afterFault(t, env, "POST", routeReactivate)
	resp = env.PostForm(c, fmt.Sprintf("/employees/%d/reactivate", e.ID), webtest.WithFormToken(nil))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("reactivate after a lost answer: %d", resp.StatusCode)
	}
	if n := env.Sandbox.RequestCount("POST", routeReactivate); n != 1 {
		t.Fatalf("%d reactivate calls, want 1", n)
	}
	if got, _ := env.Store.EmployeeByID(context.Background(), e.ID); got.InviteState == store.InviteDeleted || got.DeletedAt != nil {
		t.Fatalf("still deleted: %+v", got)
	}
}

// TestInviteWithALostAnswerIsSettledByTheRecoveryJob: an invite the API
// recorded without answering cannot be read until the employee links; the
// form says so, nothing is sent again, and once the employee has linked the
// recovery job finishes the action and records the employee.
func TestInviteWithALostAnswerIsSettledByTheRecoveryJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	afterFault(t, env, "POST", routeInvite)
	resp := env.PostForm(c, "/employees/invite", webtest.WithFormToken(webtest.UKInviteForm("lost@acme.example")))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(webtest.TestID(doc, "form-problem"), "not known") {
		t.Fatalf("lost answer: %d %q", resp.StatusCode, webtest.TestID(doc, "form-problem"))
	}
	if n := env.Sandbox.RequestCount("POST", routeInvite); n != 1 {
		t.Fatalf("%d invite calls, want 1", n)
	}
	if _, ok := webtest.SandboxInviteOf(t, env, "lost@acme.example"); !ok {
		t.Fatal("the sandbox did not record the invite")
	}
	webtest.LinkThroughSandbox(t, env, "lost@acme.example")
	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	e, err := env.Store.EmployeeByEmail(ctx, "lost@acme.example")
	if err != nil {
		t.Fatalf("the recovered invite recorded no employee: %v", err)
	}
	if invites, _ := env.Store.InvitesOf(ctx, e.ID); len(invites) != 1 || invites[0].State != store.InviteCallSent {
		t.Fatalf("invites %+v", invites)
	}
	if n := env.Sandbox.RequestCount("POST", routeInvite); n != 1 {
		t.Fatalf("recovery sent the invite again: %d calls", n)
	}
}

// TestEmployeeBegunActionsAreRecovered: actions begun by a process that
// died before its call are concluded by the recovery job from what the API
// (or the database) says.
func TestEmployeeBegunActionsAreRecovered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{})
	_, hr := env.SignedIn(store.RoleHRAdmin)
	by := store.Actor{StaffID: hr.ID, Email: hr.Email}
	// A deletion that reached the API before the process died.
	gone := webtest.LinkedDemoEmployee(t, env, false)
	if _, err := env.API.DeleteUser(ctx, gone.ServiceUserID); err != nil {
		t.Fatal(err)
	}
	begin := func(key, kind string, req any) {
		if _, _, err := env.Store.BeginAction(ctx, store.NewAction{Key: key, Kind: kind, Target: "test", Actor: by, Request: req}); err != nil {
			t.Fatal(err)
		}
	}
	begin("form:recover-delete", "employee.delete", map[string]any{"employeeId": gone.ID, "serviceUserId": gone.ServiceUserID})
	// An invite that never reached it.
	begin("form:recover-invite", "employee.invite", map[string]any{"email": "never@acme.example", "name": "Never Sent"})
	// A local change whose finish never committed.
	flagged := webtest.MirroredDemoEmployee(t, env, "Marcus")
	if _, err := env.Store.FlagActionRequired(ctx, flagged.ServiceUserID, "a selfie", store.Actor{Email: "webhook"}); err != nil {
		t.Fatal(err)
	}
	begin("form:recover-resolve", "employee.kyc_action_cleared", map[string]any{"employeeId": flagged.ID})

	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	want := map[string]store.ActionState{"form:recover-delete": store.ActionDone, "form:recover-invite": store.ActionRefused,
		"form:recover-resolve": store.ActionRefused}
	for key, state := range want {
		a, err := env.Store.ActionByKey(ctx, key)
		if err != nil || a.State != state {
			t.Errorf("%s: %+v %v, want %s", key, a.State, err, state)
		}
	}
	if e, _ := env.Store.EmployeeByID(ctx, gone.ID); e.InviteState != store.InviteDeleted {
		t.Fatalf("the recovered deletion was not recorded: %+v", e)
	}
	if e, _ := env.Store.EmployeeByID(ctx, flagged.ID); e.ActionRequired == "" {
		t.Fatal("a begun local change was applied by the recovery")
	}
	if env.Sandbox.RequestCount("DELETE", routeUser) != 1 || env.Sandbox.RequestCount("POST", routeInvite) != 0 {
		t.Fatal("the recovery sent a write")
	}
}

// TestEmployeeAuditFailureChangesNothing: when the audit row cannot be
// written, the form fails and the mirror keeps its state.
func TestEmployeeAuditFailureChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	e := webtest.LinkedDemoEmployee(t, env, false)
	flagged := webtest.MirroredDemoEmployee(t, env, "Marcus")
	if _, err := env.Store.FlagActionRequired(ctx, flagged.ServiceUserID, "a selfie", store.Actor{Email: "webhook"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Pool().Exec(ctx, `
		CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'audit refused'; END $$;
		CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit();`); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		path string
		form url.Values
	}{
		{fmt.Sprintf("/employees/%d/delete", e.ID), nil},
		{"/employees/invite", webtest.UKInviteForm("unaudited@acme.example")},
		{fmt.Sprintf("/employees/%d/action-required/resolve", flagged.ID), url.Values{"confirm": {"1"}}},
		{fmt.Sprintf("/employees/%d/reactivate", flagged.ID), nil}, // refused here: its audit row fails the request
	} {
		resp := env.PostForm(c, p.path, webtest.WithFormToken(p.form))
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError {
			t.Errorf("%s without its audit row: %d", p.path, resp.StatusCode)
		}
	}
	if got, _ := env.Store.EmployeeByID(ctx, e.ID); got.InviteState == store.InviteDeleted {
		t.Fatal("deleted here without an audit row")
	}
	if _, err := env.Store.EmployeeByEmail(ctx, "unaudited@acme.example"); err == nil {
		t.Fatal("invited here without an audit row")
	}
	if got, _ := env.Store.EmployeeByID(ctx, flagged.ID); got.ActionRequired == "" {
		t.Fatal("resolved without an audit row")
	}
}

// TestDemoImportReadsEveryEmployeesReadiness: on a fresh start the lists
// show what the API says (active, failed, rejected, ...), and a currency
// never read says so rather than "not started".
func TestDemoImportReadsEveryEmployeesReadiness(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	states := map[string]int{}
	for _, path := range []string{"/employees", "/employees/readiness"} {
		doc := webtest.Doc(t, env.Get(c, path))
		doc.Find(`[data-testid^="readiness-"]`).Each(func(_ int, s *goquery.Selection) {
			st, _ := s.Attr("data-state")
			states[st]++
		})
	}
	for _, want := range []string{store.ReadyActive, store.ReadyFailed, store.ReadyRejected} {
		if states[want] == 0 {
			t.Errorf("no %s cell after the demo import: %v", want, states)
		}
	}
	linked := 0
	for _, d := range env.Demo.Employees {
		if d.ServiceUserID != "" {
			linked++
		}
	}
	if states[store.ReadyNotStarted]+states[store.ReadyNotRead] >= 2*5*linked {
		t.Fatalf("every linked employee's cells claim nothing: %v", states)
	}

	// An employee nothing has read yet.
	if _, err := env.Store.UpsertEmployee(context.Background(), store.Employee{Email: "unread@acme.example", FirstName: "Un", LastName: "Read",
		ServiceUserID: "svc-unread", InviteState: store.InviteLinked}); err != nil {
		t.Fatal(err)
	}
	doc := webtest.Doc(t, env.Get(c, "/employees?q=unread"))
	row := webtest.EmployeeRowByEmail(doc, "unread@acme.example")
	if row == nil {
		t.Fatal("unread employee missing")
	}
	row.Find(`[data-testid^="readiness-"]`).Each(func(_ int, s *goquery.Selection) {
		if st, _ := s.Attr("data-state"); st != store.ReadyNotRead || !strings.Contains(s.Text(), "not read yet") {
			t.Errorf("unread cell %q %q", st, s.Text())
		}
	})
}

// postFile posts a multipart form with a file, as the bulk forms do.
func postFile(t *testing.T, env *webtest.Env, c *http.Client, path string, fields url.Values, name string, data []byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	if data != nil {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(data)
	}
	_ = mw.Close()
	return env.Do(c, "POST", path, &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

// TestBulkInviteAppliesTheSingleFormsRules: a bulk file is checked like the
// single form (a US resident needs an SSN, a UK resident a National
// Insurance number), the template has their columns, and the numbers reach
// the API without being kept: the send form takes the file again.
func TestBulkInviteAppliesTheSingleFormsRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	const ssn, nino = "123-45-6789", "QQ123456C"
	head := "name,email,first_name,last_name,date_of_birth,nationality,street_line1,city,state,postal_code,country_code,employment_status,source_of_funds,ssn,nino\n"
	file := head +
		"Sam Lee,sam@acme.example,Sam,Lee,1988-11-02,US,1 Market St,San Francisco,CA,94105,USA,employed,salary," + ssn + ",\n" +
		"Ada Obi,ada@acme.example,Ada,Obi,1992-03-14,GB,10 Example Way,London,,SW1A 1AA,GBR,employed,salary,," + nino + "\n" +
		"No Ssn,nossn@acme.example,No,Ssn,1990-01-01,US,2 Market St,San Francisco,CA,94105,USA,employed,salary,,\n" +
		"No Nino,nonino@acme.example,No,Nino,1990-01-01,GB,11 Example Way,London,,SW1A 1AA,GBR,employed,salary,,\n" +
		"Eamon Byrne,eamon@acme.example,Eamon,Byrne,1990-01-01,IE,1 Quay,Dublin,,D02 X285,IRL,employed,salary,,\n"
	resp := webtest.UploadBulkInvite(t, env, c, "people.csv", []byte(file))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
	runURL := resp.Header.Get("Location")
	doc := webtest.Doc(t, env.Get(c, runURL))
	if got := webtest.TestID(doc, "bulk-summary"); !strings.Contains(got, "5 rows: 3 ready") {
		t.Fatalf("summary %q", got)
	}
	problems := doc.Find(`[data-testid="bulk-problems"]`).Text()
	for _, want := range []string{"Social Security number: US residents need it", "National Insurance number: UK residents need it"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q: %s", want, problems)
		}
	}
	var kept int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM bulk_invite_rows WHERE profile::text LIKE '%'||$1||'%' OR profile::text LIKE '%'||$2||'%'`,
		"123456789", nino).Scan(&kept); err != nil || kept != 0 {
		t.Fatalf("identification numbers kept in %d rows (%v)", kept, err)
	}
	if doc.Find(`[data-testid="bulk-send-file"]`).Length() != 1 {
		t.Fatal("the send form does not ask for the file again")
	}
	token, _ := doc.Find(`[data-testid="bulk-send-form"] input[name="form_token"]`).Attr("value")

	// Without the file, or with another one: nothing is sent.
	resp = postFile(t, env, c, runURL+"/send", url.Values{"form_token": {token}}, "", nil)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "bulk-send-file-error") == "" {
		t.Fatalf("send without the file: %d %q", resp.StatusCode, webtest.TestID(doc, "bulk-send-file-error"))
	}
	other := strings.Replace(file, "sam@acme.example", "someone@acme.example", 1)
	resp = postFile(t, env, c, runURL+"/send", url.Values{"form_token": {token}}, "people.csv", []byte(other))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "bulk-send-file-error"), "not the file that was checked") {
		t.Fatalf("send with another file: %d %q", resp.StatusCode, webtest.TestID(doc, "bulk-send-file-error"))
	}
	if n := env.Sandbox.RequestCount("POST", routeInvite); n != 0 {
		t.Fatalf("%d invites sent before the file was given", n)
	}

	resp = postFile(t, env, c, runURL+"/send", url.Values{"form_token": {token}}, "people.csv", []byte(file))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("send: %d", resp.StatusCode)
	}
	webtest.WaitBulkFinished(t, env, c, runURL)
	if n := env.Sandbox.RequestCount("POST", routeInvite); n != 3 {
		t.Fatalf("%d invites sent, want 3", n)
	}
	// The numbers reached the API: they are in the profile submitted when
	// the employee links.
	webtest.LinkThroughSandbox(t, env, "sam@acme.example")
	u, err := env.API.LookupUserByEmail(ctx, "sam@acme.example")
	if err != nil {
		t.Fatal(err)
	}
	p, err := env.API.GetKYC(ctx, u.ServiceUserID)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.IdentificationNumbers) != 1 || p.IdentificationNumbers[0].Type != "ssn" || p.IdentificationNumbers[0].Number != "123456789" {
		t.Fatalf("the SSN did not reach the API: %+v", p.IdentificationNumbers)
	}
	for _, table := range []string{"bulk_invite_rows", "actions", "audit_log", "invites", "river_job"} {
		var n int
		if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM `+table+` t WHERE row_to_json(t)::text LIKE '%123456789%' OR row_to_json(t)::text LIKE '%`+nino+`%'`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("an identification number is kept in %s (%d rows, %v)", table, n, err)
		}
	}
	if strings.Contains(env.Logs.String(), "123456789") || strings.Contains(env.Logs.String(), nino) {
		t.Fatal("an identification number reached the logs")
	}
}

// TestEmployeeTextInputsAreChecked: invalid UTF-8, control characters and
// overlong texts in any field are refused in words (400 or 422) before
// anything is stored or sent; none of them is a server error.
func TestEmployeeTextInputsAreChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	huge := strings.Repeat("A", 1<<20)
	// Bytes that are not text are refused before any handler (400), a form
	// too large for any field too (413); what reaches the form is checked
	// field by field (422, next to the field).
	for _, tc := range []struct {
		field, value string
		status       int
	}{
		{"first_name", "Gr\x00ace", http.StatusBadRequest},
		{"last_name", "Hop\xffper", http.StatusBadRequest},
		{"first_name", huge, http.StatusRequestEntityTooLarge},
		{"first_name", strings.Repeat("é", 101), http.StatusUnprocessableEntity},
		{"city", strings.Repeat("x", 300), http.StatusUnprocessableEntity},
		{"email", strings.Repeat("a", 250) + "@acme.example", http.StatusUnprocessableEntity},
		{"street_line1", "1 Ro\u2028ad", http.StatusUnprocessableEntity},
		{"nino", "QQ12 3456C 1234567890 1234567890", http.StatusUnprocessableEntity},
		{"occupation_label", strings.Repeat("x", 201), http.StatusUnprocessableEntity},
	} {
		form := webtest.UKInviteForm("checked@acme.example")
		form.Set(tc.field, tc.value)
		if tc.field == "occupation_label" {
			form.Set("occupation_code", "15-1252")
		}
		resp := env.PostForm(c, "/employees/invite", webtest.WithFormToken(form))
		doc := webtest.Doc(t, resp)
		shown := tc.field
		if tc.field == "occupation_label" {
			shown = "occupation_code"
		}
		if resp.StatusCode != tc.status {
			t.Errorf("%s %.20q: %d, want %d", tc.field, tc.value, resp.StatusCode, tc.status)
		}
		if tc.status == http.StatusUnprocessableEntity {
			if webtest.TestID(doc, "f-"+shown+"-error") == "" {
				t.Errorf("%s: no message next to the field", tc.field)
			}
			if v, _ := doc.Find(`[data-testid="field-last_name"]`).Attr("value"); v != "Hopper" {
				t.Errorf("%s: what was typed is lost: %q", tc.field, v)
			}
		}
	}
	if n := env.Sandbox.RequestCount("POST", routeInvite); n != 0 {
		t.Fatalf("%d invites sent with bad text", n)
	}
	if _, err := env.Store.EmployeeByEmail(ctx, "checked@acme.example"); err == nil {
		t.Fatal("an invite with bad text was stored")
	}

	after := base64.RawURLEncoding.EncodeToString([]byte("n|\x00bad|1"))
	for _, path := range []string{"/employees?q=%00", "/employees?q=%FF%FE", "/employees?q=" + strings.Repeat("a", 101),
		"/employees/readiness?q=a%00b", "/employees.csv?q=%00", "/employees/readiness.csv?q=%FF", "/employees?after=" + after,
		"/employees/occupations?occupation_search=so%00ft"} {
		resp := env.Get(c, path)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
		if text := doc.Text(); !strings.Contains(text, "not understood") && !strings.Contains(text, "not valid") && !strings.Contains(text, "not text") {
			t.Errorf("%s: no words: %.200s", path, doc.Text())
		}
	}

	// A bulk file: bad cells are row problems, a bad file name is made
	// printable; the preview stores only text.
	file := "name,email,first_name,last_name,date_of_birth,nationality,street_line1,city,postal_code,country_code,employment_status,source_of_funds\n" +
		"A B,a\xff@acme.example,A,B,1990-01-01,IE,1 Quay,Dublin,D02 X285,IRL,employed,salary\n" +
		"C D,c@acme.example,C\x00,D,1990-01-01,IE,1 Quay,Dublin,D02 X285,IRL,employed,salary\n" +
		"E F,e@acme.example," + huge[:200] + ",F,1990-01-01,IE,1 Quay,Dublin,D02 X285,IRL,employed,salary\n" +
		"G H,g@acme.example,G,H,1990-01-01,IE,1 Quay,Dublin,D02 X285,IRL,employed,salary\n"
	resp := webtest.UploadBulkInvite(t, env, c, "nul\x00name.csv", []byte(file))
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a file name with a NUL: %d", resp.StatusCode)
	}
	// Bytes that are not UTF-8 refuse the whole file, with how to save it.
	resp = webtest.UploadBulkInvite(t, env, c, "latin1.csv", []byte(file))
	if msg := webtest.TestID(webtest.Doc(t, resp), "bulk-file-error"); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, "save the file as UTF-8") {
		t.Fatalf("a file with a Latin-1 byte: %d %q", resp.StatusCode, msg)
	}
	file = strings.Replace(file, "a\xff@acme.example", "a@@acme.example", 1)
	resp = webtest.UploadBulkInvite(t, env, c, "bad\xffname.csv", []byte(file))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("bulk upload with bad cells: %d %s", resp.StatusCode, webtest.TestID(webtest.Doc(t, resp), "bulk-file-error"))
	}
	resp.Body.Close()
	doc := webtest.Doc(t, env.Get(c, resp.Header.Get("Location")))
	if got := webtest.TestID(doc, "bulk-summary"); !strings.Contains(got, "4 rows: 1 ready") {
		t.Fatalf("summary %q", got)
	}

	// The occupation fix.
	e := webtest.LinkedDemoEmployee(t, env, false)
	resp = env.PostForm(c, fmt.Sprintf("/employees/%d/occupation", e.ID), webtest.WithFormToken(url.Values{"occupation_code": {strings.Repeat("1", 41)}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("an overlong occupation code: %d", resp.StatusCode)
	}
	if n := env.Sandbox.RequestCount("PATCH", routeKYC); n != 0 {
		t.Fatal("a bad occupation code was sent")
	}
}

// TestBulkRowWithALostAnswerIsSettled: a bulk row whose answer was lost is
// shown as not confirmed, never sent twice, and the recovery job records it
// once the employee has linked.
func TestBulkRowWithALostAnswerIsSettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	resp := webtest.UploadBulkInvite(t, env, c, "two.csv", webtest.BulkInviteCSV(2))
	resp.Body.Close()
	runURL := resp.Header.Get("Location")
	afterFault(t, env, "POST", routeInvite)
	resp = env.PostForm(c, runURL+"/send", webtest.WithFormToken(nil))
	resp.Body.Close()
	var doc *goquery.Document
	doc = webtest.WaitBulkFinished(t, env, c, runURL)
	if got := webtest.TestID(doc, "bulk-unknown"); got != "1" {
		t.Fatalf("unconfirmed rows %q", got)
	}
	if n := env.Sandbox.RequestCount("POST", routeInvite); n != 2 {
		t.Fatalf("%d invite calls for two rows", n)
	}
	webtest.LinkThroughSandbox(t, env, "bulk000@acme.example")
	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	doc = webtest.Doc(t, env.Get(c, runURL))
	doc.Find(`[data-testid="bulk-row"]`).Each(func(_ int, s *goquery.Selection) {
		if st, _ := s.Attr("data-state"); st != store.BulkRowSent {
			line, _ := s.Attr("data-line")
			t.Errorf("line %s is %s after the recovery", line, st)
		}
	})
	if _, err := env.Store.EmployeeByEmail(ctx, "bulk000@acme.example"); err != nil {
		t.Fatalf("the recovered row recorded no employee: %v", err)
	}
	if n := env.Sandbox.RequestCount("POST", routeInvite); n != 2 {
		t.Fatalf("the recovery sent again: %d calls", n)
	}
}
