// Package railsetup takes the partner's treasury through the onboarding
// each rail needs, one task page per rail reached from the funding page:
// the EUR provider for SEPA payouts (EURe wallet, activation and
// start-eur-provider, the provider's authorization signed on the owner's
// device, /eu/kyc), the Mexican offramp (MEXe wallet, activation and
// start-mexico, Mexico KYC, the provider's hosted verification, the CLABE)
// and the USD account. Where each rail stands is read from the API on every
// page, never kept here; every write is one action of the ledger under the
// form's token, with its audit row.
package railsetup

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Ledger kinds of this area.
const (
	// kindStart activates the KYC for a currency and starts its rail.
	kindStart = "treasury.rail.start"
	// kindMexicoKYC is POST /latam/mx/kyc/activate for the treasury.
	kindMexicoKYC = "treasury.rail.mx_kyc_activate"
	// kindEURAuthorize hands the provider's code to the owner's device.
	kindEURAuthorize = "treasury.rail.eur_authorize"
)

// readBudget bounds the API reads of a posted form's answer.
const readBudget = 5 * time.Second

// Signer hands the EUR provider's authorization to the owner's device (the
// sign area).
type Signer interface {
	IssueEURAuthorization(ctx context.Context, by store.Actor, userID, walletID, code string) (views.SignPanel, error)
}

// Handler serves the rail setup pages.
type Handler struct {
	*handlers.Base
	store   *store.Store
	api     *apiclient.Client
	actions *handlers.Actions
	sign    Signer
	clock   func() time.Time
	sandbox bool
}

// New returns the handler and registers how its writes are read back.
func New(d handlers.Deps, sign Signer) *Handler {
	h := &Handler{Base: d.Base, store: d.Store, api: d.API, actions: d.Actions, sign: sign, clock: d.Clock, sandbox: d.Config.Sandbox}
	d.Actions.ReadBackFor(kindStart, h.readBackStart)
	d.Actions.ReadBackFor(kindMexicoKYC, h.readBackMexicoKYC)
	return h
}

// treasury is the treasury user and its wallets, from the mirror.
type treasury struct {
	user    store.Employee
	wallets []store.Wallet
}

// wallet is the treasury's (current, not legacy) wallet in coin.
func (t treasury) wallet(coin apiclient.Stablecoin) (store.Wallet, bool) {
	for _, w := range t.wallets {
		if w.Currency == string(coin) && !w.Legacy {
			return w, true
		}
	}
	return store.Wallet{}, false
}

// load reads the treasury, answering the request itself when there is none
// or no API (false).
func (h *Handler) load(w http.ResponseWriter, r *http.Request) (treasury, bool) {
	u, ws, err := h.store.Treasury(r.Context())
	if errors.Is(err, store.ErrNoTreasury) {
		h.ErrorPage(w, r, http.StatusConflict, "Rail setup", "The app does not know the partner's treasury user yet, so no rail can be set up.")
		return treasury{}, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return treasury{}, false
	}
	if h.api == nil {
		h.ErrorPage(w, r, http.StatusServiceUnavailable, "Rail setup", "The app has no Partner API connection, so where the rails stand cannot be read.")
		return treasury{}, false
	}
	return treasury{user: u, wallets: ws}, true
}

// readCtx bounds the reads of a posted form's answer; a page (GET) has
// its budget from web's middleware already.
func readCtx(r *http.Request) context.Context {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return r.Context()
	}
	return apiclient.WithReadDeadline(r.Context(), time.Now().Add(readBudget))
}

// unreadWords says a read failed, for the top of a page.
func unreadWords(what string, err error) string {
	return what + " could not be read just now: " + apiclient.ReadWords(err) + " Reload the page to try again; nothing is offered until it is known."
}

// reads are one request's reads of the treasury's onboarding status: the
// overview's rails share one (it lives as long as the request).
type reads struct {
	ctx    context.Context
	api    *apiclient.Client
	userID string
	st     *apiclient.OnboardingStatus
	err    error
	done   bool
}

func (h *Handler) reads(r *http.Request, t treasury) *reads {
	return &reads{ctx: readCtx(r), api: h.api, userID: t.user.ServiceUserID}
}

// onboarding is GET /onboarding/status, read once.
func (rd *reads) onboarding() (*apiclient.OnboardingStatus, error) {
	if !rd.done {
		rd.st, rd.err = rd.api.GetOnboardingStatus(rd.ctx, rd.userID)
		rd.done = true
	}
	return rd.st, rd.err
}

// identityLevels are the spec's identityLevelName values, in words.
func identityLevels() []views.Option {
	return []views.Option{
		{Value: apiclient.IdentityLevelIDAndLiveness, Label: "Identity document and a liveness check"},
		{Value: apiclient.IdentityLevelIDOnly, Label: "Identity document only"},
		{Value: apiclient.IdentityLevelIDVAndPhone, Label: "Identity document, verification and a phone check"},
	}
}

// step builds a step of a task page.
func step(key, title, state, words string) views.RailStep {
	labels := map[string]string{"done": "Done", "next": "Next step", "waiting": "Waiting", "later": "Later", "blocked": "Not possible"}
	return views.RailStep{Key: key, Title: title, State: state, StateLabel: labels[state], Words: words}
}

// fieldWords names a readiness field in people's words.
func fieldWords(f string) string {
	words := map[string]string{
		"documents.identification": "an identity document", "documents.proofOfAddress": "a proof of address",
		"documents.biometric": "a selfie", "identificationNumbers.rfc": "the RFC (Mexican tax number)",
		"identificationNumbers.ssn": "the US social security number", "identificationNumbers.nino": "the UK national insurance number",
		"employment.employmentStatus": "the employment status", "employment.occupationCode": "the occupation",
		"sourceOfFunds": "the source of funds", "estimatedMonthlyVolume": "the expected monthly volume",
		"profile.personalInfo.dateOfBirth": "the date of birth", "profile.personalInfo.firstName": "the first name",
		"profile.personalInfo.lastName": "the last name", "address.streetLine1": "the street address",
		"address.city": "the city", "address.postalCode": "the postal code", "address.countryCode": "the country",
	}
	if w, ok := words[f]; ok {
		return w
	}
	return strings.ReplaceAll(f, ".", " ")
}

// coinWords names a wallet's currency in people's words.
func coinWords(coin apiclient.Stablecoin) string {
	if f, ok := coin.Fiat(); ok {
		return fmt.Sprintf("%s (%s)", f, coin)
	}
	return string(coin)
}
