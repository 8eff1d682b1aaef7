// Package audit shows the audit log and the requests sent to the Partner API
// (the action ledger) to the owner, with paging and CSV export.
package audit

import (
	"context"
	"net/http"
	"strconv"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Store is what the audit pages need.
type Store interface {
	ListAudit(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, error)
	ListActions(ctx context.Context, f store.ActionFilter) ([]store.Action, error)
	ActionByID(ctx context.Context, id int64) (store.Action, error)
	FinishAction(ctx context.Context, key string, f store.Finish) (store.Action, error)
}

// Handler serves the audit log.
type Handler struct {
	*handlers.Base
	Store Store
}

// New builds the audit log area.
func New(d handlers.Deps) *Handler { return &Handler{Base: d.Base, Store: d.Store} }

const pageSize = 50

func filterFrom(r *http.Request) store.AuditFilter {
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	return store.AuditFilter{Action: r.URL.Query().Get("action"), BeforeID: before, Limit: pageSize}
}

// List shows one page of the audit log, newest first.
func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	f := filterFrom(r)
	entries, err := h.Store.ListAudit(r.Context(), f)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.AuditListView{Action: f.Action, Rows: handlers.AuditRows(entries)}
	if len(entries) == pageSize {
		v.NextBefore = entries[len(entries)-1].ID
	}
	h.Render(w, r, http.StatusOK, "Audit log", views.AuditPage(v), nil)
}

// ExportCSV streams the whole (filtered) audit log as CSV, page by page.
func (h *Handler) ExportCSV(w http.ResponseWriter, r *http.Request) {
	f := filterFrom(r)
	f.Limit = 500
	cw := handlers.NewCSV(w, "audit-log.csv", "id", "at", "actor", "action", "target", "outcome", "detail")
	for {
		entries, err := h.Store.ListAudit(r.Context(), f)
		if err != nil {
			h.Logger.ErrorContext(r.Context(), "audit export", "err", err)
			break
		}
		for _, e := range entries {
			cw.Row(strconv.FormatInt(e.ID, 10), e.At.UTC().Format("2006-01-02T15:04:05Z"), e.Actor.Email, e.Action, e.Target, e.Outcome, e.Detail)
		}
		if len(entries) < f.Limit {
			break
		}
		f.BeforeID = entries[len(entries)-1].ID
	}
	cw.Close(h.Logger, r)
}
