package authtest

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/pquerna/otp/totp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// testClock is the app's clock, moved by the test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Now()} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// formValues is what a browser would post for a form: its named inputs.
func formValues(form *goquery.Selection) url.Values {
	v := url.Values{}
	form.Find("input[name]").Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		val, _ := in.Attr("value")
		v.Add(name, val)
	})
	return v
}

// totpCode is the authenticator app's code at t.
func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// enrolTOTP sets up an authenticator app for the signed-in client and
// returns its secret and the recovery codes shown once.
func enrolTOTP(t *testing.T, env *webtest.Env, c *http.Client, clock *testClock) (string, []string) {
	t.Helper()
	resp := env.PostForm(c, "/account/security/totp/start", url.Values{})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("totp start: %d", resp.StatusCode)
	}
	secret := webtest.TestID(webtest.Doc(t, resp), "totp-secret")
	if len(secret) < 16 {
		t.Fatalf("secret %q", secret)
	}
	// A wrong code changes nothing.
	resp = env.PostForm(c, "/account/security/totp", url.Values{"code": {"000000"}})
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || doc.Find("#totp-code-error").Length() == 0 {
		t.Fatalf("wrong enrolment code: %d", resp.StatusCode)
	}
	resp = env.PostForm(c, "/account/security/totp", url.Values{"code": {totpCode(t, secret, clock.Now())}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("totp confirm: %d", resp.StatusCode)
	}
	var codes []string
	doc.Find(`[data-testid="recovery-code"]`).Each(func(_ int, s *goquery.Selection) { codes = append(codes, s.Text()) })
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes shown", len(codes))
	}
	return secret, codes
}

// loginPassword posts the password and expects the second-factor step.
func loginPassword(t *testing.T, env *webtest.Env, s webtest.Staff) *http.Client {
	t.Helper()
	c := env.Client()
	resp := env.PostForm(c, "/login", url.Values{"email": {s.Email}, "password": {s.Password}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login/second-factor" {
		t.Fatalf("password step: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return c
}

// A staff member sets up an authenticator app; signing in then takes the
// password and a current code (a code works once), or a recovery code
// (each works once). The secret is stored sealed.
func TestSecondFactorTOTPSignIn(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	env := webtest.New(t, webtest.Options{Now: clock.Now, SkipDemoImport: true})
	ctx := context.Background()
	c, s := env.SignedIn(store.RoleSupport)
	secret, codes := enrolTOTP(t, env, c, clock)

	var sealed []byte
	if err := env.Store.Pool().QueryRow(ctx, `SELECT secret_sealed FROM staff_totp WHERE staff_id = $1`, s.ID).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte(secret)) || strings.Contains(env.Logs.String(), secret) {
		t.Fatal("the authenticator secret is stored or logged in clear")
	}

	// Password alone: the browser is not signed in yet.
	clock.Add(time.Minute)
	c2 := loginPassword(t, env, s)
	resp := env.Get(c2, "/")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("after the password only, / answers %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	doc := webtest.Doc(t, env.Get(c2, "/login/second-factor"))
	if doc.Find(`[data-testid="totp-form"]`).Length() != 1 {
		t.Fatal("no code form on the second step")
	}
	resp = env.PostForm(c2, "/login/second-factor", url.Values{"code": {"123456"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("wrong code: %d", resp.StatusCode)
	}
	code := totpCode(t, secret, clock.Now())
	resp = env.PostForm(c2, "/login/second-factor", url.Values{"code": {code}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("right code: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp = env.Get(c2, "/")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("signed in with the code, / answers %d", resp.StatusCode)
	}

	// The same code again, in another browser: used.
	c3 := loginPassword(t, env, s)
	resp = env.PostForm(c3, "/login/second-factor", url.Values{"code": {code}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a used code: %d", resp.StatusCode)
	}
	// A recovery code works, once.
	resp = env.PostForm(c3, "/login/second-factor", url.Values{"recovery_code": {strings.ToUpper(codes[3])}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("recovery code: %d", resp.StatusCode)
	}
	c4 := loginPassword(t, env, s)
	resp = env.PostForm(c4, "/login/second-factor", url.Values{"recovery_code": {codes[3]}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a used recovery code: %d", resp.StatusCode)
	}
	if got := webtest.AuditOutcomes(t, env, "auth.recovery_code"); got[store.OutcomeOK] != 1 {
		t.Fatalf("recovery code audit: %v", got)
	}
	if got := webtest.AuditOutcomes(t, env, "auth.second_factor"); got[store.OutcomeFailed] != 3 {
		t.Fatalf("failed second factor audit: %v", got)
	}
}

// When the owner requires a second factor of finance approvers, one
// without it is sent to enrol from every page, and an approval posted
// sends nothing upstream. The policy page is the owner's; a refused role
// cannot change it.
func TestSecondFactorRequiredBeforeApproving(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	env := webtest.New(t, webtest.Options{Now: clock.Now})
	admins := webtest.TreasuryAdmins(t, env)
	c, fa := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "November stipend")
	tok := webtest.ProposalFormToken(t, env, c, id, "approve-form")

	// Finance approvers cannot set the policy.
	resp := env.PostForm(c, "/settings/security", url.Values{"required": {"support"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("finance approver sets the policy: %d", resp.StatusCode)
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/settings/security"))
	if _, on := doc.Find(`[data-testid="policy-finance_approver"]`).Attr("checked"); on {
		t.Fatal("with the sandbox, no role is required by default")
	}
	resp = env.PostForm(owner, "/settings/security", url.Values{"required": {"finance_approver"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner sets the policy: %d", resp.StatusCode)
	}
	if got := webtest.AuditOutcomes(t, env, "settings.second_factor"); got[store.OutcomeOK] != 1 {
		t.Fatalf("policy audit: %v", got)
	}

	before := env.Sandbox.RequestCount("POST", webtest.ApproveRoute)
	resp = env.PostForm(c, "/approvals/"+id+"/approve", url.Values{"confirm": {"1"}, "form_token": {tok}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account/security" {
		t.Fatalf("approve without a factor: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - before; n != 0 {
		t.Fatalf("%d approvals sent upstream without a second factor", n)
	}
	resp = env.Get(c, "/approvals")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account/security" {
		t.Fatalf("queue without a factor: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	doc = webtest.Doc(t, env.Get(c, "/account/security"))
	if webtest.TestID(doc, "enrol-required") == "" {
		t.Fatal("the security page does not say a factor is required")
	}
	// Enrolled, the same form goes through.
	enrolTOTP(t, env, c, clock)
	resp = env.PostForm(c, "/approvals/"+id+"/approve", url.Values{"confirm": {"1"}, "form_token": {tok}})
	resp.Body.Close()
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - before; resp.StatusCode != http.StatusSeeOther || n != 1 {
		t.Fatalf("approve with a factor: %d, %d calls", resp.StatusCode, n)
	}
	_ = fa
}

// An approval posted when the second factor was proved longer ago than the
// step-up age shows the step-up form, carrying the posted form; nothing is
// sent until the factor is proved and the form sent again.
func TestSecondFactorStepUpOnApprove(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	env := webtest.New(t, webtest.Options{Now: clock.Now})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	secret, _ := enrolTOTP(t, env, c, clock)
	id := webtest.ProposalID(t, env, "November stipend")
	tok := webtest.ProposalFormToken(t, env, c, id, "approve-form")
	before := env.Sandbox.RequestCount("POST", webtest.ApproveRoute)

	// Within the step-up age the factor proved at enrolment counts.
	clock.Add(16 * time.Minute)
	resp := env.PostForm(c, "/approvals/"+id+"/approve", url.Values{"confirm": {"1"}, "form_token": {tok}})
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="second-factor-page"]`).Length() != 1 {
		t.Fatalf("approve after 16 minutes: %d, no step-up form", resp.StatusCode)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - before; n != 0 {
		t.Fatalf("%d approvals sent before the step-up", n)
	}
	form := formValues(doc.Find(`[data-testid="totp-form"]`))
	if form.Get("replay_action") != "/approvals/"+id+"/approve" || form.Get("replay.form_token") != tok || form.Get("replay.confirm") != "1" {
		t.Fatalf("the step-up form does not carry the approval: %v", form)
	}
	if form.Get("next") != "/approvals/"+id {
		t.Fatalf("the step-up returns to %q", form.Get("next"))
	}
	form.Set("code", totpCode(t, secret, clock.Now()))
	resp = env.PostForm(c, "/account/verify", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="step-up-continue"]`).Length() != 1 {
		t.Fatalf("verify: %d", resp.StatusCode)
	}
	again := doc.Find(`[data-testid="step-up-continue"] form`)
	action, _ := again.Attr("action")
	resp = env.PostForm(c, action, formValues(again))
	resp.Body.Close()
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - before; resp.StatusCode != http.StatusSeeOther || n != 1 {
		t.Fatalf("the approval sent again: %d, %d calls", resp.StatusCode, n)
	}
}

// The owner resets a staff member's second factor (audited): their sessions
// end and they enrol again. Other roles cannot.
func TestSecondFactorOwnerReset(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	env := webtest.New(t, webtest.Options{Now: clock.Now, SkipDemoImport: true})
	ctx := context.Background()
	c, s := env.SignedIn(store.RoleSupport)
	enrolTOTP(t, env, c, clock)
	path := "/staff/" + strconv.FormatInt(s.ID, 10) + "/second-factor/reset"

	hr, _ := env.SignedIn(store.RoleHRAdmin)
	resp := env.PostForm(hr, path, url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("HR admin resets: %d", resp.StatusCode)
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	resp = env.PostForm(owner, path, url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner resets: %d", resp.StatusCode)
	}
	if got := webtest.AuditOutcomes(t, env, "staff.second_factor_reset"); got[store.OutcomeOK] != 1 {
		t.Fatalf("reset audit: %v", got)
	}
	after, err := env.Store.StaffByID(ctx, s.ID)
	if err != nil || after.SecondFactor {
		t.Fatalf("after the reset: %+v %v", after, err)
	}
	resp = env.Get(c, "/account/security")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the reset staff member's session still works: %d", resp.StatusCode)
	}
	// They sign in with the password alone and enrol again.
	c2 := env.Client()
	env.Login(c2, s.Email, s.Password)
	enrolTOTP(t, env, c2, clock)
}

// Two browsers of one staff member: the sessions page lists both, and
// "sign out everywhere else" ends the other at its next request. The
// owner ends a staff member's sessions from /staff.
func TestSessionsSignOutEverywhereElse(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	a, s := env.SignedIn(store.RoleHRAdmin)
	b := env.Client()
	env.Login(b, s.Email, s.Password)

	doc := webtest.Doc(t, env.Get(a, "/account/sessions"))
	if n := doc.Find(`[data-testid="session-row"]`).Length(); n != 2 {
		t.Fatalf("%d sessions listed, want 2", n)
	}
	if doc.Find(`[data-testid="session-current"]`).Length() != 1 {
		t.Fatal("the current session is not marked")
	}
	if !strings.Contains(doc.Find(`[data-testid="sessions"]`).Text(), "Go-http-client") {
		t.Fatal("the browser is not shown")
	}
	resp := env.PostForm(a, "/account/sessions/end-others", url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("end others: %d", resp.StatusCode)
	}
	resp = env.Get(b, "/employees")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("the other session after ending: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp = env.Get(a, "/employees")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("this session after ending the others: %d", resp.StatusCode)
	}
	if got := webtest.AuditOutcomes(t, env, "auth.sessions.end"); got[store.OutcomeOK] != 1 {
		t.Fatalf("sessions audit: %v", got)
	}

	// The owner ends all of them; support cannot.
	sup, _ := env.SignedIn(store.RoleSupport)
	resp = env.PostForm(sup, "/staff/"+strconv.FormatInt(s.ID, 10)+"/sessions/end", url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support ends sessions: %d", resp.StatusCode)
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	resp = env.PostForm(owner, "/staff/"+strconv.FormatInt(s.ID, 10)+"/sessions/end", url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner ends sessions: %d", resp.StatusCode)
	}
	resp = env.Get(a, "/employees")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a session the owner ended: %d", resp.StatusCode)
	}
}

// A passkey's name is text like every other: one with a bidirectional
// override or a zero-width space (shown on the security page and in the
// audit log, reading unlike what is stored) is refused next to the name,
// as typed, before any ceremony is looked at.
func TestPasskeyNameIsCheckedAsText(t *testing.T) {
	t.Parallel()
	// Passkeys work on a domain name: the app is reached as localhost.
	env := webtest.New(t, webtest.Options{LocalhostOrigin: true})
	c, _ := env.SignedIn(store.RoleSupport)
	for _, name := range []string{"Laptop \u202epot", "Key\u200b", strings.Repeat("k", 61)} {
		resp := env.PostForm(c, "/account/security/passkey", url.Values{"name": {name}, "credential": {"{}"}})
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%.20q: %d", name, resp.StatusCode)
		}
		doc := webtest.Doc(t, resp)
		if got := webtest.TestID(doc, "passkey-name-error") + doc.Find("#passkey-name-error").Text(); !strings.Contains(got, "passkey's name") {
			t.Errorf("%.20q: name error %q", name, got)
		}
		if v, _ := doc.Find("#passkey-name").Attr("value"); v != name {
			t.Errorf("%.20q: the name typed was lost: %q", name, v)
		}
	}
}
