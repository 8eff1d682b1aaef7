// Package employees is the HR admin's area: the employee list with search
// and per-currency readiness, single and bulk invites, linking, the employee
// page with its onboarding snapshots, the readiness matrix and the account
// lifecycle (delete, reactivate).
package employees

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Store is what the employees area needs from the store.
type Store interface {
	ListEmployees(ctx context.Context, f store.EmployeeFilter) (store.EmployeePage, error)
	ListEmployeesWithReadiness(ctx context.Context, f store.EmployeeFilter) (store.EmployeePageWithReadiness, error)
	EmployeesChangedAt(ctx context.Context) (time.Time, error)
	EmployeeByID(ctx context.Context, id int64) (store.Employee, error)
	EmployeeByEmail(ctx context.Context, email string) (store.Employee, error)
	EmployeeByServiceUserID(ctx context.Context, serviceUserID string) (store.Employee, error)
	TreasuryUsers(ctx context.Context) ([]store.Employee, error)
	WalletsByEmployee(ctx context.Context, employeeID int64) ([]store.Wallet, error)
	UpsertWallet(ctx context.Context, w store.Wallet) error
	BeginInvite(ctx context.Context, n store.NewInvite, by store.Actor) (store.Invite, store.Employee, error)
	FinishInvite(ctx context.Context, inviteID int64, o store.InviteOutcome, by store.Actor) (store.Invite, error)
	InvitesOf(ctx context.Context, employeeID int64) ([]store.Invite, error)
	InviteExtrasOf(ctx context.Context, employeeID int64) (store.InviteExtras, error)
	InvitedEmployees(ctx context.Context, limit int) ([]store.Employee, error)
	StaleOnboarding(ctx context.Context, olderThan time.Time, limit int) ([]store.Employee, error)
	LinkInvite(ctx context.Context, in store.LinkInput, by store.Actor) (store.Employee, bool, error)
	FlagActionRequired(ctx context.Context, serviceUserID, what string, by store.Actor) (store.Employee, error)
	ClearActionRequired(ctx context.Context, employeeID int64, by store.Actor, reason string) (bool, error)
	ClearActionRequiredAsOf(ctx context.Context, employeeID int64, asOf time.Time, by store.Actor, reason string) (bool, error)
	DatabaseNow(ctx context.Context) (time.Time, error)
	SaveOnboarding(ctx context.Context, employeeID int64, snaps []store.Snapshot, cells []store.ReadinessCell) error
	SnapshotsOf(ctx context.Context, employeeID int64) (map[string]store.Snapshot, error)
	ReadinessOf(ctx context.Context, employeeIDs []int64) (map[int64]map[string]store.ReadinessCell, error)
	ReadinessCounts(ctx context.Context, currencies []string) (map[string]map[string]int, error)
	MarkDeleted(ctx context.Context, employeeID int64, at time.Time, by store.Actor, detail string) error
	MarkReactivated(ctx context.Context, employeeID int64, by store.Actor, detail string) error
	Audit(ctx context.Context, e store.AuditEntry) error
	CreateBulkRun(ctx context.Context, filename string, rows []store.BulkRow, by store.Actor) (store.BulkRun, error)
	BulkRunByID(ctx context.Context, id int64) (store.BulkRun, error)
	StartBulkRun(ctx context.Context, id int64, by store.Actor, enqueue func(ctx context.Context, tx pgx.Tx) error) (store.BulkRun, error)
	BulkRows(ctx context.Context, runID int64) ([]store.BulkRow, error)
	BulkRunProgress(ctx context.Context, runID int64) (store.BulkProgress, error)
	NextBulkRow(ctx context.Context, runID int64) (store.BulkRow, error)
	FinishBulkRow(ctx context.Context, runID int64, line int, state, inviteURL, errText string) error
	FinishBulkRun(ctx context.Context, runID int64, by store.Actor) error
	ExistingEmails(ctx context.Context, emails []string) (map[string]bool, error)
}

// API is what the employees area calls on the Partner API.
type API interface {
	InviteEmployee(ctx context.Context, req apiclient.InviteEmployeeRequest) (*apiclient.InviteResult, error)
	SearchOccupations(ctx context.Context, userID, search string) ([]apiclient.Occupation, error)
	LookupUserByEmail(ctx context.Context, email string) (*apiclient.User, error)
	GetKYC(ctx context.Context, userID string) (*apiclient.KYCProfile, error)
	UpdateKYC(ctx context.Context, userID string, p apiclient.KYCProfile) error
	GetKYCReadiness(ctx context.Context, userID string) (*apiclient.KYCReadiness, error)
	GetUSDReadiness(ctx context.Context, userID string) (*apiclient.USDReadiness, error)
	GetOnboardingStatus(ctx context.Context, userID string) (*apiclient.OnboardingStatus, error)
	GetUSDVirtualAccount(ctx context.Context, userID string) (*apiclient.VirtualAccount, error)
	StartUSA(ctx context.Context, userID string, req apiclient.StartUSARequest) (*apiclient.OnboardingStarted, error)
	GetDepositAccounts(ctx context.Context, userID string, currency apiclient.Fiat) ([]apiclient.DepositAccount, error)
	ListWallets(ctx context.Context, userID string) ([]apiclient.Wallet, error)
	ListBalances(ctx context.Context, userID string) ([]apiclient.WalletBalance, error)
	ListCards(ctx context.Context, userID, walletID string) ([]apiclient.Card, error)
	ListProposals(ctx context.Context, userID, walletID string) ([]apiclient.Proposal, error)
	DeleteUser(ctx context.Context, userID string) (*apiclient.StatusMessage, error)
	ReactivateUser(ctx context.Context, userID string) (*apiclient.StatusMessage, error)
}

// Queue inserts background jobs inside a transaction (river's client).
type Queue interface {
	InsertBulkRun(ctx context.Context, tx pgx.Tx, runID int64) error
}

// Handler serves the employees routes.
type Handler struct {
	*handlers.Base
	Store Store
	API   API
	Queue Queue
	Now   func() time.Time
}

// New returns the employees handler.
func New(base *handlers.Base, st Store, api API) *Handler {
	return &Handler{Base: base, Store: st, API: api, Now: time.Now}
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

// inviteStateLabel is an invite state in the users' words.
func inviteStateLabel(s string) string {
	switch s {
	case store.InviteInvited:
		return "invited"
	case store.InviteLinked:
		return "linked"
	case store.InviteKYCSubmitted:
		return "KYC submitted"
	case store.InviteActionRequired:
		return "action required"
	case store.InviteDeleted:
		return "deleted"
	}
	return s
}

func inviteStates() []string {
	return []string{store.InviteInvited, store.InviteLinked, store.InviteKYCSubmitted, store.InviteActionRequired, store.InviteDeleted}
}

func readinessStates() []string {
	return []string{store.ReadyNotStarted, store.ReadyMissing, store.ReadyToActivate, store.ReadyOnboarding, store.ReadyActive,
		store.ReadyFailed, store.ReadyRejected}
}

// readinessLabel is a readiness state in words ("missing 3 fields").
func readinessLabel(state string, missing int) string {
	switch state {
	case store.ReadyNotStarted, "":
		return "not started"
	case store.ReadyMissing:
		if missing == 1 {
			return "missing 1 field"
		}
		return "missing " + strconv.Itoa(missing) + " fields"
	case store.ReadyToActivate:
		return "ready to activate"
	case store.ReadyOnboarding:
		return "onboarding"
	case store.ReadyActive:
		return "active"
	case store.ReadyFailed:
		return "failed"
	case store.ReadyRejected:
		return "rejected"
	}
	return state
}

func cellView(currency string, c store.ReadinessCell, ok bool) views.ReadinessCellView {
	if !ok {
		return views.ReadinessCellView{Currency: currency, State: store.ReadyNotStarted, Label: readinessLabel(store.ReadyNotStarted, 0)}
	}
	v := views.ReadinessCellView{Currency: currency, State: c.State, Label: readinessLabel(c.State, len(c.Missing)), Detail: c.Detail}
	for _, m := range c.Missing {
		v.Missing = append(v.Missing, FieldInWords(m))
	}
	at := c.ReadAt
	v.ReadAt = &at
	return v
}

// employeeRows turns employees and their readiness into list rows.
func employeeRows(list []store.Employee, readiness map[int64]map[string]store.ReadinessCell) []views.EmployeeRow {
	rows := make([]views.EmployeeRow, 0, len(list))
	currencies := store.ReadinessCurrencies()
	for _, e := range list {
		row := views.EmployeeRow{ID: e.ID, Name: e.Name(), Email: e.Email, ServiceUserID: e.ServiceUserID, InviteState: e.InviteState,
			InviteLabel: inviteStateLabel(e.InviteState), ActionRequired: e.ActionRequired, LastActivity: e.LastActivityAt}
		cells := readiness[e.ID]
		row.Cells = make([]views.ReadinessCellView, 0, len(currencies))
		for _, cur := range currencies {
			c, ok := cells[cur]
			row.Cells = append(row.Cells, cellView(cur, c, ok))
		}
		rows = append(rows, row)
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

func isNotFound(err error) bool { return errorsIs(err, store.ErrNotFound) }

// mustJSON encodes v for a snapshot; the values are the API's own types, so
// encoding cannot fail short of a bug, which is reported as an empty body.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
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
	w.Header().Add("Vary", handlers.HeaderHXRequest)
	w.WriteHeader(http.StatusNoContent)
	return true, nil
}

// changeStamp is the text form of EmployeesChangedAt that pages send back
// when they poll.
func changeStamp(at time.Time) string { return strconv.FormatInt(at.UnixMicro(), 10) }
