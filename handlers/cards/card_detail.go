package cards

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Detail is /cards/{id}: the live status from GET /cards/{cardId} and the
// activity feed, with the balance and ledger, limits and transactions
// loaded by the page right after (Panels): the page's own request makes
// one upstream read.
func (h *Handler) Detail(w http.ResponseWriter, r *http.Request) {
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	h.detail(w, r, hit, http.StatusOK, nil, true)
}

// detailEdit adjusts the detail view before it is rendered (a form with
// what the user typed and its messages).
type detailEdit func(*views.CardDetailView)

// showDetail renders the detail page with every panel read in this
// request, as the answer to an action (its form with what the user typed
// and its messages, in place). ctl, when set, replaces the status control
// (after a freeze or unfreeze without htmx).
func (h *Handler) showDetail(w http.ResponseWriter, r *http.Request, hit store.CardHit, status int, ctl *views.CardControl, edits ...detailEdit) {
	h.detail(w, r, hit, status, ctl, false, edits...)
}

// panelsPath is where the detail page loads its upstream panels from, with
// the page's query (the transactions' filters).
func panelsPath(r *http.Request, cardID string) string {
	p := "/cards/" + cardID + "/panels"
	if q := r.URL.RawQuery; q != "" {
		p += "?" + q
	}
	return p
}

// detail reads what the detail page shows, upstream reads in parallel, and
// renders it with status. lazy leaves the balance and ledger, limits and
// transactions to Panels, which the page loads once shown.
func (h *Handler) detail(w http.ResponseWriter, r *http.Request, hit store.CardHit, status int, ctl *views.CardControl, lazy bool, edits ...detailEdit) {
	ctx := r.Context()
	now := h.Clock()
	canWrite := h.canWrite(r)
	c := hit.CardEntry
	v := views.CardDetailView{
		ID: c.ID, Swatch: swatch(c.CardColor, c.CardName), CardName: c.CardName, EmployeeName: hit.EmployeeName,
		Email: hit.EmployeeEmail, Currency: c.Currency, Type: c.Type, Last4: c.Last4, FundedAt: c.FundedAt,
		Reserved: c.Reserved, CanWrite: canWrite, Physical: c.Type == "physical",
		Cancel:   views.CardCancelForm{CardID: c.ID, CardName: c.CardName, FormToken: handlers.NewFormToken()},
		Activate: views.CardActivationView{CardID: c.ID, Channel: "sms", RequestToken: handlers.NewFormToken(), ConfirmToken: handlers.NewFormToken()},
		Limits:   views.CardLimitsView{CardID: c.ID, Currency: c.Currency, CanWrite: canWrite},
		Txns:     views.CardTxnsView{CardID: c.ID},
	}
	if c.Reserved {
		issuance, err := h.issuanceOf(r, hit)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.Issuance = issuance
		v.Control = views.CardControl{CardID: c.ID, CardName: c.CardName, Badge: lastSeen(hit, now)}
		v.Limits.Disabled = true
		h.finishDetail(w, r, status, v, edits)
		return
	}

	var (
		wg       sync.WaitGroup
		live     *apiclient.Card
		liveErr  error
		activity []store.CardActivity
		actErr   error
	)
	wg.Add(2)
	go func() { defer wg.Done(); live, liveErr = h.API.GetCard(ctx, hit.ServiceUserID, c.ID) }()
	go func() { defer wg.Done(); activity, actErr = h.Store.CardActivityFeed(ctx, c.ID, 50) }()
	if lazy {
		v.PanelsURL = panelsPath(r, c.ID)
	} else {
		wg.Add(1)
		go func() { defer wg.Done(); h.readPanels(ctx, hit, canWrite, r.URL.Query(), &v) }()
	}
	wg.Wait()
	if actErr != nil {
		h.ServerError(w, r, actErr)
		return
	}
	v.Activity = activityRows(activity)

	if liveErr != nil {
		h.Logger.WarnContext(ctx, "card live status", "card", c.ID, "err", liveErr)
		v.UpstreamErr = apiclient.ReadWords(liveErr) + " The status below is the last one seen, not the live one."
		v.Control = views.CardControl{CardID: c.ID, CardName: c.CardName, CanWrite: canWrite, Poll: true,
			Badge: lastSeen(hit, now), Action: actionFor(views.CardStatus(c.Status)), FormToken: handlers.NewFormToken()}
	} else {
		st := views.CardStatus(live.Status)
		if err := h.recordStatus(ctx, hit, string(st), now); err != nil {
			h.ServerError(w, r, err)
			return
		}
		showLive(&v, live, canWrite, now)
	}
	if v.Canceled {
		v.Limits.Disabled = true
	}
	if ctl != nil {
		ctl.CardName = c.CardName
		v.Control = *ctl
	}
	h.finishDetail(w, r, status, v, edits)
}

// readPanels reads the balance and ledger, the limits and the transactions
// (filtered by q) of a card into v, in parallel. A failed read is said in
// its panel; the others are shown.
func (h *Handler) readPanels(ctx context.Context, hit store.CardHit, canWrite bool, q url.Values, v *views.CardDetailView) {
	c := hit.CardEntry
	var (
		wg     sync.WaitGroup
		detail *apiclient.CardDetail
		detErr error
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		detail, detErr = h.API.GetWalletCard(ctx, hit.ServiceUserID, c.WalletID, c.ID)
	}()
	go func() { defer wg.Done(); v.Limits = h.limitsView(ctx, hit, canWrite) }()
	go func() { defer wg.Done(); v.Txns = h.txnsView(ctx, hit, q) }()
	wg.Wait()
	if detErr != nil {
		v.LedgerErr = apiclient.ReadWords(detErr) + " Balance and ledger could not be read."
		return
	}
	// spec: "balanceMinor | detail route only, minor units"; ledger
	// "amount is a minor-unit string". Minor units become a display
	// amount here, and only here.
	places := minorUnits(c.Currency)
	bal := views.Amount{Value: detail.BalanceMinor.Major(places), Currency: c.Currency}
	v.Balance = &bal
	for _, e := range detail.Ledger {
		cur := string(e.Currency)
		if cur == "" {
			cur = c.Currency
		}
		v.Ledger = append(v.Ledger, views.LedgerRow{At: e.CreatedAt, Type: e.Type, Description: e.Description,
			Amount: views.Amount{Value: e.Amount.Major(places), Currency: cur}})
	}
}

// Panels is /cards/{id}/panels: the balance and ledger, limits and
// transactions of a card, which its detail page loads once shown (an htmx
// fragment), or as a page of their own without htmx. The limits form is
// offered unless the card's status, as the detail page just read it live
// and recorded it, is canceled (the issuer refuses limits on a canceled
// card anyway).
func (h *Handler) Panels(w http.ResponseWriter, r *http.Request) {
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	if hit.Reserved {
		http.Redirect(w, r, "/cards/"+hit.ID, http.StatusSeeOther)
		return
	}
	c := hit.CardEntry
	v := views.CardDetailView{ID: c.ID, CardName: c.CardName, EmployeeName: hit.EmployeeName, Currency: c.Currency,
		CanWrite: h.canWrite(r), Txns: views.CardTxnsView{CardID: c.ID}}
	h.readPanels(r.Context(), hit, v.CanWrite, r.URL.Query(), &v)
	v.Limits.Disabled = views.CardStatus(hit.Status).Canceled()
	title := "Card " + c.CardName
	h.render(w, r, http.StatusOK, strings.TrimSpace(title), views.CardPanelsPage(v), views.CardPanels(v))
}

func (h *Handler) finishDetail(w http.ResponseWriter, r *http.Request, status int, v views.CardDetailView, edits []detailEdit) {
	for _, e := range edits {
		e(&v)
	}
	title := "Card " + v.CardName
	v.BackURL = handlers.BackTo(r, "/cards")
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
	now := h.Clock()
	ctl := views.CardControl{CardID: hit.ID, CardName: hit.CardName, CanWrite: h.canWrite(r), Poll: true,
		FormToken: handlers.NewFormToken()}
	if hit.Reserved {
		ctl.Badge, ctl.Poll = lastSeen(hit, now), false
		h.RenderFragment(w, r, http.StatusOK, views.CardControlView(ctl))
		return
	}
	live, err := h.API.GetCard(r.Context(), hit.ServiceUserID, hit.ID)
	if err != nil {
		h.Logger.WarnContext(r.Context(), "card live status", "card", hit.ID, "err", err)
		ctl.Badge, ctl.Action = lastSeen(hit, now), actionFor(views.CardStatus(hit.Status))
		ctl.Message, ctl.Error = apiclient.ReadWords(err)+" Showing the last status seen.", true
		h.RenderFragment(w, r, http.StatusOK, views.CardControlView(ctl))
		return
	}
	st := views.CardStatus(live.Status)
	if err := h.recordStatus(r.Context(), hit, string(st), now); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if seen := r.URL.Query().Get("seen"); h.Unchanged(w, r, seen != "" && strings.EqualFold(seen, string(st))) {
		return
	}
	ctl.Badge, ctl.Action = views.CardBadge{Status: st, Live: true, ReadAt: now, Now: now}, actionFor(st)
	h.RenderFragment(w, r, http.StatusOK, views.CardControlView(ctl))
}

// recordStatus keeps a status read live, unless the index already holds
// it, recorded recently (store.CardStatusRestamp): no write, no round trip.
func (h *Handler) recordStatus(ctx context.Context, hit store.CardHit, status string, now time.Time) error {
	if hit.StatusFresh(status, now) {
		return nil
	}
	return h.Store.RecordCardStatus(ctx, hit.ID, status, now)
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

// issuanceOf is where a requested card's issuance stands: its proposal's
// status from the approvals mirror (kept fresh by the sync) or, failing
// that, from the card list; who asked for it from the action ledger.
func (h *Handler) issuanceOf(r *http.Request, hit store.CardHit) (views.CardIssuance, error) {
	ctx := r.Context()
	id := hit.ProposalID
	if id == "" {
		id = hit.ID
	}
	out := views.CardIssuance{ProposalID: id, Status: hit.ProposalStatus, CanOpenApproval: canOpenApproval(r)}
	p, err := h.Store.ProposalByID(ctx, id)
	switch {
	case err == nil && p.Status != "":
		out.Status = string(p.Status)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return out, err
	}
	acts, err := h.Store.ListActions(ctx, store.ActionFilter{Target: target(hit.ID), Limit: 20})
	if err != nil {
		return out, err
	}
	for _, a := range acts {
		if a.Kind == kindIssue && a.State == store.ActionDone {
			out.RequestedBy, out.RequestedAt = a.Actor.Email, a.BegunAt
			break
		}
	}
	return out, nil
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

// showLive puts the card's live state, just read, on its page.
func showLive(v *views.CardDetailView, live *apiclient.Card, canWrite bool, now time.Time) {
	st := views.CardStatus(live.Status)
	v.Control = views.CardControl{CardID: v.ID, CardName: v.CardName, CanWrite: canWrite, Poll: true,
		Badge: views.CardBadge{Status: st, Live: true, ReadAt: now, Now: now}, Action: actionFor(st),
		FormToken: handlers.NewFormToken()}
	v.Activated = live.Activated || st.Active() || st.Frozen()
	v.Canceled = st.Canceled()
	if live.FundingPolicy != "" {
		v.FundingPolicy, v.FundLifecycle = live.FundingPolicy, live.FundLifecycle
	}
	if live.FundedAt != nil {
		v.FundedAt = live.FundedAt
	}
	v.Activate.Available = v.Physical && st.Pending() && !live.Activated
}
