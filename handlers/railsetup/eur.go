package railsetup

import (
	"net/http"
	"net/url"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// pageOverride is what a post puts on a task page drawn again: its form with
// the messages, or the QR code it issued.
type pageOverride struct {
	start     *views.TreasuryRailStart
	authorize *views.EURAuthorizeForm
	sign      *views.SignPanel
	kycError  string
}

// keptStart is the start form a page shows: a posted form drawn again is
// shown even when the page's reads failed, so what was typed and why it was
// not sent stay on the page.
func keptStart(drawn *views.TreasuryRailStart, o pageOverride) *views.TreasuryRailStart {
	if drawn == nil {
		return o.start
	}
	return drawn
}

// renderRail draws a rail's task page.
func (h *Handler) renderRail(w http.ResponseWriter, r *http.Request, t treasury, rl rail, status int, o pageOverride) {
	switch rl.Currency {
	case apiclient.EUR:
		h.renderEUR(w, r, t, status, o)
	case apiclient.MXN:
		h.renderMXN(w, r, t, status, o)
	default:
		h.renderUSD(w, r, t, status, o)
	}
}

// EUR shows where the EUR provider stands and its next step.
func (h *Handler) EUR(w http.ResponseWriter, r *http.Request) {
	t, ok := h.load(w, r)
	if !ok {
		return
	}
	h.renderEUR(w, r, t, http.StatusOK, pageOverride{})
}

func (h *Handler) renderEUR(w http.ResponseWriter, r *http.Request, t treasury, status int, o pageOverride) {
	v, shown := h.eurView(h.reads(r, t), t, o)
	v.Start = keptStart(v.Start, o)
	if h.Unchanged(w, r, handlers.IsFragmentRequest(r) && r.URL.Query().Get("v") == shown) {
		return
	}
	if shown == "pending" || v.Unread != "" {
		v.PollURL = railEUR.Page + "?v=" + url.QueryEscape(shown)
	}
	h.Render(w, r, status, "Set up EUR SEPA payouts", views.EURSetupPage(v), views.EURSetupLive(v))
}

// walletStep is a task page's first step: the rail's wallet.
func walletStep(t treasury, coin apiclient.Stablecoin) (views.RailStep, store.Wallet, bool) {
	title := "An " + coinWords(coin) + " wallet"
	wallet, ok := t.wallet(coin)
	if ok {
		s := step("wallet", title, "done", "The treasury has it; its owner key is")
		s.Code = wallet.OwnerAddress
		return s, wallet, true
	}
	words := "The treasury has no " + coinWords(coin) + " wallet yet. Add one on the treasury page: choose " + string(coin) +
		" and give the owner key's address; the owner's phone then signs to prove it holds the key."
	s := step("wallet", title, "next", words)
	for _, w := range t.wallets {
		if w.OwnerAddress != "" {
			s.Words += " The key that owns the treasury's other wallets is"
			s.Code = w.OwnerAddress
			break
		}
	}
	s.Href, s.HrefLabel = "/treasury#new-wallet", "Add the "+string(coin)+" wallet"
	return s, store.Wallet{}, false
}

// eurView is the EUR page, and the provider's state it shows ("unread"
// when it could not be read, "" before the wallet exists).
func (h *Handler) eurView(rd *reads, t treasury, o pageOverride) (views.EURSetupView, string) {
	var v views.EURSetupView
	ws, _, has := walletStep(t, apiclient.EURe)
	v.Steps = append(v.Steps, ws)
	startTitle, authTitle := "The EUR provider's onboarding", "The provider's authorization, signed on the owner's phone"
	if !has {
		v.Steps = append(v.Steps, step("start", startTitle, "later", ""), step("authorize", authTitle, "later", ""))
		return v, ""
	}
	st, err := rd.onboarding()
	if err != nil {
		h.Logger.WarnContext(rd.ctx, "railsetup: eur: onboarding status", "err", err)
		v.Unread = unreadWords("Where the EUR provider stands", err)
		return v, "unread"
	}
	switch st.EURProviderStatus {
	case "active":
		v.Steps = append(v.Steps, step("start", startTitle, "done", "Started."),
			step("authorize", authTitle, "done", "The provider is active: SEPA payouts can be sent."))
		v.Ready = true
	case "pending":
		v.Steps = append(v.Steps, step("start", startTitle, "done", "Started: the provider waits for its authorization."),
			step("authorize", authTitle, "next", "Type the code the EUR provider gave, then have the wallet owner scan the QR code with their phone."))
		if o.sign != nil {
			v.Sign = o.sign
			break
		}
		f := o.authorize
		if f == nil {
			f = &views.EURAuthorizeForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}}
		}
		if h.sandbox {
			f.SandboxCodes = []string{"SANDBOX-EUR-1", "demo-authorization-2026"}
		}
		v.Authorize = f
	default:
		words := "Not started. Starting it activates the treasury's identity check for EUR, then asks the provider to onboard the EURe wallet."
		if st.EURProviderStatus == "failed" {
			words = "The provider refused the last onboarding. It can be started again."
		}
		v.Steps = append(v.Steps, step("start", startTitle, "next", words), step("authorize", authTitle, "later", ""))
		f := o.start
		if f == nil {
			sf := h.startForm(railEUR)
			f = &sf
		}
		v.Start = f
	}
	return v, st.EURProviderStatus
}
