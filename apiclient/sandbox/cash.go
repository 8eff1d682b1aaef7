package sandbox

import (
	"net/http"
	"slices"
	"sort"
	"strings"
)

// cashCountries are the LATAM countries (alpha-2) of the cash rail.
var cashCountries = []string{"AR", "BR", "CL", "CO", "EC", "GT", "MX", "PE"}

// Cash order statuses that the list leaves out (spec: "The list endpoint
// excludes completed, cancelled and expired orders").
var cashClosed = []string{"COMPLETED", "CANCELLED", "EXPIRED", "FAILED"}

func (s *Server) cashProviderJSON(o *cashOrder) map[string]any {
	return map[string]any{
		"id":                o.OrderID,
		"price":             o.Price.String(),
		"price_currency":    o.PriceCurrency,
		"description":       o.Description,
		"merchant_order_id": o.ID,
		"status":            o.Status,
		"redirect_url":      "https://cash-provider.sandbox.invalid/pay/" + o.OrderID,
		"return_url":        "https://app.sandbox.invalid/cash/orders/" + o.ID,
	}
}

func cashListJSON(o *cashOrder) map[string]any {
	return map[string]any{
		"id":        o.ID,
		"orderId":   o.OrderID,
		"type":      o.Type,
		"status":    o.Status,
		"price":     o.Price.String(),
		"expiry":    iso(o.Expiry),
		"createdAt": iso(o.CreatedAt),
		"updatedAt": iso(o.UpdatedAt),
	}
}

// newCashOrder validates the body shared by both creates.
func (c *call) newCashOrder(typ string) (*cashOrder, *wallet, error) {
	var in struct {
		SmartWalletID string `json:"smartWalletId"`
		Country       string `json:"country"`
		Price         string `json:"price"`
		PriceCurrency string `json:"priceCurrency"`
		Description   string `json:"description"`
	}
	if err := c.decode(&in); err != nil {
		return nil, nil, err
	}
	var msgs []string
	if strings.TrimSpace(in.SmartWalletID) == "" {
		msgs = append(msgs, "smartWalletId should not be empty")
	}
	cc := strings.ToUpper(strings.TrimSpace(in.Country))
	if !slices.Contains(cashCountries, cc) {
		msgs = append(msgs, "country must be an ISO 3166-1 alpha-2 code of a cash country ("+strings.Join(cashCountries, ", ")+")")
	}
	price := positiveAmount("price", in.Price, &msgs)
	token := stablecoinOfFiat(strings.ToUpper(strings.TrimSpace(in.PriceCurrency)))
	if token == "" {
		msgs = append(msgs, "priceCurrency must be one of MXN, USD, NGN, CAD, EUR, GBP")
	}
	if strings.TrimSpace(in.Description) == "" {
		msgs = append(msgs, "description should not be empty")
	} else if len([]rune(in.Description)) > maxDescription {
		msgs = append(msgs, "description must be shorter than or equal to 500 characters")
	}
	if len(msgs) > 0 {
		return nil, nil, validation(msgs)
	}
	w, err := c.ownWallet(in.SmartWalletID)
	if err != nil {
		return nil, nil, err
	}
	// spec: "priceCurrency (required, fiat code mapped to the wallet
	// stablecoin ...; must match the wallet's currency)"
	if token != w.Currency {
		return nil, nil, validation([]string{"priceCurrency must match the wallet's currency (" + fiatOf(w.Currency) + " for " + w.Currency + ")"})
	}
	now := c.s.now()
	o := &cashOrder{ID: c.s.newID(), OrderID: "cash_" + strings.ReplaceAll(c.s.newID(), "-", "")[:20], UserID: c.user.ID, WalletID: w.ID,
		Type: typ, Status: "CREATED", Country: cc, Price: price, PriceCurrency: fiatOf(w.Currency), Description: strings.TrimSpace(in.Description),
		Expiry: now.Add(cashOrderTTL), CreatedAt: now, UpdatedAt: now, Seq: c.s.st.next()}
	return o, w, nil
}

// cashFund implements POST .../latam/cash/orders/fund: the provider order
// with its redirect_url.
func (c *call) cashFund() (any, error) {
	o, _, err := c.newCashOrder("FUND")
	if err != nil {
		return nil, err
	}
	c.s.rails().CashOrders[o.ID] = o
	c.status = http.StatusCreated
	return map[string]any{"data": c.s.cashProviderJSON(o)}, nil
}

// cashSend implements POST .../latam/cash/orders/send: a signature request.
func (c *call) cashSend() (any, error) {
	o, w, err := c.newCashOrder("SEND")
	if err != nil {
		return nil, err
	}
	if w.Balance.LessThan(o.Price) {
		return nil, badRequest("Insufficient balance: " + w.Balance.String() + " " + w.Currency + " available, " + o.Price.String() + " needed")
	}
	wf := c.s.newWorkflow(w, wfCashSend, o.ID, o.Price, "cash:"+o.OrderID)
	o.WorkflowID = wf.ID
	c.s.rails().CashOrders[o.ID] = o
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{"id": o.ID, "orderId": o.OrderID, "status": o.Status, "signatureRequest": signatureRequestJSON(wf)}}, nil
}

// listCashOrders implements GET .../latam/cash/orders?type=FUND|SEND.
func (c *call) listCashOrders() (any, error) {
	typ := strings.ToUpper(c.r.URL.Query().Get("type"))
	if typ != "FUND" && typ != "SEND" {
		return nil, validation([]string{"type must be one of FUND, SEND"})
	}
	var os []*cashOrder
	for _, o := range c.s.rails().CashOrders {
		if o.UserID == c.user.ID && o.Type == typ && !slices.Contains(cashClosed, o.Status) {
			os = append(os, o)
		}
	}
	sort.Slice(os, func(i, j int) bool { return os[i].Seq > os[j].Seq })
	out := []any{}
	for _, o := range os {
		out = append(out, cashListJSON(o))
	}
	return map[string]any{"data": out}, nil
}

func (c *call) ownCashOrder(id string) *cashOrder {
	for _, o := range c.s.rails().CashOrders {
		if o.UserID == c.user.ID && (o.ID == id || o.OrderID == id) {
			return o
		}
	}
	return nil
}

// getCashOrder implements GET .../latam/cash/orders/{orderId} (the record id
// or the provider order id).
func (c *call) getCashOrder() (any, error) {
	o := c.ownCashOrder(c.param("orderId"))
	if o == nil {
		return nil, notFound(msgItemNotFound)
	}
	return map[string]any{"data": c.s.cashProviderJSON(o)}, nil
}

func (s *Server) cashSendSigned(wf *workflow, w *wallet) error {
	o := s.rails().CashOrders[wf.RefID]
	if o == nil {
		return notFound(msgItemNotFound)
	}
	if err := debit(w, o.Price); err != nil {
		return err
	}
	o.Status, o.UpdatedAt = "READY", s.now()
	s.withdrawalEvent(w, "processing", o.Price, "cash", o.ID, "")
	return nil
}

// tickCash expires open orders and completes signed SEND orders (READY →
// COMPLETED: the cash was collected).
func (s *Server) tickCash(force bool) int {
	n := 0
	now := s.now()
	r := s.rails()
	var os []*cashOrder
	for _, o := range r.CashOrders {
		os = append(os, o)
	}
	sort.Slice(os, func(i, j int) bool { return os[i].Seq < os[j].Seq })
	for _, o := range os {
		w := s.st.Wallets[o.WalletID]
		if w == nil {
			continue
		}
		switch {
		case o.Status == "CREATED" && now.After(o.Expiry):
			o.Status, o.UpdatedAt = "EXPIRED", now
		case o.Type == "FUND" && o.Status == "PAYMENT_STARTED":
			if !(force || s.due(&o.UpdatedAt)) {
				continue
			}
			n++
			o.Status, o.UpdatedAt = "COMPLETED", now
			s.credit(w, o.Price, "cash", o.ID)
		case o.Type == "SEND" && o.Status == "READY":
			wf := r.Workflows[o.WorkflowID]
			if wf == nil || !(force || s.due(wf.SubmittedAt)) {
				continue
			}
			n++
			if s.takeFailure(railFailCashSend) {
				o.Status, o.UpdatedAt, wf.Status = "FAILED", now, wfFailed
				w.Balance = w.Balance.Add(o.Price)
				s.withdrawalEvent(w, "failed", o.Price, "cash", o.ID, "The cash pick-up was not completed; the amount was refunded")
				continue
			}
			o.Status, o.UpdatedAt, wf.Status = "COMPLETED", now, wfCompleted
			s.withdrawalEvent(w, "completed", o.Price, "cash", o.ID, "")
		}
	}
	return n
}

// payCashFund marks a FUND order paid at the store (control API):
// PAYMENT_STARTED, then COMPLETED with the wallet credited after
// SettleDelay or settle.
func (s *Server) payCashFund(o *cashOrder) error {
	if o.Type != "FUND" {
		return badRequest("Only FUND orders are paid by the payer")
	}
	if slices.Contains(cashClosed, o.Status) {
		return conflict("Order is closed (status " + o.Status + ")")
	}
	w := s.st.Wallets[o.WalletID]
	if w == nil {
		return notFound(msgItemNotFound)
	}
	if o.Status == "PAYMENT_STARTED" {
		return conflict("Payment already started")
	}
	o.Status, o.UpdatedAt = "PAYMENT_STARTED", s.now()
	return nil
}
