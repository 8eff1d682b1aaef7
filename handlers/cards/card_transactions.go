package cards

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const (
	txnPageSize = 20
	// maxTxnSize is the most the transactions route returns in one answer;
	// it has no cursor, so paging asks for page×20 and shows the last 20.
	maxTxnSize = 100
)

var txnStatuses = map[string]bool{"": true, "COMPLETED": true, "DECLINED": true, "PENDING": true, "REVERSED": true}

// txnQuery parses the transactions filter: from and to dates, status, page.
func txnQuery(q url.Values) (apiclient.CardTransactionQuery, views.CardTxnsView) {
	v := views.CardTxnsView{From: strings.TrimSpace(q.Get("from")), To: strings.TrimSpace(q.Get("to")),
		Status: strings.ToUpper(strings.TrimSpace(q.Get("status"))), Page: 1, PageSize: txnPageSize, Fields: views.FieldErrors{}}
	var aq apiclient.CardTransactionQuery
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 1 {
		v.Page = min(p, maxTxnSize/txnPageSize)
	}
	if v.From != "" {
		t, err := time.Parse(time.DateOnly, v.From)
		if err != nil {
			v.Fields["from"] = "Enter a date as YYYY-MM-DD."
		}
		aq.From = t
	}
	if v.To != "" {
		t, err := time.Parse(time.DateOnly, v.To)
		if err != nil {
			v.Fields["to"] = "Enter a date as YYYY-MM-DD."
		}
		aq.To = t
	}
	if !v.Fields.Has("from") && !v.Fields.Has("to") && !aq.From.IsZero() && !aq.To.IsZero() && aq.To.Before(aq.From) {
		v.Fields["to"] = "The end date must not be before the start date."
	}
	if !txnStatuses[v.Status] {
		v.Fields["status"] = "Choose a status from the list."
	}
	aq.Status = v.Status
	aq.Size = v.Page * txnPageSize
	qs := url.Values{}
	for k, val := range map[string]string{"from": v.From, "to": v.To, "status": v.Status} {
		if val != "" {
			qs.Set(k, val)
		}
	}
	v.Query = qs.Encode()
	return aq, v
}

// txnsView reads one page of transactions (major-unit amounts).
func (h *Handler) txnsView(ctx context.Context, hit store.CardHit, q url.Values) views.CardTxnsView {
	aq, v := txnQuery(q)
	v.CardID = hit.ID
	if v.Fields.Any() {
		return v
	}
	res, err := h.API.ListCardTransactions(ctx, hit.ServiceUserID, hit.ID, aq)
	if err != nil {
		h.Logger.WarnContext(ctx, "card transactions", "card", hit.ID, "err", err)
		v.Error = apiclient.ReadWords(err) + " Transactions could not be read."
		return v
	}
	all := res.Transactions
	start := (v.Page - 1) * txnPageSize
	for i := start; i < len(all) && i < start+txnPageSize; i++ {
		v.Rows = append(v.Rows, txnRow(all[i], hit.Currency))
	}
	v.HasMore = len(all) >= aq.Size && aq.Size < maxTxnSize
	v.AtLimit = len(all) >= maxTxnSize && v.Page*txnPageSize >= maxTxnSize
	return v
}

// txnRow shows a transaction. spec: transactions "report amount as a
// major-unit number": it is a decimal already, never minor units.
func txnRow(t apiclient.CardTransaction, cardCurrency string) views.CardTxnRow {
	cur := string(t.Currency)
	if cur == "" {
		cur = cardCurrency
	}
	return views.CardTxnRow{ID: t.ID, At: t.CreatedAt, Merchant: t.MerchantName, Status: t.Status,
		Amount: views.Amount{Value: t.Amount.Decimal, Currency: cur}, Fee: views.Amount{Value: t.Fee.Decimal, Currency: cur}}
}

// Transactions is the transactions panel alone (htmx filter and paging), or
// as its own page without htmx.
func (h *Handler) Transactions(w http.ResponseWriter, r *http.Request) {
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	v := h.txnsView(r.Context(), hit, r.URL.Query())
	status := http.StatusOK
	if v.Fields.Any() {
		status = http.StatusUnprocessableEntity
	}
	page := views.CardTxnsPage(hit.CardName, hit.EmployeeName, v)
	h.render(w, r, status, "Transactions of "+hit.CardName, page, views.CardTxnsPanel(v))
}

// TransactionsCSV downloads the filtered transactions (up to the API's
// 100).
func (h *Handler) TransactionsCSV(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	aq, v := txnQuery(r.URL.Query())
	if v.Fields.Any() {
		h.ErrorPage(w, r, http.StatusUnprocessableEntity, "Check the filter", "The dates must be YYYY-MM-DD, the end not before the start.")
		return
	}
	aq.Size = maxTxnSize
	res, err := h.API.ListCardTransactions(ctx, hit.ServiceUserID, hit.ID, aq)
	if err != nil {
		h.Logger.WarnContext(ctx, "card transactions csv", "card", hit.ID, "err", err)
		h.ErrorPage(w, r, http.StatusBadGateway, "Transactions unavailable", apiclient.ReadWords(err)+" Try again in a moment.")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	cw := handlers.NewCSV(w, r, "card-"+hit.ID+"-transactions.csv", "transaction_id", "created_at", "merchant", "status", "amount", "fee", "currency")
	defer cw.Close(h.Logger, r)
	for _, t := range res.Transactions {
		row := txnRow(t, hit.Currency)
		cw.Row(row.ID, views.ISO(row.At), row.Merchant, row.Status, row.Amount.Value.String(), row.Fee.Value.String(), row.Amount.Currency)
	}
}
