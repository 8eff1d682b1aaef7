package employees

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// BulkForm shows the upload form.
func (h *Handler) BulkForm(w http.ResponseWriter, r *http.Request) {
	h.Render(w, r, http.StatusOK, "Invite from a CSV file", views.BulkUploadPage(views.BulkUploadView{Columns: bulkColumns}), nil)
}

// BulkTemplate downloads the template CSV.
func (h *Handler) BulkTemplate(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="invite-template.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.WriteAll(templateRows())
}

// BulkUpload checks the whole file (every row, duplicates inside the file
// and against existing employees) and stores it for preview. Nothing is
// sent.
func (h *Handler) BulkUpload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxBulkBytes+64<<10)
	fail := func(status int, msg string) {
		h.Render(w, r, status, "Invite from a CSV file", views.BulkUploadPage(views.BulkUploadView{Columns: bulkColumns, Error: msg}), nil)
	}
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			fail(http.StatusRequestEntityTooLarge, "The file is larger than 5 MB: split it.")
			return
		}
		fail(http.StatusUnprocessableEntity, "Choose a CSV file to upload.")
		return
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	file, fh, err := r.FormFile("file")
	if err != nil {
		fail(http.StatusUnprocessableEntity, "Choose a CSV file to upload.")
		return
	}
	defer file.Close()
	lines, err := parseBulkCSV(file, h.Now())
	if errors.Is(err, ErrBulkFile) {
		fail(http.StatusUnprocessableEntity, "The file was not accepted: "+strings.TrimPrefix(err.Error(), ErrBulkFile.Error()+": ")+".")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	var emails []string
	for _, l := range lines {
		if l.Form.Email != "" {
			emails = append(emails, strings.ToLower(l.Form.Email))
		}
	}
	existing, err := h.Store.ExistingEmails(r.Context(), emails)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	occupations, err := h.checkOccupationCodes(r.Context(), lines)
	if errors.Is(err, ErrBulkFile) {
		fail(http.StatusUnprocessableEntity, "The file was not accepted: "+strings.TrimPrefix(err.Error(), ErrBulkFile.Error()+": ")+".")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	rows := make([]store.BulkRow, 0, len(lines))
	for _, l := range lines {
		if existing[strings.ToLower(l.Form.Email)] {
			l.Problems = append(l.Problems, "email: already an employee here; re-invite them from their page.")
		}
		if msg := occupations[l.Form.OccupationCode]; l.Form.OccupationCode != "" && msg != "" {
			l.Problems = append(l.Problems, "occupation code: "+msg)
		}
		row := store.BulkRow{Line: l.Line, Name: l.Form.Name, Email: l.Form.Email, Problems: l.Problems}
		if len(l.Problems) == 0 {
			row.Profile = bulkProfile(l.Form)
		}
		rows = append(rows, row)
	}
	name := fh.Filename
	if len(name) > 200 {
		name = name[:200]
	}
	run, err := h.Store.CreateBulkRun(r.Context(), name, rows, handlers.ActorFrom(r.Context()))
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Redirect(w, r, fmt.Sprintf("/employees/invite/bulk/%d", run.ID))
}

func (h *Handler) runFromPath(w http.ResponseWriter, r *http.Request) (store.BulkRun, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "run"), 10, 64)
	if err != nil || id <= 0 {
		h.NotFound(w, r)
		return store.BulkRun{}, false
	}
	run, err := h.Store.BulkRunByID(r.Context(), id)
	if isNotFound(err) {
		h.NotFound(w, r)
		return run, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return run, false
	}
	return run, true
}

func (h *Handler) bulkView(ctx context.Context, run store.BulkRun, withRows bool) (views.BulkRunView, error) {
	p, err := h.Store.BulkRunProgress(ctx, run.ID)
	if err != nil {
		return views.BulkRunView{}, err
	}
	v := views.BulkRunView{ID: run.ID, Filename: run.Filename, State: run.State, Total: p.Total, Valid: p.Valid(), Invalid: p.Invalid,
		Sent: p.Sent, Errors: p.Errors, Done: p.Done(), Percent: p.Percent(), Finished: run.State == store.BulkDone,
		CanStart: run.State == store.BulkPreview && p.Valid() > 0, ResultURL: fmt.Sprintf("/employees/invite/bulk/%d/result.csv", run.ID)}
	if !withRows {
		rows, err := h.Store.BulkRows(ctx, run.ID)
		if err != nil {
			return v, err
		}
		for _, row := range rows {
			if row.State == store.BulkRowError {
				v.Rows = append(v.Rows, views.BulkRowView{Line: row.Line, Name: row.Name, Email: row.Email, State: row.State, Error: row.Error})
			}
		}
		return v, nil
	}
	rows, err := h.Store.BulkRows(ctx, run.ID)
	if err != nil {
		return v, err
	}
	for _, row := range rows {
		rv := views.BulkRowView{Line: row.Line, Name: row.Name, Email: row.Email, Problems: row.Problems, State: row.State,
			InviteURL: row.InviteURL, Error: row.Error}
		var p apiclient.KYCProfile
		if len(row.Profile) > 0 && json.Unmarshal(row.Profile, &p) == nil && p.Address != nil {
			rv.Country = p.Address.CountryCode
		}
		v.Rows = append(v.Rows, rv)
	}
	return v, nil
}

// BulkRun shows a run: the preview with every row's problems before
// sending, the progress and per-row outcomes after.
func (h *Handler) BulkRun(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.bulkView(r.Context(), run, true)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Bulk invite", views.BulkRunPage(v), nil)
}

// BulkProgress is the polled fragment: progress bar, counts and errors.
func (h *Handler) BulkProgress(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.bulkView(r.Context(), run, false)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if v.Finished && handlers.IsFragmentRequest(r) {
		// The last poll reloads the page once, so the table shows every
		// row's outcome.
		w.Header().Set(handlers.HeaderHXRefresh, "true")
	}
	h.Render(w, r, http.StatusOK, "Bulk invite", views.BulkRunPage(v), views.BulkProgressView(v))
}

// BulkStart sends the valid rows in the background (a river job enqueued
// in the transaction that starts the run: a second click sends nothing).
func (h *Handler) BulkStart(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	by := handlers.ActorFrom(r.Context())
	if h.Queue == nil {
		h.ServerError(w, r, errors.New("employees: no job queue"))
		return
	}
	_, err := h.Store.StartBulkRun(r.Context(), run.ID, by, func(ctx context.Context, tx pgx.Tx) error {
		return h.Queue.InsertBulkRun(ctx, tx, run.ID)
	})
	if errors.Is(err, store.ErrConflict) {
		_ = h.Store.Audit(r.Context(), store.AuditEntry{Actor: by, Action: "employee.bulk_invite.start", Target: fmt.Sprintf("bulk_invite:%d", run.ID),
			Outcome: store.OutcomeRefused, Detail: "already started"})
		h.Flash(r, "info", "This file is already being sent; nothing was sent twice.")
		h.Redirect(w, r, fmt.Sprintf("/employees/invite/bulk/%d", run.ID))
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Redirect(w, r, fmt.Sprintf("/employees/invite/bulk/%d", run.ID))
}

// BulkResultCSV downloads every row with its outcome.
func (h *Handler) BulkResultCSV(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	rows, err := h.Store.BulkRows(r.Context(), run.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, fmt.Sprintf("bulk-invite-%d-result.csv", run.ID), "line", "name", "email", "outcome", "invite_url", "error", "problems")
	for _, row := range rows {
		cw.Row(strconv.Itoa(row.Line), row.Name, row.Email, bulkStateLabel(row.State), row.InviteURL, row.Error, strings.Join(row.Problems, "; "))
	}
	cw.Close(h.Logger, r)
}

func bulkStateLabel(s string) string {
	switch s {
	case store.BulkRowInvalid:
		return "not sent: invalid"
	case store.BulkRowQueued:
		return "waiting"
	case store.BulkRowSending:
		return "sending"
	case store.BulkRowSent:
		return "sent"
	case store.BulkRowError:
		return "error"
	}
	return s
}

// BulkInviteArgs is the background job that sends a run's valid rows.
type BulkInviteArgs struct {
	RunID int64 `json:"run_id"`
}

// Kind implements river.JobArgs.
func (BulkInviteArgs) Kind() string { return "employees_bulk_invite" }

// InsertOpts: a run is one job; a failed job resumes where it stopped.
func (BulkInviteArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// BulkInviteWorker sends a run's rows one at a time, each invite stored
// before its call and completed with its outcome (the same path as a single
// invite), so progress is visible row by row and a crash resumes. A row left
// 'sending' by a crash is sent again: spec "Re-inviting the same email
// reissues the same link".
type BulkInviteWorker struct {
	river.WorkerDefaults[BulkInviteArgs]
	Store  Store
	API    API
	Logger *slog.Logger
}

// Timeout allows a large file (about 5 ms a row against the sandbox).
func (w *BulkInviteWorker) Timeout(*river.Job[BulkInviteArgs]) time.Duration { return time.Hour }

// Work sends the rows.
func (w *BulkInviteWorker) Work(ctx context.Context, job *river.Job[BulkInviteArgs]) error {
	run, err := w.Store.BulkRunByID(ctx, job.Args.RunID)
	if err != nil {
		return err
	}
	by := store.Actor{Email: run.CreatedBy}
	for {
		row, err := w.Store.NextBulkRow(ctx, run.ID)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			return err
		}
		if err := w.sendRow(ctx, run, row, by); err != nil {
			return err
		}
	}
	return w.Store.FinishBulkRun(ctx, run.ID, by)
}

func (w *BulkInviteWorker) sendRow(ctx context.Context, run store.BulkRun, row store.BulkRow, by store.Actor) error {
	var profile apiclient.KYCProfile
	if err := json.Unmarshal(row.Profile, &profile); err != nil {
		return w.Store.FinishBulkRow(ctx, run.ID, row.Line, store.BulkRowError, "", "the stored row could not be read")
	}
	first, last := "", ""
	country := ""
	if profile.Profile != nil && profile.Profile.PersonalInfo != nil {
		first, last = profile.Profile.PersonalInfo.FirstName, profile.Profile.PersonalInfo.LastName
	}
	occupation := ""
	if profile.Address != nil {
		country = profile.Address.CountryCode
	}
	if profile.Employment != nil {
		occupation = profile.Employment.OccupationCode
	}
	inv, _, err := w.Store.BeginInvite(ctx, store.NewInvite{Email: row.Email, FirstName: first, LastName: last, Country: country,
		OccupationCode: occupation, BulkRunID: run.ID}, by)
	if errors.Is(err, store.ErrConflict) {
		return w.Store.FinishBulkRow(ctx, run.ID, row.Line, store.BulkRowError, "", "already invited since the file was checked")
	}
	if err != nil {
		return err
	}
	res, callErr := w.API.InviteEmployee(ctx, apiclient.InviteEmployeeRequest{Name: row.Name, Email: row.Email, KYC: &apiclient.InviteKYC{Profile: profile}})
	outcome := inviteOutcome(res, callErr)
	if _, err := w.Store.FinishInvite(context.WithoutCancel(ctx), inv.ID, outcome, by); err != nil {
		return err
	}
	if callErr != nil && ctx.Err() != nil {
		return ctx.Err() // stopping: the row stays 'sending' and is sent again on resume
	}
	state, errText := store.BulkRowSent, ""
	switch outcome.State {
	case store.InviteCallSent:
	case store.InviteCallNotSent:
		state, errText = store.BulkRowError, "not sent: "+outcome.Error
	default:
		state, errText = store.BulkRowError, outcome.Error
		if fe := apiclient.ValidationFields(callErr); len(fe) > 0 {
			var parts []string
			for k, m := range fe {
				parts = append(parts, sentence(FieldInWords(strings.TrimPrefix(k, "kyc.profile.")), strings.TrimSpace(strings.TrimPrefix(m, k))))
			}
			errText = strings.Join(parts, " ")
		}
		if w.Logger != nil {
			w.Logger.WarnContext(ctx, "bulk invite row failed", "run", run.ID, "line", row.Line, "status", apiclient.StatusCode(callErr))
		}
	}
	return w.Store.FinishBulkRow(context.WithoutCancel(ctx), run.ID, row.Line, state, outcome.InviteURL, errText)
}

// RiverQueue inserts the bulk job with river's client.
type RiverQueue struct {
	Client interface {
		InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	}
}

// InsertBulkRun implements Queue.
func (q RiverQueue) InsertBulkRun(ctx context.Context, tx pgx.Tx, runID int64) error {
	if _, err := q.Client.InsertTx(ctx, tx, BulkInviteArgs{RunID: runID}, nil); err != nil {
		return fmt.Errorf("employees: enqueue bulk run %d: %w", runID, err)
	}
	return nil
}

// maxBulkOccupations bounds the lookups one file may cause.
const maxBulkOccupations = 100

// checkOccupationCodes asks the occupations lookup about every distinct
// occupation code of a file, so a code that does not exist is flagged in
// the preview rather than silently dropped upstream. It returns a problem
// per unknown (or uncheckable) code.
func (h *Handler) checkOccupationCodes(ctx context.Context, lines []bulkLine) (map[string]string, error) {
	codes := map[string]string{}
	for _, l := range lines {
		if c := l.Form.OccupationCode; c != "" && len(l.Problems) == 0 {
			codes[c] = ""
		}
	}
	if len(codes) == 0 {
		return codes, nil
	}
	if len(codes) > maxBulkOccupations {
		return nil, fmt.Errorf("%w: more than %d different occupation codes", ErrBulkFile, maxBulkOccupations)
	}
	userID, err := h.lookupUser(ctx)
	if err != nil {
		for c := range codes {
			codes[c] = "could not be checked against the occupations lookup; choose it on the single invite page"
		}
		return codes, nil
	}
	for c := range codes {
		list, err := h.API.SearchOccupations(ctx, userID, c)
		if err != nil {
			codes[c] = "could not be checked against the occupations lookup (" + apiMessage(err) + "); upload the file again"
			continue
		}
		found := false
		for _, o := range list {
			if strings.EqualFold(o.Code, c) {
				found = true
				break
			}
		}
		if !found {
			codes[c] = "not in the occupations lookup; find the code on the single invite page"
		}
	}
	return codes, nil
}
