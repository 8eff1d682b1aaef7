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

func (h *Handler) mxnView(rd *reads, t treasury, o pageOverride) views.MXNSetupView {
	ctx := rd.ctx
	v := views.MXNSetupView{Sandbox: h.sandbox}
	ws, _, has := walletStep(t, apiclient.MEXe)
	v.Steps = append(v.Steps, ws)
	const (
		startTitle  = "The Mexican onboarding"
		kycTitle    = "The Mexican identity check"
		verifyTitle = "The provider's verification and decision"
		clabeTitle  = "The treasury's CLABE"
	)
	later := func(keys ...string) {
		titles := map[string]string{"start": startTitle, "kyc": kycTitle, "verify": verifyTitle, "clabe": clabeTitle}
		for _, k := range keys {
			v.Steps = append(v.Steps, step(k, titles[k], "later", ""))
		}
	}
	if !has {
		later("start", "kyc", "verify", "clabe")
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
		v.Steps = append(v.Steps, step("start", startTitle, "next",
			"Not started. Starting it activates the treasury's identity check for MXN, then registers the MEXe wallet for the Mexican rail."))
		f := o.start
		if f == nil {
			sf := h.startForm(railMXN)
			f = &sf
		}
		v.Start = f
		later("kyc", "verify", "clabe")
		return v
	}
	v.Steps = append(v.Steps, step("start", startTitle, "done", "Started with the MEXe wallet."))
	kyc, err := h.api.GetMexicoKYCStatus(ctx, t.user.ServiceUserID)
	if apiclient.IsNotFound(err) {
		v.Steps = append(v.Steps, step("kyc", kycTitle, "next",
			"Not activated. Activating it sends the treasury's identity documents (JPEG or PNG) and its RFC to the provider."))
		v.KYCToken, v.KYCError = handlers.NewFormToken(), o.kycError
		later("verify", "clabe")
		return v
	}
	if err != nil {
		h.Logger.WarnContext(ctx, "railsetup: mxn: kyc status", "err", err)
		v.Unread = unreadWords("The Mexican identity check", err)
		return v
	}
	v.Steps = append(v.Steps, step("kyc", kycTitle, "done", "Activated."))
	switch kyc.Status {
	case apiclient.MexicoKYCProposed:
		v.Steps = append(v.Steps, step("verify", verifyTitle, "next",
			"Open the provider's verification and complete it; the provider then decides, and this page shows its decision."))
		v.Launch = true
		later("clabe")
		return v
	case apiclient.MexicoKYCBankVerificationRequired:
		v.Steps = append(v.Steps, step("verify", verifyTitle, "waiting",
			"The provider asks for a bank identity verification (an earlier flow). Open its verification again and complete it."))
		v.Launch = true
		later("clabe")
		return v
	case apiclient.MexicoKYCRejected:
		v.Steps = append(v.Steps, step("verify", verifyTitle, "blocked",
			"The provider rejected the treasury's verification: pesos cannot be paid out from it. Ask the Partner API's support why."))
		later("clabe")
		return v
	case apiclient.MexicoKYCApproved, apiclient.MexicoKYCApprovedChainDeploying:
		words := "Approved."
		if kyc.Status == apiclient.MexicoKYCApprovedChainDeploying {
			words = "Approved; the provider is finishing its setup on the chain."
		}
		v.Steps = append(v.Steps, step("verify", verifyTitle, "done", words))
	default:
		v.Steps = append(v.Steps, step("verify", verifyTitle, "waiting", "The provider has not decided yet."))
		later("clabe")
		return v
	}
	// spec: the MXN deposit account "appears only once Mexico KYC is
	// approved".
	accounts, err := h.api.GetDepositAccounts(ctx, t.user.ServiceUserID, apiclient.MXN)
	if err != nil && !apiclient.IsNotFound(err) {
		h.Logger.WarnContext(ctx, "railsetup: mxn: deposit accounts", "err", err)
		v.Unread = unreadWords("The treasury's CLABE", err)
		return v
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
		v.Steps = append(v.Steps, step("clabe", clabeTitle, "done", "Pesos sent by SPEI to the CLABE below arrive as MEXe; payouts go to the bank account the provider registered."))
		v.Ready = true
	} else {
		v.Steps = append(v.Steps, step("clabe", clabeTitle, "waiting", "The provider opens the CLABE shortly after approval; this page shows it then."))
	}
	return v
}
