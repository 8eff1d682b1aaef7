package sepa

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
	"partneradmin/handlers/moneyout"
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
	kindPrepare = "sepa_payout.prepare"
	title       = "EUR SEPA payout"
	coin        = "EURe"
	// Field limits of the prepare body (apiclient.EUROrderRequest; the
	// sandbox's: a SEPA name has at most 70 characters and its remittance
	// information 140).
	maxBeneficiary = 70
	maxReference   = 140
)

// request is what a prepare asks, as the ledger keeps it: never the
// whole IBAN (only its country and last four).
type request struct {
	ID          int64           `json:"id"`
	UserID      string          `json:"userId"`
	WalletID    string          `json:"walletId"`
	Amount      decimal.Decimal `json:"amount"`
	IBANMasked  string          `json:"ibanMasked"`
	Beneficiary string          `json:"beneficiaryName"`
	Reference   string          `json:"reference,omitempty"`
}

func target(id int64) string { return "sepa_payout:" + strconv.FormatInt(id, 10) }

func page(id int64) string { return "/money-out/sepa/" + strconv.FormatInt(id, 10) }

// Handler serves the EUR SEPA payout routes.
type Handler struct {
	moneyout.Rail
	links *handlers.SignLinks[store.SepaMXNOrder]
}

// New adds the rail to the index and sets up its signing links.
// The prepare has no read-back (the API lists no EUR orders); the EUR
// provider is set up on the rails' set-up page (handlers/railsetup).
func New(hub *moneyout.Handler) *Handler {
	h := &Handler{Rail: hub.Rail}
	h.links = h.signLinks()
	hub.Add(views.Rail{Name: "EUR SEPA payout", Href: "/money-out/sepa",
		Description: "Euros from the treasury's EURe wallet to a bank account in the SEPA area, by IBAN; signed on the owner's device."})
	return h
}

// state is what the SEPA page needs of the treasury.
type state struct {
	user   store.Employee
	wallet store.Wallet
	has    bool
}

func (h *Handler) load(ctx context.Context) (state, error) {
	u, wallets, err := h.TreasuryUser(ctx)
	if err != nil {
		return state{}, err
	}
	w, ok := moneyout.WalletIn(wallets, coin)
	return state{user: u, wallet: w, has: ok}, nil
}

// provider reads the treasury user's EUR provider onboarding now.
func (h *Handler) provider(ctx context.Context, s state) views.SEPAProvider {
	st, err := h.API.GetOnboardingStatus(ctx, s.user.ServiceUserID)
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: sepa: onboarding status", "err", err)
		return views.SEPAProvider{Unread: true, Words: "The EUR provider's state could not be read: " + moneyout.ReadFailed(err) +
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

func (h *Handler) render(w http.ResponseWriter, r *http.Request, s state, status int, f views.SEPAPayoutForm, rv *views.SEPAPayoutReview, msg string, provider *views.SEPAProvider) {
	v := views.SEPAPayoutView{Form: f, Review: rv, Error: msg}
	if s.has {
		v.Wallet = &views.SepaMXNWallet{ID: s.wallet.ID, Label: moneyout.WalletLabel(s.wallet), Balance: moneyout.LastBalance(s.wallet)}
		if provider != nil {
			v.Provider = *provider
		} else {
			ctx := r.Context()
			if r.Method != http.MethodGet {
				ctx = apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget))
			}
			v.Provider = h.provider(ctx, s)
		}
	}
	book, err := h.BookPicker(r.Context(), "f-destination_id", store.DestIBAN, "", f.Book.Chosen)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Form.Book, v.Form.Book.Error = book, f.Fields.Get("destination_id")
	v.Problems = views.Problems(f.Fields, views.Prefixed("f-"), "wallet", "amount", "destination_id", "iban", "beneficiary", "reference")
	recent, err := h.RecentOrders(r.Context(), store.RailSEPA, func(o store.SepaMXNOrder, r *views.SepaMXNRecent) {
		r.Kind, r.Href = views.StatusSepa, page(o.ID)
		r.Label = moneyout.Money(o.Amount, o.Currency).String() + " to " + o.Beneficiary + " (" + o.IBANMasked + ")"
	})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Recent = recent
	h.Render(w, r, status, title, views.SEPAPayoutPage(v), nil)
}

// Form shows the payout form, or what is missing before one can be
// sent.
func (h *Handler) Form(w http.ResponseWriter, r *http.Request) {
	s, err := h.load(r.Context())
	if err != nil && !errors.Is(err, moneyout.ErrNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	// Nothing is taken from the query: an IBAN has no place in a URL.
	f := views.SEPAPayoutForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}}
	h.render(w, r, s, http.StatusOK, f, nil, "", nil)
}

// input is the posted form as read by check: every field checked
// before anything is sent, the messages at the fields.
type input struct {
	amount      handlers.ParsedAmount
	iban        string
	beneficiary string
	reference   string
}

func (h *Handler) check(s state, f *views.SEPAPayoutForm) input {
	var in input
	var msg string
	if !s.has {
		f.Fields["wallet"] = "The treasury has no EUR (EURe) wallet."
	}
	if in.amount, msg = handlers.ParseAmount(f.Amount, 2); msg != "" {
		f.Fields["amount"] = msg
	} else if s.has && s.wallet.Balance.Valid && in.amount.Value.GreaterThan(s.wallet.Balance.Decimal) {
		f.Fields["amount"] = "More than the wallet holds (" + moneyout.LastBalance(s.wallet) + ", last read)."
	}
	in.iban, msg = destination.IBAN(f.IBAN)
	if msg != "" {
		f.Fields["iban"] = msg
	}
	in.beneficiary = strings.TrimSpace(f.Beneficiary)
	switch {
	case handlers.CheckText(f.Beneficiary, maxBeneficiary, false) != "":
		f.Fields["beneficiary"] = handlers.CheckText(f.Beneficiary, maxBeneficiary, false)
	case in.beneficiary == "":
		f.Fields["beneficiary"] = "Enter the beneficiary's name, as their bank holds it."
	}
	in.reference = strings.TrimSpace(f.Reference)
	if m := handlers.CheckText(f.Reference, maxReference, false); m != "" {
		f.Fields["reference"] = m
	}
	return in
}

// Post checks the form, shows it for review, and on confirmation
// prepares the order once under the form's token and hands its
// signatureRequest to the owner's device.
func (h *Handler) Post(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := h.load(ctx)
	if err != nil && !errors.Is(err, moneyout.ErrNoTreasury) {
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
	in, refused, err := h.checkWithBook(ctx, r, s, &f)
	switch {
	case err != nil:
		h.ServerError(w, r, err)
		return
	case refused != nil:
		h.render(w, r, s, http.StatusUnprocessableEntity, f, nil, moneyout.RefusedAt(f.Fields, refused, "iban", "amount"), nil)
		return
	case f.Fields.Any():
		h.render(w, r, s, http.StatusUnprocessableEntity, f, nil, "", nil)
		return
	}
	// The provider must be active, read now: a payout is not prepared
	// against a state that may have changed.
	provider := h.provider(apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget)), s)
	if !provider.Ready {
		// The form is drawn again only when the provider's state could
		// not be read (what was typed is kept, to send again); for a
		// provider read as not active it comes back once it is.
		msg := "Nothing was sent: the EUR provider is not active. The payout form comes back once it is."
		if provider.Unread {
			msg = "Nothing was sent: the EUR provider's state could not be read, and a payout is sent only to an active one. What you typed is below: send it again in a moment."
		}
		h.render(w, r, s, http.StatusConflict, f, nil, msg, &provider)
		return
	}
	switch {
	case r.PostFormValue("edit") != "":
		h.render(w, r, s, http.StatusOK, f, nil, "", &provider)
	case r.PostFormValue("confirm") == "":
		rv := views.SEPAPayoutReview{From: moneyout.WalletLabel(s.wallet), Amount: moneyout.Money(in.amount.Value, coin).String(),
			Understood: in.amount.Understood, IBAN: destination.GroupIBAN(in.iban), Beneficiary: in.beneficiary, Reference: in.reference}
		h.render(w, r, s, http.StatusOK, f, &rv, "", &provider)
	default:
		h.prepare(w, r, s, f, in, provider)
	}
}

// checkWithBook checks the form and, when nothing is wrong at its fields,
// asks the book first: nothing is asked of the API for an IBAN money may
// not go to.
func (h *Handler) checkWithBook(ctx context.Context, r *http.Request, s state, f *views.SEPAPayoutForm) (input, *store.PolicyRefusal, error) {
	picked, msg, err := h.BookChosen(ctx, r, store.DestIBAN)
	if err != nil {
		return input{}, nil, err
	}
	if picked != nil {
		f.Book.Chosen = strconv.FormatInt(picked.ID, 10)
		msg = moneyout.FromBook(&f.IBAN, picked.Value)
	}
	in := h.check(s, f)
	if msg != "" {
		f.Fields["destination_id"] = msg
	}
	if f.Fields.Any() {
		return in, nil, nil
	}
	refused, err := h.BookRefusal(ctx, store.DestinationKey(store.DestIBAN, "", in.iban))
	return in, refused, err
}

// prepare prepares the order once under the form's token and hands its
// signatureRequest to the owner's device.
func (h *Handler) prepare(w http.ResponseWriter, r *http.Request, s state, f views.SEPAPayoutForm, in input, provider views.SEPAProvider) {
	ctx := r.Context()
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	id, err := h.Store.ReserveSepaMXNOrderID(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	q := request{ID: id, UserID: s.user.ServiceUserID, WalletID: s.wallet.ID, Amount: in.amount.Value,
		IBANMasked: destination.MaskIBAN(in.iban), Beneficiary: in.beneficiary, Reference: in.reference}
	actor := handlers.ActorFrom(ctx)
	done, err := h.Actions.Run(ctx, handlers.Write{Key: key, Kind: kindPrepare, Target: target(id), Actor: actor, Request: q,
		Spend: h.Spend(ctx, s.wallet, in.amount.Value, store.DestinationKey(store.DestIBAN, "", in.iban)), Call: func(ctx context.Context) (handlers.Effect, error) {
			o, err := h.API.PrepareEUROrder(ctx, q.UserID, apiclient.EUROrderRequest{SmartWalletID: q.WalletID, Amount: q.Amount,
				IBAN: in.iban, BeneficiaryName: q.Beneficiary, Reference: q.Reference})
			if err != nil {
				return handlers.Effect{}, err
			}
			return prepared(key, q, *o, actor), nil
		}})
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		h.render(w, r, s, http.StatusUnprocessableEntity, f, nil, moneyout.RefusedAt(f.Fields, refused, "iban", "amount"), &provider)
		return
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, page(idOf(done.Action)))
		return
	case done.State() == store.ActionDone:
		o, err := h.Store.SepaMXNOrderByID(ctx, store.RailSEPA, id)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if o.WorkflowID == "" {
			h.show(w, r, o, http.StatusCreated, "The API prepared the order without asking for a signature.", nil, "")
			return
		}
		h.links.Issue(w, r, o, http.StatusCreated)
		return
	}
	// Refused, or not known: the form again with everything typed and a new
	// token, since this one is spent.
	f.Token = handlers.NewFormToken()
	if done.State() != store.ActionRefused {
		h.render(w, r, s, http.StatusBadGateway, f, nil, done.Action.Message+" "+unsignedExpires, &provider)
		return
	}
	for apiField, m := range done.Problem.Fields {
		if field := field(apiField); field != "" {
			f.Fields[field] = m
		}
	}
	status := http.StatusBadGateway
	if f.Fields.Any() {
		status = http.StatusUnprocessableEntity
	}
	h.render(w, r, s, status, f, nil, done.Problem.Summary, &provider)
}

// unsignedExpires is what a person should know of a prepare whose
// outcome is not known.
const unsignedExpires = "Nothing moves without the owner's signature, and an unsigned order expires by itself: if you still want the payout, send it again."

// field is the form's field of a request field the API named.
func field(apiField string) string {
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

// idOf is the order id an action of this kind names.
func idOf(a store.Action) int64 {
	id, _ := strconv.ParseInt(strings.TrimPrefix(a.Target, "sepa_payout:"), 10, 64)
	return id
}

// prepared records the order the API prepared, in the transaction that
// finishes its action.
func prepared(key string, q request, o apiclient.EUROrder, by store.Actor) handlers.Effect {
	rec := store.SepaMXNOrder{ID: q.ID, Rail: store.RailSEPA, ActionKey: key, UpstreamID: o.OrderID, UserID: q.UserID,
		WalletID: q.WalletID, Currency: coin, Amount: q.Amount, Beneficiary: q.Beneficiary, IBANMasked: q.IBANMasked,
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
	return handlers.Effect{Target: target(q.ID), Detail: detail, Result: map[string]string{"orderId": o.OrderID, "status": o.Status},
		Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.InsertSepaMXNOrder(ctx, rec)
			return err
		}}
}

// what is the line the device shows.
func what(o store.SepaMXNOrder) string {
	return "EUR SEPA payout of " + moneyout.Money(o.Amount, coin).String() + " to " + o.Beneficiary + ", IBAN " + o.IBANMasked
}

// signLinks issues an order's signing links.
func (h *Handler) signLinks() *handlers.SignLinks[store.SepaMXNOrder] {
	return &handlers.SignLinks[store.SepaMXNOrder]{Base: h.Base, Sign: h.Sign, LogMessage: "moneyout: sepa: issue the signing link",
		Failed: "The order was prepared, but its signing link could not be issued. Try \"Issue a new signing link\".",
		Load: func(ctx context.Context, id int64) (store.SepaMXNOrder, error) {
			return h.Store.SepaMXNOrderByID(ctx, store.RailSEPA, id)
		},
		Check: handlers.CheckOneSignRequest(h.Store, func(o store.SepaMXNOrder) int64 { return o.SignRequestID }, h.cannotIssue),
		Signature: func(o store.SepaMXNOrder) handlers.Signature {
			return handlers.Signature{UserID: o.UserID, WalletID: o.WalletID, WorkflowID: o.WorkflowID, HashToSign: o.HashToSign,
				Deadline: o.Deadline, What: what(o), Log: []any{"order", o.ID}}
		},
		Keep: func(ctx context.Context, o store.SepaMXNOrder, signRequestID int64) (store.SepaMXNOrder, error) {
			o.SignRequestID = signRequestID
			return o, h.Store.SetSepaMXNSignRequest(ctx, o.ID, false, signRequestID)
		},
		Show: h.show}
}

// final: the order reached an end state.
func final(status string) bool {
	switch status {
	case "completed", "failed", "expired":
		return true
	}
	return false
}

// show renders an order. panel is a just-issued sign request (with its
// QR code); otherwise the stored one's state is shown. The order's state
// is read from the API now (within the page's read budget) unless it is
// final.
func (h *Handler) show(w http.ResponseWriter, r *http.Request, o store.SepaMXNOrder, status int, note string, panel *views.SignPanel, errMsg string) {
	ctx := r.Context()
	v := views.SEPAOrderView{ID: o.ID, From: moneyout.WalletLabel(store.Wallet{ID: o.WalletID, Currency: o.Currency}),
		Amount: moneyout.Money(o.Amount, o.Currency).String(), IBAN: o.IBANMasked, Beneficiary: o.Beneficiary,
		Reference: o.Reference, UpstreamID: o.UpstreamID, CreatedBy: o.CreatedBy, CreatedAt: o.CreatedAt, Note: note, Error: errMsg,
		Back: handlers.BackTo(r, "/money-out/sepa")}
	if !final(o.Status) {
		rctx := ctx
		if r.Method != http.MethodGet {
			rctx = apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget))
		}
		up, err := h.API.GetEUROrder(rctx, o.UserID, o.UpstreamID)
		switch {
		case err != nil:
			h.Logger.WarnContext(ctx, "moneyout: sepa: read order", "order", o.ID, "err", err)
			v.ReadError = "The order could not be read just now: " + moneyout.ReadFailed(err) + " The state shown is the last one read; this page tries again."
		case up.Status != o.Status:
			if err := h.Store.RecordSepaMXNRead(ctx, o.ID, up.Status, "", "", nil); err != nil {
				h.ServerError(w, r, err)
				return
			}
			o.Status, o.StatusReadAt = up.Status, h.Clock()
		default:
			o.StatusReadAt = h.Clock()
		}
	}
	v.State, v.StateLabel, v.Final, v.ReadAt = o.Status, views.StatusLabel(views.StatusSepa, o.Status), final(o.Status), o.StatusReadAt
	if !v.Final {
		v.PollURL = page(o.ID)
	}
	sr, err := handlers.SignRequestOf(ctx, h.Store, o.SignRequestID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if panel == nil {
		panel = h.SignPanel(sr)
	}
	v.Sign = panel
	v.CanIssueLink = h.cannotIssue(o, sr) == "" && (panel == nil || panel.Link == "")
	h.Render(w, r, status, title, views.SEPAOrderPage(v), views.SEPAOrderState(v))
}

// cannotIssue says why no new link may be issued ("" when one may).
func (h *Handler) cannotIssue(o store.SepaMXNOrder, sr *store.SignRequest) string {
	switch {
	case o.WorkflowID == "":
		return "This order asks for no signature."
	case o.Status != "prepared":
		return "This order no longer waits for a signature (" + views.StatusLabel(views.StatusSepa, o.Status) + ")."
	case o.Deadline != nil && !h.Clock().Before(*o.Deadline):
		return "The signing deadline has passed: the order expires unsigned. Send a new payout."
	case handlers.SignatureOnItsWay(sr):
		return handlers.SignatureOnItsWayWords
	}
	return ""
}

// Order shows one payout; before the API prepared it (or when it
// refused or did not answer), the state of the request that asked for it.
func (h *Handler) Order(w http.ResponseWriter, r *http.Request) {
	h.links.Detail(w, r, func(w http.ResponseWriter, r *http.Request, id int64) {
		h.ShowRequest(w, r, target(id), kindPrepare, title, "/money-out/sepa", unsignedExpires)
	})
}

// Link issues a new signing link for an order that still waits for
// its signature (the earlier link is replaced).
func (h *Handler) Link(w http.ResponseWriter, r *http.Request) {
	h.links.Reissue(w, r)
}
