package cash

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/moneyout"
	"partneradmin/store"
	"partneradmin/views"
)

// Action kinds of the LATAM cash rail.
const (
	kindCashFund = "cash_order.fund"
	kindCashSend = "cash_order.send"
)

// countries are the LATAM countries of the cash rail (ISO 3166-1
// alpha-2), as the Partner API serves them.
func countries() []string { return []string{"AR", "BR", "CL", "CO", "EC", "GT", "MX", "PE"} }

// closed are the provider's final order states.
func closed(status string) bool {
	switch strings.ToUpper(status) {
	case "COMPLETED", "CANCELLED", "EXPIRED", "FAILED":
		return true
	}
	return false
}

const title = "LATAM cash"

// Handler serves the LATAM cash routes.
type Handler struct {
	moneyout.Rail
}

// New adds the rail to the index.
func New(hub *moneyout.Handler) *Handler {
	h := &Handler{Rail: hub.Rail}
	hub.Add(views.Rail{Name: title, Href: "/money-out/cash",
		Description: "Page in (the payer pays at a provider's page) and cash out (picked up in cash, signed on the owner's device) in eight Latin American countries."})
	return h
}

// request is what a cash order asks, as the ledger keeps it.
type request struct {
	Type          apiclient.CashOrderType `json:"type"`
	UserID        string                  `json:"userId"`
	WalletID      string                  `json:"walletId"`
	Country       string                  `json:"country"`
	Price         decimal.Decimal         `json:"price"`
	PriceCurrency apiclient.Fiat          `json:"priceCurrency"`
	Description   string                  `json:"description"`
}

// walletChoices are the treasury's wallets a cash order can use: those whose
// stablecoin has a fiat code the rail prices in.
func walletChoices(ws []store.Wallet) []views.Choice {
	var out []views.Choice
	for _, w := range ws {
		fiat, ok := fiatOf(w)
		if !ok {
			continue
		}
		label := string(fiat) + " (" + w.Currency + ")"
		if w.Balance.Valid {
			label += " · balance " + views.FormatDecimal(w.Balance.Decimal, 2)
		}
		out = append(out, views.Choice{Value: w.ID, Label: label})
	}
	return out
}

// fiatOf is the fiat code a wallet's cash prices are in (spec: the
// price currency must match the wallet's stablecoin); false for a wallet
// cash orders do not take.
func fiatOf(w store.Wallet) (apiclient.Fiat, bool) {
	fiat, ok := apiclient.Stablecoin(w.Currency).Fiat()
	if _, priced := apiclient.StablecoinFor(fiat); !ok || !priced || w.Legacy {
		return "", false
	}
	return fiat, true
}

// view is the page: both forms (as typed, when given) and the active
// orders read from the API.
func (h *Handler) view(ctx context.Context, ws []store.Wallet, user string, fund, send *views.CashForm) views.CashView {
	v := views.CashView{Wallets: walletChoices(ws), Countries: countries(),
		Fund: views.CashForm{Type: "fund", Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		Send: views.CashForm{Type: "send", Token: handlers.NewFormToken(), Fields: views.FieldErrors{}}}
	// A fresh form's price is in the currency of the wallet it offers
	// first: the price must be in the wallet's currency.
	for _, w := range ws {
		if fiat, ok := fiatOf(w); ok {
			v.Fund.PriceCurrency, v.Send.PriceCurrency = string(fiat), string(fiat)
			break
		}
	}
	if fund != nil {
		v.Fund = *fund
	}
	if send != nil {
		v.Send = *send
	}
	if h.API == nil || user == "" {
		v.OrdersError = "No Partner API is connected, so the active orders cannot be listed."
		return v
	}
	for _, typ := range []apiclient.CashOrderType{apiclient.CashFund, apiclient.CashSend} {
		list, err := h.API.ListCashOrders(ctx, user, typ)
		if err != nil {
			v.OrdersError = "The active orders could not be read: " + apiclient.Words(err)
			continue
		}
		for _, o := range list {
			v.Orders = append(v.Orders, views.CashOrderRow{ID: o.ID, OrderID: o.OrderID, Type: string(o.Type), Status: o.Status,
				Price: views.FormatDecimal(o.Price, 2), PriceValue: o.Price, Expiry: o.Expiry, CreatedAt: o.CreatedAt})
		}
	}
	// The API's list has no currency: the app's record of the orders it
	// created has it, under the id the create answered (a pay-in's is the
	// provider's orderId, a pay-out's the record's id).
	var ids []string
	for _, o := range v.Orders {
		ids = append(ids, o.ID, o.OrderID)
	}
	recorded, err := h.Store.CashOrdersByID(ctx, ids)
	if err != nil {
		h.Logger.WarnContext(ctx, "cash orders: currencies not read", "err", err)
		v.OrdersError = "The orders' currencies could not be read; try again in a moment."
	}
	for i, o := range v.Orders {
		rec, ok := recorded[o.ID]
		if !ok {
			rec = recorded[o.OrderID]
		}
		v.Orders[i].Currency = rec.Currency
	}
	slices.SortFunc(v.Orders, func(a, b views.CashOrderRow) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return v
}

// Page is /money-out/cash.
func (h *Handler) Page(w http.ResponseWriter, r *http.Request) {
	u, ws, err := h.TreasuryUser(r.Context())
	if err != nil && !errors.Is(err, moneyout.ErrNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, title, views.CashPage(h.view(r.Context(), ws, u.ServiceUserID, nil, nil)), nil)
}

// CSV exports the active orders.
func (h *Handler) CSV(w http.ResponseWriter, r *http.Request) {
	u, ws, err := h.TreasuryUser(r.Context())
	if err != nil && !errors.Is(err, moneyout.ErrNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	v := h.view(r.Context(), ws, u.ServiceUserID, nil, nil)
	if v.OrdersError != "" {
		h.ErrorPage(w, r, http.StatusBadGateway, "The orders could not be read", v.OrdersError)
		return
	}
	// currency is empty for an order created outside the app.
	cw := handlers.NewCSV(w, r, "cash-orders.csv", "id", "type", "status", "price", "currency", "expiry", "created_at")
	for _, o := range v.Orders {
		// A plain decimal, as every export writes amounts: at least the
		// cents, never rounded.
		price := o.PriceValue.String()
		if o.PriceValue.Exponent() > -2 {
			price = o.PriceValue.StringFixed(2)
		}
		cw.Row(o.ID, o.Type, o.Status, price, o.Currency, o.Expiry.UTC().Format(time.RFC3339), o.CreatedAt.UTC().Format(time.RFC3339))
	}
	cw.Close(h.Logger, r)
}

// Fund creates a pay-in once per form and shows where the payer pays.
func (h *Handler) Fund(w http.ResponseWriter, r *http.Request) {
	h.order(w, r, apiclient.CashFund)
}

// Send creates a pay-out once per form and hands its signature request
// to the owner's device.
func (h *Handler) Send(w http.ResponseWriter, r *http.Request) {
	h.order(w, r, apiclient.CashSend)
}

func (h *Handler) order(w http.ResponseWriter, r *http.Request, typ apiclient.CashOrderType) {
	ctx := r.Context()
	u, ws, err := h.TreasuryUser(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f, q, wallet := readOrder(r, typ, u.ServiceUserID, ws)
	render := func(status int, msg string) {
		fund, send := &f, (*views.CashForm)(nil)
		if typ == apiclient.CashSend {
			fund, send = nil, &f
		}
		v := h.view(ctx, ws, u.ServiceUserID, fund, send)
		v.Error = msg
		h.Render(w, r, status, title, views.CashPage(v), nil)
	}
	if f.Fields.Any() {
		render(http.StatusUnprocessableEntity, "")
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	var placed placedOrder
	done, err := h.Actions.Run(ctx, h.write(ctx, key, q, wallet, &placed))
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		render(http.StatusUnprocessableEntity, moneyout.RefusedAt(f.Fields, refused, "price", "price"))
	case h.Answered(w, r, err):
	case done.Repeat:
		id, _ := strings.CutPrefix(done.Action.Target, "cash_order:")
		if done.State() == store.ActionDone && id != "" {
			h.Flash(r, "info", "This form was already sent; nothing was sent again.")
			h.Redirect(w, r, "/money-out/cash/"+url.PathEscape(id))
			return
		}
		render(http.StatusConflict, repeatWords(done.Action, &f))
	case done.State() != store.ActionDone:
		f.Token = handlers.NewFormToken()
		for field, m := range done.Problem.Fields {
			switch field {
			case "price", "country", "description":
				f.Fields[field] = m
			case "priceCurrency":
				f.Fields["price_currency"] = m
			}
		}
		render(http.StatusBadGateway, done.Problem.Summary)
	default:
		h.Render(w, r, http.StatusCreated, title, views.CashResultPage(h.result(ctx, q, placed)), nil)
	}
}

// readOrder reads and checks a posted order form: the messages at the
// fields, and the request and wallet as far as they are known.
func readOrder(r *http.Request, typ apiclient.CashOrderType, userID string, ws []store.Wallet) (views.CashForm, request, store.Wallet) {
	f := views.CashForm{Type: strings.ToLower(string(typ)), Token: r.PostFormValue(handlers.FormTokenField),
		WalletID: r.PostFormValue("wallet_id"), Country: strings.ToUpper(strings.TrimSpace(r.PostFormValue("country"))),
		Price: strings.TrimSpace(r.PostFormValue("price")), PriceCurrency: strings.ToUpper(strings.TrimSpace(r.PostFormValue("price_currency"))),
		Description: strings.TrimSpace(r.PostFormValue("description")), Fields: views.FieldErrors{}}
	if !handlers.ValidFormToken(f.Token) {
		f.Token = handlers.NewFormToken()
	}
	q := request{Type: typ, UserID: userID, Description: f.Description, Country: f.Country}
	i := slices.IndexFunc(ws, func(x store.Wallet) bool { return x.ID == f.WalletID })
	var wallet store.Wallet
	switch {
	case i < 0 || !slices.ContainsFunc(walletChoices(ws), func(c views.Choice) bool { return c.Value == f.WalletID }):
		f.Fields["wallet_id"] = "Choose one of the treasury's wallets listed."
	default:
		wallet = ws[i]
		q.WalletID = wallet.ID
	}
	if !slices.Contains(countries(), f.Country) {
		f.Fields["country"] = "Choose one of the cash countries listed."
	}
	q.PriceCurrency = checkPriceCurrency(&f, wallet)
	amount, msg := handlers.ParseAmount(f.Price, 2)
	switch {
	case msg != "":
		f.Fields["price"] = msg
	case typ == apiclient.CashSend && wallet.Balance.Valid && amount.Value.GreaterThan(wallet.Balance.Decimal):
		f.Fields["price"] = "More than the wallet holds (" + views.FormatDecimal(wallet.Balance.Decimal, 2) + ", last read)."
	}
	q.Price = amount.Value
	switch m := handlers.CheckText(f.Description, apiclient.MaxDescriptionLength, false); {
	case m != "":
		f.Fields["description"] = m
	case f.Description == "":
		f.Fields["description"] = "Say what the order is for; the provider shows it to the payer."
	}
	return f, q, wallet
}

// checkPriceCurrency checks the price's currency against the wallet.
// spec: priceCurrency is the fiat code mapped to the wallet's stablecoin
// and must match the wallet's currency; left empty, it is the wallet's.
func checkPriceCurrency(f *views.CashForm, wallet store.Wallet) apiclient.Fiat {
	if f.PriceCurrency == "" && wallet.ID != "" {
		if fiat, ok := fiatOf(wallet); ok {
			f.PriceCurrency = string(fiat)
		}
	}
	fiat := apiclient.Fiat(f.PriceCurrency)
	coin, ok := apiclient.StablecoinFor(fiat)
	switch {
	case !ok:
		f.Fields["price_currency"] = "Choose one of MXN, USD, NGN, CAD, EUR or GBP."
	case wallet.ID != "" && string(coin) != wallet.Currency:
		want, _ := apiclient.Stablecoin(wallet.Currency).Fiat()
		f.Fields["price_currency"] = "The price must be in the wallet's currency: " + string(want) + " for a " + wallet.Currency + " wallet."
	}
	return fiat
}

// placedOrder is what the API answered to the order's creation.
type placedOrder struct {
	fund *apiclient.CashProviderOrder
	send *apiclient.CashSendOrder
}

// write is the order's write for the ledger; a cash send takes its price
// from the wallet, a fund order brings value in.
func (h *Handler) write(ctx context.Context, key string, q request, wallet store.Wallet, placed *placedOrder) handlers.Write {
	kind := kindCashFund
	var spend *store.Spend
	if q.Type == apiclient.CashSend {
		kind, spend = kindCashSend, h.Spend(ctx, wallet, q.Price, store.RailDestination("cash"))
	}
	return handlers.Write{Key: key, Kind: kind, Target: "wallet:" + q.WalletID, Actor: handlers.ActorFrom(ctx), Request: q,
		Spend: spend, Call: func(ctx context.Context) (handlers.Effect, error) {
			body := apiclient.CashOrderRequest{SmartWalletID: q.WalletID, Country: q.Country, Price: q.Price, PriceCurrency: q.PriceCurrency,
				Description: q.Description}
			var id string
			if q.Type == apiclient.CashFund {
				o, err := h.API.CreateCashFundOrder(ctx, q.UserID, body)
				if err != nil {
					return handlers.Effect{}, err
				}
				placed.fund, id = o, o.ID
			} else {
				o, err := h.API.CreateCashSendOrder(ctx, q.UserID, body)
				if err != nil {
					return handlers.Effect{}, err
				}
				placed.send, id = o, o.ID
			}
			rec := store.CashOrder{OrderID: id, WalletID: q.WalletID, Token: wallet.Currency, Currency: string(q.PriceCurrency)}
			return handlers.Effect{Target: "cash_order:" + id, Result: map[string]string{"orderId": id},
				Detail: strings.ToLower(string(q.Type)) + " order of " + q.Price.String() + " " + string(q.PriceCurrency) + " in " + q.Country,
				Apply:  func(ctx context.Context, tx *store.Store) error { return tx.RecordCashOrder(ctx, rec) }}, nil
		}}
}

// repeatWords says what became of a form sent before that opened no
// order; a refused one gets a new token, since a corrected form is a new
// request.
func repeatWords(a store.Action, f *views.CashForm) string {
	msg := "This form was already sent: " + views.StatusLabel(views.StatusAction, string(a.State)) + ". Nothing was sent again."
	if a.State.Finished() {
		f.Token = handlers.NewFormToken()
		return msg + " " + a.Message
	}
	// Still with the API, or not known: the same token, so that sending
	// this form again finds that order, never makes a second one.
	return strings.TrimSpace(msg + " " + a.Message + " Send the form again in a moment to open its order.")
}

// result is the order as opened: the provider's payment page of a fund
// order, the owner's signing link of a send order.
func (h *Handler) result(ctx context.Context, q request, placed placedOrder) views.CashResult {
	res := views.CashResult{Type: strings.ToLower(string(q.Type)), Price: views.FormatDecimal(q.Price, 2) + " " + string(q.PriceCurrency)}
	if o := placed.fund; o != nil {
		res.OrderID, res.Status = o.ID, o.Status
		if safeRedirect(o.RedirectURL) {
			res.RedirectURL = o.RedirectURL
		} else {
			res.Note = "The provider's payment page was not an https link, so it is not shown; open the order at the provider."
		}
	}
	if o := placed.send; o != nil {
		res.OrderID, res.Status = o.ID, o.Status
		if o.SignatureRequest != nil {
			panel, err := h.Sign.IssueWorkflow(ctx, handlers.ActorFrom(ctx), q.UserID, q.WalletID, *o.SignatureRequest,
				"cash pick-up of "+res.Price+" in "+q.Country)
			if err != nil {
				h.Logger.WarnContext(ctx, "cash send: signing link not issued", "err", err)
				res.Note = "The order was created but its signing link could not be made: " + apiclient.Words(err)
			} else {
				res.Sign = &panel
			}
		}
	}
	return res
}

// safeRedirect reports whether a provider's payment page may be linked: an
// absolute https URL.
func safeRedirect(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && handlers.CheckText(s, 2000, false) == ""
}

// Order is /money-out/cash/{id}: the provider's live order, polled
// until it is final.
func (h *Handler) Order(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if handlers.CheckText(id, 100, false) != "" || id == "" {
		h.ErrorPage(w, r, http.StatusNotFound, "No such order", "This is not an order id.")
		return
	}
	u, _, err := h.TreasuryUser(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.CashOrderView{ID: id, Back: handlers.BackTo(r, "/money-out/cash")}
	o, err := h.API.GetCashOrder(r.Context(), u.ServiceUserID, id)
	switch {
	case apiclient.IsNotFound(err):
		h.ErrorPage(w, r, http.StatusNotFound, "No such order", "The Partner API has no cash order "+id+" for the treasury.")
		return
	case err != nil:
		v.Error = "The Partner API did not answer: " + apiclient.Words(err) + " This page tries again."
		v.Live = true
	default:
		v.Status, v.Price, v.Description = o.Status, o.Price.String()+" "+o.PriceCurrency, o.Description
		v.Live = !closed(o.Status)
		if v.Live && safeRedirect(o.RedirectURL) {
			v.RedirectURL = o.RedirectURL
		}
	}
	h.Render(w, r, http.StatusOK, "Page order", views.CashOrderPage(v), views.CashOrderBody(v))
}
