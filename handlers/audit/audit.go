// Package audit shows the audit log and the requests sent to the Partner API
// (the action ledger) to the owner, with paging and CSV export.
package audit

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Store is what the audit pages need.
type Store interface {
	ListAudit(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, error)
	AuditActions(ctx context.Context) ([]string, error)
	ListStaff(ctx context.Context) ([]store.Staff, error)
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

// Longest text each filter takes.
const (
	maxQuery  = 200
	maxActor  = 254
	maxAction = 100
	maxTarget = 300
)

// filterFrom reads the log's filter: each field checked, the problems in
// words next to their fields.
func filterFrom(q url.Values) (store.AuditFilter, views.AuditFilterForm) {
	form := views.AuditFilterForm{Q: strings.TrimSpace(q.Get("q")), Actor: strings.TrimSpace(q.Get("actor")),
		Action: strings.TrimSpace(q.Get("action")), Target: strings.TrimSpace(q.Get("target")), From: q.Get("from"), To: q.Get("to"),
		Fields: views.FieldErrors{}}
	for _, c := range []struct {
		field, value string
		max          int
	}{{"q", form.Q, maxQuery}, {"actor", form.Actor, maxActor}, {"action", form.Action, maxAction}, {"target", form.Target, maxTarget}} {
		if msg := handlers.CheckText(c.value, c.max, false); msg != "" {
			form.Fields[c.field] = msg
		}
	}
	f := store.AuditFilter{Query: form.Q, Actor: form.Actor, Action: form.Action, Target: form.Target, Limit: pageSize}
	f.From, f.To = handlers.DayRange(form.Fields, form.From, form.To)
	if b := q.Get("before"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil || id <= 0 {
			form.Fields["before"] = "This page link is not one the log makes; start from the newest entries."
		}
		f.BeforeID = id
	}
	return f, form
}

// query is the filter's query string without the page.
func query(form views.AuditFilterForm) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"q": form.Q, "actor": form.Actor, "action": form.Action, "target": form.Target,
		"from": form.From, "to": form.To} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// List shows one page of the audit log, newest first, filtered.
func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f, form := filterFrom(r.URL.Query())
	v := views.AuditListView{Filter: form}
	var err error
	if v.Actions, err = h.Store.AuditActions(ctx); err != nil {
		h.ServerError(w, r, err)
		return
	}
	staff, err := h.Store.ListStaff(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	for _, s := range staff {
		v.Actors = append(v.Actors, s.Email)
	}
	if form.Fields.Any() {
		// A filter the log does not take lists nothing, rather than
		// everything.
		h.Render(w, r, http.StatusBadRequest, "Audit log", views.AuditPage(v), nil)
		return
	}
	entries, err := h.Store.ListAudit(ctx, f)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Rows = handlers.AuditRows(entries)
	q := query(form)
	v.CSVURL = handlers.WithQuery("/audit.csv", q)
	if f.BeforeID != 0 {
		v.NewestURL = handlers.WithQuery("/audit", q)
	}
	if len(entries) == pageSize {
		oq := query(form)
		oq.Set("before", strconv.FormatInt(entries[len(entries)-1].ID, 10))
		v.OlderURL = "/audit?" + oq.Encode()
	}
	h.Render(w, r, http.StatusOK, "Audit log", views.AuditPage(v), nil)
}

// ExportCSV streams every row of the filtered audit log as CSV, page by
// page.
func (h *Handler) ExportCSV(w http.ResponseWriter, r *http.Request) {
	f, form := filterFrom(r.URL.Query())
	if form.Fields.Any() {
		h.ErrorPage(w, r, http.StatusBadRequest, "Not a filter the audit log takes", "Correct the filter on the audit log page and export again.")
		return
	}
	f.Limit = 500
	read := func() ([]store.AuditEntry, bool, error) {
		entries, err := h.Store.ListAudit(r.Context(), f)
		if err != nil || len(entries) < f.Limit {
			return entries, false, err
		}
		f.BeforeID = entries[len(entries)-1].ID
		return entries, true, nil
	}
	handlers.ExportPages(h.Base, w, r, "audit-log.csv", []string{"id", "at", "actor", "action", "target", "outcome", "detail"}, read,
		func(cw *handlers.CSVWriter, entries []store.AuditEntry) {
			for _, e := range entries {
				actor := e.Actor.Email
				if actor == "" {
					actor = "system"
				}
				cw.Row(strconv.FormatInt(e.ID, 10), e.At.UTC().Format("2006-01-02T15:04:05Z"), actor, e.Action, e.Target, e.Outcome, e.Detail)
			}
		})
}
