package cards

import (
	"net/http"
	"strings"
	"sync"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/views"
)

// Detail is /cards/{id}: the live status from GET /cards/{cardId}, balance
// and ledger, limits, transactions and the activity feed.
func (h *Handler) Detail(w http.ResponseWriter, r *http.Request) {
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	h.showDetail(w, r, hit, http.StatusOK, nil)
}

// detailEdit adjusts the detail view before it is rendered (a form with
// what the user typed and its messages).
type detailEdit func(*views.CardDetailView)

// showDetail reads everything the detail page shows, upstream reads in
// parallel, and renders it with status. ctl, when set, replaces the status
// control (after a freeze or unfreeze without htmx).
func (h *Handler) showDetail(w http.ResponseWriter, r *http.Request, hit store.CardHit, status int, ctl *views.CardControl, edits ...detailEdit) {
	ctx := r.Context()
	now := h.Now()
	canWrite := h.canWrite(r)
	c := hit.CardEntry
	v := views.CardDetailView{
		ID: c.ID, Swatch: swatch(c.CardColor, c.CardName), CardName: c.CardName, EmployeeName: hit.EmployeeName,
		Email: hit.EmployeeEmail, Currency: c.Currency, Type: c.Type, Last4: c.Last4, FundedAt: c.FundedAt,
		Reserved: c.Reserved, ProposalID: c.ProposalID, ProposalStatus: c.ProposalStatus, CanWrite: canWrite,
		Physical: c.Type == "physical",
		Cancel:   views.CardCancelForm{CardID: c.ID, CardName: c.CardName},
		Activate: views.CardActivationView{CardID: c.ID, Channel: "sms"},
		Limits:   views.CardLimitsView{CardID: c.ID, Currency: c.Currency, CanWrite: canWrite},
		Txns:     views.CardTxnsView{CardID: c.ID},
	}
	if c.Reserved {
		v.Control = views.CardControl{CardID: c.ID, CardName: c.CardName, Badge: badge("RESERVED", false, c.StatusReadAt, now),
			Note: explainStatus("reserved")}
		v.Limits.Disabled = true
		h.finishDetail(w, r, status, v, edits)
		return
	}

	var (
		wg       sync.WaitGroup
		live     *apiclient.Card
		liveErr  error
		detail   *apiclient.CardDetail
		detErr   error
		limits   views.CardLimitsView
		txns     views.CardTxnsView
		activity []store.CardActivity
		actErr   error
	)
	wg.Add(5)
	go func() { defer wg.Done(); live, liveErr = h.API.GetCard(ctx, hit.ServiceUserID, c.ID) }()
	go func() {
		defer wg.Done()
		detail, detErr = h.API.GetWalletCard(ctx, hit.ServiceUserID, c.WalletID, c.ID)
	}()
	go func() { defer wg.Done(); limits = h.limitsView(ctx, hit, canWrite) }()
	go func() { defer wg.Done(); txns = h.txnsView(ctx, hit, r.URL.Query()) }()
	go func() { defer wg.Done(); activity, actErr = h.Store.CardActivityFeed(ctx, c.ID, 50) }()
	wg.Wait()
	if actErr != nil {
		h.ServerError(w, r, actErr)
		return
	}
	v.Limits, v.Txns, v.Activity = limits, txns, activityRows(activity)

	if liveErr != nil {
		h.Logger.WarnContext(ctx, "card live status", "card", c.ID, "err", liveErr)
		v.UpstreamErr = upstreamWords(liveErr) + " The status below is the last one seen, not the live one."
		v.Control = views.CardControl{CardID: c.ID, CardName: c.CardName, CanWrite: canWrite, Poll: true,
			Badge: badge(c.Status, false, c.StatusReadAt, now), Action: actionFor(c.Status), Note: explainStatus(c.Status)}
	} else {
		st := string(live.Status)
		if err := h.Store.RecordCardStatus(ctx, c.ID, st, now); err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.Control = views.CardControl{CardID: c.ID, CardName: c.CardName, CanWrite: canWrite, Poll: true,
			Badge: badge(st, true, now, now), Action: actionFor(st), Note: explainStatus(st)}
		v.Activated = live.Activated || statusKey(live.Status) == "active" || isFrozen(statusKey(live.Status))
		v.Canceled = isCanceled(statusKey(live.Status))
		if live.FundingPolicy != "" {
			v.FundingPolicy, v.FundLifecycle = live.FundingPolicy, live.FundLifecycle
		}
		if live.FundedAt != nil {
			v.FundedAt = live.FundedAt
		}
		v.Activate.Available = v.Physical && statusKey(live.Status) == "pending" && !live.Activated
	}
	if v.Canceled {
		v.Limits.Disabled = true
	}
	if detErr != nil {
		v.LedgerErr = upstreamWords(detErr) + " Balance and ledger could not be read."
	} else {
		// spec: "balanceMinor | detail route only, minor units"; ledger
		// "amount is a minor-unit string". Minor units become a display
		// amount here, and only here.
		bal := views.Amount{Value: detail.BalanceMinor.Major(minorPlaces), Currency: c.Currency}
		v.Balance = &bal
		for _, e := range detail.Ledger {
			cur := string(e.Currency)
			if cur == "" {
				cur = c.Currency
			}
			v.Ledger = append(v.Ledger, views.LedgerRow{At: e.CreatedAt, Type: e.Type, Description: e.Description,
				Amount: views.Amount{Value: e.Amount.Major(minorPlaces), Currency: cur}})
		}
	}
	if ctl != nil {
		ctl.CardName = c.CardName
		v.Control = *ctl
	}
	h.finishDetail(w, r, status, v, edits)
}

func (h *Handler) finishDetail(w http.ResponseWriter, r *http.Request, status int, v views.CardDetailView, edits []detailEdit) {
	for _, e := range edits {
		e(&v)
	}
	title := "Card " + v.CardName
	h.render(w, r, status, strings.TrimSpace(title), views.CardDetailPage(v), nil)
}

// Status answers the detail page's poll with the live status. When it is
// still the status the page shows (seen), it answers 204 and htmx keeps the
// page as it is (with any message on it).
func (h *Handler) Status(w http.ResponseWriter, r *http.Request) {
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	now := h.Now()
	ctl := views.CardControl{CardID: hit.ID, CardName: hit.CardName, CanWrite: h.canWrite(r), Poll: true}
	if hit.Reserved {
		ctl.Badge, ctl.Poll, ctl.Note = badge("RESERVED", false, hit.StatusReadAt, now), false, explainStatus("reserved")
		h.RenderFragment(w, r, http.StatusOK, views.CardControlView(ctl))
		return
	}
	live, err := h.API.GetCard(r.Context(), hit.ServiceUserID, hit.ID)
	if err != nil {
		h.Logger.WarnContext(r.Context(), "card live status", "card", hit.ID, "err", err)
		ctl.Badge, ctl.Action, ctl.Note = badge(hit.Status, false, hit.StatusReadAt, now), actionFor(hit.Status), explainStatus(hit.Status)
		ctl.Message, ctl.Error = upstreamWords(err)+" Showing the last status seen.", true
		h.RenderFragment(w, r, http.StatusOK, views.CardControlView(ctl))
		return
	}
	st := string(live.Status)
	if err := h.Store.RecordCardStatus(r.Context(), hit.ID, st, now); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if seen := r.URL.Query().Get("seen"); seen != "" && strings.EqualFold(seen, st) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	ctl.Badge, ctl.Action, ctl.Note = badge(st, true, now, now), actionFor(st), explainStatus(st)
	h.RenderFragment(w, r, http.StatusOK, views.CardControlView(ctl))
}

// Activity answers the activity feed's poll from the store.
func (h *Handler) Activity(w http.ResponseWriter, r *http.Request) {
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	list, err := h.Store.CardActivityFeed(r.Context(), hit.ID, 50)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.RenderFragment(w, r, http.StatusOK, views.CardActivityFeed(views.CardActivityView{CardID: hit.ID, Rows: activityRows(list)}))
}

func activityRows(list []store.CardActivity) []views.CardActivityRow {
	rows := make([]views.CardActivityRow, 0, len(list))
	for _, a := range list {
		row := views.CardActivityRow{At: a.OccurredAt, Kind: a.Kind, Status: a.Status, Merchant: a.Merchant, Detail: a.Detail}
		if a.Amount != nil {
			row.Amount = &views.Amount{Value: *a.Amount, Currency: a.Currency}
		}
		if a.Fee != nil {
			row.Fee = &views.Amount{Value: *a.Fee, Currency: a.Currency}
		}
		rows = append(rows, row)
	}
	return rows
}
