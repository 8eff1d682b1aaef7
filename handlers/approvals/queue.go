package approvals

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// PageSize is how many rows the queue shows per page.
const PageSize = 50

var queueTypes = []string{string(apiclient.ProposalTransfer), string(apiclient.ProposalSwap), "CARD_ISSUANCE", "NIGERIAN_OFFRAMP"}

// maxWho is the longest person search the queue takes.
const maxWho = 100

// parseQueueFilter reads the queue's filters. A filter that is not usable
// (not a known value, or text that is not valid) is not applied, and says
// why next to its field.
func parseQueueFilter(q url.Values) views.QueueFilterForm {
	f := views.QueueFilterForm{Mine: q.Get("mine") == "1", Type: q.Get("type"), Employee: strings.TrimSpace(q.Get("employee")),
		Who: strings.TrimSpace(q.Get("who")), Fields: views.FieldErrors{}}
	if msg := handlers.CheckText(f.Who, maxWho, false); msg != "" {
		// Shown back as typed (what is not text made printable) next to
		// its message, and not applied.
		f.Fields["who"], f.Who = msg, strings.ToValidUTF8(f.Who, "\uFFFD")
	}
	if handlers.CheckText(f.Employee, maxWho, false) != "" {
		f.Employee = ""
	}
	switch s := store.ProposalStatus(q.Get("status")); s {
	case "":
	case store.ProposalPendingApprovals, store.ProposalPendingSignatures, store.ProposalFailed:
		f.Status = string(s)
	default:
		f.Fields["status"] = "Choose one of the listed states."
	}
	if f.Type != "" && !slices.Contains(queueTypes, f.Type) {
		f.Fields["type"], f.Type = "Choose one of the listed types.", ""
	}
	return f
}

// parseBefore reads the keyset cursor of an older page ("" or bad: the
// newest page).
func parseBefore(before string) (time.Time, string, bool) {
	at, id, ok := strings.Cut(before, "|")
	if !ok || handlers.CheckText(id, maxWho, false) != "" {
		return time.Time{}, "", false
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return time.Time{}, "", false
	}
	return t, id, true
}

func (f queueQuery) values() url.Values {
	v := url.Values{}
	if f.Mine {
		v.Set("mine", "1")
	}
	for k, s := range map[string]string{"status": f.Status, "type": f.Type, "employee": f.Employee, "who": f.applied()} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

type queueQuery struct{ views.QueueFilterForm }

// applied is the person search the queue applies: none when it was
// refused.
func (f queueQuery) applied() string {
	if f.Fields["who"] != "" {
		return ""
	}
	return f.Who
}

func (h *Handler) storeFilter(f views.QueueFilterForm, linkedAs string, viewerID int64) store.QueueFilter {
	sf := store.QueueFilter{Status: store.ProposalStatus(f.Status), Type: f.Type, UserID: f.Employee, Person: queueQuery{f}.applied()}
	if f.Mine {
		sf.NeedsApprovalBy = linkedAs
		sf.ExcludeCreator = viewerID
		if linkedAs == "" {
			// Not linked: nothing needs this viewer's approval.
			sf.NeedsApprovalBy = "\x00none"
		}
	}
	return sf
}

// Queue shows the approval queue from the mirror. htmx polls the table
// with the same filters every 2 seconds.
func (h *Handler) Queue(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := handlers.ViewerFrom(ctx)
	// The viewer was read for this request: its link is current.
	linked := v.Staff.ServiceUserID
	f := parseQueueFilter(r.URL.Query())
	sf := h.storeFilter(f, linked, v.Staff.ID)
	sf.Limit = PageSize
	before := r.URL.Query().Get("before")
	if t, id, ok := parseBefore(before); ok {
		sf.BeforeAt, sf.BeforeID = t, id
	} else if before != "" {
		// A page link the queue did not make lists nothing, as the
		// activity feed and the logs do, rather than the newest page
		// under a link that claims to be another.
		f.Fields["before"] = "This page link is not one the queue makes; start from the first page."
		before = ""
	}
	status := http.StatusOK
	var page store.QueuePage
	if f.Fields.Has("before") {
		status = http.StatusBadRequest
	} else {
		var err error
		if page, err = h.store.ListQueuePage(ctx, sf); err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
	rows, names := page.Rows, proposal.Names(page.Names)
	// The sync stamps every row it reads: the newest stamp shown says how
	// fresh the page is, without another query.
	var last time.Time
	for _, p := range rows {
		if p.SyncedAt.After(last) {
			last = p.SyncedAt
		}
	}
	now := h.clock()
	q := queueQuery{f}.values()
	view := views.ApprovalQueueView{
		Filter: f, Types: queueTypes, LinkedAs: linked, CanAct: v.Can(store.PermApprovalsAct),
		PollURL: "/approvals?" + q.Encode(), CSVURL: "/approvals.csv?" + q.Encode(), SyncedAgo: "never", Total: page.Total, TotalOver: page.TotalOver,
	}
	if before != "" {
		pq := queueQuery{f}.values()
		pq.Set("before", before)
		view.PollURL = "/approvals?" + pq.Encode()
		view.NewestURL = "/approvals?" + q.Encode()
	}
	if len(rows) == PageSize {
		last := rows[len(rows)-1]
		oq := queueQuery{f}.values()
		oq.Set("before", last.CreatedAt.UTC().Format(time.RFC3339Nano)+"|"+last.ID)
		view.OlderURL = "/approvals?" + oq.Encode()
	}
	if !last.IsZero() {
		view.SyncedAgo = views.Ago(last, now)
	}
	var err error
	if view.Rows, err = h.queueRows(ctx, rows, names, v, view.CanAct); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if view.CanAct && !handlers.IsFragmentRequest(r) {
		view.SignBatchToken, view.ReturnTo = handlers.NewFormToken(), view.PollURL
	}
	if f.Employee != "" {
		view.EmployeeName = names.Of(f.Employee)
	}
	h.Render(w, r, status, "Approval queue", views.ApprovalQueuePage(view), views.ApprovalQueueTable(view))
}

// ExportCSV downloads the queue with the same filters (every matching row,
// not just one page).
func (h *Handler) ExportCSV(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := handlers.ViewerFrom(ctx)
	linked := v.Staff.ServiceUserID
	f := parseQueueFilter(r.URL.Query())
	if f.Fields.Any() {
		h.ErrorPage(w, r, http.StatusBadRequest, "Not a filter the queue takes", "Correct the filter on the queue's page and export again.")
		return
	}
	sf := h.storeFilter(f, linked, v.Staff.ID)
	sf.Limit = 1000
	var all []store.Proposal
	for {
		rows, err := h.store.ListQueue(ctx, sf)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		all = append(all, rows...)
		if len(rows) < sf.Limit {
			break
		}
		last := rows[len(rows)-1]
		sf.BeforeAt, sf.BeforeID = last.CreatedAt, last.ID
	}
	names, err := proposal.LoadNames(ctx, h.store, all...)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, r, "approval-queue.csv", "id", "type", "amount", "currency", "token", "from", "to",
		"description", "state", "approvals", "required_approvals", "signatures", "required_signatures", "created_at")
	for _, p := range all {
		m := proposal.Money(p)
		cw.Row(p.ID, p.Type, p.Amount.String(), m.Currency, p.Currency, names.Of(p.OwnerUserID), names.Recipient(p),
			p.Description, string(p.Status), strconv.Itoa(len(p.Approvals)), strconv.Itoa(p.RequiredApprovals),
			strconv.Itoa(p.CollectedSignatures), strconv.Itoa(p.RequiredSignatures), p.CreatedAt.UTC().Format(time.RFC3339))
	}
	cw.Close(h.Logger, r)
}

// Refresh re-reads every wallet's proposals now (on demand) and returns to
// the queue.
func (h *Handler) Refresh(w http.ResponseWriter, r *http.Request) {
	res, err := h.Sync.SyncAll(r.Context())
	if err != nil {
		h.Logger.WarnContext(r.Context(), "approvals refresh: some wallets were not read", "failed", res.Failed, "err", err)
		h.Flash(r, "error", "Some wallets could not be read from the API just now; their rows show the last known state.")
	} else {
		h.Flash(r, "ok", "Queue refreshed from the API: "+strconv.Itoa(res.Wallets)+" wallets read.")
	}
	h.Redirect(w, r, "/approvals")
}
