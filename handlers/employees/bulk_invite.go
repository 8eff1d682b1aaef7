package employees

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

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
	handlers.StartCSV(w, r, "invite-template.csv")
	cw := csv.NewWriter(w)
	_ = cw.WriteAll(templateRows())
}

// openBulkFile reads the uploaded CSV file of a multipart form, capped in
// size; the words say what is wrong when there is none.
func openBulkFile(w http.ResponseWriter, r *http.Request) (multipart.File, *multipart.FileHeader, int, string) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxBulkBytes+64<<10)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, nil, http.StatusRequestEntityTooLarge, "The file is larger than 5 MB: split it."
		}
		return nil, nil, http.StatusUnprocessableEntity, "Choose a CSV file to upload."
	}
	file, fh, err := r.FormFile("file")
	if err != nil {
		return nil, nil, http.StatusUnprocessableEntity, "Choose a CSV file to upload."
	}
	return file, fh, 0, ""
}

// BulkUpload checks the whole file (every row with the single invite's
// rules, duplicates inside the file and against existing employees) and
// stores it for preview, without identification numbers. Nothing is sent.
func (h *Handler) BulkUpload(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, msg string) {
		h.Render(w, r, status, "Invite from a CSV file", views.BulkUploadPage(views.BulkUploadView{Columns: bulkColumns, Error: msg}), nil)
	}
	file, fh, status, msg := openBulkFile(w, r)
	if msg != "" {
		fail(status, msg)
		return
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	defer file.Close()
	lines, err := parseBulkCSV(file, h.Clock())
	if words, ok := handlers.FileNotAccepted(err); ok {
		fail(http.StatusUnprocessableEntity, words)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	var emails []string
	for _, l := range lines {
		if l.Form.Email != "" && !l.Form.Fields.Has("email") {
			emails = append(emails, strings.ToLower(l.Form.Email))
		}
	}
	existing, err := h.Store.ExistingEmails(r.Context(), emails)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	occupations, err := h.checkOccupationCodes(r.Context(), lines)
	if words, ok := handlers.FileNotAccepted(err); ok {
		fail(http.StatusUnprocessableEntity, words)
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
		// A name or email that failed the text checks was made printable
		// by the validator: only text is stored.
		row := store.BulkRow{Line: l.Line, Name: l.Form.Name, Email: l.Form.Email, Problems: l.Problems}
		if len(l.Problems) == 0 {
			row.Profile = bulkProfile(l.Form)
		}
		rows = append(rows, row)
	}
	name := printable(fh.Filename)
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
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

// bulkKey is the action key of a run's row: a retried job, a second
// sender or a resumed run never sends a row twice.
func bulkKey(runID int64, line int) string { return fmt.Sprintf("bulk:%d:%d", runID, line) }

// needsIDs reports whether a stored row carries identification numbers,
// which are read from the file when it is sent.
func needsIDs(row store.BulkRow) bool {
	var p apiclient.KYCProfile
	return len(row.Profile) > 0 && json.Unmarshal(row.Profile, &p) == nil && len(p.IdentificationNumbers) > 0
}

func (h *Handler) bulkView(ctx context.Context, run store.BulkRun, withRows bool) (views.BulkRunView, error) {
	p, err := h.Store.BulkRunProgress(ctx, run.ID)
	if err != nil {
		return views.BulkRunView{}, err
	}
	v := views.BulkRunView{ID: run.ID, Filename: run.Filename, State: run.State, Total: p.Total, Valid: p.Valid(), Invalid: p.Invalid,
		Sent: p.Sent, Errors: p.Errors, Unknown: p.Unknown, Done: p.Done(), Percent: p.Percent(), Finished: run.State == store.BulkDone,
		CanStart: run.State == store.BulkPreview && p.Valid() > 0, ResultURL: fmt.Sprintf("/employees/invite/bulk/%d/result.csv", run.ID),
		FormToken: handlers.NewFormToken()}
	rows, err := h.Store.BulkRows(ctx, run.ID)
	if err != nil {
		return v, err
	}
	for _, row := range rows {
		waiting := needsIDs(row) && (row.State == store.BulkRowQueued || row.State == store.BulkRowSending)
		if waiting {
			v.WithIDs++
		}
		if row.State == store.BulkRowUnknown {
			if a, err := h.Store.ActionByKey(ctx, bulkKey(run.ID, row.Line)); err == nil && a.State.Finished() {
				row.Error = views.StatusLabel(views.StatusAction, string(a.State)) + ": " + a.Message
			} else {
				row.Error = "the Partner API did not confirm it; the app keeps checking"
			}
		}
		if !withRows && row.State != store.BulkRowError && row.State != store.BulkRowUnknown {
			continue
		}
		rv := views.BulkRowView{Line: row.Line, Name: row.Name, Email: row.Email, Problems: row.Problems, State: row.State,
			StateLabel: views.StatusLabel(views.StatusBulkRow, row.State), InviteURL: row.InviteURL, Error: row.Error}
		var prof apiclient.KYCProfile
		if len(row.Profile) > 0 && json.Unmarshal(row.Profile, &prof) == nil && prof.Address != nil {
			rv.Country = prof.Address.CountryCode
		}
		v.Rows = append(v.Rows, rv)
	}
	// Rows with identification numbers are sent while the file is at hand:
	// at the start, or, when the app stopped meanwhile, from the file again.
	v.NeedsFile = v.WithIDs > 0 && (v.CanStart || run.State == store.BulkSending)
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
	h.ReloadWhenFinished(w, r, v.Finished)
	h.Render(w, r, http.StatusOK, "Bulk invite", views.BulkRunPage(v), views.BulkProgressView(v))
}

// BulkStart is the "send" form, once per token. A previewed run starts: the
// rows without identification numbers go to a background job enqueued in
// the same transaction; the rows with numbers are sent from the file chosen
// again with the form (the numbers were not kept), by this process. A run
// already sending whose numbered rows were left unsent (the app stopped)
// takes the file again to send them.
func (h *Handler) BulkStart(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	page := fmt.Sprintf("/employees/invite/bulk/%d", run.ID)
	v, err := h.bulkView(r.Context(), run, true)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	var file multipart.File
	status, msg := 0, ""
	if v.NeedsFile {
		file, _, status, msg = openBulkFile(w, r)
		if file != nil {
			defer func() { _ = r.MultipartForm.RemoveAll() }()
			defer file.Close()
		}
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	if h.seen(w, r, key, kindBulkStart, page) {
		return
	}
	var numbers map[int]map[string]string
	if v.NeedsFile {
		if msg == "" {
			numbers, msg = h.numbersFromFile(r.Context(), run, file)
			status = http.StatusUnprocessableEntity
		}
		if msg != "" {
			v.FormToken = r.PostFormValue(handlers.FormTokenField) // nothing was begun: the form keeps its token
			v.FileError = msg
			h.Render(w, r, status, "Bulk invite", views.BulkRunPage(v), nil)
			return
		}
	}
	l := h.bulkStartWrite(key, run, v.WithIDs, numbers != nil, handlers.ActorFrom(r.Context()))
	d, err := h.Actions.RunLocal(r.Context(), l)
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	if d.State() != store.ActionDone {
		h.Flash(r, "info", "This file is already being sent; nothing was sent twice.")
		h.Redirect(w, r, page)
		return
	}
	if numbers != nil {
		go h.sendWithNumbers(context.WithoutCancel(r.Context()), run, numbers)
	}
	h.Redirect(w, r, page)
}

// bulkStartWrite is the local write that starts sending a run: the first
// start queues the run's job; a start with the file chosen again (for the
// identification numbers the app never keeps) changes nothing here.
func (h *Handler) bulkStartWrite(key string, run store.BulkRun, withIDs int, withNumbers bool, by store.Actor) handlers.Local {
	target := fmt.Sprintf("bulk_invite:%d", run.ID)
	l := handlers.Local{Key: key, Kind: kindBulkStart, Target: target, Actor: by, Request: map[string]int64{"runId": run.ID}}
	if run.State == store.BulkPreview {
		l.Detail = fmt.Sprintf("sending %d invites from %s", run.ValidRows, run.Filename)
		l.Change = func(ctx context.Context, tx *store.Store) error {
			_, err := tx.StartBulkRun(ctx, run.ID, func(ctx context.Context, ptx pgx.Tx) error {
				_, err := h.Queue.InsertTx(ctx, ptx, BulkInviteArgs{RunID: run.ID}, nil)
				return err
			})
			if errors.Is(err, store.ErrConflict) {
				return handlers.Refusal("this file is already being sent; nothing was sent twice")
			}
			return err
		}
	} else {
		l.Detail = "nothing to send"
		if withNumbers {
			l.Detail = fmt.Sprintf("sending the %d rows with identification numbers from the file chosen again", withIDs)
		}
		l.Change = func(context.Context, *store.Store) error {
			if !withNumbers {
				return handlers.Refusal("this file is already being sent; nothing was sent twice")
			}
			return nil
		}
	}
	return l
}

// numbersFromFile reads the identification numbers of a run's rows from the
// file chosen again: it must be the file that was checked (every row that
// has numbers on the same line, with the same email, valid).
func (h *Handler) numbersFromFile(ctx context.Context, run store.BulkRun, file io.Reader) (map[int]map[string]string, string) {
	lines, err := parseBulkCSV(file, h.Clock())
	if words, ok := handlers.FileNotAccepted(err); ok {
		return nil, words
	}
	if err != nil {
		return nil, "The file could not be read: choose it again."
	}
	byLine := make(map[int]bulkLine, len(lines))
	for _, l := range lines {
		byLine[l.Line] = l
	}
	rows, err := h.Store.BulkRows(ctx, run.ID)
	if err != nil {
		return nil, "The checked rows could not be read: try again."
	}
	numbers := map[int]map[string]string{}
	for _, row := range rows {
		if !needsIDs(row) {
			continue
		}
		l, ok := byLine[row.Line]
		if !ok || !strings.EqualFold(l.Form.Email, row.Email) {
			return nil, fmt.Sprintf("This is not the file that was checked: line %d should be %s. Choose %s.", row.Line, row.Email, run.Filename)
		}
		if len(l.Problems) > 0 {
			return nil, fmt.Sprintf("Line %d of this file has problems (%s): choose the file that was checked.", row.Line, strings.Join(l.Problems, " "))
		}
		numbers[row.Line] = idNumbersOf(l.Form)
	}
	return numbers, ""
}

// sendWithNumbers sends a run's rows that carry identification numbers,
// with the numbers read from the file, then finishes the run if nothing
// is left. The numbers live only in this call.
func (h *Handler) sendWithNumbers(ctx context.Context, run store.BulkRun, numbers map[int]map[string]string) {
	ctx, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	s := bulkSender{store: h.Store, api: h.API, actions: h.Actions, logger: h.Logger}
	if _, err := s.sendRun(ctx, run, numbers, time.Time{}); err != nil {
		h.Logger.ErrorContext(ctx, "bulk invite: rows with identification numbers", "run", run.ID, "err", err)
	}
}

// BulkResultCSV downloads every row with its outcome.
func (h *Handler) BulkResultCSV(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.bulkView(r.Context(), run, true)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, r, fmt.Sprintf("bulk-invite-%d-result.csv", run.ID), "line", "name", "email", "outcome", "invite_url", "error", "problems")
	for _, row := range v.Rows {
		cw.Row(strconv.Itoa(row.Line), row.Name, row.Email, row.StateLabel, row.InviteURL, row.Error, strings.Join(row.Problems, "; "))
	}
	cw.Close(h.Logger, r)
}

// BulkInviteArgs is the background job that sends a run's rows without
// identification numbers.
type BulkInviteArgs struct {
	RunID int64 `json:"run_id"`
}

// Kind implements river.JobArgs.
func (BulkInviteArgs) Kind() string { return "employees_bulk_invite" }

// InsertOpts: a run is one job; a failed job resumes where it stopped.
func (BulkInviteArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// BulkInviteWorker sends a run's rows without identification numbers, one
// at a time, each an action keyed by run and line, so progress is visible
// row by row and a retried job never sends a row twice.
type BulkInviteWorker struct {
	river.WorkerDefaults[BulkInviteArgs]
	Store  *store.Store
	API    *apiclient.Client
	Logger *slog.Logger

	once    sync.Once
	actions *handlers.Actions
}

// Timeout bounds one part of a run (see handlers.JobTimeout).
func (w *BulkInviteWorker) Timeout(*river.Job[BulkInviteArgs]) time.Duration {
	return handlers.JobTimeout
}

// Work sends a part of the rows, and comes back at once for the rest.
func (w *BulkInviteWorker) Work(ctx context.Context, job *river.Job[BulkInviteArgs]) error {
	w.once.Do(func() {
		// The worker is built apart from the handlers: it runs the same
		// ledger with the area's read-backs.
		w.actions = handlers.NewActions(w.Store, w.Logger)
		registerReadBacks(w.actions, w.API)
	})
	run, err := w.Store.BulkRunByID(ctx, job.Args.RunID)
	if err != nil {
		return err
	}
	s := bulkSender{store: w.Store, api: w.API, actions: w.actions, logger: w.Logger}
	more, err := s.sendRun(ctx, run, nil, time.Now().Add(handlers.JobPartBudget))
	if err == nil && more {
		return river.JobSnooze(0)
	}
	return err
}

// bulkSender sends a run's rows: those without identification numbers
// (numbers nil) or those with them.
type bulkSender struct {
	store   *store.Store
	api     *apiclient.Client
	actions *handlers.Actions
	logger  *slog.Logger
}

// sendRun starts no row after until (zero: no limit), and then reports
// more when rows are left.
func (s bulkSender) sendRun(ctx context.Context, run store.BulkRun, numbers map[int]map[string]string, until time.Time) (more bool, err error) {
	by := store.Actor{Email: run.CreatedBy}
	var done []int
	for {
		if !until.IsZero() && time.Now().After(until) {
			return true, nil
		}
		row, err := s.store.NextBulkRow(ctx, run.ID, numbers != nil, done)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			return false, err
		}
		done = append(done, row.Line)
		if err := s.sendRow(ctx, run, row, numbers[row.Line], by); err != nil {
			return false, err
		}
	}
	return false, s.store.FinishBulkRun(context.WithoutCancel(ctx), run.ID, by)
}

func (s bulkSender) sendRow(ctx context.Context, run store.BulkRun, row store.BulkRow, numbers map[string]string, by store.Actor) error {
	var profile apiclient.KYCProfile
	if err := json.Unmarshal(row.Profile, &profile); err != nil {
		return s.store.FinishBulkRow(ctx, run.ID, row.Line, store.BulkRowError, "", "the stored row could not be read")
	}
	req := invited{Email: row.Email, Name: row.Name, BulkRunID: run.ID, Line: row.Line}
	for _, id := range profile.IdentificationNumbers {
		req.IDTypes = append(req.IDTypes, id.Type)
	}
	profile, ok := withIDNumbers(profile, numbers)
	if !ok {
		return s.store.FinishBulkRow(ctx, run.ID, row.Line, store.BulkRowError, "", "its identification numbers were not at hand: choose the file again")
	}
	if pi := profile.Profile; pi != nil && pi.PersonalInfo != nil {
		req.FirstName, req.LastName = pi.PersonalInfo.FirstName, pi.PersonalInfo.LastName
	}
	if profile.Address != nil {
		req.Country = profile.Address.CountryCode
	}
	if profile.Employment != nil {
		req.OccupationCode = profile.Employment.OccupationCode
	}
	send := apiclient.InviteEmployeeRequest{Name: row.Name, Email: row.Email, KYC: &apiclient.InviteKYC{Profile: profile}}
	d, err := s.actions.Run(ctx, handlers.Write{Key: bulkKey(run.ID, row.Line), Kind: kindBulkRow, Target: inviteTarget(req), Actor: by,
		Request: req, Shared: true, Call: callInvite(s.api, send, req, by)})
	if err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	switch d.State() {
	case store.ActionBegun:
		return nil // another sender is sending it now: its outcome will be recorded
	case store.ActionDone:
		if !d.Repeat {
			return nil // the finish recorded the row with the invite
		}
		var ans inviteAnswer
		if err := d.Action.DecodeResult(&ans); err != nil {
			return err
		}
		if !ans.Sent {
			return s.store.FinishBulkRow(ctx, run.ID, row.Line, store.BulkRowError, ans.InviteURL, "not sent: "+ans.Error)
		}
		return s.store.FinishBulkRow(ctx, run.ID, row.Line, store.BulkRowSent, ans.InviteURL, "")
	case store.ActionRefused:
		return s.store.FinishBulkRow(ctx, run.ID, row.Line, store.BulkRowError, "", refusedRow(d, send))
	}
	if s.logger != nil {
		s.logger.WarnContext(ctx, "bulk invite row: outcome unknown", "run", run.ID, "line", row.Line)
	}
	return s.store.FinishBulkRow(ctx, run.ID, row.Line, store.BulkRowUnknown, "", d.Action.Message)
}

// refusedRow says why the API refused a row: its per-field messages in the
// HR team's words, else its summary.
func refusedRow(d handlers.Done, send apiclient.InviteEmployeeRequest) string {
	if len(d.Problem.Fields) == 0 {
		return d.Action.Message
	}
	fields := views.FieldErrors{}
	rest := mapAPIFields(d.Problem.Fields, send, fields)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys)+len(rest))
	for _, k := range keys {
		parts = append(parts, fields[k])
	}
	return strings.Join(append(parts, rest...), " ")
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
		return nil, handlers.CSVError{Words: fmt.Sprintf("more than %d different occupation codes", maxBulkOccupations)}
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
			codes[c] = "could not be checked against the occupations lookup; upload the file again. " + apiclient.ReadWords(err)
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
