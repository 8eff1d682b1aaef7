package audit

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const maxNote = 500

// actionFilterFrom reads the list's filter; bad is what is wrong with its
// page link ("" when nothing).
func actionFilterFrom(r *http.Request) (f store.ActionFilter, bad string) {
	f = store.ActionFilter{Open: r.URL.Query().Get("all") == "", Limit: pageSize}
	if b := r.URL.Query().Get("before"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil || id <= 0 {
			return f, "This page link is not one the list makes; start from the newest requests."
		}
		f.BeforeID = id
	}
	return f, ""
}

func actionRows(as []store.Action) []views.ActionRow {
	rows := make([]views.ActionRow, 0, len(as))
	for _, a := range as {
		actor := a.Actor.Email
		if actor == "" {
			actor = "system"
		}
		rows = append(rows, views.ActionRow{ID: a.ID, BegunAt: a.BegunAt, Actor: actor, Kind: a.Kind, Target: a.Target,
			State: string(a.State), StateLabel: views.StatusLabel(views.StatusAction, string(a.State)), Message: a.Message, Open: !a.State.Finished()})
	}
	return rows
}

// Actions lists the requests sent to the Partner API (the action ledger):
// by default those whose outcome is not settled, for a person to check.
func (h *Handler) Actions(w http.ResponseWriter, r *http.Request) {
	h.renderActions(w, r, http.StatusOK, "", views.ActionResolve{})
}

// renderActions shows the list; msg is a problem of the whole page, form a
// row's settle-by-hand form sent with a mistake.
func (h *Handler) renderActions(w http.ResponseWriter, r *http.Request, status int, msg string, form views.ActionResolve) {
	f, bad := actionFilterFrom(r)
	if bad != "" {
		// Nothing is listed from a page link the list did not make.
		h.Render(w, r, http.StatusBadRequest, "Requests to the Partner API", views.ActionsPage(views.ActionsView{Open: f.Open, Error: bad}), nil)
		return
	}
	as, err := h.Store.ListActions(r.Context(), f)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.ActionsView{Open: f.Open, Rows: actionRows(as), Error: msg, Resolve: form,
		CanResolve: handlers.ViewerFrom(r.Context()).Can(store.PermSettings)}
	if form.Fields.Any() && !slices.ContainsFunc(as, func(a store.Action) bool { return a.ID == form.ID }) {
		// The row is not on this page: its problems are said above the list.
		v.Error = strings.TrimSpace(form.Fields.Get("outcome") + " " + form.Fields.Get("note"))
		v.Resolve = views.ActionResolve{}
	}
	if len(as) == pageSize {
		v.NextBefore = as[len(as)-1].ID
	}
	h.Render(w, r, status, "Requests to the Partner API", views.ActionsPage(v), nil)
}

// ActionsCSV exports the listed actions.
func (h *Handler) ActionsCSV(w http.ResponseWriter, r *http.Request) {
	f, bad := actionFilterFrom(r)
	if bad != "" {
		h.ErrorPage(w, r, http.StatusBadRequest, "Not a page the list makes", bad)
		return
	}
	f.Limit = 500
	read := func() ([]store.Action, bool, error) {
		as, err := h.Store.ListActions(r.Context(), f)
		if err != nil || len(as) < f.Limit {
			return as, false, err
		}
		f.BeforeID = as[len(as)-1].ID
		return as, true, nil
	}
	handlers.ExportPages(h.Base, w, r, "partner-api-requests.csv", []string{"id", "begun_at", "actor", "kind", "target", "state", "message"}, read,
		func(cw *handlers.CSVWriter, as []store.Action) {
			for _, a := range as {
				cw.Row(strconv.FormatInt(a.ID, 10), a.BegunAt.UTC().Format("2006-01-02T15:04:05Z"), a.Actor.Email, a.Kind, a.Target, string(a.State), a.Message)
			}
		})
}

// ResolveAction records what a person found when they checked a request
// whose outcome the app could not learn. It changes nothing upstream; the
// mirror catches up on its next read.
func (h *Handler) ResolveAction(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		h.NotFound(w, r)
		return
	}
	a, err := h.Store.ActionByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	form := views.ActionResolve{ID: a.ID, Note: strings.TrimSpace(r.PostFormValue("note")), Fields: views.FieldErrors{}}
	var state store.ActionState
	switch r.PostFormValue("outcome") {
	case "done":
		state = store.ActionDone
	case "refused":
		state = store.ActionRefused
	default:
		form.Fields["outcome"] = "Choose whether the request happened or not."
	}
	note := form.Note
	if msg := handlers.CheckText(note, maxNote, false); msg != "" {
		form.Fields["note"] = "What you checked: " + msg
	} else if note == "" {
		form.Fields["note"] = "Say what you checked (for example what the Partner API's dashboard shows)."
	}
	if form.Fields.Any() {
		h.renderActions(w, r, http.StatusUnprocessableEntity, "", form)
		return
	}
	by := handlers.ActorFrom(r.Context())
	words := "Resolved by hand: it did not happen. " + note
	if state == store.ActionDone {
		words = "Resolved by hand: it happened. " + note
	}
	_, err = h.Store.FinishAction(r.Context(), a.Key, store.Finish{State: state, Message: words, By: &by})
	if errors.Is(err, store.ErrActionFinished) {
		h.renderActions(w, r, http.StatusConflict, "That request's outcome was settled meanwhile; the list shows it now.", views.ActionResolve{})
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Recorded.")
	h.Redirect(w, r, "/actions")
}
