package employees

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Ledger kinds of the direct onboarding (partners whose own app onboards
// their people).
const (
	kindDirectCreate = "employee.direct_create"
	kindKYCDocument  = "employee.kyc.document"
	kindKYCProfile   = "employee.kyc.profile"
)

// directUser is what a direct create keeps in the ledger: who, never the
// phone number (only that one was sent).
type directUser struct {
	Email       string `json:"email"`
	FirstName   string `json:"firstName"`
	LastName    string `json:"lastName"`
	EmployeeRef string `json:"employeeRef,omitempty"`
	PhoneSent   bool   `json:"phoneSent,omitempty"`
}

func directTarget(email string) string { return "user:" + strings.ToLower(email) }

// directEffect records the user the API created (or already had, by the
// 409 rule) as a linked employee, in the transaction of the audit row.
func directEffect(req directUser, u *apiclient.User, note string) handlers.Effect {
	detail := "added " + req.Email + " as a user of the Partner API (direct onboarding)"
	if note != "" {
		detail += " (" + note + ")"
	}
	return handlers.Effect{Target: directTarget(req.Email), Result: map[string]string{"serviceUserId": u.ServiceUserID, "note": note}, Detail: detail,
		Apply: func(ctx context.Context, tx *store.Store) error {
			now := u.CreatedAt
			_, err := tx.UpsertEmployee(ctx, store.Employee{Email: req.Email, FirstName: req.FirstName, LastName: req.LastName,
				ServiceUserID: u.ServiceUserID, InviteState: store.InviteLinked, LinkedAt: &now})
			return err
		}}
}

// readBackDirect: spec, "A timed-out create-user must be recovered through
// the 409 rule"; a user with the email means the create was recorded.
func readBackDirect(api *apiclient.Client) handlers.ReadBack {
	return func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req directUser
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		if api == nil {
			return handlers.Effect{}, false, errNoAPI
		}
		u, err := api.LookupUserByEmail(ctx, req.Email)
		if apiclient.IsNotFound(err) {
			return handlers.Effect{}, false, nil
		}
		if err != nil {
			return handlers.Effect{}, false, err
		}
		return directEffect(req, u, "the user is found by email"), true, nil
	}
}

// DirectForm shows the "add as a user" form.
func (h *Handler) DirectForm(w http.ResponseWriter, r *http.Request) {
	f := views.DirectCreateForm{Fields: views.FieldErrors{}, Token: handlers.NewFormToken()}
	h.Render(w, r, http.StatusOK, "Add an employee as a user", views.DirectCreatePage(f), nil)
}

func readDirectForm(r *http.Request) views.DirectCreateForm {
	get := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	f := views.DirectCreateForm{Email: get("email"), FirstName: get("first_name"), LastName: get("last_name"),
		PhoneNumber: get("phone_number"), EmployeeRef: get("employee_ref"), Fields: views.FieldErrors{}}
	if msg := handlers.CheckEmail(f.Email); f.Email == "" {
		f.Fields["email"] = "Enter the employee's work email."
	} else if msg != "" {
		f.Fields["email"] = msg
	}
	for _, t := range []struct{ field, value, empty string }{
		{"first_name", f.FirstName, "Enter the first name as on their identity document."},
		{"last_name", f.LastName, "Enter the last name as on their identity document."},
	} {
		if t.value == "" {
			f.Fields[t.field] = t.empty
		} else if msg := handlers.CheckText(t.value, 100, false); msg != "" {
			f.Fields[t.field] = msg
		}
	}
	if f.PhoneNumber != "" && (strings.Trim(f.PhoneNumber, "+0123456789 -()") != "" || len(digitsOf(f.PhoneNumber)) < 7) {
		f.Fields["phone_number"] = "Enter the full phone number with its country code, in digits with an optional leading +."
	}
	if msg := handlers.CheckText(f.EmployeeRef, 64, false); msg != "" {
		f.Fields["employee_ref"] = msg
	}
	for _, k := range []string{"first_name", "last_name", "employee_ref"} {
		if f.Fields.Has(k) {
			switch k {
			case "first_name":
				f.FirstName = printable(f.FirstName)
			case "last_name":
				f.LastName = printable(f.LastName)
			case "employee_ref":
				f.EmployeeRef = printable(f.EmployeeRef)
			}
		}
	}
	return f
}

// DirectCreate creates the employee's user at the Partner API once (the
// form's token is the action's key) and records them as a linked employee.
// spec: a 409 is treated "as success of a prior attempt", recovered by
// email (apiclient.CreateUser); a different person holding the email,
// phone number or employee identifier is said next to the field.
func (h *Handler) DirectCreate(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	if h.seen(w, r, key, kindDirectCreate, "/employees") {
		return
	}
	f := readDirectForm(r)
	f.Token = r.PostFormValue(handlers.FormTokenField)
	if !f.Fields.Any() {
		if e, err := h.Store.EmployeeByEmail(r.Context(), f.Email); err == nil {
			f.Fields["email"] = fmt.Sprintf("%s is already in the employee list (%s): open their page, /employees/%d.",
				f.Email, views.StatusLabel(views.StatusInvite, e.InviteState), e.ID)
		} else if !isNotFound(err) {
			h.ServerError(w, r, err)
			return
		}
	}
	if f.Fields.Any() {
		h.Render(w, r, http.StatusUnprocessableEntity, "Add an employee as a user", views.DirectCreatePage(f), nil)
		return
	}
	by := handlers.ActorFrom(r.Context())
	req := directUser{Email: f.Email, FirstName: f.FirstName, LastName: f.LastName, EmployeeRef: f.EmployeeRef, PhoneSent: f.PhoneNumber != ""}
	send := apiclient.CreateUserRequest{Email: f.Email, FirstName: f.FirstName, LastName: f.LastName, PhoneNumber: f.PhoneNumber, EmployeeID: f.EmployeeRef}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindDirectCreate, Target: directTarget(f.Email), Actor: by, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			u, err := h.API.CreateUser(ctx, send)
			if err != nil {
				return handlers.Effect{}, err
			}
			return directEffect(req, u, ""), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, h.pageOfEmail(r.Context(), f.Email))
		return
	}
	if d.State() == store.ActionDone {
		e, err := h.Store.EmployeeByEmail(r.Context(), f.Email)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if err := h.Refresh(r.Context(), e, by); err != nil {
			h.Logger.WarnContext(r.Context(), "read onboarding after direct create", "employee", e.ID, "err", err)
		}
		h.Flash(r, "ok", e.Name()+" is now a user of the Partner API. Walk their KYC below, in this order.")
		h.Redirect(w, r, fmt.Sprintf("/employees/%d/kyc", e.ID))
		return
	}
	f.Token = handlers.NewFormToken()
	directCreateProblem(&f, d)
	h.Render(w, r, problemStatus(d), "Add an employee as a user", views.DirectCreatePage(f), nil)
}

// directCreateProblem says at its field why the new user was not added:
// someone else's email, phone or number (409), a refusal, or an outcome
// not known yet.
func directCreateProblem(f *views.DirectCreateForm, d handlers.Done) {
	var conflict *apiclient.UserConflictError
	switch {
	case errors.As(d.Err, &conflict):
		field := "email"
		if !containsFold(conflict.Fields, "email") {
			if containsFold(conflict.Fields, "phoneNumber") {
				field = "phone_number"
			} else if containsFold(conflict.Fields, "employeeId") {
				field = "employee_ref"
			}
		}
		f.Fields[field] = "Another user of the Partner API already has this " + strings.Join(fieldsInWords(conflict.Fields), " and ") +
			": it is not this person's earlier attempt, so nobody was added. Check the details."
	case d.State() == store.ActionRefused:
		for k, msg := range d.Problem.Fields {
			switch k {
			case "email":
				f.Fields["email"] = sentence("work email", msg)
			case "firstName":
				f.Fields["first_name"] = sentence("first name", msg)
			case "lastName":
				f.Fields["last_name"] = sentence("last name", msg)
			case "phoneNumber":
				f.Fields["phone_number"] = sentence("phone number", msg)
			}
		}
		f.Problem = d.Problem.Summary
	default:
		f.Problem = "The Partner API did not confirm the new user, so it is not known whether it was added; the app reads it back by email " +
			"and the employee appears in the list once it is known. Do not send it again meanwhile."
	}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(strings.TrimSpace(x), s) {
			return true
		}
	}
	return false
}

func fieldsInWords(fields []string) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		switch strings.ToLower(strings.TrimSpace(f)) {
		case "email":
			out = append(out, "email")
		case "phonenumber":
			out = append(out, "phone number")
		case "employeeid":
			out = append(out, "employee number")
		default:
			out = append(out, FieldInWords(f))
		}
	}
	return out
}
