package railsetup

import (
	"context"
	"errors"
	"net/http"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/onboard"
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
	p, err := onboard.MexicoLaunch(readCtx(r), w, h.api, t.user.ServiceUserID)
	var no onboard.LaunchRefused
	if errors.As(err, &no) {
		h.ErrorPage(w, r, no.Status, "The provider's verification could not be opened", no.Words)
		return
	}
	v := views.RailLaunchView{URL: p.URL, GrantType: p.Fields.GrantType, Assertion: p.Fields.Assertion, Target: p.Fields.Target,
		FetchedAt: fetched, ExpiresAt: p.ExpiresAt, Sandbox: h.sandbox}
	h.Render(w, r, http.StatusOK, "The provider's verification", views.RailLaunchPage(v), nil)
}
