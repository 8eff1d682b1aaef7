package payroll

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// inviteStates are the states the employee form filters on.
func inviteStates() []string {
	return []string{store.InviteLinked, store.InviteKYCSubmitted, store.InviteActionRequired, store.InviteInvited, store.InviteDeleted}
}

// currencyChoices are offered by the employee form: fiat codes, as screens
// show them (DESIGN decision 3).
func currencyChoices() []string {
	out := []string{}
	for _, c := range apiclient.Stablecoins() {
		f, _ := c.Fiat()
		out = append(out, string(f))
	}
	return out
}

// newView is the creation page with the employee list filtered as asked.
func (h *Handler) newView(r *http.Request, q, state string) (views.PayrollNewView, error) {
	v := views.PayrollNewView{Columns: columns(), MaxRows: MaxRows, Query: q, State: state, States: inviteStates(),
		Currencies: currencyChoices(), Currency: "USD", Fields: views.FieldErrors{}, Selected: map[int64]bool{}}
	v.FilterFields = views.FieldErrors{}
	if msg := handlers.CheckText(q, 100, false); msg != "" {
		// Shown back as typed (made printable), with why; not applied.
		v.FilterFields["q"], v.Query, q = "The search was not understood: "+msg, strings.ToValidUTF8(q, "\uFFFD"), ""
	}
	if state != "" && !slices.Contains(inviteStates(), state) {
		v.FilterFields["state"], v.State, state = "Choose one of the listed states.", "", ""
	}
	people, err := h.store.PayrollCandidates(r.Context(), q, state, store.PayrollCandidateLimit+1)
	if err != nil {
		return v, err
	}
	if len(people) > store.PayrollCandidateLimit {
		people, v.Limited = people[:store.PayrollCandidateLimit], true
	}
	ids := make([]string, 0, len(people))
	for _, p := range people {
		ids = append(ids, p.Email)
	}
	found, err := h.store.PayrollRecipients(r.Context(), ids)
	if err != nil {
		return v, err
	}
	for _, p := range people {
		var coins []string
		for c := range found[strings.ToLower(p.Email)].Wallets {
			coins = append(coins, c)
		}
		slices.Sort(coins)
		v.Candidates = append(v.Candidates, views.PayrollCandidate{ID: p.ID, Name: p.Name(), Email: p.Email, State: p.InviteState,
			Wallets: strings.Join(coins, ", ")})
	}
	return v, nil
}

// NewForm shows the creation page.
func (h *Handler) NewForm(w http.ResponseWriter, r *http.Request) {
	v, err := h.newView(r, r.URL.Query().Get("q"), r.URL.Query().Get("state"))
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	status := http.StatusOK
	if v.FilterFields.Any() {
		status = http.StatusBadRequest
	}
	h.Render(w, r, status, "New payroll run", views.PayrollNewPage(v), nil)
}

// Template downloads the template CSV.
func (h *Handler) Template(w http.ResponseWriter, r *http.Request) {
	handlers.StartCSV(w, r, "payroll-template.csv")
	_ = csv.NewWriter(w).WriteAll(templateRows())
}

// runName checks a run's name; the default names it after its source.
func runName(typed, fallback string) (string, string) {
	name := strings.TrimSpace(typed)
	if msg := handlers.CheckText(name, maxNameLength, false); msg != "" {
		return "", msg
	}
	if name == "" {
		name = fallback
	}
	return name, ""
}

// UploadCSV checks a payroll file and stores the run for preview. Nothing
// is sent.
func (h *Handler) UploadCSV(w http.ResponseWriter, r *http.Request) {
	// fail shows the form again with the name as typed (when it can be
	// shown) and the message at its field ("name" or "file").
	fail := func(status int, name, field, msg string) {
		v, err := h.newView(r, "", "")
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if !utf8.ValidString(name) {
			name = ""
		}
		v.CSVName, v.CSVFields = name, views.FieldErrors{field: msg}
		h.Render(w, r, status, "New payroll run", views.PayrollNewPage(v), nil)
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBytes+64<<10)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			fail(http.StatusRequestEntityTooLarge, "", "file", "The file is larger than 5 MB: split it.")
			return
		}
		fail(http.StatusUnprocessableEntity, "", "file", "Choose a CSV file to upload.")
		return
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	typedName := r.PostFormValue("name")
	file, fh, err := r.FormFile("file")
	if err != nil {
		fail(http.StatusUnprocessableEntity, typedName, "file", "Choose a CSV file to upload.")
		return
	}
	defer file.Close()
	name, msg := runName(typedName, fh.Filename)
	if msg != "" {
		fail(http.StatusUnprocessableEntity, typedName, "name", msg)
		return
	}
	if handlers.CheckText(name, maxNameLength, false) != "" {
		name = "CSV upload"
	}
	in, err := parseCSV(file)
	if words, ok := handlers.FileNotAccepted(err); ok {
		fail(http.StatusUnprocessableEntity, typedName, "file", words)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.create(w, r, name, store.PayrollFromCSV, in)
}

// FromEmployees makes a run from employees chosen on the list, each paid
// the same amount in the same currency. A form with problems comes back
// with everything that was typed and chosen.
func (h *Handler) FromEmployees(w http.ResponseWriter, r *http.Request) {
	v, err := h.newView(r, r.PostFormValue("q"), r.PostFormValue("state"))
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Name, v.Amount, v.Currency = r.PostFormValue("name"), r.PostFormValue("amount"), r.PostFormValue("currency")
	v.Description = r.PostFormValue("description")
	var ids []int64
	for _, s := range r.PostForm["employee_id"] {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			v.Fields["employees"] = "Choose employees from the list."
			continue
		}
		if !v.Selected[id] {
			v.Selected[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) > MaxRows {
		v.Fields["employees"] = fmt.Sprintf("Choose at most %d employees in one run.", MaxRows)
	}
	name, msg := runName(v.Name, "")
	switch {
	case msg != "":
		v.Fields["name"] = msg
	case name == "":
		v.Fields["name"] = "Name the run, like November payroll."
	}
	coin, msg := parseCurrency(v.Currency)
	if msg != "" {
		v.Fields["currency"] = "Choose one of the listed currencies."
	}
	if _, msg := handlers.ParseAmount(v.Amount, handlers.TokenDecimals(coin)); msg != "" {
		v.Fields["amount"] = msg
	}
	if msg := handlers.CheckText(strings.TrimSpace(v.Description), MaxDescription, false); msg != "" {
		v.Fields["description"] = msg
	}
	if len(ids) == 0 && !v.Fields.Has("employees") {
		v.Fields["employees"] = "Choose at least one employee."
	}
	if v.Fields.Any() {
		h.Render(w, r, http.StatusUnprocessableEntity, "New payroll run", views.PayrollNewPage(v), nil)
		return
	}
	people, err := h.store.EmployeesByIDs(r.Context(), ids)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if len(people) != len(ids) {
		// A chosen id that is no employee is refused, never left out of
		// the run without a word.
		v.Fields["employees"] = fmt.Sprintf("%d of the %d chosen employees are not known here; choose them again from the list.",
			len(ids)-len(people), len(ids))
		h.Render(w, r, http.StatusUnprocessableEntity, "New payroll run", views.PayrollNewPage(v), nil)
		return
	}
	in := make([]input, 0, len(people))
	for i, p := range people {
		recipient := p.ServiceUserID
		if recipient == "" {
			recipient = p.Email
		}
		in = append(in, input{Line: i + 1, Recipient: recipient, Amount: v.Amount, Currency: string(coin), Description: v.Description})
	}
	h.create(w, r, name, store.PayrollFromEmployees, in)
}

// create checks the rows and stores the run (with its audit row), then
// shows its preview.
func (h *Handler) create(w http.ResponseWriter, r *http.Request, name, source string, in []input) {
	ctx := r.Context()
	t, err := h.treasury(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	rows, err := h.check(ctx, in, t)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	run, err := h.store.CreatePayrollRun(ctx, name, source, rows, handlers.ActorFrom(ctx))
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Redirect(w, r, fmt.Sprintf("/payroll/%d", run.ID))
}

// Again makes a new run, for preview, of the rows of this run that the
// Partner API refused (or that a stopped process left unsent, which the
// recovery job settles as refused): the rows are checked again, nothing is
// sent. One new run per form.
func (h *Handler) Again(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	page := fmt.Sprintf("/payroll/%d", run.ID)
	if a, seen, err := h.actions.Seen(ctx, key, kindAgain, handlers.ActorFrom(ctx)); h.Answered(w, r, err) {
		return
	} else if seen {
		h.Repeated(w, r, a, "/payroll")
		return
	}
	rows, err := h.store.PayrollRows(ctx, run.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	var in []input
	for _, row := range rows {
		if row.Valid() && row.ProposalID == "" && row.ActionState == store.ActionRefused {
			in = append(in, input{Line: row.Line, Recipient: row.Recipient, Amount: row.AmountText, Currency: row.CurrencyText,
				Description: row.Description})
		}
	}
	if len(in) == 0 {
		h.Flash(r, "info", "No row of this run was refused: there is nothing to send again.")
		h.Redirect(w, r, page)
		return
	}
	t, err := h.treasury(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	checked, err := h.check(ctx, in, t)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	actor := handlers.ActorFrom(ctx)
	var made store.PayrollRun
	d, err := h.actions.RunLocal(ctx, handlers.Local{Key: key, Kind: kindAgain, Target: fmt.Sprintf("payroll:%d", run.ID), Actor: actor,
		Request: map[string]any{"runId": run.ID, "rows": len(in)}, Detail: "a new run of the " + rowsWord(len(in), "refused row"),
		Change: func(ctx context.Context, tx *store.Store) error {
			var err error
			made, err = tx.CreatePayrollRun(ctx, againName(run.Name), run.Source, checked, actor)
			return err
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, "/payroll")
		return
	}
	h.Flash(r, "ok", "A new run of the "+rowsWord(len(in), "refused row")+", checked again: nothing is sent until you send it.")
	h.Redirect(w, r, fmt.Sprintf("/payroll/%d", made.ID))
}

// againName names a run made of another's refused rows.
func againName(name string) string {
	n := name + " (refused rows)"
	if r := []rune(n); len(r) > maxNameLength {
		n = string(r[:maxNameLength])
	}
	return n
}

// rowsWord is n rows in words: "1 refused row", "3 refused rows".
func rowsWord(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
