package treasury

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/handlers/sign"
	"partneradmin/store"
	"partneradmin/views"
)

// A crypto withdrawal (spec: POST /withdrawal/smart-wallet/crypto) sends a
// treasury wallet's whole balance (the body has no amount) to an external
// address, and answers with a signatureRequest that the wallet owner signs
// on their device. The form carries a one-time token; the withdrawal is
// stored under it before the call (store.BeginCryptoWithdrawal), so the
// same form posted twice sends one withdrawal, and the call is never
// retried.

// duplicateWait bounds how long a second post of a form waits for the
// first one's answer before showing the withdrawal as it stands.
const duplicateWait = 10 * time.Second

const withdrawalTitle = "Crypto withdrawal"

// newFormToken returns 16 random bytes, base64url: the form's one-time key.
func newFormToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("treasury: form token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// validFormToken reports whether s has the shape newFormToken gives.
func validFormToken(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 16
}

// checkAddress checks a destination address: 0x and 40 hex characters, and,
// when it mixes upper and lower case, its EIP-55 checksum. It returns the
// address and a message for the field ("" when it is good).
func checkAddress(s string) (ethsig.Address, string) {
	if s == "" {
		return ethsig.Address{}, "Give the destination address: 0x and 40 hex characters."
	}
	if !strings.HasPrefix(s, "0x") || len(s) != 42 {
		return ethsig.Address{}, fmt.Sprintf("An address is 0x and 40 hex characters (this one has %d characters).", len([]rune(s)))
	}
	a, err := ethsig.ParseAddress(s)
	if err != nil {
		return ethsig.Address{}, "An address has only the hex characters 0-9 and a-f after 0x."
	}
	hexPart := s[2:]
	if hexPart != strings.ToLower(hexPart) && hexPart != strings.ToUpper(hexPart) && s != a.Hex() {
		return ethsig.Address{}, "The address's capital letters do not match its EIP-55 checksum: a character is probably mistyped. Copy the address again from the recipient."
	}
	if a.IsZero() {
		return ethsig.Address{}, "This is the zero address: value sent there is lost for good."
	}
	return a, ""
}

// parseRoute splits a route value "chain:TOKEN".
func parseRoute(s string) (chain, token string, ok bool) {
	chain, token, ok = strings.Cut(s, ":")
	return chain, token, ok && chain != "" && token != ""
}

func routeLabel(chain, token string) string { return token + " on " + chain }

// routes lists the destination pairs the API offers for a wallet's token.
func (h *Handler) routes(ctx context.Context, t treasury, walletID, selected string) views.CryptoRoutes {
	out := views.CryptoRoutes{Selected: selected}
	wallet, ok := t.wallet(walletID)
	if !ok {
		out.Unavailable = "Choose a treasury wallet first."
		return out
	}
	sup, err := h.API.GetCryptoWithdrawalSupport(ctx, t.user.ServiceUserID, wallet.Currency)
	if err != nil {
		h.Logger.WarnContext(ctx, "treasury: crypto withdrawal routes", "currency", wallet.Currency, "err", err)
		out.Unavailable = "The API did not list the routes for " + wallet.Currency + " (" + apiWords(err) + "). Reload the page to try again."
		return out
	}
	for _, rt := range sup.Routes {
		out.Choices = append(out.Choices, views.Choice{Value: rt.Chain + ":" + rt.Currency, Label: routeLabel(rt.Chain, rt.Currency)})
	}
	if len(out.Choices) == 0 {
		out.Unavailable = "The API offers no crypto withdrawal for " + wallet.Currency + "."
	}
	return out
}

func apiWords(err error) string {
	var ae *apiclient.Error
	if errors.As(err, &ae) {
		if msg := ae.Message(); msg != "" {
			return msg
		}
		return http.StatusText(ae.StatusCode)
	}
	return "no answer"
}

// renderWithdrawal shows the form with what was typed.
func (h *Handler) renderWithdrawal(w http.ResponseWriter, r *http.Request, t treasury, status int, f views.CryptoWithdrawalForm, msg string) {
	v := views.CryptoWithdrawalView{Wallets: treasuryWallets(t), Form: f, Error: msg}
	v.Routes = h.routes(r.Context(), t, f.WalletID, f.Route)
	v.Routes.Error = f.Fields.Get("route")
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
	tok, err := newFormToken()
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.CryptoWithdrawalForm{Token: tok, WalletID: r.URL.Query().Get("wallet_id"), Fields: views.FieldErrors{}}
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
	h.RenderFragment(w, r, http.StatusOK, views.CryptoRouteField(h.routes(r.Context(), t, r.URL.Query().Get("wallet_id"), "")))
}

// Withdraw checks the form, stores the withdrawal under the form's token,
// asks the API once, and hands its signatureRequest to the owner's device.
func (h *Handler) Withdraw(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.CryptoWithdrawalForm{Token: strings.TrimSpace(r.PostFormValue("form_token")), WalletID: r.PostFormValue("wallet_id"),
		Route: r.PostFormValue("route"), Address: strings.TrimSpace(r.PostFormValue("address")), Fields: views.FieldErrors{}}
	formMsg := ""
	if !validFormToken(f.Token) {
		formMsg = "This form was not loaded from this page (or has expired): check the fields and send it again."
		if f.Token, err = newFormToken(); err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
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
	addr, msg := checkAddress(f.Address)
	switch {
	case msg != "":
		f.Fields["address"] = msg
	case ok && wallet.Address != "" && strings.EqualFold(wallet.Address, addr.Hex()):
		f.Fields["address"] = "This is the treasury wallet's own address."
	}
	if f.Fields.Any() || formMsg != "" {
		h.renderWithdrawal(w, r, t, http.StatusUnprocessableEntity, f, formMsg)
		return
	}
	// The pair must be one the API withdraws this token to, read now.
	sup, err := h.API.GetCryptoWithdrawalSupport(ctx, t.user.ServiceUserID, wallet.Currency)
	if err != nil {
		h.renderWithdrawal(w, r, t, http.StatusBadGateway, f,
			"The API did not list the withdrawal routes ("+apiWords(err)+"); nothing was sent. Your input is kept: try again.")
		return
	}
	if !sup.Supports(chain, token) {
		f.Fields["route"] = "The API does not withdraw " + wallet.Currency + " as " + routeLabel(chain, token) + ": choose one of the listed routes."
		h.renderWithdrawal(w, r, t, http.StatusUnprocessableEntity, f, "")
		return
	}

	by := handlers.ActorFrom(ctx)
	rec, fresh, err := h.Store.BeginCryptoWithdrawal(ctx, store.NewCryptoWithdrawal{FormToken: f.Token, UserID: t.user.ServiceUserID,
		WalletID: wallet.ID, Currency: wallet.Currency, BalanceSeen: wallet.Balance, DestinationChain: chain,
		DestinationCurrency: token, DestinationAddress: addr.Hex()}, by)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !fresh {
		h.duplicate(w, r, rec)
		return
	}
	cw, err := h.API.CreateCryptoWithdrawal(ctx, t.user.ServiceUserID, apiclient.CryptoWithdrawalRequest{
		SourceSmartWalletID: wallet.ID, DestinationChain: chain, DestinationCurrency: token, DestinationAddress: addr.Hex(),
	})
	if err != nil {
		h.withdrawalFailed(w, r, t, rec, f, err)
		return
	}
	o := store.CryptoWithdrawalOutcome{State: store.WithdrawalCreated, UpstreamID: cw.ID}
	if sr := cw.SignatureRequest; sr != nil {
		o.State, o.WorkflowID, o.HashToSign = store.WithdrawalAwaitingSignature, sr.WorkflowID, sr.HashToSign
		if !sr.Deadline.IsZero() {
			d := sr.Deadline
			o.Deadline = &d
		}
	}
	rec, err = h.Store.FinishCryptoWithdrawal(ctx, rec.ID, o, by)
	if err != nil {
		// The API opened it; its record says 'sending' and offers no link.
		h.Logger.ErrorContext(ctx, "treasury: crypto withdrawal opened upstream but not recorded",
			"withdrawal", rec.ID, "upstream", cw.ID, "err", err)
		h.ServerError(w, r, err)
		return
	}
	if cw.SignatureRequest == nil {
		h.showRecord(w, r, rec, http.StatusCreated, "The API opened the withdrawal without asking for a signature.", nil, "")
		return
	}
	h.issueLink(w, r, rec, http.StatusCreated)
}

// withdrawalFailed records the API's refusal or failure (with its audit
// row) and shows the form again with everything typed and a new token: the
// old one is spent, so posting it again sends nothing.
func (h *Handler) withdrawalFailed(w http.ResponseWriter, r *http.Request, t treasury, rec store.CryptoWithdrawal, f views.CryptoWithdrawalForm, err error) {
	ctx := r.Context()
	field, msg, state := withdrawalWords(err)
	h.Logger.WarnContext(ctx, "treasury: crypto withdrawal not opened", "withdrawal", rec.ID, "state", state, "err", err)
	if _, ferr := h.Store.FinishCryptoWithdrawal(ctx, rec.ID, store.CryptoWithdrawalOutcome{State: state, Error: msg}, handlers.ActorFrom(ctx)); ferr != nil {
		h.ServerError(w, r, ferr)
		return
	}
	tok, terr := newFormToken()
	if terr != nil {
		h.ServerError(w, r, terr)
		return
	}
	f.Token = tok
	status := http.StatusBadGateway
	if field != "" {
		f.Fields[field], status, msg = msg, http.StatusUnprocessableEntity, ""
	}
	h.renderWithdrawal(w, r, t, status, f, msg)
}

// withdrawalWords maps the API's answer to the field it concerns (if any),
// words for the staff member, and the record's state.
func withdrawalWords(err error) (field, msg, state string) {
	var ae *apiclient.Error
	var fe apiclient.FieldErrors
	switch {
	case errors.As(err, &fe):
		return "", "The withdrawal was not sent: " + fe.Error(), store.WithdrawalRefused
	case errors.As(err, &ae) && ae.StatusCode < 500:
		low := strings.ToLower(ae.Message())
		switch {
		case strings.Contains(low, "destinationaddress"):
			return "address", "The API refused the address: " + ae.Message(), store.WithdrawalRefused
		case strings.Contains(low, "destinationchain") || strings.Contains(low, "destinationcurrency"):
			return "route", "The API does not take this chain and token for the wallet: " + ae.Message(), store.WithdrawalRefused
		case strings.Contains(low, "balance"):
			return "wallet", "The API says the wallet cannot cover it: " + ae.Message(), store.WithdrawalRefused
		case ae.StatusCode == http.StatusNotFound:
			return "wallet", "The API does not know this wallet (removed, or another partner's).", store.WithdrawalRefused
		case ae.StatusCode == http.StatusForbidden:
			return "", "The API does not allow this partner to withdraw from this wallet.", store.WithdrawalRefused
		}
		return "", "The API refused the withdrawal: " + ae.Message(), store.WithdrawalRefused
	case errors.As(err, &ae):
		return "", "The API failed (" + apiWords(err) + "); no withdrawal was opened and nothing was sent again. Your input is kept: send it once more when the API is back.",
			store.WithdrawalFailed
	}
	return "", "The API did not answer. A withdrawal may have been opened upstream, but nothing moves without the owner's signature and an unsigned request expires by itself. Your input is kept: sending again opens a new request.",
		store.WithdrawalUnknown
}

// duplicate answers a form posted again (a double click, a reload): nothing
// is sent; it waits briefly for the first post's answer and then shows the
// withdrawal that the first post started.
func (h *Handler) duplicate(w http.ResponseWriter, r *http.Request, rec store.CryptoWithdrawal) {
	ctx := r.Context()
	until := time.Now().Add(duplicateWait)
	for pending(rec) && time.Now().Before(until) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(150 * time.Millisecond):
		}
		next, err := h.Store.CryptoWithdrawalByID(ctx, rec.ID)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		rec = next
	}
	h.Flash(r, "info", "This form was sent already: nothing was sent again. Here is the withdrawal it started.")
	h.Redirect(w, r, "/treasury/withdrawal/"+strconv.FormatInt(rec.ID, 10))
}

// pending reports whether the first post is still working: waiting for the
// API, or issuing the signing link.
func pending(rec store.CryptoWithdrawal) bool {
	return rec.State == store.WithdrawalSending || (rec.State == store.WithdrawalAwaitingSignature && rec.SignRequestID == 0 &&
		rec.FinishedAt != nil && time.Since(*rec.FinishedAt) < duplicateWait)
}

// what is the line the device shows for the withdrawal.
func what(rec store.CryptoWithdrawal) string {
	s := "Crypto withdrawal of the whole " + rec.Currency + " balance"
	if rec.BalanceSeen.Valid {
		s += " (last read " + rec.BalanceSeen.Decimal.String() + " " + rec.Currency + ")"
	}
	return s + " to " + rec.DestinationAddress + " as " + routeLabel(rec.DestinationChain, rec.DestinationCurrency)
}

// issueLink creates a sign request for the withdrawal's signatureRequest
// and shows it as a QR code (superseding an earlier link).
func (h *Handler) issueLink(w http.ResponseWriter, r *http.Request, rec store.CryptoWithdrawal, status int) {
	ctx := r.Context()
	req := apiclient.SignatureRequest{WorkflowID: rec.WorkflowID, HashToSign: rec.HashToSign}
	if rec.Deadline != nil {
		req.Deadline = *rec.Deadline
	}
	panel, err := h.Sign.IssueWorkflow(ctx, handlers.ActorFrom(ctx), rec.UserID, rec.WalletID, req, what(rec))
	if err != nil {
		h.Logger.ErrorContext(ctx, "treasury: issue the withdrawal's signing link", "withdrawal", rec.ID, "err", err)
		h.showRecord(w, r, rec, http.StatusBadGateway, "",
			nil, "The withdrawal was opened, but its signing link could not be issued. Try \"Issue a new signing link\".")
		return
	}
	if err := h.Store.SetCryptoWithdrawalSignRequest(ctx, rec.ID, panel.ID); err != nil {
		h.ServerError(w, r, err)
		return
	}
	rec.SignRequestID = panel.ID
	h.showRecord(w, r, rec, status, "", &panel, "")
}

// WithdrawalDetail shows one withdrawal and the live state of its owner
// signature.
func (h *Handler) WithdrawalDetail(w http.ResponseWriter, r *http.Request) {
	rec, ok := h.withdrawalOf(w, r)
	if !ok {
		return
	}
	h.showRecord(w, r, rec, http.StatusOK, "", nil, "")
}

// WithdrawalLink issues a new signing link for a withdrawal that still
// waits for its signature (the earlier link is replaced).
func (h *Handler) WithdrawalLink(w http.ResponseWriter, r *http.Request) {
	rec, ok := h.withdrawalOf(w, r)
	if !ok {
		return
	}
	sr, err := h.signRequestOf(r.Context(), rec)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if why := h.cannotIssue(rec, sr); why != "" {
		h.showRecord(w, r, rec, http.StatusConflict, "", nil, why)
		return
	}
	h.issueLink(w, r, rec, http.StatusCreated)
}

func (h *Handler) withdrawalOf(w http.ResponseWriter, r *http.Request) (store.CryptoWithdrawal, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return store.CryptoWithdrawal{}, false
	}
	rec, err := h.Store.CryptoWithdrawalByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return rec, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return rec, false
	}
	return rec, true
}

func (h *Handler) signRequestOf(ctx context.Context, rec store.CryptoWithdrawal) (*store.SignRequest, error) {
	if rec.SignRequestID == 0 {
		return nil, nil
	}
	sr, err := h.Store.SignRequestByID(ctx, rec.SignRequestID)
	if err != nil {
		return nil, err
	}
	return &sr, nil
}

// cannotIssue says why no new link may be issued ("" when one may): the
// withdrawal must wait for a signature, before the rail's deadline, and no
// signature may be on its way or accepted.
func (h *Handler) cannotIssue(rec store.CryptoWithdrawal, sr *store.SignRequest) string {
	if rec.State != store.WithdrawalAwaitingSignature {
		return "This withdrawal does not wait for a signature."
	}
	if rec.Deadline != nil && !h.now().Before(*rec.Deadline) {
		return "The rail's signing deadline has passed: the withdrawal expired unsigned. Start a new one."
	}
	if sr != nil {
		switch sr.State {
		case store.SignChecking, store.SignRelaying, store.SignRelayPending, store.SignSubmitted, store.SignCompleted:
			return "The owner's signature is already on its way or accepted: no new link is needed."
		}
	}
	return ""
}

// showRecord renders a withdrawal's page. panel is a just-issued sign
// request (with its QR code); otherwise the stored one's state is shown.
func (h *Handler) showRecord(w http.ResponseWriter, r *http.Request, rec store.CryptoWithdrawal, status int, note string, panel *views.SignPanel, errMsg string) {
	ctx := r.Context()
	sr, err := h.signRequestOf(ctx, rec)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if panel == nil && sr != nil {
		p := sign.WithdrawalPanel(*sr, &rec, h.now())
		panel = &p
	}
	from := views.Amount{Value: rec.BalanceSeen.Decimal, Currency: rec.Currency}
	walletName := rec.Currency
	if fiat, ok := apiclient.Stablecoin(rec.Currency).Fiat(); ok {
		from.Currency, from.Token = string(fiat), rec.Currency
		walletName = string(fiat) + " (" + rec.Currency + ")"
	}
	amount := "The wallet's whole balance"
	if rec.BalanceSeen.Valid {
		amount += " (last read before sending: " + from.String() + ")"
	}
	v := views.CryptoWithdrawalRecord{ID: rec.ID, State: rec.State, From: walletName + " wallet " + rec.WalletID, Amount: amount,
		To: rec.DestinationAddress, Route: routeLabel(rec.DestinationChain, rec.DestinationCurrency), UpstreamID: rec.UpstreamID,
		CreatedBy: rec.CreatedBy, CreatedAt: rec.CreatedAt, Error: rec.Error, Note: note, Sign: panel}
	if rec.Settled() {
		v.SettledAt = rec.SettledAt
	}
	if rec.State == store.WithdrawalRailFailed {
		v.Error = views.WithdrawalFailureWords(rec.FailureReason)
	}
	if errMsg != "" {
		v.Error = errMsg
	}
	v.StateLabel, v.StateClass = withdrawalLabel(rec, sr)
	v.CanIssueLink = h.cannotIssue(rec, sr) == "" && (panel == nil || panel.Link == "")
	h.Render(w, r, status, withdrawalTitle, views.CryptoWithdrawalRecordPage(v), nil)
}

func withdrawalLabel(rec store.CryptoWithdrawal, sr *store.SignRequest) (string, string) {
	switch rec.State {
	case store.WithdrawalSending:
		return "sending to the API", "badge-pending"
	case store.WithdrawalAwaitingSignature:
		if sr != nil && (sr.State == store.SignSubmitted || sr.State == store.SignCompleted) {
			return "signed: the rail is moving it", "badge-ok"
		}
		return "waiting for the owner's signature", "badge-pending"
	case store.WithdrawalCreated:
		return "opened", "badge-ok"
	case store.WithdrawalRefused:
		return "refused by the API", "badge-refused"
	case store.WithdrawalFailed:
		return "not opened: the API failed", "badge-failed"
	case store.WithdrawalCompleted:
		return "completed: settled at the destination", "badge-completed"
	case store.WithdrawalRailFailed:
		return "failed: the rail did not complete it", "badge-failed"
	}
	return "no answer from the API", "badge-warn"
}
