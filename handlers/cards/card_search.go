package cards

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const searchPageSize = 50

// Search is /cards: find a card by employee name, email, card name, last
// four or id, from the local index (the store alone answers).
func (h *Handler) Search(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q, msg := typedSearch(r)
	if msg != "" {
		// Nothing is searched with text that is not text: the search is
		// shown back, as typed, with what is wrong under it.
		v := views.CardSearchView{Query: strings.ToValidUTF8(q, "\uFFFD"), CanWrite: h.canWrite(r), Fields: views.FieldErrors{"q": msg}}
		h.render(w, r, http.StatusBadRequest, "Cards", views.CardSearchPage(v), views.CardResults(v))
		return
	}
	hits, next, err := h.Store.SearchCards(ctx, store.CardSearch{
		Query: q, AfterKey: r.URL.Query().Get("after"), AfterID: r.URL.Query().Get("after_id"), Limit: searchPageSize,
	})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.CardSearchView{Query: q, CanWrite: h.canWrite(r), NextKey: next}
	now, approvals := h.Clock(), canOpenApproval(r)
	for _, hit := range hits {
		v.Rows = append(v.Rows, row(hit, v.CanWrite, approvals, now))
	}
	if next != "" && len(hits) > 0 {
		v.NextID = hits[len(hits)-1].ID
	}
	h.render(w, r, http.StatusOK, "Cards", views.CardSearchPage(v), views.CardResults(v))
}

// maxSearch is the longest card search, in characters.
const maxSearch = 100

// typedSearch is the search as typed and what is wrong with it ("" when
// nothing).
func typedSearch(r *http.Request) (string, string) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if msg := handlers.CheckText(q, maxSearch, false); msg != "" {
		return q, "The search was not understood: " + msg
	}
	return q, ""
}

// searchQuery is the typed search for the wallet chooser: text only, at most
// 100 characters (anything else searches for everything).
func searchQuery(r *http.Request) string {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if !utf8.ValidString(q) || strings.ContainsFunc(q, unicode.IsControl) {
		return ""
	}
	if rs := []rune(q); len(rs) > 100 {
		q = string(rs[:100])
	}
	return q
}

func row(hit store.CardHit, canWrite, canOpenApproval bool, now time.Time) views.CardRow {
	c := hit.CardEntry
	b := lastSeen(hit, now)
	proposal := c.ProposalID
	if proposal == "" {
		proposal = c.ID
	}
	return views.CardRow{
		ID: c.ID, Swatch: swatch(c.CardColor, c.CardName), EmployeeName: hit.EmployeeName, Email: hit.EmployeeEmail,
		CardName: c.CardName, Last4: c.Last4, Currency: c.Currency, Type: c.Type, Funded: c.FundedAt != nil,
		Reserved: c.Reserved,
		Issuance: views.CardIssuance{ProposalID: proposal, Status: c.ProposalStatus, CanOpenApproval: canOpenApproval},
		Control: views.CardControl{
			CardID: c.ID, CardName: c.CardName, Badge: b, CanWrite: canWrite, Action: actionFor(b.Status), Compact: true,
			FormToken: handlers.NewFormToken(),
		},
	}
}

// ExportCSV downloads every card matching the search.
func (h *Handler) ExportCSV(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q, msg := typedSearch(r)
	if msg != "" {
		// The export is the list the page shows: a search the page refuses
		// is refused here too, not widened to every card.
		h.ErrorPage(w, r, http.StatusBadRequest, "Search not understood", msg)
		return
	}
	cw := handlers.NewCSV(w, r, "cards.csv", "card_id", "employee", "email", "card_name", "last4", "currency", "type",
		"last_seen_status", "status_read_at", "funded", "reserved", "proposal_id", "proposal_status")
	defer cw.Close(h.Logger, r)
	f := store.CardSearch{Query: q, Limit: 500}
	for {
		hits, next, err := h.Store.SearchCards(ctx, f)
		if err != nil {
			h.Logger.ErrorContext(ctx, "cards csv", "err", err)
			return
		}
		for _, hit := range hits {
			c := hit.CardEntry
			cw.Row(c.ID, hit.EmployeeName, hit.EmployeeEmail, c.CardName, c.Last4, c.Currency, c.Type, c.Status,
				views.ISO(c.StatusReadAt), strconv.FormatBool(c.FundedAt != nil), strconv.FormatBool(c.Reserved),
				c.ProposalID, c.ProposalStatus)
		}
		if next == "" || len(hits) == 0 {
			return
		}
		f.AfterKey, f.AfterID = next, hits[len(hits)-1].ID
	}
}

// inlineRefreshLimit is the most wallets a refresh reads while the user
// waits; a larger index is re-read by the background job.
const inlineRefreshLimit = 300

// Refresh re-reads every wallet's card list into the index: now, while the
// user waits, for up to inlineRefreshLimit wallets; in the background job
// otherwise (the periodic job does the same every 15 minutes).
func (h *Handler) Refresh(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	actor := handlers.ActorFrom(ctx)
	if h.Queue != nil {
		n, err := h.Indexer.CardWallets(ctx)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if n > inlineRefreshLimit {
			err := h.Store.RequestJob(ctx, store.AuditEntry{Actor: actor, Action: "cards.index_refresh", Target: "cards",
				Outcome: store.OutcomeOK, Detail: "queued for " + strconv.Itoa(n) + " wallets"},
				func(ctx context.Context, tx pgx.Tx) error {
					_, err := h.Queue.InsertTx(ctx, tx, RefreshIndexArgs{}, nil)
					return err
				})
			if err != nil {
				h.ServerError(w, r, err)
				return
			}
			h.Flash(r, "info", "Re-reading the card lists of "+strconv.Itoa(n)+" wallets in the background; search shows each as it is read.")
			h.Redirect(w, r, "/cards")
			return
		}
	}
	run, err := h.Indexer.RefreshAll(ctx)
	outcome := store.OutcomeOK
	if err != nil || run.Failed > 0 {
		outcome = store.OutcomeFailed
	}
	detail := "read " + strconv.Itoa(run.Wallets) + " wallets, " + strconv.Itoa(run.Cards) + " cards"
	if run.Failed > 0 {
		detail += ", " + strconv.Itoa(run.Failed) + " wallets could not be read"
	}
	if aerr := h.Store.Audit(ctx, store.AuditEntry{Actor: actor, Action: "cards.index_refresh",
		Target: "cards", Outcome: outcome, Detail: detail}); aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	kind := "ok"
	if run.Failed > 0 {
		kind = "error"
	}
	h.Flash(r, kind, "Card lists re-read: "+detail+".")
	h.Redirect(w, r, "/cards")
}
