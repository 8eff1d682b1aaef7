package webhooks

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// partnerEvents are the names a partner-scoped subscription receives
// (spec: Events). wallet.* names are left out on purpose: "Subscribing a
// partner-scoped config to a wallet.* name is accepted but never fires."
var partnerEvents = []views.EventChoice{
	{Name: apiclient.EventEmployeeDepositCompleted, Description: "funds landed in an employee's wallet"},
	{Name: apiclient.EventEmployeeDepositFailed, Description: "a deposit did not complete"},
	{Name: apiclient.EventEmployeeDepositRefunded, Description: "a deposit was reversed"},
	{Name: apiclient.EventEmployeeWithdrawalProcessing, Description: "a withdrawal is in flight"},
	{Name: apiclient.EventEmployeeWithdrawalCompleted, Description: "a withdrawal settled"},
	{Name: apiclient.EventEmployeeWithdrawalFailed, Description: "a withdrawal did not complete"},
	{Name: apiclient.EventOnboardingCompleted, Description: "a rail became active"},
	{Name: apiclient.EventOnboardingFailed, Description: "onboarding could not complete"},
	{Name: apiclient.EventKYCActionRequired, Description: "the employee must do something, often a selfie"},
	{Name: apiclient.EventEmployeeLinked, Description: "an invited employee linked"},
	{Name: apiclient.EventEmployeeVBARegistered, Description: "a virtual bank account was provisioned"},
	{Name: apiclient.EventEmployeeUnlinked, Description: "an employee was unlinked"},
	{Name: apiclient.EventCardFulfillmentUpdated, Description: "a card's fulfilment changed"},
	{Name: apiclient.EventCardTransactionCreated, Description: "a card spend"},
}

func eventChoices(checked []string) []views.EventChoice {
	out := make([]views.EventChoice, len(partnerEvents))
	for i, e := range partnerEvents {
		e.Checked = slices.Contains(checked, e.Name)
		out[i] = e
	}
	return out
}

func allEventNames() []string {
	names := make([]string, len(partnerEvents))
	for i, e := range partnerEvents {
		names[i] = e.Name
	}
	return names
}

// subscriptionForm is the parsed create or edit form.
type subscriptionForm struct {
	Token       string
	CallbackURL string
	Events      []string
	Active      bool
	Fields      views.FieldErrors
}

func (f subscriptionForm) view() views.WebhookForm {
	return views.WebhookForm{Token: f.Token, CallbackURL: f.CallbackURL, Events: eventChoices(f.Events), Active: f.Active, Fields: f.Fields}
}

// parseSubscriptionForm reads the form. current is the callback URL the
// subscription already has: kept as it is, it is not checked again (the
// local sandbox accepts http:// to loopback).
func parseSubscriptionForm(r *http.Request, edit bool, current string) subscriptionForm {
	_ = r.ParseForm()
	f := subscriptionForm{
		Token:       r.PostFormValue(handlers.FormTokenField),
		CallbackURL: strings.TrimSpace(r.PostFormValue("callback_url")),
		Events:      r.PostForm["events"],
		Active:      !edit || r.PostFormValue("active") == "true",
		Fields:      views.FieldErrors{},
	}
	u, err := url.Parse(f.CallbackURL)
	switch {
	case handlers.CheckText(f.CallbackURL, 2048, false) != "":
		f.Fields["callback_url"] = "The URL: " + handlers.CheckText(f.CallbackURL, 2048, false)
	case f.CallbackURL == "":
		f.Fields["callback_url"] = "Enter the callback URL; this app's receiver is " + ReceiverPath + " on its public origin."
	case current != "" && f.CallbackURL == current:
		// Unchanged: already accepted upstream.
	case err != nil || u.Host == "" || u.User != nil || u.Fragment != "" ||
		(u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname()))):
		f.Fields["callback_url"] = "Enter an https:// URL such as https://admin.example.com" + ReceiverPath +
			"; the API only delivers over HTTPS (http:// only to this machine, for the local sandbox)."
	}
	known := allEventNames()
	var msgs []string
	for _, e := range f.Events {
		switch {
		case strings.HasPrefix(e, "wallet."):
			msgs = append(msgs, e+" never fires on a partner-scoped subscription; choose its employee.* name.")
		case !slices.Contains(known, e):
			msgs = append(msgs, "Unknown event name "+strings.TrimSpace(e)+".")
		}
	}
	if len(f.Events) == 0 {
		msgs = append(msgs, "Choose at least one event.")
	}
	if len(msgs) > 0 {
		f.Fields["events"] = strings.Join(msgs, " ")
	}
	return f
}

// Settings shows the subscription (or the form that creates it).
func (h *Handler) Settings(w http.ResponseWriter, r *http.Request) {
	v, err := h.settingsView(r.Context(), nil)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.renderSettings(w, r, http.StatusOK, v)
}

func (h *Handler) renderSettings(w http.ResponseWriter, r *http.Request, status int, v views.WebhookSettingsView) {
	meta := h.PageMeta(r, "Webhook subscription")
	// The secret may be on this page: keep it out of htmx's history cache.
	meta.NoHistoryCache = true
	h.RenderFragment(w, r, status, views.Layout(meta, views.WebhookSettingsPage(v)))
}

// settingsView builds the page from what the store keeps and, when the API
// is connected, what it reports. form, when set, is a form to show again.
func (h *Handler) settingsView(ctx context.Context, form *subscriptionForm) (views.WebhookSettingsView, error) {
	v := views.WebhookSettingsView{APIConnected: h.API != nil, ReceiverURL: h.CallbackURL()}
	sub, err := h.Store.WebhookSubscription(ctx)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return v, err
	default:
		v.Exists = sub.UpstreamID != ""
		v.HasSecret = sub.HasSecret()
		v.UpstreamID, v.UpdatedAt, v.RotatedAt = sub.UpstreamID, sub.UpdatedAt, sub.RotatedAt
		v.SignatureFailures, v.LastSignatureFailure = sub.SignatureFailures, sub.LastSignatureFailure
	}
	f := subscriptionForm{CallbackURL: h.CallbackURL(), Events: allEventNames(), Active: true}
	if v.Exists {
		f = subscriptionForm{CallbackURL: sub.CallbackURL, Events: sub.Events, Active: sub.Active}
	}
	if h.API != nil {
		cfg, err := h.API.GetWebhookConfig(ctx)
		switch {
		case err == nil:
			if !v.Exists {
				v.Exists, v.UpstreamID, v.UpdatedAt = true, cfg.ID, cfg.UpdatedAt
			}
			f = subscriptionForm{CallbackURL: cfg.CallbackURL, Events: cfg.Events, Active: cfg.Active}
		case apiclient.IsNotFound(err):
			if v.Exists {
				v.Problem = "The API has no subscription for this partner any more (it was deleted elsewhere): create it again."
				v.Exists = false
			}
		default:
			h.Logger.WarnContext(ctx, "webhook settings: read config", "err", err)
			v.Problem = "The API could not be reached, so this shows what the app last saved. Try again in a moment."
		}
	}
	if form != nil {
		f = *form
	}
	if !handlers.ValidFormToken(f.Token) {
		f.Token = handlers.NewFormToken()
	}
	v.Form = f.view()
	v.RotateToken = handlers.NewFormToken()
	failures, err := h.Store.ListSignatureFailures(ctx, 10)
	if err != nil {
		return v, err
	}
	v.RecentFailures = failureRows(failures)
	runs, err := h.Store.ListReconciliations(ctx, 5)
	if err != nil {
		return v, err
	}
	for _, run := range runs {
		v.Reconciliations = append(v.Reconciliations, views.ReconciliationRow{StartedAt: run.StartedAt, Checked: run.Checked, Corrected: run.Corrected, Notes: run.Notes})
	}
	return v, nil
}

func failureRows(fs []store.SignatureFailure) []views.SignatureFailureRow {
	rows := make([]views.SignatureFailureRow, 0, len(fs))
	for _, f := range fs {
		rows = append(rows, views.SignatureFailureRow{At: f.At, WebhookID: f.WebhookID, Reason: f.Reason})
	}
	return rows
}

// refuse re-renders the page with the form and a status.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, form subscriptionForm, problem string) {
	v, err := h.settingsView(r.Context(), &form)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if problem != "" {
		v.Problem = problem
	}
	h.renderSettings(w, r, status, v)
}

const noAPI = "No Partner API is connected, so nothing was changed."

// apiFields puts the API's refusal next to the form's fields (or above the
// form when it names none).
func apiFields(p apiclient.Problem, f *subscriptionForm) {
	placed := false
	for k, msg := range p.Fields {
		switch {
		case strings.HasPrefix(k, "callbackUrl"):
			f.Fields["callback_url"], placed = "The API refused the URL: "+msg, true
		case strings.HasPrefix(k, "events"):
			f.Fields["events"], placed = "The API refused the events: "+msg, true
		}
	}
	if !placed {
		f.Fields[""] = p.Summary
	}
}

// subscriptionResult is what the ledger keeps of a subscription the API
// returned: never its secret.
type subscriptionResult struct {
	ID          string   `json:"id"`
	CallbackURL string   `json:"callbackUrl"`
	Events      []string `json:"events"`
	Active      bool     `json:"active"`
}

func resultOf(cfg *apiclient.WebhookConfig) subscriptionResult {
	return subscriptionResult{ID: cfg.ID, CallbackURL: cfg.CallbackURL, Events: cfg.Events, Active: cfg.Active}
}

// saved is the effect of a subscription the API returned: recorded here (its
// secret sealed, when it came with one) in the action's finish.
func (h *Handler) saved(cfg *apiclient.WebhookConfig, sealed []byte, detail string) handlers.Effect {
	change := changeOf(cfg, sealed)
	return handlers.Effect{Target: "webhook:" + cfg.ID, Result: resultOf(cfg), Detail: detail,
		Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.SaveWebhookSubscription(ctx, change)
			return err
		}}
}

// runSettingsWrite sends one subscription change through the action
// ledger. It answers the request itself unless the change is done, and
// then returns true.
func (h *Handler) runSettingsWrite(w http.ResponseWriter, r *http.Request, f subscriptionForm, write handlers.Write) bool {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return false
	}
	write.Key, write.Actor, write.Target = key, handlers.ActorFrom(r.Context()), "webhook"
	done, err := h.actions.Run(r.Context(), write)
	switch {
	case h.Answered(w, r, err):
		return false
	case done.Repeat:
		h.Repeated(w, r, done.Action, "/settings/webhooks")
		return false
	case done.State() == store.ActionDone:
		return true
	}
	f.Token = handlers.NewFormToken()
	if done.Problem.Kind == apiclient.Refused {
		apiFields(done.Problem, &f)
		h.refuse(w, r, http.StatusUnprocessableEntity, f, "")
		return false
	}
	h.refuse(w, r, http.StatusBadGateway, f, done.Action.Message)
	return false
}

// CreateSubscription creates the subscription upstream, keeps its secret
// sealed and shows it once.
func (h *Handler) CreateSubscription(w http.ResponseWriter, r *http.Request) {
	f := parseSubscriptionForm(r, false, "")
	if f.Fields.Any() {
		h.refuse(w, r, http.StatusUnprocessableEntity, f, "")
		return
	}
	if h.API == nil {
		h.refuse(w, r, http.StatusUnprocessableEntity, f, noAPI)
		return
	}
	var secret string
	var exists bool
	req := apiclient.CreateWebhookConfigRequest{CallbackURL: f.CallbackURL, Events: f.Events}
	if !h.runSettingsWrite(w, r, f, handlers.Write{Kind: "webhooks.subscription.create", Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			cfg, err := h.API.CreateWebhookConfig(ctx, req)
			if apiclient.IsConflict(err) {
				// spec: "A second POST for the same partner scope returns
				// 409": keep the existing one (without its secret, which
				// the API never shows again) and lead to the edit form.
				if cfg, err = h.API.GetWebhookConfig(ctx); err != nil {
					return handlers.Effect{}, err
				}
				exists = true
				return h.saved(cfg, nil, "a subscription already existed (409); kept it"), nil
			}
			if err != nil {
				return handlers.Effect{}, err
			}
			sealed, err := h.Box.Seal(cfg.SecretKey)
			if err != nil {
				return handlers.Effect{}, err
			}
			secret = cfg.SecretKey
			return h.saved(cfg, sealed, "callback "+cfg.CallbackURL+", "+strings.Join(cfg.Events, " ")), nil
		}}) {
		return
	}
	if exists {
		msg := "A subscription already exists for this partner: edit it below."
		if sub, err := h.Store.WebhookSubscription(r.Context()); err == nil && !sub.HasSecret() {
			msg += " This app does not know its secret, so rotate it to verify deliveries."
		}
		h.Flash(r, "info", msg)
		h.Redirect(w, r, "/settings/webhooks")
		return
	}
	h.showSecret(w, r, http.StatusCreated, secret, "created")
}

func changeOf(cfg *apiclient.WebhookConfig, sealed []byte) store.SubscriptionChange {
	return store.SubscriptionChange{UpstreamID: cfg.ID, PartnerID: cfg.PartnerID, CallbackURL: cfg.CallbackURL,
		Events: cfg.Events, Active: cfg.Active, SecretSealed: sealed}
}

func (h *Handler) showSecret(w http.ResponseWriter, r *http.Request, status int, secret, reason string) {
	v, err := h.settingsView(r.Context(), nil)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Secret, v.SecretReason = secret, reason
	h.renderSettings(w, r, status, v)
}

// UpdateSubscription changes the events, callback URL and active flag.
func (h *Handler) UpdateSubscription(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	current := ""
	if sub, err := h.Store.WebhookSubscription(ctx); err == nil {
		current = sub.CallbackURL
	}
	f := parseSubscriptionForm(r, true, current)
	if f.Fields.Any() {
		h.refuse(w, r, http.StatusUnprocessableEntity, f, "")
		return
	}
	if h.API == nil {
		h.refuse(w, r, http.StatusUnprocessableEntity, f, noAPI)
		return
	}
	active := f.Active
	req := apiclient.UpdateWebhookConfigRequest{CallbackURL: f.CallbackURL, Events: f.Events, Active: &active, PartnerScoped: true}
	if f.CallbackURL == current {
		req.CallbackURL = "" // unchanged: not sent
	}
	if !h.runSettingsWrite(w, r, f, handlers.Write{Kind: "webhooks.subscription.update", Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			cfg, err := h.API.UpdateWebhookConfig(ctx, req)
			if err != nil {
				return handlers.Effect{}, err
			}
			state := "active"
			if !cfg.Active {
				state = "inactive"
			}
			return h.saved(cfg, nil, state+", callback "+cfg.CallbackURL+", "+strings.Join(cfg.Events, " ")), nil
		}}) {
		return
	}
	h.Flash(r, "ok", "Saved the subscription.")
	h.Redirect(w, r, "/settings/webhooks")
}

// RotateSecret asks the API for a new secret and switches the receiver to
// it. spec: "old secret stops verifying at once". While the call is under
// way a delivery that does not verify is answered 503 (the sender retries
// with the new secret) rather than 401 (lost).
func (h *Handler) RotateSecret(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.PostFormValue("confirm") != "yes" {
		v, err := h.settingsView(ctx, nil)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.RotateError = "Tick the box to confirm: the old secret stops working at once."
		if handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
			v.RotateToken = r.PostFormValue(handlers.FormTokenField)
		}
		h.renderSettings(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	if h.API == nil {
		h.refuse(w, r, http.StatusUnprocessableEntity, subscriptionForm{Fields: views.FieldErrors{}}, noAPI)
		return
	}
	if _, ok := handlers.FormKey(r); !ok {
		h.StaleForm(w, r)
		return
	}
	if err := h.Store.MarkSecretRotating(ctx, true); err != nil {
		h.ServerError(w, r, err)
		return
	}
	var secret string
	ok := h.runSettingsWrite(w, r, subscriptionForm{Fields: views.FieldErrors{}}, handlers.Write{Kind: "webhooks.secret.rotate",
		Call: func(ctx context.Context) (handlers.Effect, error) {
			cfg, err := h.API.RotateWebhookSecret(ctx)
			if err != nil {
				return handlers.Effect{}, err
			}
			sealed, err := h.Box.Seal(cfg.SecretKey)
			if err != nil {
				return handlers.Effect{}, err
			}
			secret = cfg.SecretKey
			return h.saved(cfg, sealed, "new secret issued; the old one stopped verifying"), nil
		}})
	if !ok {
		// Saving the new secret clears the mark; without one, the old
		// secret still verifies.
		if err := h.Store.MarkSecretRotating(context.WithoutCancel(ctx), false); err != nil {
			h.Logger.ErrorContext(ctx, "webhook settings: clear rotation mark", "err", err)
		}
		return
	}
	h.showSecret(w, r, http.StatusOK, secret, "rotated")
}

// ReconcileNow queues a reconciliation run.
func (h *Handler) ReconcileNow(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if h.Queue == nil {
		h.ServerError(w, r, errNoQueue)
		return
	}
	err := h.Store.RequestJob(ctx, store.AuditEntry{Actor: handlers.ActorFrom(ctx), Action: "webhooks.reconcile.request",
		Target: "reconciliation", Outcome: store.OutcomeOK, Detail: "run requested"},
		func(ctx context.Context, tx pgx.Tx) error {
			_, err := h.Queue.InsertTx(ctx, tx, ReconcileArgs{}, nil)
			return err
		})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Reconciliation queued; its result appears below in a moment.")
	h.Redirect(w, r, "/settings/webhooks")
}

// isLoopback reports whether host is this machine (the local sandbox may
// deliver over plain HTTP to it).
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// readBackCreate: a subscription that exists upstream was created (by this
// action or before it). Its secret is not readable, so it is kept without
// one and the page asks for a rotation.
func (h *Handler) readBackCreate(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	cfg, err := h.API.GetWebhookConfig(ctx)
	if apiclient.IsNotFound(err) {
		return handlers.Effect{}, false, nil
	}
	if err != nil {
		return handlers.Effect{}, false, err
	}
	return h.saved(cfg, nil, "created; its secret was not received, rotate it to verify deliveries"), true, nil
}

// readBackUpdate: the update took effect when the subscription upstream
// has what was asked.
func (h *Handler) readBackUpdate(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var req apiclient.UpdateWebhookConfigRequest
	if err := a.DecodeRequest(&req); err != nil {
		return handlers.Effect{}, false, err
	}
	cfg, err := h.API.GetWebhookConfig(ctx)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	same := slices.Equal(slices.Sorted(slices.Values(cfg.Events)), slices.Sorted(slices.Values(req.Events))) &&
		(req.CallbackURL == "" || req.CallbackURL == cfg.CallbackURL) && (req.Active == nil || *req.Active == cfg.Active)
	if !same {
		return handlers.Effect{}, false, nil
	}
	return h.saved(cfg, nil, "saved"), true, nil
}
