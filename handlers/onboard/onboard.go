// Package onboard is a user's rail onboarding as the spec orders it, shared
// by the employees' pages and the treasury's rail set-up: the KYC
// activation and the rail's start in one call, whether a start took effect,
// and the Mexican provider's launch payload fetched at the moment of use.
// It holds no state: every answer is read from the API when asked.
package onboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"partneradmin/apiclient"
)

// OwnerKeyIndex is the owner key's index in a wallet: the app registers one
// owner key per wallet, the first.
const OwnerKeyIndex = 0

// Start is one rail start as the spec's "Rail onboarding starts" table
// asks it. BVN is only for NGN and is never kept by the caller.
type Start struct {
	UserID        string
	Currency      apiclient.Fiat
	IdentityLevel string // omitted for CAD and NGN (spec rule 3)
	WalletID      string // start-usa takes the USDB smart wallet's id
	WalletAddress string
	WalletIndex   int
	BVN           string
}

// ActivateAndStart activates the KYC for the currency, then starts its rail
// (spec rule 4: "call POST /kyc/activate again before that currency's start
// call"), and returns the status the API gave. They are one call, since an
// activation is only used by the start that follows it.
func ActivateAndStart(ctx context.Context, api *apiclient.Client, s Start) (string, error) {
	act := apiclient.ActivateKYCRequest{Currency: s.Currency, IdentityLevelName: s.IdentityLevel}
	if _, err := api.ActivateKYC(ctx, s.UserID, act); err != nil {
		return "", err
	}
	var res *apiclient.OnboardingStarted
	var err error
	switch s.Currency {
	case apiclient.USD:
		res, err = api.StartUSA(ctx, s.UserID, apiclient.StartUSARequest{SmartWalletID: s.WalletID})
	case apiclient.EUR:
		res, err = api.StartEURProvider(ctx, s.UserID, apiclient.StartEURProviderRequest{EURWalletAddress: s.WalletAddress, EURWalletIndex: s.WalletIndex})
	case apiclient.NGN:
		res, err = api.StartNigeria(ctx, s.UserID, apiclient.StartNigeriaRequest{BVN: s.BVN, NGNWalletAddress: s.WalletAddress, NGNWalletIndex: s.WalletIndex})
	case apiclient.MXN:
		res, err = api.StartMexico(ctx, s.UserID, apiclient.StartMexicoRequest{MXNWalletAddress: s.WalletAddress, MXNWalletIndex: s.WalletIndex})
	case apiclient.CAD:
		res, err = api.StartCanada(ctx, s.UserID, apiclient.StartCanadaRequest{CADWalletAddress: s.WalletAddress, CADWalletIndex: s.WalletIndex})
	default:
		return "", fmt.Errorf("onboard: no rail for %q", s.Currency)
	}
	if err != nil {
		return "", err
	}
	if res == nil {
		return "", nil
	}
	return res.Status, nil
}

// Started reads whether a currency's onboarding has begun for the user: the
// rail moved past not started (for USD, the USD account exists; for EUR,
// the provider's onboarding when it reports one).
func Started(ctx context.Context, api *apiclient.Client, userID string, currency apiclient.Fiat) (string, bool, error) {
	if currency == apiclient.USD {
		vba, err := api.GetUSDVirtualAccount(ctx, userID)
		if apiclient.IsNotFound(err) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		switch vba.Status {
		case apiclient.VirtualAccountProvisioning, apiclient.VirtualAccountPending, apiclient.VirtualAccountActive:
			return string(vba.Status), true, nil
		}
		return string(vba.Status), false, nil
	}
	st, err := api.GetOnboardingStatus(ctx, userID)
	if err != nil {
		return "", false, err
	}
	s := strings.ToLower(st.Currencies[currency].Status)
	if currency == apiclient.EUR && st.EURProviderStatus != "" && st.EURProviderStatus != "none" {
		s = strings.ToLower(st.EURProviderStatus)
	}
	switch s {
	case "", "none", "not_started", "failed":
		return s, false, nil
	}
	return s, true, nil
}

// ValidIdentityLevel reports whether s is one of the spec's
// identityLevelName values.
func ValidIdentityLevel(s string) bool {
	switch s {
	case apiclient.IdentityLevelIDOnly, apiclient.IdentityLevelIDAndLiveness, apiclient.IdentityLevelIDVAndPhone:
		return true
	}
	return false
}

// LaunchRefused is why the provider's verification could not be opened:
// the answer's status and its words.
type LaunchRefused struct {
	Status int
	Words  string
}

func (l LaunchRefused) Error() string { return l.Words }

// MexicoLaunch fetches the provider's launch payload at the moment of use
// (spec rule 3: "Fetch at the moment of use and call again for a fresh one
// without limit"; never stored) and allows the response w to post the
// form to its origin alone. A refusal is a LaunchRefused.
func MexicoLaunch(ctx context.Context, w http.ResponseWriter, api *apiclient.Client, userID string) (*apiclient.LaunchPayload, error) {
	p, err := api.GetMexicoAgreementsLaunch(ctx, userID)
	if err != nil {
		// The API refusing (4xx) is the user's state, not a fault of the
		// API.
		pr, status := apiclient.Explain(err), http.StatusBadGateway
		if pr.Status >= 400 && pr.Status < 500 {
			status = http.StatusConflict
		}
		return nil, LaunchRefused{Status: status, Words: pr.Summary}
	}
	origin, ok := launchOrigin(p.URL)
	if !ok || !strings.EqualFold(p.Method, http.MethodPost) {
		return nil, LaunchRefused{Status: http.StatusBadGateway,
			Words: "The Partner API's launch payload is not a form post to an https address, so it was not opened."}
	}
	// The page posts to the provider: this response alone allows it.
	w.Header().Set("Content-Security-Policy", strings.Replace(w.Header().Get("Content-Security-Policy"),
		"form-action 'self'", "form-action 'self' "+origin, 1))
	w.Header().Set("Cache-Control", "no-store")
	return p, nil
}

// launchOrigin is the origin of an https launch address.
func launchOrigin(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || strings.ContainsAny(u.Host, " \"';") {
		return "", false
	}
	return "https://" + u.Host, true
}

// NotReady is why a start is not sent, found before anything is: the
// API's readiness could not be read, or it says the user is not ready.
type NotReady struct {
	// Unread: a read failed (the API's fault, 502), else the user's state
	// (409).
	Unread bool
	Words  string
}

func (n NotReady) Error() string { return n.Words }

// CheckReady reads the KYC readiness again just before a start (spec rule
// 1: "then GET /kyc/readiness, then POST /kyc/activate"), and for USD its
// own readiness (spec: "start-usa gated on usd-readiness"). A user not
// ready, or a read that failed, is a NotReady whose words name what is
// missing with fieldWords; nothing was sent either way.
func CheckReady(ctx context.Context, api *apiclient.Client, userID string, currency apiclient.Fiat, fieldWords func(string) string) error {
	kr, err := api.GetKYCReadiness(ctx, userID)
	if err != nil {
		return NotReady{Unread: true, Words: "The identity check could not be read before starting, so nothing was sent. " + apiclient.ReadWords(err)}
	}
	if !kr.CanActivate {
		return NotReady{Words: "The Partner API says the identity check cannot be activated yet; it still needs " + missing(kr.Missing, fieldWords) + ". Nothing was sent."}
	}
	if currency != apiclient.USD {
		return nil
	}
	ur, err := api.GetUSDReadiness(ctx, userID)
	if err != nil {
		return NotReady{Unread: true, Words: "The USD readiness could not be read before starting, so nothing was sent. " + apiclient.ReadWords(err)}
	}
	if !ur.Ready {
		return NotReady{Words: "The Partner API says USD is not ready; it still needs " + missing(ur.Missing, fieldWords) + ". Nothing was sent."}
	}
	return nil
}

// missing names readiness fields in words.
func missing(fields []string, fieldWords func(string) string) string {
	if len(fields) == 0 {
		return "nothing listed"
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = fieldWords(f)
	}
	return strings.Join(out, ", ")
}
