package auth

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"partneradmin/handlers"
	"partneradmin/store"
)

// stepUpPermissions are the permissions of value-moving and card actions:
// their POSTs need a second factor proved within StepUpMaxAge.
var stepUpPermissions = map[store.Permission]bool{
	store.PermApprovalsAct: true,
	store.PermTreasury:     true,
	store.PermCardsWrite:   true,
}

// NeedsStepUp reports whether a route asks for the second factor again.
func NeedsStepUp(method string, perm store.Permission) bool {
	return method == http.MethodPost && stepUpPermissions[perm]
}

// uploadForms are the file uploads among the step-up routes, each with
// the page its form is on. A browser cannot send a chosen file again, so
// that page asks for the second factor before the file is chosen, and an
// upload that comes too late returns to it (not to the nearest page of the
// route table, which for /payroll/csv is /payroll/{id}).
var uploadForms = map[string]string{"/payroll/csv": "/payroll/new"}

func uploadPage(pattern string) bool {
	for _, page := range uploadForms {
		if page == pattern {
			return true
		}
	}
	return false
}

// Route kinds the gate lets through before a second factor is set up or
// proved.
func enrolRoute(pattern string) bool {
	return pattern == "/logout" || pattern == "/account/security" || strings.HasPrefix(pattern, "/account/security/")
}

// passwordRoute: the routes open to a staff member who must first replace
// a password someone else chose.
func passwordRoute(pattern string) bool {
	return pattern == "/logout" || pattern == "/account/password"
}

func verifyRoute(pattern string) bool {
	return pattern == "/logout" || pattern == "/account/verify" || strings.HasPrefix(pattern, "/account/verify/")
}

// Gate enforces a chosen password and second factors on one route of the
// table, after authentication and the route's permission:
//
//   - a staff member whose password someone else chose (an owner creating
//     the account) can only replace it (/account/password) or sign out;
//   - a staff member whose role must have a second factor and who has none
//     can only enrol (/account/security) or sign out;
//   - a session that has not proved the staff member's second factor (one
//     from before it was set up) can only prove it or sign out;
//   - a POST of a value-moving or card route (NeedsStepUp) whose session
//     proved the second factor longer ago than the step-up age is answered
//     with the step-up form, which carries the posted fields along and
//     offers to send them again once confirmed. htmx requests and file
//     uploads go to the step-up page and back to the page they came from;
//   - the page of a file upload that needs a step-up (uploadForms) asks
//     for it first, when less than a third of the step-up age is left, so
//     the file is chosen after the check and not lost to it.
//
// returnPage is the page a form posted to path was on.
func (h *Handler) Gate(method, pattern string, perm store.Permission, returnPage func(path string) string, next http.Handler) http.Handler {
	if perm == store.PermPublic {
		return next
	}
	stepUp := NeedsStepUp(method, perm)
	beforeUpload := method == http.MethodGet && uploadPage(pattern)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		viewer := handlers.ViewerFrom(ctx)
		if viewer == nil {
			next.ServeHTTP(w, r)
			return
		}
		s := viewer.Staff
		if s.PasswordMustChange && !passwordRoute(pattern) {
			// The page says why; nothing was done, so a POST is not replayed.
			h.Redirect(w, r, "/account/password")
			return
		}
		if !s.SecondFactor {
			h.gateWithoutFactor(w, r, pattern, s.Role, next)
			return
		}
		if verifyRoute(pattern) {
			next.ServeHTTP(w, r)
			return
		}
		at := h.Sessions.GetInt64(ctx, SessionSecondFactorAt)
		back := r.URL.RequestURI()
		if page, ok := uploadForms[pattern]; ok && r.Method != http.MethodGet {
			back = page
		} else if r.Method != http.MethodGet {
			back = returnPage(r.URL.Path)
		}
		if at == 0 {
			h.Redirect(w, r, "/account/verify?next="+url.QueryEscape(back))
			return
		}
		age := h.Now().Sub(time.Unix(at, 0))
		if beforeUpload && r.Header.Get(handlers.HeaderHXRequest) != "true" {
			if age <= h.factors.opts.StepUpMaxAge*2/3 {
				next.ServeHTTP(w, r)
				return
			}
			h.Flash(r, "info", "Confirm it is you before you choose the file: a file cannot be carried through this check.")
			h.Redirect(w, r, "/account/verify?next="+url.QueryEscape(back))
			return
		}
		if !stepUp && !(enrolRoute(pattern) && r.Method == http.MethodPost) {
			next.ServeHTTP(w, r)
			return
		}
		if age <= h.factors.opts.StepUpMaxAge {
			next.ServeHTTP(w, r)
			return
		}
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Header.Get(handlers.HeaderHXRequest) == "true" || ct != "application/x-www-form-urlencoded" {
			if ct == "multipart/form-data" {
				h.Flash(r, "info", "Confirm it is you, then choose the file again: a file cannot be carried through this check.")
			}
			h.Redirect(w, r, "/account/verify?next="+url.QueryEscape(back))
			return
		}
		// The form's fields (web's input check parsed and checked them)
		// ride along in the step-up form; nothing is kept server-side.
		h.renderStepUp(w, r, http.StatusOK, h.stepUpView(back, replayOf(r)))
	})
}

// gateWithoutFactor lets staff without a second factor on, unless their
// role must have one: then only to enrol one.
func (h *Handler) gateWithoutFactor(w http.ResponseWriter, r *http.Request, pattern string, role store.Role, next http.Handler) {
	if enrolRoute(pattern) {
		next.ServeHTTP(w, r)
		return
	}
	required, err := h.factorRequired(r.Context(), role)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if required {
		h.Flash(r, "info", "Your role must have a second factor: add one to go on.")
		h.Redirect(w, r, "/account/security")
		return
	}
	next.ServeHTTP(w, r)
}
