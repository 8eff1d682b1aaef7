package railsetup

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// userRequest is what the ledger keeps of a write on the treasury user.
type userRequest struct {
	UserID string `json:"userId"`
}

// MXNKYC activates the treasury's Mexico KYC (POST /latam/mx/kyc/activate),
// once per form: the step before the provider's hosted verification.
func (h *Handler) MXNKYC(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	t, ok := h.load(w, r)
	if !ok {
		return
	}
	if _, ok := t.wallet(apiclient.MEXe); !ok {
		h.renderMXN(w, r, t, http.StatusConflict, pageOverride{kycError: "The treasury has no MXN (MEXe) wallet. Nothing was sent."})
		return
	}
	q := userRequest{UserID: t.user.ServiceUserID}
	var res *apiclient.MexicoKYCActivation
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindMexicoKYC, Target: "user:" + q.UserID, Actor: handlers.ActorFrom(ctx), Request: q,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			out, err := h.api.ActivateMexicoKYC(ctx, q.UserID)
			if err != nil {
				return handlers.Effect{}, err
			}
			res = out
			return mexicoKYCEffect(q, out.Status), nil
		}})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, railMXN.Page)
		return
	case done.State() == store.ActionDone:
		// spec rule 2: "If uploaded.selfie or uploaded.document is false,
		// upload the missing file and activate again."
		if res != nil && (!res.Uploaded.Selfie || !res.Uploaded.Document) {
			missing := "selfie"
			if !res.Uploaded.Document {
				missing = "identity document"
			}
			h.Flash(r, "warn", "The provider has no JPEG or PNG "+missing+" for the treasury, so its identity check cannot go on. "+
				"The treasury's KYC documents are given with the Partner API's onboarding; once the file is there, activate again.")
		} else {
			h.Flash(r, "ok", "The Mexican identity check was activated. Next: the provider's verification.")
		}
		h.Redirect(w, r, railMXN.Page)
		return
	case done.State() != store.ActionRefused:
		h.Flash(r, "warn", "The Partner API did not confirm the activation; the app keeps checking and this page shows the outcome. "+done.Problem.Summary)
		h.Redirect(w, r, railMXN.Page)
		return
	}
	h.renderMXN(w, r, t, http.StatusBadGateway, pageOverride{kycError: done.Problem.Summary})
}

func mexicoKYCEffect(q userRequest, status string) handlers.Effect {
	return handlers.Effect{Target: "user:" + q.UserID, Result: map[string]string{"status": status},
		Detail: "treasury Mexico KYC activated; the API says " + status}
}

// readBackMexicoKYC: a Mexico KYC status the API reports means the
// activation was recorded.
func (h *Handler) readBackMexicoKYC(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var q userRequest
	if err := a.DecodeRequest(&q); err != nil {
		return handlers.Effect{}, false, err
	}
	st, err := h.api.GetMexicoKYCStatus(ctx, q.UserID)
	if apiclient.IsNotFound(err) {
		return handlers.Effect{}, false, nil
	}
	if err != nil {
		return handlers.Effect{}, false, err
	}
	return mexicoKYCEffect(q, st.Status), true, nil
}

// MXNLaunch fetches the provider's launch payload at the moment of use
// (spec rule 3: "Fetch at the moment of use and call again for a fresh one
// without limit"; never stored) and shows the form that posts it to the
// provider, with the time left before its assertion expires.
func (h *Handler) MXNLaunch(w http.ResponseWriter, r *http.Request) {
	t, ok := h.load(w, r)
	if !ok {
		return
	}
	fetched := h.clock()
	p, err := h.api.GetMexicoAgreementsLaunch(readCtx(r), t.user.ServiceUserID)
	if err != nil {
		pr, status := apiclient.Explain(err), http.StatusBadGateway
		if pr.Status >= 400 && pr.Status < 500 {
			status = http.StatusConflict
		}
		h.ErrorPage(w, r, status, "The provider's verification could not be opened", pr.Summary)
		return
	}
	origin, ok := launchOrigin(p.URL)
	if !ok || !strings.EqualFold(p.Method, http.MethodPost) {
		h.ErrorPage(w, r, http.StatusBadGateway, "The provider's verification could not be opened",
			"The Partner API's launch payload is not a form post to an https address, so it was not opened.")
		return
	}
	// The page posts to the provider: this response alone allows it.
	w.Header().Set("Content-Security-Policy", strings.Replace(w.Header().Get("Content-Security-Policy"),
		"form-action 'self'", "form-action 'self' "+origin, 1))
	w.Header().Set("Cache-Control", "no-store")
	v := views.RailLaunchView{URL: p.URL, GrantType: p.Fields.GrantType, Assertion: p.Fields.Assertion, Target: p.Fields.Target,
		FetchedAt: fetched, ExpiresAt: p.ExpiresAt, Sandbox: h.sandbox}
	h.Render(w, r, http.StatusOK, "The provider's verification", views.RailLaunchPage(v), nil)
}

// launchOrigin is the origin of an https launch address.
func launchOrigin(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || strings.ContainsAny(u.Host, " \"';") {
		return "", false
	}
	return "https://" + u.Host, true
}
