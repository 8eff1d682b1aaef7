package railsetup

import (
	"net/http"

	"partneradmin/apiclient"
	"partneradmin/views"
)

// USD shows where the treasury's USD account stands and its next step.
func (h *Handler) USD(w http.ResponseWriter, r *http.Request) {
	t, ok := h.load(w, r)
	if !ok {
		return
	}
	h.renderUSD(w, r, t, http.StatusOK, pageOverride{})
}

func (h *Handler) renderUSD(w http.ResponseWriter, r *http.Request, t treasury, status int, o pageOverride) {
	v := h.usdView(h.reads(r, t), t, o)
	v.Start = keptStart(v.Start, o)
	h.Render(w, r, status, "Open the treasury's USD account", views.USDSetupPage(v), nil)
}

func (h *Handler) usdView(rd *reads, t treasury, o pageOverride) views.USDSetupView {
	ctx := rd.ctx
	var v views.USDSetupView
	ws, _, has := walletStep(t, apiclient.USDB)
	v.Steps = append(v.Steps, ws)
	const startTitle, accountTitle = "The USD onboarding", "The USD account"
	if !has {
		v.Steps = append(v.Steps, step("start", startTitle, "later", ""), step("account", accountTitle, "later", ""))
		return v
	}
	va, err := h.api.GetUSDVirtualAccount(ctx, t.user.ServiceUserID)
	status := apiclient.VirtualAccountNone
	switch {
	case err == nil:
		status = va.Status
	case !apiclient.IsNotFound(err):
		h.Logger.WarnContext(ctx, "railsetup: usd: account", "err", err)
		v.Unread = unreadWords("The treasury's USD account", err)
		return v
	}
	funding := func(s views.RailStep) views.RailStep {
		s.Href, s.HrefLabel = "/treasury/funding", "See the account on the funding page"
		return s
	}
	switch status {
	case apiclient.VirtualAccountActive:
		v.Steps = append(v.Steps, step("start", startTitle, "done", "Started."),
			funding(step("account", accountTitle, "done", "Open: dollar transfers to it arrive in the USDB wallet.")))
	case apiclient.VirtualAccountProvisioning, apiclient.VirtualAccountPending:
		v.Steps = append(v.Steps, step("start", startTitle, "done", "Started."),
			funding(step("account", accountTitle, "waiting", "The bank is opening the account; this takes a while and needs nothing from you.")))
	case apiclient.VirtualAccountRejected:
		words := "The bank rejected the account; it cannot be asked for again."
		if va != nil && va.Reason != nil {
			words = "The bank rejected the account (" + *va.Reason + "); it cannot be asked for again."
		}
		v.Steps = append(v.Steps, step("start", startTitle, "blocked", words), step("account", accountTitle, "later", ""))
	default:
		words := "Not started. Starting it activates the treasury's identity check for USD, then asks the bank for an account paying into the USDB wallet."
		if status == apiclient.VirtualAccountFailed {
			words = "The last attempt failed; it can be started again."
		}
		v.Steps = append(v.Steps, step("start", startTitle, "next", words), step("account", accountTitle, "later", ""))
		f := o.start
		if f == nil {
			sf := h.startForm(railUSD)
			f = &sf
		}
		v.Start = f
	}
	return v
}
