package treasury

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/handlers/destination"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// A crypto withdrawal (spec: POST /withdrawal/smart-wallet/crypto) sends a
// treasury wallet's whole balance (the body has no amount) to an external
// address, and answers with a signatureRequest that the wallet owner signs
// on their device. It is one action of the ledger under the form's token.
// The spec has no endpoint that reads a withdrawal back, so one the API did
// not answer stays unknown until a person settles it; nothing moves without
// the owner's signature, and an unsigned request expires by itself.

// kindCryptoWithdrawal is the ledger's kind (and the audit row's action) of
// a crypto withdrawal.
const kindCryptoWithdrawal = "crypto_withdrawal.create"

const withdrawalTitle = "Crypto withdrawal"

// maxRouteLength bounds the posted "chain:TOKEN" before it is read.
const maxRouteLength = 100

// withdrawalRequest is what the withdrawal form asks, as the ledger keeps
// it. ID is the withdrawal's id if the API opens it, reserved before the
// call so that the action names its withdrawal from the start.
type withdrawalRequest struct {
	ID          int64               `json:"id"`
	UserID      string              `json:"userId"`
	WalletID    string              `json:"walletId"`
	Currency    string              `json:"currency"`
	BalanceSeen decimal.NullDecimal `json:"balanceSeen"`
	Chain       string              `json:"destinationChain"`
	Token       string              `json:"destinationCurrency"`
	Address     string              `json:"destinationAddress"`
	// Rail is "offramp" for the API's alternative crypto offramp, ""
	// for the crypto withdrawal.
	Rail string `json:"rail,omitempty"`
}

func (q withdrawalRequest) detail() string {
	return fmt.Sprintf("%s of the whole %s balance of wallet %s to %s (%s)", railName(q.Rail), q.Currency, q.WalletID, q.Address,
		routeLabel(q.Chain, q.Token))
}

// railName is a rail in words.
func railName(rail string) string {
	if rail == railOfframp {
		return "crypto offramp"
	}
	return "crypto withdrawal"
}

// railOfframp names the API's alternative crypto offramp
// (/wallets/crypto-offramp); the crypto withdrawal is the default rail.
const railOfframp = "offramp"

// formRail reads the rail a form chose: the offramp, or the withdrawal.
func formRail(s string) string {
	if s == railOfframp {
		return railOfframp
	}
	return ""
}

// support lists the destination pairs of a rail for a token.
func (h *Handler) support(ctx context.Context, user, rail, currency string) (*apiclient.CryptoWithdrawalSupport, error) {
	if rail == railOfframp {
		return h.api.GetCryptoOfframpSupport(ctx, user, currency)
	}
	return h.api.GetCryptoWithdrawalSupport(ctx, user, currency)
}

func withdrawalTarget(id int64) string { return "crypto_withdrawal:" + strconv.FormatInt(id, 10) }

func withdrawalPage(id int64) string { return "/treasury/withdrawal/" + strconv.FormatInt(id, 10) }

// parseRoute splits a route value "chain:TOKEN".
func parseRoute(s string) (chain, token string, ok bool) {
	if handlers.CheckText(s, maxRouteLength, false) != "" {
		return "", "", false
	}
	chain, token, ok = strings.Cut(s, ":")
	return chain, token, ok && chain != "" && token != ""
}

func routeLabel(chain, token string) string { return token + " on " + chain }

// routes lists the destination pairs the API offers for a wallet's token.
func (h *Handler) routes(ctx context.Context, t treasury, walletID, selected, rail string) views.CryptoRoutes {
	out := views.CryptoRoutes{Selected: selected}
	wallet, ok := t.wallet(walletID)
	if !ok {
		out.Unavailable = "Choose a treasury wallet first."
		return out
	}
	sup, err := h.support(ctx, t.user.ServiceUserID, rail, wallet.Currency)
	if err != nil {
		h.Logger.WarnContext(ctx, "treasury: crypto routes", "rail", railName(rail), "currency", wallet.Currency, "err", err)
		out.Unavailable = "The API did not list the routes for " + wallet.Currency + ". " + readFailed(err) + " Reload the page to try again."
		if chain, token, ok := parseRoute(selected); ok {
			// The route chosen stays chosen (it is checked against the
			// list again when the form is sent).
			out.Choices = []views.Choice{{Value: selected, Label: routeLabel(chain, token) + " (as chosen; the list could not be read)"}}
		}
		return out
	}
	for _, rt := range sup.Routes {
		out.Choices = append(out.Choices, views.Choice{Value: rt.Chain + ":" + rt.Currency, Label: routeLabel(rt.Chain, rt.Currency)})
	}
	if len(out.Choices) == 0 {
		out.Unavailable = "The API offers no " + railName(rail) + " for " + wallet.Currency + "."
	}
	return out
}

// readFailed says why a read of the API failed: the API's refusal in
// words, or that it did not answer (apiclient's words of an unanswered
// call speak of writes).
func readFailed(err error) string {
	if p := apiclient.Explain(err); p.Kind == apiclient.Refused {
		return p.Summary
	}
	return "The API did not answer."
}

// renderWithdrawal shows the form with what was typed.
func (h *Handler) renderWithdrawal(w http.ResponseWriter, r *http.Request, t treasury, status int, f views.CryptoWithdrawalForm, msg string) {
	v := views.CryptoWithdrawalView{Wallets: treasuryWallets(t), Form: f, Error: msg}
	v.Routes = h.routes(r.Context(), t, f.WalletID, f.Route, f.Rail)
	v.Routes.Error = f.Fields.Get("route")
	h.Render(w, r, status, withdrawalTitle, views.CryptoWithdrawalPage(v), nil)
}

// confirmTail is how many final characters of the address the person types
// again to confirm a withdrawal.
const confirmTail = 6

// addressTail is the end of the address the person retypes.
func addressTail(a ethsig.Address) string {
	h := a.Hex()
	return h[len(h)-confirmTail:]
}

// renderWithdrawalReview shows what will be sent, for confirmation.
func (h *Handler) renderWithdrawalReview(w http.ResponseWriter, r *http.Request, t treasury, status int, f views.CryptoWithdrawalForm, rv views.CryptoWithdrawalReview) {
	v := views.CryptoWithdrawalView{Wallets: treasuryWallets(t), Form: f, Review: &rv}
	h.Render(w, r, status, withdrawalTitle, views.CryptoWithdrawalPage(v), nil)
}

// WithdrawalForm shows the crypto withdrawal form (?wallet_id= chooses the
// wallet).
func (h *Handler) WithdrawalForm(w http.ResponseWriter, r *http.Request) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.CryptoWithdrawalForm{Token: handlers.NewFormToken(), WalletID: r.URL.Query().Get("wallet_id"),
		Rail: formRail(r.URL.Query().Get("rail")), Fields: views.FieldErrors{}}
	if _, ok := t.wallet(f.WalletID); !ok {
		f.WalletID = ""
		if len(t.wallets) > 0 {
			f.WalletID = t.wallets[0].ID
		}
	}
	h.renderWithdrawal(w, r, t, http.StatusOK, f, "")
}

// WithdrawalRoutes is the destination field for the chosen wallet, swapped
// in by htmx when the wallet changes.
func (h *Handler) WithdrawalRoutes(w http.ResponseWriter, r *http.Request) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.RenderFragment(w, r, http.StatusOK, views.CryptoRouteField(h.routes(r.Context(), t, r.URL.Query().Get("wallet_id"), "", formRail(r.URL.Query().Get("rail")))))
}

// Withdraw checks the form, asks the API once under the form's token, and
// hands the withdrawal's signatureRequest to the owner's device.
func (h *Handler) Withdraw(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.CryptoWithdrawalForm{Token: postedToken(r), WalletID: r.PostFormValue("wallet_id"), Route: r.PostFormValue("route"),
		Address: strings.TrimSpace(r.PostFormValue("address")), Rail: formRail(r.PostFormValue("rail")), Fields: views.FieldErrors{}}
	wallet, chain, token, addr := checkWithdrawalForm(&f, t)
	if f.Fields.Any() {
		h.renderWithdrawal(w, r, t, http.StatusUnprocessableEntity, f, "")
		return
	}
	// The pair must be one the rail takes this token to, read now.
	sup, err := h.support(ctx, t.user.ServiceUserID, f.Rail, wallet.Currency)
	if err != nil {
		h.Logger.WarnContext(ctx, "treasury: crypto routes", "rail", railName(f.Rail), "currency", wallet.Currency, "err", err)
		h.renderWithdrawal(w, r, t, http.StatusBadGateway, f,
			"The API did not list the withdrawal routes. "+readFailed(err)+" Nothing was sent. Your input is kept: try again.")
		return
	}
	if !sup.Supports(chain, token) {
		f.Fields["route"] = "The API's " + railName(f.Rail) + " does not take " + wallet.Currency + " to " + routeLabel(chain, token) + ": choose one of the listed routes."
		h.renderWithdrawal(w, r, t, http.StatusUnprocessableEntity, f, "")
		return
	}
	if r.PostFormValue("edit") != "" {
		h.renderWithdrawal(w, r, t, http.StatusOK, f, "")
		return
	}
	// Nothing is sent before the person saw what will be and retyped the
	// end of the address.
	if tail := strings.TrimSpace(r.PostFormValue("confirm_tail")); !strings.EqualFold(tail, addressTail(addr)) {
		h.reviewWithdrawal(w, r, t, f, wallet, routeLabel(chain, token), addr, tail)
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	id, err := h.store.ReserveCryptoWithdrawalID(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	q := withdrawalRequest{ID: id, UserID: t.user.ServiceUserID, WalletID: wallet.ID, Currency: wallet.Currency,
		BalanceSeen: wallet.Balance, Chain: chain, Token: token, Address: addr.Hex(), Rail: f.Rail}
	actor := handlers.ActorFrom(ctx)
	spend := &store.Spend{WalletID: wallet.ID, Currency: wallet.Currency, Amount: wallet.Balance.Decimal,
		Destination: store.DestinationKey(store.DestCrypto, "", addr.Hex()), ByOwner: handlers.ViewerFrom(ctx).Can(store.PermSettings), At: h.clock()}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindCryptoWithdrawal, Target: withdrawalTarget(id), Actor: actor,
		Request: q, Spend: spend, Call: h.createWithdrawal(key, q, actor)})
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		f.Token = handlers.NewFormToken()
		f.Fields[handlers.PolicyField(refused, "address", "wallet")] = refused.Message
		h.renderWithdrawal(w, r, t, http.StatusUnprocessableEntity, f, refused.Words())
		return
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, withdrawalPage(idOf(done.Action)))
		return
	case done.State() == store.ActionDone:
		h.withdrawalCreated(w, r, id)
		return
	}
	// Refused, or not known: the form again with everything typed and a new
	// token, since this one is spent.
	f.Token = handlers.NewFormToken()
	status, msg := withdrawalNotDone(&f, done)
	h.renderWithdrawal(w, r, t, status, f, msg)
}

// createWithdrawal is the ledger's call: one crypto withdrawal (or
// offramp) of the wallet's whole balance.
func (h *Handler) createWithdrawal(key string, q withdrawalRequest, actor store.Actor) func(ctx context.Context) (handlers.Effect, error) {
	return func(ctx context.Context) (handlers.Effect, error) {
		body := apiclient.CryptoWithdrawalRequest{SourceSmartWalletID: q.WalletID, DestinationChain: q.Chain,
			DestinationCurrency: q.Token, DestinationAddress: q.Address}
		create := h.api.CreateCryptoWithdrawal
		if q.Rail == railOfframp {
			create = h.api.CreateCryptoOfframp
		}
		cw, err := create(ctx, q.UserID, body)
		if err != nil {
			return handlers.Effect{}, err
		}
		return withdrawalEffect(key, q, *cw, actor), nil
	}
}

// withdrawalCreated shows a withdrawal the API opened: its signing link
// when it waits for the owner's signature.
func (h *Handler) withdrawalCreated(w http.ResponseWriter, r *http.Request, id int64) {
	rec, err := h.store.CryptoWithdrawalByID(r.Context(), id)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if rec.State != store.WithdrawalAwaitingSignature {
		h.showRecord(w, r, rec, http.StatusCreated, "The API opened the withdrawal without asking for a signature.", nil, "")
		return
	}
	h.withdrawalLinks.Issue(w, r, rec, http.StatusCreated)
}

// checkWithdrawalForm checks the posted form against the treasury's
// wallets, putting each problem beside its field: the wallet, the route
// (chain and token) and the destination address.
func checkWithdrawalForm(f *views.CryptoWithdrawalForm, t treasury) (wallet store.Wallet, chain, token string, addr ethsig.Address) {
	wallet, ok := t.wallet(f.WalletID)
	switch {
	case !ok:
		f.Fields["wallet"] = "Choose one of the treasury wallets."
	case wallet.Balance.Valid && !wallet.Balance.Decimal.IsPositive():
		f.Fields["wallet"] = "This wallet holds nothing to withdraw (balance last read: " + money(wallet).String() + ")."
	}
	chain, token, routeOK := parseRoute(f.Route)
	if !routeOK {
		f.Fields["route"] = "Choose the destination chain and token."
	}
	addr, msg := destination.Address(f.Address)
	switch {
	case msg != "":
		f.Fields["address"] = msg
	case ok && wallet.Address != "" && strings.EqualFold(wallet.Address, addr.Hex()):
		f.Fields["address"] = "This is the treasury wallet's own address."
	}
	return wallet, chain, token, addr
}

// reviewWithdrawal shows what will be sent (the balance read now) and asks
// for the end of the address to be typed again: nothing is sent before the
// person saw it. tail is what was typed, wrong or empty.
func (h *Handler) reviewWithdrawal(w http.ResponseWriter, r *http.Request, t treasury, f views.CryptoWithdrawalForm, wallet store.Wallet,
	route string, addr ethsig.Address, tail string) {
	ctx := r.Context()
	bal, read, err := h.liveBalance(ctx, t, wallet.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if read && !bal.IsPositive() {
		f.Fields["wallet"] = "This wallet holds nothing to withdraw (balance read just now: 0)."
		h.renderWithdrawal(w, r, t, http.StatusUnprocessableEntity, f, "")
		return
	}
	amount := "the whole balance (it could not be read just now; last read " + money(wallet).String() + ")"
	if read {
		m := money(wallet)
		m.Value = bal
		amount = m.String() + " (read just now)"
	}
	status := http.StatusOK
	if tail != "" {
		f.Fields["confirm_tail"] = "These are not the address's last " + strconv.Itoa(confirmTail) + " characters. Compare the address above with what the recipient sent."
		status = http.StatusUnprocessableEntity
	}
	hexPart := f.Address[2:]
	rv := views.CryptoWithdrawalReview{From: walletLabel(wallet), Amount: amount, Route: route,
		Address: addr.Hex(), NoChecksum: hexPart == strings.ToLower(hexPart) || hexPart == strings.ToUpper(hexPart), Tail: confirmTail}
	h.renderWithdrawalReview(w, r, t, status, f, rv)
}

// withdrawalNotDone puts a withdrawal the API refused, or whose outcome is
// not known, into the form's words: the status and the message above it.
func withdrawalNotDone(f *views.CryptoWithdrawalForm, done handlers.Done) (int, string) {
	if done.State() != store.ActionRefused {
		return http.StatusBadGateway, done.Action.Message + " " + unsignedExpires
	}
	for apiField, m := range done.Problem.Fields {
		if field := withdrawalField(apiField); field != "" {
			f.Fields[field] = m
		}
	}
	if f.Fields.Any() {
		return http.StatusUnprocessableEntity, done.Problem.Summary
	}
	return http.StatusBadGateway, done.Problem.Summary
}

// unsignedExpires is what a person should know of a withdrawal whose
// opening is not known.
const unsignedExpires = "Nothing moves without the owner's signature, and an unsigned withdrawal request expires by itself: if you still want the withdrawal, start it again."

// withdrawalField is the form's field of a request field the API named.
func withdrawalField(apiField string) string {
	switch apiField {
	case "destinationAddress":
		return "address"
	case "destinationChain", "destinationCurrency":
		return "route"
	case "sourceSmartWalletId":
		return "wallet"
	}
	return ""
}

// idOf is the withdrawal id an action of this kind names.
func idOf(a store.Action) int64 {
	id, _ := strconv.ParseInt(strings.TrimPrefix(a.Target, "crypto_withdrawal:"), 10, 64)
	return id
}

// withdrawalEffect records the withdrawal the API opened, in the
// transaction that finishes its action.
func withdrawalEffect(key string, q withdrawalRequest, cw apiclient.CryptoWithdrawal, by store.Actor) handlers.Effect {
	rec := store.CryptoWithdrawal{ID: q.ID, ActionKey: key, UserID: q.UserID, WalletID: q.WalletID, Currency: q.Currency,
		BalanceSeen: q.BalanceSeen, DestinationChain: q.Chain, DestinationCurrency: q.Token, DestinationAddress: q.Address,
		State: store.WithdrawalCreated, UpstreamID: cw.ID, CreatedByStaffID: by.StaffID, CreatedBy: by.Email, Rail: q.Rail}
	detail := q.detail() + ": created, no signature asked"
	if sr := cw.SignatureRequest; sr != nil {
		rec.State, rec.WorkflowID, rec.HashToSign = store.WithdrawalAwaitingSignature, sr.WorkflowID, sr.HashToSign
		if !sr.Deadline.IsZero() {
			d := sr.Deadline
			rec.Deadline = &d
		}
		detail = q.detail() + ": awaiting the owner's signature (workflow " + sr.WorkflowID + ")"
	}
	return handlers.Effect{Target: withdrawalTarget(q.ID), Result: cw, Detail: detail,
		Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.InsertCryptoWithdrawal(ctx, rec)
			return err
		}}
}

// what is the line the device shows for the withdrawal.
func what(rec store.CryptoWithdrawal) string {
	s := "Crypto withdrawal of the whole " + rec.Currency + " balance"
	if rec.BalanceSeen.Valid {
		s += " (last read " + rec.BalanceSeen.Decimal.String() + " " + rec.Currency + ")"
	}
	return s + " to " + rec.DestinationAddress + " as " + routeLabel(rec.DestinationChain, rec.DestinationCurrency)
}

// withdrawalSignLinks issues a withdrawal's signing links.
func (h *Handler) withdrawalSignLinks() *handlers.SignLinks[store.CryptoWithdrawal] {
	return &handlers.SignLinks[store.CryptoWithdrawal]{Base: h.Base, Sign: h.sign, LogMessage: "treasury: issue the withdrawal's signing link",
		Failed: "The withdrawal was opened, but its signing link could not be issued. Try \"Issue a new signing link\".",
		Load:   h.store.CryptoWithdrawalByID,
		Check:  handlers.CheckOneSignRequest(h.store, func(rec store.CryptoWithdrawal) int64 { return rec.SignRequestID }, h.cannotIssue),
		Signature: func(rec store.CryptoWithdrawal) handlers.Signature {
			return handlers.Signature{UserID: rec.UserID, WalletID: rec.WalletID, WorkflowID: rec.WorkflowID, HashToSign: rec.HashToSign,
				Deadline: rec.Deadline, What: what(rec), Log: []any{"withdrawal", rec.ID}}
		},
		Keep: func(ctx context.Context, rec store.CryptoWithdrawal, signRequestID int64) (store.CryptoWithdrawal, error) {
			rec.SignRequestID = signRequestID
			return rec, h.store.SetCryptoWithdrawalSignRequest(ctx, rec.ID, signRequestID)
		},
		Show: h.showRecord}
}

// WithdrawalDetail shows one withdrawal and the live state of its owner
// signature; before the API opened it (or when it refused or did not
// answer), the state of the request that asked for it.
func (h *Handler) WithdrawalDetail(w http.ResponseWriter, r *http.Request) {
	h.withdrawalLinks.Detail(w, r, h.showRequest)
}

// WithdrawalLink issues a new signing link for a withdrawal that still
// waits for its signature (the earlier link is replaced).
func (h *Handler) WithdrawalLink(w http.ResponseWriter, r *http.Request) {
	h.withdrawalLinks.Reissue(w, r)
}

// cannotIssue says why no new link may be issued ("" when one may): the
// withdrawal must wait for a signature, before the rail's deadline, and no
// signature may be on its way or accepted.
func (h *Handler) cannotIssue(rec store.CryptoWithdrawal, sr *store.SignRequest) string {
	if rec.State != store.WithdrawalAwaitingSignature {
		return "This withdrawal does not wait for a signature."
	}
	if rec.Deadline != nil && !h.clock().Before(*rec.Deadline) {
		return "The rail's signing deadline has passed: the withdrawal expired unsigned. Start a new one."
	}
	if handlers.SignatureOnItsWay(sr) {
		return handlers.SignatureOnItsWayWords
	}
	return ""
}

// recordOf is the page's description of what a withdrawal sends.
func recordOf(id int64, currency, walletID string, balance decimal.NullDecimal, chain, token, address string) views.CryptoWithdrawalRecord {
	from := views.Amount{Value: balance.Decimal, Currency: currency}
	walletName := currency
	if fiat, ok := apiclient.Stablecoin(currency).Fiat(); ok {
		from.Currency, from.Token = string(fiat), currency
		walletName = string(fiat) + " (" + currency + ")"
	}
	amount := "The wallet's whole balance"
	if balance.Valid {
		amount += " (last read before sending: " + from.String() + ")"
	}
	return views.CryptoWithdrawalRecord{ID: id, From: walletName + " wallet", FromID: walletID, Amount: amount, To: address,
		Route: routeLabel(chain, token)}
}

// titleOf is a record page's title word for its rail.
func titleOf(rail string) string {
	if rail == railOfframp {
		return "Crypto offramp"
	}
	return "Crypto withdrawal"
}

// showRecord renders a withdrawal the API opened. panel is a just-issued
// sign request (with its QR code); otherwise the stored one's state is
// shown.
func (h *Handler) showRecord(w http.ResponseWriter, r *http.Request, rec store.CryptoWithdrawal, status int, note string, panel *views.SignPanel, errMsg string) {
	sr, err := handlers.SignRequestOf(r.Context(), h.store, rec.SignRequestID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if panel == nil && sr != nil {
		p := proposal.WithdrawalPanel(*sr, &rec, h.clock())
		panel = &p
	}
	v := recordOf(rec.ID, rec.Currency, rec.WalletID, rec.BalanceSeen, rec.DestinationChain, rec.DestinationCurrency, rec.DestinationAddress)
	v.Title = titleOf(rec.Rail)
	v.State, v.StateLabel, v.UpstreamID, v.CreatedBy, v.CreatedAt, v.Note, v.Sign =
		string(rec.State), views.StatusLabel(views.StatusWithdrawal, string(rec.State)), rec.UpstreamID, rec.CreatedBy, rec.CreatedAt, note, panel
	if rec.State == store.WithdrawalAwaitingSignature && sr != nil && (sr.State == store.SignSubmitted || sr.State == store.SignCompleted) {
		v.Signed, v.StateLabel = true, "signed: the rail is moving it"
	}
	if rec.Settled() {
		v.SettledAt = rec.SettledAt
	}
	if rec.State == store.WithdrawalRailFailed {
		v.Error = views.WithdrawalFailureWords(rec.FailureReason)
	}
	if errMsg != "" {
		v.Error = errMsg
	}
	v.CanIssueLink = h.cannotIssue(rec, sr) == "" && (panel == nil || panel.Link == "")
	v.Back = handlers.BackTo(r, "/treasury")
	h.Render(w, r, status, withdrawalTitle, views.CryptoWithdrawalRecordPage(v), views.CryptoWithdrawalRecordBody(v))
}

// showRequest renders a withdrawal the API has not opened: the request that
// asks for it, as the ledger has it — still being sent, refused, or with
// no known outcome.
func (h *Handler) showRequest(w http.ResponseWriter, r *http.Request, id int64) {
	var q withdrawalRequest
	a, ok := h.NotOpened(w, r, h.store, withdrawalTarget(id), kindCryptoWithdrawal, &q)
	if !ok {
		return
	}
	v := recordOf(id, q.Currency, q.WalletID, q.BalanceSeen, q.Chain, q.Token, q.Address)
	v.Title = titleOf(q.Rail)
	v.State, v.StateLabel, v.CreatedBy, v.CreatedAt = string(a.State), views.StatusLabel(views.StatusAction, string(a.State)), a.Actor.Email, a.BegunAt
	poll, says := handlers.NotOpenedSays(a, unsignedExpires)
	if poll {
		v.PollURL = withdrawalPage(id)
	}
	v.Error = says
	v.Back = handlers.BackTo(r, "/treasury")
	h.Render(w, r, http.StatusOK, withdrawalTitle, views.CryptoWithdrawalRecordPage(v), views.CryptoWithdrawalRecordBody(v))
}
