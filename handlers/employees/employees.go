// Package employees is the HR admin's area: the employee list with search
// and per-currency readiness, single and bulk invites, linking, the employee
// page with its onboarding snapshots, the readiness matrix and the account
// lifecycle (delete, reactivate). Every invite, re-invite, bulk row,
// deletion, reactivation and KYC change goes to the Partner API once,
// through the action ledger (handlers.Actions).
package employees

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Handler serves the employees routes.
type Handler struct {
	*handlers.Base
	Store   *store.Store
	API     *apiclient.Client
	Queue   handlers.JobQueue
	Actions *handlers.Actions
	Clock   func() time.Time
}

// New returns the employees handler and registers how its actions are read
// back when their outcome is unknown.
func New(d handlers.Deps) *Handler {
	h := &Handler{Base: d.Base, Store: d.Store, API: d.API, Queue: d.Queue, Actions: d.Actions, Clock: d.Clock}
	if d.Actions != nil {
		registerReadBacks(d.Actions, d.API)
		registerDirectReadBacks(d.Actions, d.API)
	}
	return h
}

// ReactivationWindow is the spec's "Reactivation window | 90 days from
// deletion".
const ReactivationWindow = 90 * 24 * time.Hour

// employeeFromPath loads the employee named by {id}, answering 404 itself.
func (h *Handler) employeeFromPath(w http.ResponseWriter, r *http.Request) (store.Employee, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		h.NotFound(w, r)
		return store.Employee{}, false
	}
	e, err := h.Store.EmployeeByID(r.Context(), id)
	if err != nil {
		if isNotFound(err) {
			h.NotFound(w, r)
			return store.Employee{}, false
		}
		h.ServerError(w, r, err)
		return store.Employee{}, false
	}
	if e.Kind != store.KindEmployee {
		h.NotFound(w, r)
		return store.Employee{}, false
	}
	return e, true
}

func canWrite(r *http.Request) bool {
	return handlers.ViewerFrom(r.Context()).Can(store.PermEmployeesWrite)
}

func inviteStates() []string {
	return []string{store.InviteInvited, store.InviteLinked, store.InviteKYCSubmitted, store.InviteActionRequired, store.InviteDeleted}
}

func readinessStates() []string {
	return []string{store.ReadyNotStarted, store.ReadyMissing, store.ReadyToActivate, store.ReadyOnboarding, store.ReadyActive,
		store.ReadyFailed, store.ReadyRejected}
}

// readinessLabel is a readiness state in words ("missing 3 fields").
func readinessLabel(state string, missing int) string { return views.ReadinessLabel(state, missing) }

// chartLabel is a readiness state in words for totals and the chart's key.
func chartLabel(state string) string { return views.StatusLabel(views.StatusReadiness, state) }

// cellView is one currency's cell; a currency no read has answered for
// says so rather than "not started".
func cellView(currency string, c store.ReadinessCell, ok bool) views.ReadinessCellView {
	if !ok {
		return views.ReadinessCellView{Currency: currency, State: store.ReadyNotRead, Label: views.ReadinessLabel(store.ReadyNotRead, 0)}
	}
	v := views.ReadinessCellView{Currency: currency, State: c.State, Label: views.ReadinessLabel(c.State, len(c.Missing)), Detail: c.Detail}
	for _, m := range c.Missing {
		v.Missing = append(v.Missing, FieldInWords(m))
	}
	at := c.ReadAt
	v.ReadAt = &at
	return v
}

// employeeRows turns employees and their readiness into list rows. The
// rows' cells, read times and missing fields share one allocation each
// per page (each cell as cellView builds it): a page has up to 250 cells.
func employeeRows(list []store.Employee, readiness map[int64]map[string]store.ReadinessCell) []views.EmployeeRow {
	rows := make([]views.EmployeeRow, len(list))
	currencies := store.ReadinessCurrencies()
	k := len(currencies)
	cells := make([]views.ReadinessCellView, len(list)*k)
	readAt := make([]time.Time, len(list)*k)
	var words []string
	for i, e := range list {
		rows[i] = views.EmployeeRow{ID: e.ID, Name: e.Name(), Email: e.Email, ServiceUserID: e.ServiceUserID, InviteState: e.InviteState,
			InviteLabel: views.StatusLabel(views.StatusInvite, e.InviteState), ActionRequired: e.ActionRequired, LastActivity: e.LastActivityAt,
			Cells: cells[i*k : (i+1)*k : (i+1)*k]}
		read := readiness[e.ID]
		for j, cur := range currencies {
			c, ok := read[cur]
			v := &cells[i*k+j]
			if !ok {
				*v = views.ReadinessCellView{Currency: cur, State: store.ReadyNotRead, Label: views.ReadinessLabel(store.ReadyNotRead, 0)}
				continue
			}
			*v = views.ReadinessCellView{Currency: cur, State: c.State, Label: views.ReadinessLabel(c.State, len(c.Missing)), Detail: c.Detail}
			if len(c.Missing) > 0 {
				if cap(words)-len(words) < len(c.Missing) {
					words = make([]string, 0, max(len(c.Missing), 32))
				}
				start := len(words)
				for _, m := range c.Missing {
					words = append(words, FieldInWords(m))
				}
				v.Missing = words[start:len(words):len(words)]
			}
			readAt[i*k+j] = c.ReadAt
			v.ReadAt = &readAt[i*k+j]
		}
	}
	return rows
}

func idsOf(list []store.Employee) []int64 {
	ids := make([]int64, len(list))
	for i, e := range list {
		ids[i] = e.ID
	}
	return ids
}

// unchanged answers a poll with 204 (htmx keeps the page as it is) when no
// employee changed since the stamp the page was rendered with, so polling
// neither re-renders nor collapses an opened cell. Only a fragment request
// that carries a stamp is a poll; other requests read the stamp with their
// page (ListEmployeesWithReadiness), saving a round trip.
func (h *Handler) unchanged(w http.ResponseWriter, r *http.Request) (bool, error) {
	since := r.URL.Query().Get("since")
	if !handlers.IsFragmentRequest(r) || since == "" {
		return false, nil
	}
	at, err := h.Store.EmployeesChangedAt(r.Context())
	if err != nil {
		return false, err
	}
	if since != changeStamp(at) {
		return false, nil
	}
	return h.Unchanged(w, r, true), nil
}

// changeStamp is the text form of EmployeesChangedAt that pages send back
// when they poll.
func changeStamp(at time.Time) string { return strconv.FormatInt(at.UnixMicro(), 10) }
