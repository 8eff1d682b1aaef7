package mexico

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/moneyout"
	"partneradmin/store"
	"partneradmin/views"
)

// The Mexican offramp (spec: "Mexico (MXN)", rule 5): "create a quote; if
// signatureRequest is present sign and submit it (via
// /wallets/submit-signature); then poll the order until
// burnSignatureRequest appears, and sign and submit it. This second
// signature is required whether or not the first was present. After the
// burn settles, MXN is paid to the registered bank account."
//
// The quote opens an order upstream, so it is an action of the ledger under
// the form's token (a double click asks for one quote). The API lists no
// orders, so a quote whose answer was lost cannot be read back; it expires
// by itself (spec: "MXN quote validity | until expiresAt") and nothing
// moves without both signatures. Each signature goes to the owner's device
// as a QR code and is relayed once by the sign area; no link is issued for
// an expired quote, and no link outlives it. The order page polls the
// order, which is where burnSignatureRequest appears.

const (
	kindQuote = "mx_offramp.quote"
	title     = "Mexican offramp"
	coin      = "MEXe"
)

// request is what a quote asks, as the ledger keeps it.
type request struct {
	ID       int64           `json:"id"`
	UserID   string          `json:"userId"`
	WalletID string          `json:"walletId"`
	Amount   decimal.Decimal `json:"sourceAmount"`
	Note     string          `json:"note,omitempty"`
}

func target(id int64) string { return "mx_offramp:" + strconv.FormatInt(id, 10) }

func page(id int64) string { return "/money-out/mexico/" + strconv.FormatInt(id, 10) }

// Handler serves the Mexican offramp routes.
type Handler struct {
	moneyout.Rail
	links *handlers.SignLinks[store.SepaMXNOrder]
}

// New adds the rail to the index and sets up its signing links.
// Its one write of its own, the quote, cannot be read back (the API lists
// no orders); the signatures are the sign area's, read back there.
func New(hub *moneyout.Handler) *Handler {
	h := &Handler{Rail: hub.Rail}
	h.links = h.signLinks()
	hub.Add(views.Rail{Name: "Mexican offramp (MXN)", Href: "/money-out/mexico",
		Description: "MXN tokens (MEXe) to pesos in the treasury's registered Mexican bank account, at a quoted rate; signed twice on the owner's device."})
	return h
}

type state struct {
	user   store.Employee
	wallet store.Wallet
	has    bool
	legacy *store.Wallet // a pre-migration MXNe wallet, if any
}

func (h *Handler) load(ctx context.Context) (state, error) {
	u, wallets, err := h.TreasuryUser(ctx)
	if err != nil {
		return state{}, err
	}
	w, ok := moneyout.WalletIn(wallets, coin)
	s := state{user: u, wallet: w, has: ok}
	for _, lw := range wallets {
		if apiclient.Stablecoin(lw.Currency).IsLegacy() {
			s.legacy = &lw
		}
	}
	return s, nil
}

// kyc reads the treasury user's Mexico KYC now and says what is
// missing.
func (h *Handler) kyc(ctx context.Context, s state) views.MexicoKYC {
	st, err := h.API.GetMexicoKYCStatus(ctx, s.user.ServiceUserID)
	if errors.Is(err, apiclient.ErrNotFound) {
		return views.MexicoKYC{Words: "Mexico KYC has not been activated for the treasury user: activate the generic KYC with an RFC among its identification numbers, then Mexico KYC, and complete the provider's hosted verification. No offramp can be quoted until it is approved."}
	}
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: mexico: kyc status", "err", err)
		return views.MexicoKYC{Unread: true, Words: "Mexico KYC could not be read: " + moneyout.ReadFailed(err) + " No quote is asked for until it is known to be approved. Reload the page to try again."}
	}
	k := views.MexicoKYC{Status: st.Status}
	switch st.Status {
	case apiclient.MexicoKYCApproved:
		k.Ready, k.Words = true, "Approved: offramps can be quoted."
	case apiclient.MexicoKYCApprovedChainDeploying:
		k.Ready, k.Words = true, "Approved; the chain setup is finishing."
	case apiclient.MexicoKYCProposed:
		k.Words = "Submitted and waiting for the provider's decision: the treasury user must complete the provider's hosted verification. No offramp can be quoted until it is approved."
	case apiclient.MexicoKYCBankVerificationRequired:
		k.Words = "The provider asks for the bank identity verification of the earlier per-user flow. No offramp can be quoted until it is approved."
	case apiclient.MexicoKYCRejected:
		k.Words = "Rejected by the provider: this user cannot offramp to pesos."
	default:
		k.Words = "Status " + st.Status + ": not approved, so no offramp can be quoted."
	}
	return k
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, s state, status int, f views.MexicoQuoteForm, msg string, kyc *views.MexicoKYC) {
	v := views.MexicoOfframpView{Form: f, Error: msg}
	if l := s.legacy; l != nil {
		v.Legacy = "The treasury also holds the former MXN token MXNe (wallet " + l.ID + ", " + moneyout.LastBalance(*l) +
			"). It was replaced by MEXe and is not sold here: only the MEXe wallet is."
		if !l.Balance.Valid {
			v.Legacy = "The treasury also has a wallet of the former MXN token MXNe (wallet " + l.ID + "). It was replaced by MEXe and is not sold here: only the MEXe wallet is."
		}
	}
	if s.has {
		v.Wallet = &views.SepaMXNWallet{ID: s.wallet.ID, Label: moneyout.WalletLabel(s.wallet), Balance: moneyout.LastBalance(s.wallet)}
		if kyc != nil {
			v.KYC = *kyc
		} else {
			ctx := r.Context()
			if r.Method != http.MethodGet {
				ctx = apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget))
			}
			v.KYC = h.kyc(ctx, s)
		}
	}
	v.Problems = views.Problems(f.Fields, views.Prefixed("f-"), "wallet", "amount", "note")
	recent, err := h.RecentOrders(r.Context(), store.RailMXN, func(o store.SepaMXNOrder, r *views.SepaMXNRecent) {
		r.Kind, r.Href = views.StatusMexico, page(o.ID)
		r.Label = moneyout.Money(o.Amount, o.Currency).String() + " for " + moneyout.Money(o.DestinationAmount.Decimal, "MXN").String()
	})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Recent = recent
	h.Render(w, r, status, title, views.MexicoOfframpPage(v), nil)
}

// Form shows the quote form (?amount= and ?note= fill it, for a new
// quote of an expired one), or what is missing before one can be asked.
func (h *Handler) Form(w http.ResponseWriter, r *http.Request) {
	s, err := h.load(r.Context())
	if err != nil && !errors.Is(err, moneyout.ErrNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	f := views.MexicoQuoteForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}}
	if v := r.URL.Query().Get("amount"); handlers.CheckText(v, 40, false) == "" {
		f.Amount = v
	}
	if v := r.URL.Query().Get("note"); handlers.CheckText(v, apiclient.MaxNoteLength, false) == "" {
		f.Note = v
	}
	h.render(w, r, s, http.StatusOK, f, "", nil)
}

// Quote checks the form and asks for a quote once under the form's
// token; the quote's first signatureRequest, when there is one, goes to the
// owner's device at once.
func (h *Handler) Quote(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := h.load(ctx)
	if err != nil && !errors.Is(err, moneyout.ErrNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	f := views.MexicoQuoteForm{Token: r.PostFormValue(handlers.FormTokenField), Amount: r.PostFormValue("amount"),
		Note: r.PostFormValue("note"), Fields: views.FieldErrors{}, Posted: true}
	if !handlers.ValidFormToken(f.Token) {
		h.StaleForm(w, r)
		return
	}
	amount, note := check(s, &f)
	if f.Fields.Any() {
		h.render(w, r, s, http.StatusUnprocessableEntity, f, "", nil)
		return
	}
	// Mexico KYC must be approved, read now.
	kyc := h.kyc(apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget)), s)
	if !kyc.Ready {
		msg := "Nothing was sent: Mexico KYC of the treasury is not known to be approved (see below). The offramp form comes back once it is."
		if kyc.Unread {
			msg = "Nothing was sent: Mexico KYC of the treasury could not be read, and a quote is asked for only once it is known to be approved. What you typed is below: send it again in a moment."
		}
		h.render(w, r, s, http.StatusConflict, f, msg, &kyc)
		return
	}
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
	q := request{ID: id, UserID: s.user.ServiceUserID, WalletID: s.wallet.ID, Amount: amount.Value, Note: note}
	actor := handlers.ActorFrom(ctx)
	done, err := h.Actions.Run(ctx, handlers.Write{Key: key, Kind: kindQuote, Target: target(id), Actor: actor, Request: q,
		Spend: h.Spend(ctx, s.wallet, q.Amount, store.RailDestination("mx")), Call: func(ctx context.Context) (handlers.Effect, error) {
			quote, err := h.API.CreateMexicoQuote(ctx, q.UserID, apiclient.MexicoQuoteRequest{Type: "offramp", SourceAmount: q.Amount, Note: q.Note})
			if err != nil {
				return handlers.Effect{}, err
			}
			return quoted(key, q, *quote, actor), nil
		}})
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		h.render(w, r, s, http.StatusUnprocessableEntity, f, moneyout.RefusedAt(f.Fields, refused, "amount", "amount"), &kyc)
		return
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, page(idOf(done.Action)))
		return
	case done.State() == store.ActionDone:
		o, err := h.Store.SepaMXNOrderByID(ctx, store.RailMXN, id)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if o.WorkflowID == "" {
			h.show(w, r, o, http.StatusCreated, "The wallet's allowance already covers this amount: no first signature is needed. The page waits for the burn signature request.", nil, "")
			return
		}
		h.links.Issue(w, r, o, http.StatusCreated)
		return
	}
	f.Token = handlers.NewFormToken()
	if done.State() != store.ActionRefused {
		h.render(w, r, s, http.StatusBadGateway, f, done.Action.Message+" "+unknownWords, &kyc)
		return
	}
	h.render(w, r, s, refusalAt(&f, done.Problem), f, done.Problem.Summary, &kyc)
}

// check reads the amount and the note, the messages at their fields.
func check(s state, f *views.MexicoQuoteForm) (handlers.ParsedAmount, string) {
	if !s.has {
		f.Fields["wallet"] = "The treasury has no MXN (MEXe) wallet."
	}
	amount, msg := handlers.ParseAmount(f.Amount, 2)
	switch {
	case msg != "":
		f.Fields["amount"] = msg
	case s.has && s.wallet.Balance.Valid && amount.Value.GreaterThan(s.wallet.Balance.Decimal):
		f.Fields["amount"] = "More than the wallet holds (" + moneyout.LastBalance(s.wallet) + ", last read)."
	}
	note := strings.TrimSpace(f.Note)
	if m := handlers.CheckText(f.Note, apiclient.MaxNoteLength, false); m != "" {
		f.Fields["note"] = m
	}
	return amount, note
}

// refusalAt puts the API's refusal of a quote at its fields and returns
// the page's status.
func refusalAt(f *views.MexicoQuoteForm, p apiclient.Problem) int {
	for apiField, m := range p.Fields {
		switch apiField {
		case "sourceAmount":
			f.Fields["amount"] = m
		case "note":
			f.Fields["note"] = m
		}
	}
	if f.Fields.Any() {
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadGateway
}

// unknownWords is what a person should know of a quote whose outcome
// is not known.
const unknownWords = "A quote expires by itself within minutes, and nothing moves without the owner's two signatures: if you still want the offramp, ask for a new quote."

func idOf(a store.Action) int64 {
	id, _ := strconv.ParseInt(strings.TrimPrefix(a.Target, "mx_offramp:"), 10, 64)
	return id
}

// quoted records the quote's order, in the transaction that finishes
// its action.
func quoted(key string, q request, quote apiclient.MexicoQuote, by store.Actor) handlers.Effect {
	exp := quote.ExpiresAt
	dec := func(d decimal.Decimal) decimal.NullDecimal { return decimal.NullDecimal{Decimal: d, Valid: true} }
	rec := store.SepaMXNOrder{ID: q.ID, Rail: store.RailMXN, ActionKey: key, UpstreamID: quote.OrderID, UserID: q.UserID,
		WalletID: q.WalletID, Currency: coin, Amount: quote.SourceAmount, Reference: q.Note,
		DestinationAmount: dec(quote.DestinationAmount), FeeBps: dec(quote.FeeBps), FeeAmount: dec(quote.FeeAmount),
		ExchangeRate: dec(quote.ExchangeRate), QuoteExpiresAt: &exp, Status: apiclient.MexicoOrderCreated,
		CreatedByStaffID: by.StaffID, CreatedBy: by.Email}
	detail := fmt.Sprintf("MXN offramp quote %s of %s MEXe from wallet %s: %s MXN at %s, fee %s (%s bps), valid until %s; order %s",
		quote.QuoteID, quote.SourceAmount, q.WalletID, quote.DestinationAmount, quote.ExchangeRate, quote.FeeAmount, quote.FeeBps,
		exp.UTC().Format(time.RFC3339), quote.OrderID)
	if sr := quote.SignatureRequest; sr != nil {
		rec.WorkflowID, rec.HashToSign = sr.WorkflowID, sr.HashToSign
		if !sr.Deadline.IsZero() {
			d := sr.Deadline
			rec.Deadline = &d
		}
		detail += ", awaiting the owner's allowance signature (workflow " + sr.WorkflowID + ")"
	}
	return handlers.Effect{Target: target(q.ID), Detail: detail,
		Result: map[string]string{"quoteId": quote.QuoteID, "orderId": quote.OrderID},
		Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.InsertSepaMXNOrder(ctx, rec)
			return err
		}}
}

// what is the line the device shows for each signature.
func what(o store.SepaMXNOrder, burn bool) string {
	what := "Mexican offramp, allowance for "
	if burn {
		what = "Mexican offramp, burn of "
	}
	return what + moneyout.Money(o.Amount, coin).String() + " for " + moneyout.Money(o.DestinationAmount.Decimal, "MXN").String() +
		" to the registered Mexican bank account"
}

// burnsNext: the signature an order waits for is its burn once the
// API asked for it, the first (allowance) before.
func burnsNext(o store.SepaMXNOrder) bool { return o.BurnWorkflowID != "" }

// signLinks issues an order's signing links, for its first or burn
// signature. No link outlives the quote.
func (h *Handler) signLinks() *handlers.SignLinks[store.SepaMXNOrder] {
	return &handlers.SignLinks[store.SepaMXNOrder]{Base: h.Base, Sign: h.Sign, LogMessage: "moneyout: mexico: issue the signing link",
		Failed: "The signing link could not be issued. Try again with the button below.",
		Load: func(ctx context.Context, id int64) (store.SepaMXNOrder, error) {
			return h.Store.SepaMXNOrderByID(ctx, store.RailMXN, id)
		},
		// The order is read first, so a burn request that just appeared is
		// found; nothing is issued for an expired quote.
		Check: func(ctx context.Context, o store.SepaMXNOrder) (store.SepaMXNOrder, string, error) {
			o, readErr, err := h.read(apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget)), o)
			if err != nil {
				return o, "", err
			}
			first, err := handlers.SignRequestOf(ctx, h.Store, o.SignRequestID)
			if err != nil {
				return o, "", err
			}
			burnSR, err := handlers.SignRequestOf(ctx, h.Store, o.BurnSignRequestID)
			if err != nil {
				return o, "", err
			}
			why := h.next(ctx, o, first, burnSR)
			if why == "" && readErr != "" && burnsNext(o) {
				// The burn is signed against the order as last read: it
				// must be read now to know it still waits.
				why = readErr
			}
			return o, why, nil
		},
		Signature: func(o store.SepaMXNOrder) handlers.Signature {
			burn := burnsNext(o)
			sig := handlers.Signature{UserID: o.UserID, WalletID: o.WalletID, WorkflowID: o.WorkflowID, HashToSign: o.HashToSign,
				Deadline: o.Deadline, What: what(o, burn), Log: []any{"order", o.ID, "burn", burn}}
			if burn {
				sig.WorkflowID, sig.HashToSign, sig.Deadline = o.BurnWorkflowID, o.BurnHashToSign, o.BurnDeadline
			}
			sig.Deadline = handlers.EarliestDeadline(sig.Deadline, o.QuoteExpiresAt)
			return sig
		},
		Keep: func(ctx context.Context, o store.SepaMXNOrder, signRequestID int64) (store.SepaMXNOrder, error) {
			burn := burnsNext(o)
			if burn {
				o.BurnSignRequestID = signRequestID
			} else {
				o.SignRequestID = signRequestID
			}
			return o, h.Store.SetSepaMXNSignRequest(ctx, o.ID, burn, signRequestID)
		},
		Show: h.show}
}

// final: the order reached an end state.
func final(status string) bool {
	switch status {
	case apiclient.MexicoOrderCompleted, apiclient.MexicoOrderFailed, apiclient.MexicoOrderRefunded, apiclient.MexicoOrderCanceled:
		return true
	}
	return false
}

// read reads the order now and keeps what it says (its status, and
// the burn signature request the first time it appears). It returns the
// order as now known and what to say when the read failed.
func (h *Handler) read(ctx context.Context, o store.SepaMXNOrder) (store.SepaMXNOrder, string, error) {
	if final(o.Status) {
		return o, "", nil
	}
	up, err := h.API.GetMexicoOrder(ctx, o.UserID, o.UpstreamID)
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: mexico: read order", "order", o.ID, "err", err)
		return o, "The order could not be read just now: " + moneyout.ReadFailed(err) + " What is shown is the last state read; this page tries again every few seconds.", nil
	}
	var bw, bh string
	var bd *time.Time
	if b := up.BurnSignatureRequest; b != nil && o.BurnWorkflowID == "" {
		bw, bh = b.WorkflowID, b.HashToSign
		if !b.Deadline.IsZero() {
			d := b.Deadline
			bd = &d
		}
		o.BurnWorkflowID, o.BurnHashToSign, o.BurnDeadline = bw, bh, bd
	}
	if err := h.Store.RecordSepaMXNRead(ctx, o.ID, up.Status, bw, bh, bd); err != nil {
		return o, "", err
	}
	o.Status, o.StatusReadAt = up.Status, h.Clock()
	return o, "", nil
}

// signStep is one signature's step.
func signStep(sr *store.SignRequest, needed, known bool, later string) views.MexicoSignStep {
	switch {
	case !needed:
		return views.MexicoSignStep{State: "not_needed", Label: "not needed: the wallet's allowance covers the amount", Done: true}
	case !known:
		return views.MexicoSignStep{State: "not_yet", Label: later}
	case sr == nil:
		return views.MexicoSignStep{State: "not_issued", Label: "asked for by the API; no link issued yet"}
	}
	return views.MexicoSignStep{State: string(sr.State), Label: views.StatusLabel(views.StatusSign, string(sr.State)), Done: handlers.SignatureOnItsWay(sr)}
}

// next says why no new link may be issued now ("" when one may, for
// the signature burnsNext names).
func (h *Handler) next(ctx context.Context, o store.SepaMXNOrder, first, burnSR *store.SignRequest) string {
	now := h.Clock()
	switch {
	case o.Status != apiclient.MexicoOrderCreated:
		return "This order no longer waits for a signature (" + views.StatusLabel(views.StatusMexico, o.Status) + ")."
	case o.QuoteExpiresAt != nil && !now.Before(*o.QuoteExpiresAt):
		return "The quote expired at " + views.DateTime(ctx, *o.QuoteExpiresAt) + ": no signature is asked for an expired quote. Get a new quote."
	case o.BurnWorkflowID != "":
		if o.BurnDeadline != nil && !now.Before(*o.BurnDeadline) {
			return "The burn signature's deadline has passed. Get a new quote."
		}
		if handlers.SignatureOnItsWay(burnSR) {
			return "The burn signature is already on its way or accepted: no new link is needed."
		}
		return ""
	case o.WorkflowID != "":
		if o.Deadline != nil && !now.Before(*o.Deadline) {
			return "The first signature's deadline has passed. Get a new quote."
		}
		if handlers.SignatureOnItsWay(first) {
			return "The first signature is on its way or accepted; the burn signature request has not appeared yet."
		}
		return ""
	}
	return "The burn signature request has not appeared yet."
}

// show renders an order: its quote, both signatures, its status. panel
// is a just-issued sign request (with its QR code).
func (h *Handler) show(w http.ResponseWriter, r *http.Request, o store.SepaMXNOrder, status int, note string, panel *views.SignPanel, errMsg string) {
	ctx := r.Context()
	if r.Method != http.MethodGet {
		ctx = apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget))
	}
	o, readErr, err := h.read(ctx, o)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	first, err := handlers.SignRequestOf(ctx, h.Store, o.SignRequestID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	burnSR, err := handlers.SignRequestOf(ctx, h.Store, o.BurnSignRequestID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	now := h.Clock()
	expired := o.QuoteExpiresAt != nil && !now.Before(*o.QuoteExpiresAt)
	s := views.MexicoSteps{OrderID: o.ID, Status: o.Status, StatusLabel: views.StatusLabel(views.StatusMexico, o.Status), Final: final(o.Status),
		ReadAt: o.StatusReadAt, ReadError: readErr, Expired: expired,
		First: signStep(first, o.WorkflowID != "", true, ""),
		Burn:  signStep(burnSR, true, o.BurnWorkflowID != "", "not asked for yet: it appears on the order after the first signature")}
	if o.QuoteExpiresAt != nil {
		s.ExpiresAt = *o.QuoteExpiresAt
	}
	if o.Status == apiclient.MexicoOrderFunded || o.Status == apiclient.MexicoOrderCompleted {
		s.Burn = views.MexicoSignStep{State: store.SignSubmitted, Label: "signed and taken by the API", Done: true}
		if o.WorkflowID != "" {
			s.First.Done = true
		}
	}
	if !s.Final {
		s.PollURL = page(o.ID)
	}
	if h.next(ctx, o, first, burnSR) == "" && (panel == nil || panel.Link == "") {
		s.IssueLabel = "Show the QR code for the first signature (allowance)"
		if first != nil {
			s.IssueLabel = "Issue a new link for the first signature"
		}
		if burnsNext(o) {
			s.IssueLabel = "Show the QR code for the second signature (burn)"
			if burnSR != nil {
				s.IssueLabel = "Issue a new link for the second signature (burn)"
			}
		}
	}
	s.Waiting = waiting(ctx, o, s, expired, first, burnSR)
	if expired || o.Status == apiclient.MexicoOrderCanceled || o.Status == apiclient.MexicoOrderRefunded || o.Status == apiclient.MexicoOrderFailed {
		if o.Status != apiclient.MexicoOrderFunded && o.Status != apiclient.MexicoOrderCompleted {
			q := url.Values{"amount": {o.Amount.String()}}
			if o.Reference != "" {
				q.Set("note", o.Reference)
			}
			s.ReQuote = "/money-out/mexico?" + q.Encode()
		}
	}
	v := views.MexicoOrderView{ID: o.ID, UpstreamID: o.UpstreamID, Source: moneyout.Money(o.Amount, coin).String(),
		Destination: moneyout.Money(o.DestinationAmount.Decimal, "MXN").String(), FeeAmount: moneyout.Money(o.FeeAmount.Decimal, "MXN").String(),
		FeeBps: o.FeeBps.Decimal.String(), Rate: "1 MEXe = " + o.ExchangeRate.Decimal.String() + " MXN", ExpiresAt: s.ExpiresAt,
		Memo: o.Reference, CreatedBy: o.CreatedBy, CreatedAt: o.CreatedAt, Note: note, Error: errMsg, Steps: s, Sign: panel,
		Back: handlers.BackTo(r, "/money-out/mexico")}
	if v.Sign == nil {
		if burnSR != nil {
			v.Sign = h.SignPanel(burnSR)
		} else {
			v.Sign = h.SignPanel(first)
		}
	}
	h.Render(w, r, status, title, views.MexicoOrderPage(v), views.MexicoStepsView(s))
}

// waiting says what the order waits for, and who acts next.
func waiting(ctx context.Context, o store.SepaMXNOrder, s views.MexicoSteps, expired bool, first, burnSR *store.SignRequest) string {
	deadline := "before the quote expires"
	if o.QuoteExpiresAt != nil {
		deadline = "before the quote expires at " + views.DateTime(ctx, *o.QuoteExpiresAt)
	}
	switch {
	case o.Status == apiclient.MexicoOrderCompleted:
		return ""
	case o.Status == apiclient.MexicoOrderFunded:
		return "Both signatures were given and the tokens left the wallet. Waiting for the provider to pay the pesos; nothing to do."
	case s.Final:
		return views.StatusLabel(views.StatusMexico, o.Status) + ". Get a new quote to try again."
	case expired:
		return "The quote expired at " + views.DateTime(ctx, s.ExpiresAt) + " before the burn was signed: no signature is asked for an expired quote, the API cancels the order, and nothing leaves the wallet. Get a new quote."
	case o.WorkflowID != "" && !handlers.SignatureOnItsWay(first):
		return "Waiting for the owner's first signature (the allowance) on their device, " + deadline + ". Scan the QR code with the wallet app; if the link is lost or was refused, issue a new one."
	case o.BurnWorkflowID == "":
		return "Waiting for the API to ask for the second (burn) signature: this page reads the order every 3 seconds. If it has not appeared " + deadline +
			", the order is canceled and nothing leaves the wallet; then get a new quote. If the API does not answer meanwhile, keep this page open, or come back to it later: the Mexican offramp page lists recent offramps."
	case burnSR == nil:
		return "The API asks for the second (burn) signature. Show its QR code to the owner and have it signed " + deadline + "; without it nothing is paid out."
	case handlers.SignatureOnItsWay(burnSR):
		return "The burn signature was sent; waiting for the order to be funded."
	case burnSR.State.Final():
		return "The second (burn) signature's link ended (" + views.StatusLabel(views.StatusSign, string(burnSR.State)) + ") without a signature the API took. Issue a new link and have the owner sign it " + deadline + "."
	default:
		return "Waiting for the owner to sign the second (burn) signature on their device, " + deadline + ". If the QR code is lost, issue a new link. If it is not signed in time, the order is canceled and nothing leaves the wallet."
	}
}

// Order shows one offramp; before the API answered the quote (or when
// it refused or did not answer), the state of the request that asked for
// it. An htmx poll gets the steps alone.
func (h *Handler) Order(w http.ResponseWriter, r *http.Request) {
	h.links.Detail(w, r, func(w http.ResponseWriter, r *http.Request, id int64) {
		h.ShowRequest(w, r, target(id), kindQuote, title, "/money-out/mexico", unknownWords)
	})
}

// Link issues the link of the signature the order waits for: the
// first (allowance) or the burn.
func (h *Handler) Link(w http.ResponseWriter, r *http.Request) {
	h.links.Reissue(w, r)
}
