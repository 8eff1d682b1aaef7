package employees

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/onboard"
	"partneradmin/store"
	"partneradmin/views"
)

// Ledger kinds of the per-currency onboarding starts.
const (
	kindStartRail    = "employee.onboarding.start"
	kindMexicoKYC    = "employee.onboarding.mx_kyc_activate"
	maxStartAttempts = 20
)

// rail is one currency's rail onboarding start as the spec's "Rail
// onboarding starts" table has it.
type rail struct {
	Currency string
	Token    apiclient.Stablecoin
	Path     string // the start endpoint's last segment, for the words
	// Global: the activation before the start takes an identityLevelName
	// (spec rule 3: "required for USD, EUR, MXN and must be omitted for CAD
	// and NGN").
	Global bool
	// Bulk: it can be started for many employees at once. Not NGN: its BVN
	// is typed for each person and never kept.
	Bulk bool
}

var rails = map[string]rail{
	"USD": {Currency: "USD", Token: apiclient.USDB, Path: "start-usa", Global: true, Bulk: true},
	"EUR": {Currency: "EUR", Token: apiclient.EURe, Path: "start-eur-provider", Global: true, Bulk: true},
	"NGN": {Currency: "NGN", Token: apiclient.CNGN, Path: "start-nigeria"},
	"MXN": {Currency: "MXN", Token: apiclient.MEXe, Path: "start-mexico", Global: true, Bulk: true},
	"CAD": {Currency: "CAD", Token: apiclient.CADC, Path: "start-canada", Bulk: true},
}

// railOf returns the rail of a currency code as a URL or form carries it.
func railOf(s string) (rail, bool) {
	rl, ok := rails[strings.ToUpper(strings.TrimSpace(s))]
	return rl, ok
}

// identityLevels are the spec's identityLevelName values, in words.
func identityLevels() []views.Option {
	return []views.Option{
		{Value: apiclient.IdentityLevelIDAndLiveness, Label: "ID document and liveness check (id-and-liveness)"},
		{Value: apiclient.IdentityLevelIDOnly, Label: "ID document only (id-only)"},
		{Value: apiclient.IdentityLevelIDVAndPhone, Label: "ID verification and phone verification (idv-and-phone-verification)"},
	}
}

// railStart is what the ledger keeps of a start: never the BVN (only that
// one was sent).
type railStart struct {
	EmployeeID    int64  `json:"employeeId"`
	ServiceUserID string `json:"serviceUserId"`
	Currency      string `json:"currency"`
	IdentityLevel string `json:"identityLevelName,omitempty"`
	WalletID      string `json:"smartWalletId,omitempty"`
	WalletAddress string `json:"walletAddress,omitempty"`
	WalletIndex   int    `json:"walletIndex"`
	BVNSent       bool   `json:"bvnSent,omitempty"`
	// Form is the key of the form that sent it; RunID the bulk run.
	Form  string `json:"form,omitempty"`
	RunID int64  `json:"runId,omitempty"`
}

// startKey is the action key of a start: the employee and currency, so a
// double click, another tab or a retry after a timeout finds the first
// attempt and nothing is sent twice. An attempt the API refused settles
// nothing, so a new form gets the next attempt; the refused attempt of this
// very form is its answer.
func startKey(ctx context.Context, st *store.Store, employeeID int64, currency, form string) (string, error) {
	base := fmt.Sprintf("onboarding:%d:%s", employeeID, currency)
	for n := 1; n <= maxStartAttempts; n++ {
		key := base
		if n > 1 {
			key += "#" + strconv.Itoa(n)
		}
		a, err := st.ActionByKey(ctx, key)
		if errors.Is(err, store.ErrNotFound) {
			return key, nil
		}
		if err != nil {
			return "", err
		}
		if a.State != store.ActionRefused {
			return key, nil
		}
		var sent railStart
		if err := a.DecodeRequest(&sent); err != nil {
			return "", err
		}
		if sent.Form == form {
			return key, nil
		}
	}
	return "", fmt.Errorf("employees: %d refused attempts to start %s for employee %d", maxStartAttempts, currency, employeeID)
}

// runStartKey is the action key of a bulk run's row.
func runStartKey(runID, employeeID int64) string {
	return fmt.Sprintf("onboarding-run:%d:%d", runID, employeeID)
}

// startRefusal is why a start is not sent, found here before anything is
// sent: the words, and the form field they belong to ("" for the form).
type startRefusal struct {
	Field, Words string
}

func (s startRefusal) Error() string { return s.Words }

// prepareStart checks that the employee can start the rail now and builds
// the request: linked, the readiness cell "ready", the rail's wallet
// present, and the API's readiness read again just before (spec rule 1:
// "then GET /kyc/readiness, then POST /kyc/activate").
func (h *Handler) prepareStart(ctx context.Context, e store.Employee, rl rail, level string) (railStart, error) {
	req := railStart{EmployeeID: e.ID, ServiceUserID: e.ServiceUserID, Currency: rl.Currency, WalletIndex: onboard.OwnerKeyIndex}
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted {
		return req, startRefusal{Words: "The employee has no active account at the Partner API (not linked, or deleted). Nothing was sent."}
	}
	if h.API == nil {
		return req, startRefusal{Words: "The app has no Partner API connection. Nothing was sent."}
	}
	if rl.Global {
		if !onboard.ValidIdentityLevel(level) {
			return req, startRefusal{Field: "identity_level", Words: "Choose the identity level the activation asks for."}
		}
		req.IdentityLevel = level
	}
	cells, err := h.Store.ReadinessOf(ctx, []int64{e.ID})
	if err != nil {
		return req, err
	}
	c, ok := cells[e.ID][rl.Currency]
	if !ok || c.State != store.ReadyToActivate {
		label := readinessLabel(store.ReadyNotRead, 0)
		if ok {
			label = readinessLabel(c.State, len(c.Missing))
		}
		return req, startRefusal{Words: rl.Currency + " cannot be started: its readiness is " + label + ", not ready. Nothing was sent."}
	}
	wallets, err := h.Store.WalletsByEmployee(ctx, e.ID)
	if err != nil {
		return req, err
	}
	for _, w := range wallets {
		if w.Currency == string(rl.Token) && !w.Legacy {
			req.WalletID, req.WalletAddress = w.ID, w.Address
			break
		}
	}
	if req.WalletID == "" {
		return req, startRefusal{Words: fmt.Sprintf("The employee has no %s smart wallet for the %s rail to use. Nothing was sent.", rl.Token, rl.Currency)}
	}
	if err := onboard.CheckReady(ctx, h.API, e.ServiceUserID, apiclient.Fiat(rl.Currency), FieldInWords); err != nil {
		return req, startRefusal{Words: err.Error()}
	}
	return req, nil
}

// callStart activates the KYC for this onboarding, then starts the rail
// (spec rule 4: "call POST /kyc/activate again before that currency's start
// call"). bvn is only in this call: it is never kept.
func callStart(api *apiclient.Client, req railStart, bvn string, runApply rowApply) func(ctx context.Context) (handlers.Effect, error) {
	return func(ctx context.Context) (handlers.Effect, error) {
		status, err := onboard.ActivateAndStart(ctx, api, onboard.Start{UserID: req.ServiceUserID, Currency: apiclient.Fiat(req.Currency),
			IdentityLevel: req.IdentityLevel, WalletID: req.WalletID, WalletAddress: req.WalletAddress, WalletIndex: req.WalletIndex, BVN: bvn})
		if err != nil {
			return handlers.Effect{}, err
		}
		var apply func(context.Context, *store.Store) error
		if req.RunID != 0 && runApply != nil {
			apply = runApply(req, status)
		}
		return startEffect(req, status, apply), nil
	}
}

// rowApply records a bulk row's start in the transaction that finishes its
// action.
type rowApply func(req railStart, status string) func(context.Context, *store.Store) error

// startEffect is what a start the API recorded changes here: the audit
// row's words, and for a bulk row its outcome.
func startEffect(req railStart, status string, apply func(ctx context.Context, tx *store.Store) error) handlers.Effect {
	rl := rails[req.Currency]
	detail := fmt.Sprintf("%s onboarding started: KYC activated", req.Currency)
	if req.IdentityLevel != "" {
		detail += " (" + req.IdentityLevel + ")"
	}
	detail += ", then " + rl.Path + " with the " + string(rl.Token) + " wallet"
	if status != "" {
		detail += "; the API says " + status
	}
	if req.RunID != 0 {
		detail += fmt.Sprintf(" (bulk run %d)", req.RunID)
	}
	return handlers.Effect{Target: employeeTarget(req.EmployeeID), Result: map[string]string{"status": status}, Detail: detail, Apply: apply}
}

// readBackStart learns whether a start took effect from the onboarding
// status: the rail moved past not started (for USD, the USD account
// exists). The bulk row is recorded by runApply.
func readBackStart(api *apiclient.Client, runApply rowApply) handlers.ReadBack {
	return func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req railStart
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		if api == nil {
			return handlers.Effect{}, false, errNoAPI
		}
		status, started, err := onboard.Started(ctx, api, req.ServiceUserID, apiclient.Fiat(req.Currency))
		if err != nil || !started {
			return handlers.Effect{}, false, err
		}
		var apply func(context.Context, *store.Store) error
		if req.RunID != 0 && runApply != nil {
			apply = runApply(req, status)
		}
		return startEffect(req, status, apply), true, nil
	}
}

// bvnPattern: spec "Nigerian NIN, BVN | 11 digits".
var bvnPattern = regexp.MustCompile(`^[0-9]{11}$`)

// StartRail starts one currency's onboarding for the employee, once: the
// KYC activation for this onboarding, then the rail's start call. The BVN
// of a Nigerian start is sent and never kept, logged or shown again.
func (h *Handler) StartRail(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	formKey, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	rl, ok := railOf(chi.URLParam(r, "currency"))
	if !ok {
		h.NotFound(w, r)
		return
	}
	page := fmt.Sprintf("/employees/%d", e.ID)
	level := strings.TrimSpace(r.PostFormValue("identity_level"))
	bvn := strings.TrimSpace(r.PostFormValue("bvn"))
	refuse := func(status int, field, words string, keepToken bool) {
		h.refuseStart(w, r, e, rl, startRefused{status: status, field: field, words: words, keepToken: keepToken, bvnTyped: bvn != ""})
	}
	key, ok := h.freshStartKey(w, r, e, rl, formKey, page)
	if !ok {
		return
	}
	if rl.Currency == "NGN" && !bvnPattern.MatchString(bvn) {
		// The typed value is never echoed back.
		refuse(http.StatusUnprocessableEntity, "bvn", "The BVN must be exactly 11 digits. It was not kept: type it again.", true)
		return
	}
	req, err := h.prepareStart(ctx, e, rl, level)
	var no startRefusal
	if errors.As(err, &no) {
		// A refusal tied to a field is input to correct (422); the others
		// are the employee's state (409).
		status := http.StatusConflict
		if no.Field != "" {
			status = http.StatusUnprocessableEntity
		}
		refuse(status, no.Field, no.Words, true)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	req.Form, req.BVNSent = formKey, rl.Currency == "NGN"
	by := handlers.ActorFrom(ctx)
	// Shared: a start is one per employee and rail, whoever sends it.
	d, err := h.Actions.Run(ctx, handlers.Write{Key: key, Kind: kindStartRail, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Shared: true, Call: callStart(h.API, req, bvn, nil)})
	bvn = ""
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.startAnswered(w, r, d.Action, rl, page)
		return
	}
	switch d.State() {
	case store.ActionRefused:
		field, words := startProblemField(d.Problem)
		refuse(problemStatus(d), field, words, false)
		return
	case store.ActionUnknown, store.ActionBegun:
		refuse(problemStatus(d), "", "The Partner API did not confirm the start, so it is not known whether it began; the app keeps checking and this page shows the outcome. "+
			"Do not send it again meanwhile. "+d.Action.Message, false)
		return
	}
	if err := h.Refresh(ctx, e, by); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", startedWords(rl.Currency))
	h.Redirect(w, r, page)
}

// freshStartKey is the ledger key of this start; when that start was
// already sent, it answers with its outcome instead (ok false).
func (h *Handler) freshStartKey(w http.ResponseWriter, r *http.Request, e store.Employee, rl rail, formKey, page string) (string, bool) {
	key, err := startKey(r.Context(), h.Store, e.ID, rl.Currency, formKey)
	if err != nil {
		h.ServerError(w, r, err)
		return "", false
	}
	a, err := h.Store.ActionByKey(r.Context(), key)
	switch {
	case err == nil:
		h.startAnswered(w, r, a, rl, page)
		return "", false
	case !errors.Is(err, store.ErrNotFound):
		h.ServerError(w, r, err)
		return "", false
	}
	return key, true
}

// startedWords says that a rail's onboarding started, and what comes next.
func startedWords(currency string) string {
	msg := currency + " onboarding started. The Partner API reports its progress by webhooks; this page shows it."
	if currency == "MXN" {
		msg += " Next: activate the Mexican KYC, then open the provider's verification."
	}
	return msg
}

// startRefused is why a start was not sent, for the page drawn again.
type startRefused struct {
	status       int
	field, words string
	// keepToken: the form's token may be sent again (nothing was tried).
	keepToken, bvnTyped bool
}

// refuseStart shows the employee page again with the words next to the
// rail's start form; the BVN field is always empty (it was not kept),
// anything else stays.
func (h *Handler) refuseStart(w http.ResponseWriter, r *http.Request, e store.Employee, rl rail, no startRefused) {
	token := r.PostFormValue(handlers.FormTokenField)
	level := strings.TrimSpace(r.PostFormValue("identity_level"))
	h.renderDetailWith(w, r, no.status, e, func(v *views.EmployeeDetailView) {
		for i := range v.Currencies {
			if v.Currencies[i].Currency != rl.Currency {
				continue
			}
			f := v.Currencies[i].Start
			if f == nil {
				f = h.startForm(rl)
				v.Currencies[i].Start = f
			}
			if no.keepToken {
				f.Token = token
			}
			if onboard.ValidIdentityLevel(level) {
				f.IdentityLevel = level
			}
			if no.field != "" {
				f.Fields[no.field] = no.words
			} else {
				f.Error = no.words
			}
			if rl.Currency == "NGN" && no.bvnTyped && no.field != "bvn" {
				f.Fields["bvn"] = "The BVN was not kept: type it again to send it."
			}
		}
	})
}

// startProblemField places the API's refusal next to the field it names.
func startProblemField(p apiclient.Problem) (string, string) {
	for f, msg := range p.Fields {
		if msg == "" {
			continue
		}
		switch f {
		case "bvn":
			return "bvn", "The Partner API refused the BVN: " + msg + ". It was not kept: type it again."
		case "identityLevelName":
			return "identity_level", "The Partner API refused the identity level: " + msg + "."
		}
	}
	return "", p.Summary
}

// startAnswered answers a start whose attempt exists already: nothing is
// sent again; the page says what the first did.
func (h *Handler) startAnswered(w http.ResponseWriter, r *http.Request, a store.Action, rl rail, page string) {
	msg := fmt.Sprintf("The %s start was already sent by %s, so nothing was sent again: %s.", rl.Currency, a.Actor.Email, views.StatusLabel(views.StatusAction, string(a.State)))
	if a.Message != "" && a.State != store.ActionBegun {
		msg += " " + a.Message
	}
	kind := "info"
	if a.State == store.ActionRefused || a.State == store.ActionUnknown {
		kind = "warn"
	}
	h.Flash(r, kind, msg)
	h.Redirect(w, r, page)
}

// startForm is a currency's start form as first shown.
func (h *Handler) startForm(rl rail) *views.RailStartForm {
	f := &views.RailStartForm{Currency: rl.Currency, Token: handlers.NewFormToken(), Path: rl.Path, WalletToken: string(rl.Token),
		Global: rl.Global, NeedsBVN: rl.Currency == "NGN", Fields: views.FieldErrors{}}
	if rl.Global {
		f.IdentityLevels = identityLevels()
		f.IdentityLevel = apiclient.IdentityLevelIDAndLiveness
	}
	return f
}

// ActivateMexicoKYC sends POST /latam/mx/kyc/activate once per form, after
// start-mexico: the step before the provider's hosted verification.
func (h *Handler) ActivateMexicoKYC(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	page := fmt.Sprintf("/employees/%d", e.ID)
	if h.seen(w, r, key, kindMexicoKYC, page) {
		return
	}
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted || h.API == nil {
		h.ErrorPage(w, r, http.StatusConflict, "Mexican KYC not activated", "The employee has no active account at the Partner API. Nothing was sent.")
		return
	}
	by := handlers.ActorFrom(r.Context())
	req := onUser{EmployeeID: e.ID, ServiceUserID: e.ServiceUserID}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindMexicoKYC, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			res, err := h.API.ActivateMexicoKYC(ctx, req.ServiceUserID)
			if err != nil {
				return handlers.Effect{}, err
			}
			detail := "Mexican KYC activated; the API says " + res.Status
			// spec rule 2: "If uploaded.selfie or uploaded.document is
			// false, upload the missing file and activate again."
			if !res.Uploaded.Selfie || !res.Uploaded.Document {
				detail += " (a JPEG or PNG selfie or document is missing: the employee uploads it, then activate again)"
			}
			return handlers.Effect{Target: employeeTarget(e.ID), Result: res, Detail: detail}, nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	switch d.State() {
	case store.ActionRefused:
		h.Flash(r, "error", "Mexican KYC was not activated: "+d.Problem.Summary)
	case store.ActionDone:
		h.Flash(r, "ok", d.Action.Message+" Open the Mexican KYC for the employee to complete the provider's verification.")
	default:
		h.Flash(r, "warn", "The Partner API did not confirm the Mexican KYC activation; the app keeps checking. "+d.Action.Message)
	}
	if err := h.Refresh(r.Context(), e, by); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Redirect(w, r, page)
}

// OpenMexicoKYC fetches the provider's launch payload at the moment of use
// (spec rule 3: "Fetch at the moment of use"; never stored) and shows the
// form that posts it to the provider, in the new tab the button opened,
// with the time left before its assertion expires.
func (h *Handler) OpenMexicoKYC(w http.ResponseWriter, r *http.Request) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted || h.API == nil {
		h.ErrorPage(w, r, http.StatusConflict, "Mexican KYC", "The employee has no active account at the Partner API.")
		return
	}
	fetched := h.Clock()
	p, err := onboard.MexicoLaunch(r.Context(), w, h.API, e.ServiceUserID)
	var no onboard.LaunchRefused
	if errors.As(err, &no) {
		h.ErrorPage(w, r, no.Status, "Mexican KYC could not be opened", no.Words)
		return
	}
	v := views.MexicoLaunchView{EmployeeID: e.ID, Name: e.Name(), URL: p.URL, GrantType: p.Fields.GrantType, Assertion: p.Fields.Assertion,
		Target: p.Fields.Target, FetchedAt: fetched, ExpiresAt: p.ExpiresAt}
	h.Render(w, r, http.StatusOK, "Mexican KYC for "+e.Name(), views.MexicoLaunchPage(v), nil)
}

// addStartForms puts a start form on every card whose currency is ready,
// and the Mexican KYC steps on the MXN card once its rail has begun.
func (h *Handler) addStartForms(e store.Employee, v *views.EmployeeDetailView) {
	if e.ServiceUserID == "" || e.DeletedAt != nil || e.InviteState == store.InviteDeleted {
		return
	}
	for i := range v.Currencies {
		c := &v.Currencies[i]
		rl, ok := railOf(c.Currency)
		if !ok {
			continue
		}
		if c.Cell.State == store.ReadyToActivate {
			// The start sends the rail's wallet: without one the API
			// refuses it, so the page says what is needed instead. When
			// the wallets could not be read, the start is offered.
			has := slices.ContainsFunc(v.Wallets, func(w views.WalletView) bool { return w.Token == string(rl.Token) && !w.Legacy })
			if has || v.WalletsError != "" {
				c.Start = h.startForm(rl)
			} else {
				c.StartNeeds = fmt.Sprintf("%s onboarding starts with the employee's %s wallet, and they have none yet. Once the wallet is listed under Wallets on this page, the start is offered here.",
					rl.Currency, rl.Token)
			}
		}
		if c.Currency != "MXN" {
			continue
		}
		// The MXN rail reports the Mexican KYC status once started.
		switch strings.ToLower(c.RailStatus) {
		case "kyc_required", "incomplete", apiclient.MexicoKYCRejected:
			c.Mexico = &views.MexicoKYCView{EmployeeID: e.ID, CanActivate: true, ActivateToken: handlers.NewFormToken()}
		case apiclient.MexicoKYCProposed, apiclient.MexicoKYCBankVerificationRequired:
			c.Mexico = &views.MexicoKYCView{EmployeeID: e.ID, CanLaunch: true}
		}
	}
}

// readBackMexicoKYC reads the Mexican KYC status: any status means the
// activation was recorded.
func readBackMexicoKYC(api *apiclient.Client) handlers.ReadBack {
	return func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req onUser
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		if api == nil {
			return handlers.Effect{}, false, errNoAPI
		}
		st, err := api.GetMexicoKYCStatus(ctx, req.ServiceUserID)
		if apiclient.IsNotFound(err) {
			return handlers.Effect{}, false, nil
		}
		if err != nil {
			return handlers.Effect{}, false, err
		}
		return handlers.Effect{Target: employeeTarget(req.EmployeeID), Detail: "Mexican KYC activated; the API says " + st.Status}, true, nil
	}
}
