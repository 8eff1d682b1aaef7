package browsertest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A staff member adds a passkey (Chromium's virtual authenticator: CTAP2,
// built in, resident keys, user verification) and signs in with the
// password and the passkey.
func TestBrowserPasskeyEnrolAndSignIn(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{LocalhostOrigin: true, SkipDemoImport: true})
	s := env.CreateStaff(store.RoleSupport)
	ctx := webtest.Browser(t)
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		},
	}); err != nil {
		t.Fatal(err)
	}
	signIn := func() error {
		return chromedp.Do(ctx,
			webtest.BrowserSignIn(env.LocalhostURL("/login"), s),
		)
	}
	err := chromedp.Do(ctx,
		chromedp.Func(func(context.Context, *chromedp.Target) error { return signIn() }),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dashboard-title"]`)),
		chromedp.Navigate(env.LocalhostURL("/account/security")),
		chromedp.WaitVisible(chromedp.ID("passkey-name")),
		chromedp.SendKeys(chromedp.ID("passkey-name"), "Test laptop"),
		chromedp.Click(chromedp.CSS(`[data-testid="passkey-register"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="recovery-codes"]`)),
	)
	if err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`body`)))
		t.Fatalf("enrol: %v\n%s", err, status)
	}
	keys, err := env.Store.Passkeys(context.Background(), s.ID)
	if err != nil || len(keys) != 1 || keys[0].Name != "Test laptop" {
		t.Fatalf("passkeys after enrolment: %+v %v", keys, err)
	}

	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="logout"]`)),
		chromedp.WaitVisible(chromedp.ID("email")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := signIn(); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="passkey-login"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="passkey-login"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dashboard-title"]`)),
	)
	if err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`body`)))
		t.Fatalf("sign in with the passkey: %v\n%s", err, status)
	}
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="dashboard-title"]`)))
	if err != nil || !strings.Contains(title, s.Name) {
		t.Fatalf("dashboard %q %v", title, err)
	}
	keys, err = env.Store.Passkeys(context.Background(), s.ID)
	if err != nil || len(keys) != 1 || keys[0].LastUsedAt == nil {
		t.Fatalf("passkey after sign-in: %+v %v", keys, err)
	}
	if got := webtest.AuditOutcomes(t, env, "auth.login"); got[store.OutcomeOK] != 3 {
		t.Fatalf("sign-in audit: %v", got)
	}
}
