package web

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers/auth"
	"partneradmin/handlers/secretbox"
)

// secondFactorOptions configures second factors: authenticator-app
// secrets sealed under ENCRYPTION_KEY (for their own purpose), required by
// default only against a real Partner API, and the step-up age.
func secondFactorOptions(d Deps) (auth.Options, error) {
	var key []byte
	if d.Config.EncryptionKey != "" {
		k, err := secretbox.ParseKey(d.Config.EncryptionKey.Reveal())
		if err != nil {
			return auth.Options{}, err
		}
		key = k
	} else {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return auth.Options{}, fmt.Errorf("web: ephemeral encryption key: %w", err)
		}
		d.Logger.Warn("no ENCRYPTION_KEY: authenticator-app secrets are sealed with a key that lasts only as long as this process")
	}
	box, err := secretbox.NewPurpose(key, auth.TOTPSealPurpose)
	if err != nil {
		return auth.Options{}, err
	}
	return auth.Options{Box: box, RequiredByDefault: !d.Config.UsesSandbox(), StepUpMaxAge: d.Config.StepUpMaxAge,
		OIDC: auth.OIDCOptions{Issuer: d.Config.OIDCIssuer, ClientID: d.Config.OIDCClientID, ClientSecret: d.Config.OIDCClientSecret.Reveal(),
			ProviderName: d.Config.OIDCProviderName, RedirectURL: d.Config.PublicOrigin + auth.OIDCCallbackPath}}, nil
}

// returnPage is the page a form posted to path was on, for a step-up that
// cannot carry the form along: the path itself when it is a page, else the
// nearest page above it (/approvals/7/approve → /approvals/7).
func returnPage(mux *chi.Mux) func(path string) string {
	return func(path string) string {
		for p := path; p != "" && p != "/"; p = p[:strings.LastIndex(p, "/")] {
			if mux.Match(chi.NewRouteContext(), "GET", p) {
				return p
			}
		}
		return "/"
	}
}
