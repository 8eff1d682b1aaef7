package moneyout

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
	kindMexicoQuote = "mx_offramp.quote"
	mexicoTitle     = "Mexican offramp"
	mexicoCoin      = "MEXe"
)

// mexicoRequest is what a quote asks, as the ledger keeps it.
type mexicoRequest struct {
	ID       int64           `json:"id"`
	UserID   string          `json:"userId"`
	WalletID string          `json:"walletId"`
	Amount   decimal.Decimal `json:"sourceAmount"`
	Note     string          `json:"note,omitempty"`
}

func mexicoTarget(id int64) string { return "mx_offramp:" + strconv.FormatInt(id, 10) }

func mexicoPage(id int64) string { return "/money-out/mexico/" + strconv.FormatInt(id, 10) }

// registerMexico adds the rail to the index and sets up its signing links.
// Its one write of its own, the quote, cannot be read back (the API lists
// no orders); the signatures are the sign area's, read back there.
func (h *Handler) registerMexico(handlers.Deps) {
	h.mexicoLinks = h.mexicoSignLinks()
	h.rail(views.Rail{Name: "Mexican offramp (MXN)", Href: "/money-out/mexico",
		Description: "MXN tokens (MEXe) to pesos in the treasury's registered Mexican bank account, at a quoted rate; signed twice on the owner's device."})
}

type mexicoState struct {
	user   store.Employee
	wallet store.Wallet
	has    bool
	legacy *store.Wallet // a pre-migration MXNe wallet, if any
}

func (h *Handler) mexicoLoad(ctx context.Context) (mexicoState, error) {
	u, wallets, err := h.treasuryUser(ctx)
	if err != nil {
		return mexicoState{}, err
	}
	w, ok := sepaMXNWallet(wallets, mexicoCoin)
	s := mexicoState{user: u, wallet: w, has: ok}
	for _, lw := range wallets {
		if apiclient.Stablecoin(lw.Currency).IsLegacy() {
			s.legacy = &lw
		}
	}
	return s, nil
}

// mexicoKYC reads the treasury user's Mexico KYC now and says what is
// missing.
func (h *Handler) mexicoKYC(ctx context.Context, s mexicoState) views.MexicoKYC {
	st, err := h.api.GetMexicoKYCStatus(ctx, s.user.ServiceUserID)
	if errors.Is(err, apiclient.ErrNotFound) {
		return views.MexicoKYC{Words: "Mexico KYC has not been activated for the treasury user: activate the generic KYC with an RFC among its identification numbers, then Mexico KYC, and complete the provider's hosted verification. No offramp can be quoted until it is approved."}
	}
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: mexico: kyc status", "err", err)
		return views.MexicoKYC{Unread: true, Words: "Mexico KYC could not be read: " + sepaMXNReadFailed(err) + " No quote is asked for until it is known to be approved. Reload the page to try again."}
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

func (h *Handler) renderMexico(w http.ResponseWriter, r *http.Request, s mexicoState, status int, f views.MexicoQuoteForm, msg string, kyc *views.MexicoKYC) {
	v := views.MexicoOfframpView{Form: f, Error: msg}
	if l := s.legacy; l != nil {
		v.Legacy = "The treasury also holds the former MXN token MXNe (wallet " + l.ID + ", " + sepaMXNBalance(*l) +
			"). It was replaced by MEXe and is not sold here: only the MEXe wallet is."
		if !l.Balance.Valid {
			v.Legacy = "The treasury also has a wallet of the former MXN token MXNe (wallet " + l.ID + "). It was replaced by MEXe and is not sold here: only the MEXe wallet is."
		}
	}
	if s.has {
		v.Wallet = &views.SepaMXNWallet{ID: s.wallet.ID, Label: sepaMXNWalletLabel(s.wallet), Balance: sepaMXNBalance(s.wallet)}
		if kyc != nil {
			v.KYC = *kyc
		} else {
			ctx := r.Context()
			if r.Method != http.MethodGet {
				ctx = apiclient.WithReadDeadline(ctx, time.Now().Add(sepaMXNReadBudget))
			}
			v.KYC = h.mexicoKYC(ctx, s)
		}
	}
	v.Problems = views.Problems(f.Fields, views.Prefixed("f-"), "wallet", "amount", "note")
	recent, err := h.sepaMXNRecent(r.Context(), store.RailMXN)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Recent = recent
	h.Render(w, r, status, mexicoTitle, views.MexicoOfframpPage(v), nil)
}

// MexicoForm shows the quote form (?amount= and ?note= fill it, for a new
// quote of an expired one), or what is missing before one can be asked.
func (h *Handler) MexicoForm(w http.ResponseWriter, r *http.Request) {
	s, err := h.mexicoLoad(r.Context())
	if err != nil && !errors.Is(err, errNoTreasury) {
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
	h.renderMexico(w, r, s, http.StatusOK, f, "", nil)
}

// MexicoQuote checks the form and asks for a quote once under the form's
// token; the quote's first signatureRequest, when there is one, goes to the
// owner's device at once.
func (h *Handler) MexicoQuote(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := h.mexicoLoad(ctx)
	if err != nil && !errors.Is(err, errNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	f := views.MexicoQuoteForm{Token: r.PostFormValue(handlers.FormTokenField), Amount: r.PostFormValue("amount"),
		Note: r.PostFormValue("note"), Fields: views.FieldErrors{}, Posted: true}
	if !handlers.ValidFormToken(f.Token) {
		h.StaleForm(w, r)
		return
	}
	if !s.has {
		f.Fields["wallet"] = "The treasury has no MXN (MEXe) wallet."
	}
	amount, msg := handlers.ParseAmount(f.Amount, 2)
	switch {
	case msg != "":
		f.Fields["amount"] = msg
	case s.has && s.wallet.Balance.Valid && amount.Value.GreaterThan(s.wallet.Balance.Decimal):
		f.Fields["amount"] = "More than the wallet holds (" + sepaMXNBalance(s.wallet) + ", last read)."
	}
	note := strings.TrimSpace(f.Note)
	if m := handlers.CheckText(f.Note, apiclient.MaxNoteLength, false); m != "" {
		f.Fields["note"] = m
	}
	if f.Fields.Any() {
		h.renderMexico(w, r, s, http.StatusUnprocessableEntity, f, "", nil)
		return
	}
	// Mexico KYC must be approved, read now.
	kyc := h.mexicoKYC(apiclient.WithReadDeadline(ctx, time.Now().Add(sepaMXNReadBudget)), s)
	if !kyc.Ready {
		msg := "Nothing was sent: Mexico KYC of the treasury is not known to be approved (see below). The offramp form comes back once it is."
		if kyc.Unread {
			msg = "Nothing was sent: Mexico KYC of the treasury could not be read, and a quote is asked for only once it is known to be approved. What you typed is below: send it again in a moment."
		}
		h.renderMexico(w, r, s, http.StatusConflict, f, msg, &kyc)
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
	q := mexicoRequest{ID: id, UserID: s.user.ServiceUserID, WalletID: s.wallet.ID, Amount: amount.Value, Note: note}
	actor := handlers.ActorFrom(ctx)
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindMexicoQuote, Target: mexicoTarget(id), Actor: actor, Request: q,
		Spend: h.spend(ctx, s.wallet, q.Amount, store.RailDestination("mx")), Call: func(ctx context.Context) (handlers.Effect, error) {
			quote, err := h.api.CreateMexicoQuote(ctx, q.UserID, apiclient.MexicoQuoteRequest{Type: "offramp", SourceAmount: q.Amount, Note: q.Note})
			if err != nil {
				return handlers.Effect{}, err
			}
			return mexicoQuoted(key, q, *quote, actor), nil
		}})
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		h.renderMexico(w, r, s, http.StatusUnprocessableEntity, f, refusedAt(f.Fields, refused, "amount", "amount"), &kyc)
		return
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, mexicoPage(mexicoIDOf(done.Action)))
		return
	case done.State() == store.ActionDone:
		o, err := h.store.SepaMXNOrderByID(ctx, store.RailMXN, id)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if o.WorkflowID == "" {
			h.mexicoShow(w, r, o, http.StatusCreated, "The wallet's allowance already covers this amount: no first signature is needed. The page waits for the burn signature request.", nil, "")
			return
		}
		h.mexicoLinks.Issue(w, r, o, http.StatusCreated)
		return
	}
	f.Token = handlers.NewFormToken()
	if done.State() != store.ActionRefused {
		h.renderMexico(w, r, s, http.StatusBadGateway, f, done.Action.Message+" "+mexicoUnknownWords, &kyc)
		return
	}
	for apiField, m := range done.Problem.Fields {
		switch apiField {
		case "sourceAmount":
			f.Fields["amount"] = m
		case "note":
			f.Fields["note"] = m
		}
	}
	status := http.StatusBadGateway
	if f.Fields.Any() {
		status = http.StatusUnprocessableEntity
	}
	h.renderMexico(w, r, s, status, f, done.Problem.Summary, &kyc)
}

// mexicoUnknownWords is what a person should know of a quote whose outcome
// is not known.
const mexicoUnknownWords = "A quote expires by itself within minutes, and nothing moves without the owner's two signatures: if you still want the offramp, ask for a new quote."

func mexicoIDOf(a store.Action) int64 {
	id, _ := strconv.ParseInt(strings.TrimPrefix(a.Target, "mx_offramp:"), 10, 64)
	return id
}

// mexicoQuoted records the quote's order, in the transaction that finishes
// its action.
func mexicoQuoted(key string, q mexicoRequest, quote apiclient.MexicoQuote, by store.Actor) handlers.Effect {
	exp := quote.ExpiresAt
	dec := func(d decimal.Decimal) decimal.NullDecimal { return decimal.NullDecimal{Decimal: d, Valid: true} }
	rec := store.SepaMXNOrder{ID: q.ID, Rail: store.RailMXN, ActionKey: key, UpstreamID: quote.OrderID, UserID: q.UserID,
		WalletID: q.WalletID, Currency: mexicoCoin, Amount: quote.SourceAmount, Reference: q.Note,
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
	return handlers.Effect{Target: mexicoTarget(q.ID), Detail: detail,
		Result: map[string]string{"quoteId": quote.QuoteID, "orderId": quote.OrderID},
		Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.InsertSepaMXNOrder(ctx, rec)
			return err
		}}
}

// mexicoWhat is the line the device shows for each signature.
func mexicoWhat(o store.SepaMXNOrder, burn bool) string {
	what := "Mexican offramp, allowance for "
	if burn {
		what = "Mexican offramp, burn of "
	}
	return what + sepaMXNMoney(o.Amount, mexicoCoin).String() + " for " + sepaMXNMoney(o.DestinationAmount.Decimal, "MXN").String() +
		" to the registered Mexican bank account"
}

// mexicoBurnsNext: the signature an order waits for is its burn once the
// API asked for it, the first (allowance) before.
func mexicoBurnsNext(o store.SepaMXNOrder) bool { return o.BurnWorkflowID != "" }

// mexicoSignLinks issues an order's signing links, for its first or burn
// signature. No link outlives the quote.
func (h *Handler) mexicoSignLinks() *handlers.SignLinks[store.SepaMXNOrder] {
	return &handlers.SignLinks[store.SepaMXNOrder]{Base: h.Base, Sign: h.sign, LogMessage: "moneyout: mexico: issue the signing link",
		Failed: "The signing link could not be issued. Try again with the button below.",
		Load: func(ctx context.Context, id int64) (store.SepaMXNOrder, error) {
			return h.store.SepaMXNOrderByID(ctx, store.RailMXN, id)
		},
		// The order is read first, so a burn request that just appeared is
		// found; nothing is issued for an expired quote.
		Check: func(ctx context.Context, o store.SepaMXNOrder) (store.SepaMXNOrder, string, error) {
			o, readErr, err := h.mexicoRead(apiclient.WithReadDeadline(ctx, time.Now().Add(sepaMXNReadBudget)), o)
			if err != nil {
				return o, "", err
			}
			first, err := handlers.SignRequestOf(ctx, h.store, o.SignRequestID)
			if err != nil {
				return o, "", err
			}
			burnSR, err := handlers.SignRequestOf(ctx, h.store, o.BurnSignRequestID)
			if err != nil {
				return o, "", err
			}
			why := h.mexicoNext(ctx, o, first, burnSR)
			if why == "" && readErr != "" && mexicoBurnsNext(o) {
				// The burn is signed against the order as last read: it
				// must be read now to know it still waits.
				why = readErr
			}
			return o, why, nil
		},
		Signature: func(o store.SepaMXNOrder) handlers.Signature {
			burn := mexicoBurnsNext(o)
			sig := handlers.Signature{UserID: o.UserID, WalletID: o.WalletID, WorkflowID: o.WorkflowID, HashToSign: o.HashToSign,
				Deadline: o.Deadline, What: mexicoWhat(o, burn), Log: []any{"order", o.ID, "burn", burn}}
			if burn {
				sig.WorkflowID, sig.HashToSign, sig.Deadline = o.BurnWorkflowID, o.BurnHashToSign, o.BurnDeadline
			}
			sig.Deadline = handlers.EarliestDeadline(sig.Deadline, o.QuoteExpiresAt)
			return sig
		},
		Keep: func(ctx context.Context, o store.SepaMXNOrder, signRequestID int64) (store.SepaMXNOrder, error) {
			burn := mexicoBurnsNext(o)
			if burn {
				o.BurnSignRequestID = signRequestID
			} else {
				o.SignRequestID = signRequestID
			}
			return o, h.store.SetSepaMXNSignRequest(ctx, o.ID, burn, signRequestID)
		},
		Show: h.mexicoShow}
}

// mexicoFinal: the order reached an end state.
func mexicoFinal(status string) bool {
	switch status {
	case apiclient.MexicoOrderCompleted, apiclient.MexicoOrderFailed, apiclient.MexicoOrderRefunded, apiclient.MexicoOrderCanceled:
		return true
	}
	return false
}

// mexicoRead reads the order now and keeps what it says (its status, and
// the burn signature request the first time it appears). It returns the
// order as now known and what to say when the read failed.
func (h *Handler) mexicoRead(ctx context.Context, o store.SepaMXNOrder) (store.SepaMXNOrder, string, error) {
	if mexicoFinal(o.Status) {
		return o, "", nil
	}
	up, err := h.api.GetMexicoOrder(ctx, o.UserID, o.UpstreamID)
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: mexico: read order", "order", o.ID, "err", err)
		return o, "The order could not be read just now: " + sepaMXNReadFailed(err) + " What is shown is the last state read; this page tries again every few seconds.", nil
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
	if err := h.store.RecordSepaMXNRead(ctx, o.ID, up.Status, bw, bh, bd); err != nil {
		return o, "", err
	}
	o.Status, o.StatusReadAt = up.Status, h.clock()
	return o, "", nil
}

// mexicoStep is one signature's step.
func mexicoStep(sr *store.SignRequest, needed, known bool, later string) views.MexicoSignStep {
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

// mexicoNext says why no new link may be issued now ("" when one may, for
// the signature mexicoBurnsNext names).
func (h *Handler) mexicoNext(ctx context.Context, o store.SepaMXNOrder, first, burnSR *store.SignRequest) string {
	now := h.clock()
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

// mexicoShow renders an order: its quote, both signatures, its status. panel
// is a just-issued sign request (with its QR code).
func (h *Handler) mexicoShow(w http.ResponseWriter, r *http.Request, o store.SepaMXNOrder, status int, note string, panel *views.SignPanel, errMsg string) {
	ctx := r.Context()
	if r.Method != http.MethodGet {
		ctx = apiclient.WithReadDeadline(ctx, time.Now().Add(sepaMXNReadBudget))
	}
	o, readErr, err := h.mexicoRead(ctx, o)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	first, err := handlers.SignRequestOf(ctx, h.store, o.SignRequestID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	burnSR, err := handlers.SignRequestOf(ctx, h.store, o.BurnSignRequestID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	now := h.clock()
	expired := o.QuoteExpiresAt != nil && !now.Before(*o.QuoteExpiresAt)
	s := views.MexicoSteps{OrderID: o.ID, Status: o.Status, StatusLabel: views.StatusLabel(views.StatusMexico, o.Status), Final: mexicoFinal(o.Status),
		ReadAt: o.StatusReadAt, ReadError: readErr, Expired: expired,
		First: mexicoStep(first, o.WorkflowID != "", true, ""),
		Burn:  mexicoStep(burnSR, true, o.BurnWorkflowID != "", "not asked for yet: it appears on the order after the first signature")}
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
		s.PollURL = mexicoPage(o.ID)
	}
	if h.mexicoNext(ctx, o, first, burnSR) == "" && (panel == nil || panel.Link == "") {
		s.IssueLabel = "Show the QR code for the first signature (allowance)"
		if first != nil {
			s.IssueLabel = "Issue a new link for the first signature"
		}
		if mexicoBurnsNext(o) {
			s.IssueLabel = "Show the QR code for the second signature (burn)"
			if burnSR != nil {
				s.IssueLabel = "Issue a new link for the second signature (burn)"
			}
		}
	}
	deadline := "before the quote expires"
	if o.QuoteExpiresAt != nil {
		deadline = "before the quote expires at " + views.DateTime(ctx, *o.QuoteExpiresAt)
	}
	switch {
	case o.Status == apiclient.MexicoOrderCompleted:
	case o.Status == apiclient.MexicoOrderFunded:
		s.Waiting = "Both signatures were given and the tokens left the wallet. Waiting for the provider to pay the pesos; nothing to do."
	case s.Final:
		s.Waiting = views.StatusLabel(views.StatusMexico, o.Status) + ". Get a new quote to try again."
	case expired:
		s.Waiting = "The quote expired at " + views.DateTime(ctx, s.ExpiresAt) + " before the burn was signed: no signature is asked for an expired quote, the API cancels the order, and nothing leaves the wallet. Get a new quote."
	case o.WorkflowID != "" && !handlers.SignatureOnItsWay(first):
		s.Waiting = "Waiting for the owner's first signature (the allowance) on their device, " + deadline + ". Scan the QR code with the wallet app; if the link is lost or was refused, issue a new one."
	case o.BurnWorkflowID == "":
		s.Waiting = "Waiting for the API to ask for the second (burn) signature: this page reads the order every 3 seconds. If it has not appeared " + deadline +
			", the order is canceled and nothing leaves the wallet; then get a new quote. If the API does not answer meanwhile, keep this page open, or come back to it later: the Mexican offramp page lists recent offramps."
	case burnSR == nil:
		s.Waiting = "The API asks for the second (burn) signature. Show its QR code to the owner and have it signed " + deadline + "; without it nothing is paid out."
	case handlers.SignatureOnItsWay(burnSR):
		s.Waiting = "The burn signature was sent; waiting for the order to be funded."
	case burnSR.State.Final():
		s.Waiting = "The second (burn) signature's link ended (" + views.StatusLabel(views.StatusSign, string(burnSR.State)) + ") without a signature the API took. Issue a new link and have the owner sign it " + deadline + "."
	default:
		s.Waiting = "Waiting for the owner to sign the second (burn) signature on their device, " + deadline + ". If the QR code is lost, issue a new link. If it is not signed in time, the order is canceled and nothing leaves the wallet."
	}
	if expired || o.Status == apiclient.MexicoOrderCanceled || o.Status == apiclient.MexicoOrderRefunded || o.Status == apiclient.MexicoOrderFailed {
		if o.Status != apiclient.MexicoOrderFunded && o.Status != apiclient.MexicoOrderCompleted {
			q := url.Values{"amount": {o.Amount.String()}}
			if o.Reference != "" {
				q.Set("note", o.Reference)
			}
			s.ReQuote = "/money-out/mexico?" + q.Encode()
		}
	}
	v := views.MexicoOrderView{ID: o.ID, UpstreamID: o.UpstreamID, Source: sepaMXNMoney(o.Amount, mexicoCoin).String(),
		Destination: sepaMXNMoney(o.DestinationAmount.Decimal, "MXN").String(), FeeAmount: sepaMXNMoney(o.FeeAmount.Decimal, "MXN").String(),
		FeeBps: o.FeeBps.Decimal.String(), Rate: "1 MEXe = " + o.ExchangeRate.Decimal.String() + " MXN", ExpiresAt: s.ExpiresAt,
		Memo: o.Reference, CreatedBy: o.CreatedBy, CreatedAt: o.CreatedAt, Note: note, Error: errMsg, Steps: s, Sign: panel,
		Back: handlers.BackTo(r, "/money-out/mexico")}
	if v.Sign == nil {
		if burnSR != nil {
			v.Sign = h.sepaMXNPanel(burnSR)
		} else {
			v.Sign = h.sepaMXNPanel(first)
		}
	}
	h.Render(w, r, status, mexicoTitle, views.MexicoOrderPage(v), views.MexicoStepsView(s))
}

// MexicoOrder shows one offramp; before the API answered the quote (or when
// it refused or did not answer), the state of the request that asked for
// it. An htmx poll gets the steps alone.
func (h *Handler) MexicoOrder(w http.ResponseWriter, r *http.Request) {
	h.mexicoLinks.Detail(w, r, func(w http.ResponseWriter, r *http.Request, id int64) {
		h.sepaMXNShowRequest(w, r, mexicoTarget(id), kindMexicoQuote, mexicoTitle, "/money-out/mexico", mexicoUnknownWords)
	})
}

// MexicoLink issues the link of the signature the order waits for: the
// first (allowance) or the burn.
func (h *Handler) MexicoLink(w http.ResponseWriter, r *http.Request) {
	h.mexicoLinks.Reissue(w, r)
}
