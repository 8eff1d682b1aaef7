package railsetup

import (
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/views"
)

// MXN shows where the Mexican offramp's onboarding stands and its next
// step.
func (h *Handler) MXN(w http.ResponseWriter, r *http.Request) {
	t, ok := h.load(w, r)
	if !ok {
		return
	}
	h.renderMXN(w, r, t, http.StatusOK, pageOverride{})
}

func (h *Handler) renderMXN(w http.ResponseWriter, r *http.Request, t treasury, status int, o pageOverride) {
	v := h.mxnView(h.reads(r, t), t, o)
	v.Start = keptStart(v.Start, o)
	h.Render(w, r, status, "Set up the Mexican offramp", views.MXNSetupPage(v), nil)
}

// The Mexican page's step titles.
const (
	mxnStartTitle  = "The Mexican onboarding"
	mxnKYCTitle    = "The Mexican identity check"
	mxnVerifyTitle = "The provider's verification and decision"
	mxnCLABETitle  = "The treasury's CLABE"
)

// mxnLater appends the steps not reached yet.
func mxnLater(v *views.MXNSetupView, keys ...string) {
	titles := map[string]string{"start": mxnStartTitle, "kyc": mxnKYCTitle, "verify": mxnVerifyTitle, "clabe": mxnCLABETitle}
	for _, k := range keys {
		v.Steps = append(v.Steps, step(k, titles[k], "later", ""))
	}
}

func (h *Handler) mxnView(rd *reads, t treasury, o pageOverride) views.MXNSetupView {
	ctx := rd.ctx
	v := views.MXNSetupView{Sandbox: h.sandbox}
	ws, _, has := walletStep(t, apiclient.MEXe)
	v.Steps = append(v.Steps, ws)
	if !has {
		mxnLater(&v, "start", "kyc", "verify", "clabe")
		return v
	}
	st, err := rd.onboarding()
	if err != nil {
		h.Logger.WarnContext(ctx, "railsetup: mxn: onboarding status", "err", err)
		v.Unread = unreadWords("Where the Mexican onboarding stands", err)
		return v
	}
	switch strings.ToLower(st.Currencies[apiclient.MXN].Status) {
	case "", "none", "not_started", "failed":
		v.Steps = append(v.Steps, step("start", mxnStartTitle, "next",
			"Not started. Starting it activates the treasury's identity check for MXN, then registers the MEXe wallet for the Mexican rail."))
		v.Start = o.start
		if v.Start == nil {
			sf := h.startForm(railMXN)
			v.Start = &sf
		}
		mxnLater(&v, "kyc", "verify", "clabe")
		return v
	}
	v.Steps = append(v.Steps, step("start", mxnStartTitle, "done", "Started with the MEXe wallet."))
	kyc, err := h.api.GetMexicoKYCStatus(ctx, t.user.ServiceUserID)
	if apiclient.IsNotFound(err) {
		v.Steps = append(v.Steps, step("kyc", mxnKYCTitle, "next",
			"Not activated. Activating it sends the treasury's identity documents (JPEG or PNG) and its RFC to the provider."))
		v.KYCToken, v.KYCError = handlers.NewFormToken(), o.kycError
		mxnLater(&v, "verify", "clabe")
		return v
	}
	if err != nil {
		h.Logger.WarnContext(ctx, "railsetup: mxn: kyc status", "err", err)
		v.Unread = unreadWords("The Mexican identity check", err)
		return v
	}
	v.Steps = append(v.Steps, step("kyc", mxnKYCTitle, "done", "Activated."))
	if !mxnVerifyStep(&v, kyc.Status) {
		mxnLater(&v, "clabe")
		return v
	}
	h.mxnCLABEStep(rd, t, &v)
	return v
}

// mxnVerifyStep appends the provider's verification and decision, and
// reports whether it approved.
func mxnVerifyStep(v *views.MXNSetupView, status string) bool {
	switch status {
	case apiclient.MexicoKYCProposed:
		v.Steps = append(v.Steps, step("verify", mxnVerifyTitle, "next",
			"Open the provider's verification and complete it; the provider then decides, and this page shows its decision."))
		v.Launch = true
	case apiclient.MexicoKYCBankVerificationRequired:
		v.Steps = append(v.Steps, step("verify", mxnVerifyTitle, "waiting",
			"The provider asks for a bank identity verification (an earlier flow). Open its verification again and complete it."))
		v.Launch = true
	case apiclient.MexicoKYCRejected:
		v.Steps = append(v.Steps, step("verify", mxnVerifyTitle, "blocked",
			"The provider rejected the treasury's verification: pesos cannot be paid out from it. Ask the Partner API's support why."))
	case apiclient.MexicoKYCApproved:
		v.Steps = append(v.Steps, step("verify", mxnVerifyTitle, "done", "Approved."))
		return true
	case apiclient.MexicoKYCApprovedChainDeploying:
		v.Steps = append(v.Steps, step("verify", mxnVerifyTitle, "done", "Approved; the provider is finishing its setup on the chain."))
		return true
	default:
		v.Steps = append(v.Steps, step("verify", mxnVerifyTitle, "waiting", "The provider has not decided yet."))
	}
	return false
}

// mxnCLABEStep appends the treasury's CLABE. spec: the MXN deposit account
// "appears only once Mexico KYC is approved".
func (h *Handler) mxnCLABEStep(rd *reads, t treasury, v *views.MXNSetupView) {
	accounts, err := h.api.GetDepositAccounts(rd.ctx, t.user.ServiceUserID, apiclient.MXN)
	if err != nil && !apiclient.IsNotFound(err) {
		h.Logger.WarnContext(rd.ctx, "railsetup: mxn: deposit accounts", "err", err)
		v.Unread = unreadWords("The treasury's CLABE", err)
		return
	}
	active := false
	for _, a := range accounts {
		c := views.CLABEView{CLABE: a.Clabe, Bank: a.BankName, Name: a.AccountName, Active: a.Status == "active"}
		c.State = "receives SPEI transfers"
		if !c.Active {
			c.State = "not active yet"
		}
		active = active || c.Active
		v.CLABEs = append(v.CLABEs, c)
	}
	if active {
		v.Steps = append(v.Steps, step("clabe", mxnCLABETitle, "done", "Pesos sent by SPEI to the CLABE below arrive as MEXe; payouts go to the bank account the provider registered."))
		v.Ready = true
	} else {
		v.Steps = append(v.Steps, step("clabe", mxnCLABETitle, "waiting", "The provider opens the CLABE shortly after approval; this page shows it then."))
	}
}
