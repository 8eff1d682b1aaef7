package moneyout

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/destination"
	"partneradmin/store"
	"partneradmin/views"
)

// A EUR SEPA payout (spec: "EUR SEPA") sends euros from the treasury's
// EURe wallet to an IBAN. It needs the treasury user's EUR provider
// onboarding (eurProviderStatus active; started at /treasury/rails/eur),
// then: prepare (POST /eu/orders/prepare, one action under the
// form's token) answers with a signatureRequest, which goes to the owner's
// device as a QR code; the device's signature is relayed once by the sign
// area through /wallets/submit-signature, which completes the order (spec:
// it "completes payouts, orders and withdrawals that return a
// signatureRequest"; the sandbox's complete path answers 409 for a
// workflow already signed that way). The order page follows the order to
// completed or failed.
//
// The API cannot list EUR orders, so a prepare whose answer was lost
// cannot be read back: it stays unknown, and nothing moves without the
// owner's signature; an unsigned order expires by itself.

const (
	kindSEPAPrepare = "sepa_payout.prepare"
	sepaTitle       = "EUR SEPA payout"
	sepaCoin        = "EURe"
	// Field limits of the prepare body (apiclient.EUROrderRequest; the
	// sandbox's: a SEPA name has at most 70 characters and its remittance
	// information 140).
	sepaMaxBeneficiary = 70
	sepaMaxReference   = 140
)

// sepaRequest is what a prepare asks, as the ledger keeps it: never the
// whole IBAN (only its country and last four).
type sepaRequest struct {
	ID          int64           `json:"id"`
	UserID      string          `json:"userId"`
	WalletID    string          `json:"walletId"`
	Amount      decimal.Decimal `json:"amount"`
	IBANMasked  string          `json:"ibanMasked"`
	Beneficiary string          `json:"beneficiaryName"`
	Reference   string          `json:"reference,omitempty"`
}

func sepaTarget(id int64) string { return "sepa_payout:" + strconv.FormatInt(id, 10) }

func sepaPage(id int64) string { return "/money-out/sepa/" + strconv.FormatInt(id, 10) }

// registerSEPA adds the rail to the index and sets up its signing links.
// The prepare has no read-back (the API lists no EUR orders); the EUR
// provider is set up on the rails' set-up page (handlers/railsetup).
func (h *Handler) registerSEPA(handlers.Deps) {
	h.sepaLinks = h.sepaSignLinks()
	h.rail(views.Rail{Name: "EUR SEPA payout", Href: "/money-out/sepa",
		Description: "Euros from the treasury's EURe wallet to a bank account in the SEPA area, by IBAN; signed on the owner's device."})
}

// sepaState is what the SEPA page needs of the treasury.
type sepaState struct {
	user   store.Employee
	wallet store.Wallet
	has    bool
}

func (h *Handler) sepaLoad(ctx context.Context) (sepaState, error) {
	u, wallets, err := h.treasuryUser(ctx)
	if err != nil {
		return sepaState{}, err
	}
	w, ok := sepaMXNWallet(wallets, sepaCoin)
	return sepaState{user: u, wallet: w, has: ok}, nil
}

// sepaProvider reads the treasury user's EUR provider onboarding now.
func (h *Handler) sepaProvider(ctx context.Context, s sepaState) views.SEPAProvider {
	st, err := h.api.GetOnboardingStatus(ctx, s.user.ServiceUserID)
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: sepa: onboarding status", "err", err)
		return views.SEPAProvider{Unread: true, Words: "The EUR provider's state could not be read: " + sepaMXNReadFailed(err) +
			" Nothing can be sent until it is known to be active. Reload the page to try again."}
	}
	p := views.SEPAProvider{Status: st.EURProviderStatus}
	switch st.EURProviderStatus {
	case "active":
		p.Ready, p.Words = true, "The treasury's EUR provider is active: SEPA payouts can be sent."
	case "pending":
		p.Words = "EUR provider onboarding was started and waits for the provider's authorization (POST /eu/kyc, signed with the EURe wallet's owner key). SEPA payouts can be sent once it is active."
	case "failed":
		p.Words = "EUR provider onboarding failed, so no SEPA payout can be sent until it is started again."
	default:
		p.Words = "The treasury's EUR provider is not set up, so no SEPA payout can be sent yet."
	}
	return p
}

func (h *Handler) renderSEPA(w http.ResponseWriter, r *http.Request, s sepaState, status int, f views.SEPAPayoutForm, rv *views.SEPAPayoutReview, msg string, provider *views.SEPAProvider) {
	v := views.SEPAPayoutView{Form: f, Review: rv, Error: msg}
	if s.has {
		v.Wallet = &views.SepaMXNWallet{ID: s.wallet.ID, Label: sepaMXNWalletLabel(s.wallet), Balance: sepaMXNBalance(s.wallet)}
		if provider != nil {
			v.Provider = *provider
		} else {
			ctx := r.Context()
			if r.Method != http.MethodGet {
				ctx = apiclient.WithReadDeadline(ctx, time.Now().Add(sepaMXNReadBudget))
			}
			v.Provider = h.sepaProvider(ctx, s)
		}
	}
	book, err := h.bookPicker(r.Context(), "f-destination_id", store.DestIBAN, "", f.Book.Chosen)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Form.Book, v.Form.Book.Error = book, f.Fields.Get("destination_id")
	v.Problems = views.Problems(f.Fields, views.Prefixed("f-"), "wallet", "amount", "destination_id", "iban", "beneficiary", "reference")
	recent, err := h.sepaMXNRecent(r.Context(), store.RailSEPA)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Recent = recent
	h.Render(w, r, status, sepaTitle, views.SEPAPayoutPage(v), nil)
}

// SEPAForm shows the payout form, or what is missing before one can be
// sent.
func (h *Handler) SEPAForm(w http.ResponseWriter, r *http.Request) {
	s, err := h.sepaLoad(r.Context())
	if err != nil && !errors.Is(err, errNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	// Nothing is taken from the query: an IBAN has no place in a URL.
	f := views.SEPAPayoutForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}}
	h.renderSEPA(w, r, s, http.StatusOK, f, nil, "", nil)
}

// sepaInput is the posted form as read by sepaCheck: every field checked
// before anything is sent, the messages at the fields.
type sepaInput struct {
	amount      handlers.ParsedAmount
	iban        string
	beneficiary string
	reference   string
}

func (h *Handler) sepaCheck(s sepaState, f *views.SEPAPayoutForm) sepaInput {
	var in sepaInput
	var msg string
	if !s.has {
		f.Fields["wallet"] = "The treasury has no EUR (EURe) wallet."
	}
	if in.amount, msg = handlers.ParseAmount(f.Amount, 2); msg != "" {
		f.Fields["amount"] = msg
	} else if s.has && s.wallet.Balance.Valid && in.amount.Value.GreaterThan(s.wallet.Balance.Decimal) {
		f.Fields["amount"] = "More than the wallet holds (" + sepaMXNBalance(s.wallet) + ", last read)."
	}
	in.iban, msg = destination.IBAN(f.IBAN)
	if msg != "" {
		f.Fields["iban"] = msg
	}
	in.beneficiary = strings.TrimSpace(f.Beneficiary)
	switch {
	case handlers.CheckText(f.Beneficiary, sepaMaxBeneficiary, false) != "":
		f.Fields["beneficiary"] = handlers.CheckText(f.Beneficiary, sepaMaxBeneficiary, false)
	case in.beneficiary == "":
		f.Fields["beneficiary"] = "Enter the beneficiary's name, as their bank holds it."
	}
	in.reference = strings.TrimSpace(f.Reference)
	if m := handlers.CheckText(f.Reference, sepaMaxReference, false); m != "" {
		f.Fields["reference"] = m
	}
	return in
}

// SEPAPost checks the form, shows it for review, and on confirmation
// prepares the order once under the form's token and hands its
// signatureRequest to the owner's device.
func (h *Handler) SEPAPost(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := h.sepaLoad(ctx)
	if err != nil && !errors.Is(err, errNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	f := views.SEPAPayoutForm{Token: r.PostFormValue(handlers.FormTokenField), Amount: r.PostFormValue("amount"),
		IBAN: r.PostFormValue("iban"), Beneficiary: r.PostFormValue("beneficiary"), Reference: r.PostFormValue("reference"),
		Fields: views.FieldErrors{}, Posted: true}
	if !handlers.ValidFormToken(f.Token) {
		h.StaleForm(w, r)
		return
	}
	picked, msg, err := h.bookChosen(ctx, r, store.DestIBAN)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if picked != nil {
		f.Book.Chosen = strconv.FormatInt(picked.ID, 10)
		msg = fromBook(&f.IBAN, picked.Value)
	}
	in := h.sepaCheck(s, &f)
	if msg != "" {
		f.Fields["destination_id"] = msg
	}
	if !f.Fields.Any() {
		// The book first: nothing is asked of the API for an IBAN money
		// may not go to.
		refused, err := h.bookRefusal(ctx, store.DestinationKey(store.DestIBAN, "", in.iban))
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if refused != nil {
			h.renderSEPA(w, r, s, http.StatusUnprocessableEntity, f, nil, refusedAt(f.Fields, refused, "iban", "amount"), nil)
			return
		}
	}
	rctx := apiclient.WithReadDeadline(ctx, time.Now().Add(sepaMXNReadBudget))
	if f.Fields.Any() {
		h.renderSEPA(w, r, s, http.StatusUnprocessableEntity, f, nil, "", nil)
		return
	}
	// The provider must be active, read now: a payout is not prepared
	// against a state that may have changed.
	provider := h.sepaProvider(rctx, s)
	if !provider.Ready {
		// The form is drawn again only when the provider's state could
		// not be read (what was typed is kept, to send again); for a
		// provider read as not active it comes back once it is.
		msg := "Nothing was sent: the EUR provider is not active. The payout form comes back once it is."
		if provider.Unread {
			msg = "Nothing was sent: the EUR provider's state could not be read, and a payout is sent only to an active one. What you typed is below: send it again in a moment."
		}
		h.renderSEPA(w, r, s, http.StatusConflict, f, nil, msg, &provider)
		return
	}
	if r.PostFormValue("edit") != "" {
		h.renderSEPA(w, r, s, http.StatusOK, f, nil, "", &provider)
		return
	}
	if r.PostFormValue("confirm") == "" {
		rv := views.SEPAPayoutReview{From: sepaMXNWalletLabel(s.wallet), Amount: sepaMXNMoney(in.amount.Value, sepaCoin).String(),
			Understood: in.amount.Understood, IBAN: destination.GroupIBAN(in.iban), Beneficiary: in.beneficiary, Reference: in.reference}
		h.renderSEPA(w, r, s, http.StatusOK, f, &rv, "", &provider)
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	id, err := h.store.ReserveSepaMXNOrderID(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	q := sepaRequest{ID: id, UserID: s.user.ServiceUserID, WalletID: s.wallet.ID, Amount: in.amount.Value,
		IBANMasked: destination.MaskIBAN(in.iban), Beneficiary: in.beneficiary, Reference: in.reference}
	actor := handlers.ActorFrom(ctx)
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindSEPAPrepare, Target: sepaTarget(id), Actor: actor, Request: q,
		Spend: h.spend(ctx, s.wallet, in.amount.Value, store.DestinationKey(store.DestIBAN, "", in.iban)), Call: func(ctx context.Context) (handlers.Effect, error) {
			o, err := h.api.PrepareEUROrder(ctx, q.UserID, apiclient.EUROrderRequest{SmartWalletID: q.WalletID, Amount: q.Amount,
				IBAN: in.iban, BeneficiaryName: q.Beneficiary, Reference: q.Reference})
			if err != nil {
				return handlers.Effect{}, err
			}
			return sepaPrepared(key, q, *o, actor), nil
		}})
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		h.renderSEPA(w, r, s, http.StatusUnprocessableEntity, f, nil, refusedAt(f.Fields, refused, "iban", "amount"), &provider)
		return
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, sepaPage(sepaIDOf(done.Action)))
		return
	case done.State() == store.ActionDone:
		o, err := h.store.SepaMXNOrderByID(ctx, store.RailSEPA, id)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if o.WorkflowID == "" {
			h.sepaShow(w, r, o, http.StatusCreated, "The API prepared the order without asking for a signature.", nil, "")
			return
		}
		h.sepaLinks.Issue(w, r, o, http.StatusCreated)
		return
	}
	// Refused, or not known: the form again with everything typed and a new
	// token, since this one is spent.
	f.Token = handlers.NewFormToken()
	if done.State() != store.ActionRefused {
		h.renderSEPA(w, r, s, http.StatusBadGateway, f, nil, done.Action.Message+" "+sepaUnsignedExpires, &provider)
		return
	}
	for apiField, m := range done.Problem.Fields {
		if field := sepaField(apiField); field != "" {
			f.Fields[field] = m
		}
	}
	status := http.StatusBadGateway
	if f.Fields.Any() {
		status = http.StatusUnprocessableEntity
	}
	h.renderSEPA(w, r, s, status, f, nil, done.Problem.Summary, &provider)
}

// sepaUnsignedExpires is what a person should know of a prepare whose
// outcome is not known.
const sepaUnsignedExpires = "Nothing moves without the owner's signature, and an unsigned order expires by itself: if you still want the payout, send it again."

// sepaField is the form's field of a request field the API named.
func sepaField(apiField string) string {
	switch apiField {
	case "amount":
		return "amount"
	case "iban":
		return "iban"
	case "beneficiaryName":
		return "beneficiary"
	case "reference":
		return "reference"
	case "smartWalletId":
		return "wallet"
	}
	return ""
}

// sepaIDOf is the order id an action of this kind names.
func sepaIDOf(a store.Action) int64 {
	id, _ := strconv.ParseInt(strings.TrimPrefix(a.Target, "sepa_payout:"), 10, 64)
	return id
}

// sepaPrepared records the order the API prepared, in the transaction that
// finishes its action.
func sepaPrepared(key string, q sepaRequest, o apiclient.EUROrder, by store.Actor) handlers.Effect {
	rec := store.SepaMXNOrder{ID: q.ID, Rail: store.RailSEPA, ActionKey: key, UpstreamID: o.OrderID, UserID: q.UserID,
		WalletID: q.WalletID, Currency: sepaCoin, Amount: q.Amount, Beneficiary: q.Beneficiary, IBANMasked: q.IBANMasked,
		Reference: q.Reference, Status: o.Status, CreatedByStaffID: by.StaffID, CreatedBy: by.Email}
	detail := fmt.Sprintf("SEPA payout of %s EURe from wallet %s to %s (%s): order %s prepared", q.Amount, q.WalletID,
		q.IBANMasked, q.Beneficiary, o.OrderID)
	if sr := o.SignatureRequest; sr != nil {
		rec.WorkflowID, rec.HashToSign = sr.WorkflowID, sr.HashToSign
		if !sr.Deadline.IsZero() {
			d := sr.Deadline
			rec.Deadline = &d
		}
		detail += ", awaiting the owner's signature (workflow " + sr.WorkflowID + ")"
	}
	return handlers.Effect{Target: sepaTarget(q.ID), Detail: detail, Result: map[string]string{"orderId": o.OrderID, "status": o.Status},
		Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.InsertSepaMXNOrder(ctx, rec)
			return err
		}}
}

// sepaWhat is the line the device shows.
func sepaWhat(o store.SepaMXNOrder) string {
	return "EUR SEPA payout of " + sepaMXNMoney(o.Amount, sepaCoin).String() + " to " + o.Beneficiary + ", IBAN " + o.IBANMasked
}

// sepaSignLinks issues an order's signing links.
func (h *Handler) sepaSignLinks() *handlers.SignLinks[store.SepaMXNOrder] {
	return &handlers.SignLinks[store.SepaMXNOrder]{Base: h.Base, Sign: h.sign, LogMessage: "moneyout: sepa: issue the signing link",
		Failed: "The order was prepared, but its signing link could not be issued. Try \"Issue a new signing link\".",
		Load: func(ctx context.Context, id int64) (store.SepaMXNOrder, error) {
			return h.store.SepaMXNOrderByID(ctx, store.RailSEPA, id)
		},
		Check: handlers.CheckOneSignRequest(h.store, func(o store.SepaMXNOrder) int64 { return o.SignRequestID }, h.sepaCannotIssue),
		Signature: func(o store.SepaMXNOrder) handlers.Signature {
			return handlers.Signature{UserID: o.UserID, WalletID: o.WalletID, WorkflowID: o.WorkflowID, HashToSign: o.HashToSign,
				Deadline: o.Deadline, What: sepaWhat(o), Log: []any{"order", o.ID}}
		},
		Keep: func(ctx context.Context, o store.SepaMXNOrder, signRequestID int64) (store.SepaMXNOrder, error) {
			o.SignRequestID = signRequestID
			return o, h.store.SetSepaMXNSignRequest(ctx, o.ID, false, signRequestID)
		},
		Show: h.sepaShow}
}

// sepaFinal: the order reached an end state.
func sepaFinal(status string) bool {
	switch status {
	case "completed", "failed", "expired":
		return true
	}
	return false
}

// sepaShow renders an order. panel is a just-issued sign request (with its
// QR code); otherwise the stored one's state is shown. The order's state
// is read from the API now (within the page's read budget) unless it is
// final.
func (h *Handler) sepaShow(w http.ResponseWriter, r *http.Request, o store.SepaMXNOrder, status int, note string, panel *views.SignPanel, errMsg string) {
	ctx := r.Context()
	v := views.SEPAOrderView{ID: o.ID, From: sepaMXNWalletLabel(store.Wallet{ID: o.WalletID, Currency: o.Currency}),
		Amount: sepaMXNMoney(o.Amount, o.Currency).String(), IBAN: o.IBANMasked, Beneficiary: o.Beneficiary,
		Reference: o.Reference, UpstreamID: o.UpstreamID, CreatedBy: o.CreatedBy, CreatedAt: o.CreatedAt, Note: note, Error: errMsg,
		Back: handlers.BackTo(r, "/money-out/sepa")}
	if !sepaFinal(o.Status) {
		rctx := ctx
		if r.Method != http.MethodGet {
			rctx = apiclient.WithReadDeadline(ctx, time.Now().Add(sepaMXNReadBudget))
		}
		up, err := h.api.GetEUROrder(rctx, o.UserID, o.UpstreamID)
		switch {
		case err != nil:
			h.Logger.WarnContext(ctx, "moneyout: sepa: read order", "order", o.ID, "err", err)
			v.ReadError = "The order could not be read just now: " + sepaMXNReadFailed(err) + " The state shown is the last one read; this page tries again."
		case up.Status != o.Status:
			if err := h.store.RecordSepaMXNRead(ctx, o.ID, up.Status, "", "", nil); err != nil {
				h.ServerError(w, r, err)
				return
			}
			o.Status, o.StatusReadAt = up.Status, h.clock()
		default:
			o.StatusReadAt = h.clock()
		}
	}
	v.State, v.StateLabel, v.Final, v.ReadAt = o.Status, views.StatusLabel(views.StatusSepa, o.Status), sepaFinal(o.Status), o.StatusReadAt
	if !v.Final {
		v.PollURL = sepaPage(o.ID)
	}
	sr, err := handlers.SignRequestOf(ctx, h.store, o.SignRequestID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if panel == nil {
		panel = h.sepaMXNPanel(sr)
	}
	v.Sign = panel
	v.CanIssueLink = h.sepaCannotIssue(o, sr) == "" && (panel == nil || panel.Link == "")
	h.Render(w, r, status, sepaTitle, views.SEPAOrderPage(v), views.SEPAOrderState(v))
}

// sepaCannotIssue says why no new link may be issued ("" when one may).
func (h *Handler) sepaCannotIssue(o store.SepaMXNOrder, sr *store.SignRequest) string {
	switch {
	case o.WorkflowID == "":
		return "This order asks for no signature."
	case o.Status != "prepared":
		return "This order no longer waits for a signature (" + views.StatusLabel(views.StatusSepa, o.Status) + ")."
	case o.Deadline != nil && !h.clock().Before(*o.Deadline):
		return "The signing deadline has passed: the order expires unsigned. Send a new payout."
	case handlers.SignatureOnItsWay(sr):
		return handlers.SignatureOnItsWayWords
	}
	return ""
}

// SEPAOrder shows one payout; before the API prepared it (or when it
// refused or did not answer), the state of the request that asked for it.
func (h *Handler) SEPAOrder(w http.ResponseWriter, r *http.Request) {
	h.sepaLinks.Detail(w, r, func(w http.ResponseWriter, r *http.Request, id int64) {
		h.sepaMXNShowRequest(w, r, sepaTarget(id), kindSEPAPrepare, sepaTitle, "/money-out/sepa", sepaUnsignedExpires)
	})
}

// SEPALink issues a new signing link for an order that still waits for
// its signature (the earlier link is replaced).
func (h *Handler) SEPALink(w http.ResponseWriter, r *http.Request) {
	h.sepaLinks.Reissue(w, r)
}

// sepaMXNShowRequest renders an order the API has not opened: the request
// that asks for it, as the ledger has it — still being sent, refused, or
// with no known outcome.
func (h *Handler) sepaMXNShowRequest(w http.ResponseWriter, r *http.Request, target, kind, title, again, unknownWords string) {
	a, ok := h.NotOpened(w, r, h.store, target, kind, nil)
	if !ok {
		return
	}
	v := views.SepaMXNRequestView{Title: title, State: string(a.State), StateLabel: views.StatusLabel(views.StatusAction, string(a.State)), CreatedBy: a.Actor.Email,
		CreatedAt: a.BegunAt, Again: again, Back: handlers.BackTo(r, again)}
	poll, says := handlers.NotOpenedSays(a, unknownWords)
	if poll {
		v.PollURL = r.URL.Path
	}
	v.Message = says
	h.Render(w, r, http.StatusOK, title, views.SepaMXNRequestPage(v), views.SepaMXNRequestBody(v))
}
