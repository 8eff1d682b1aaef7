package auth

import (
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// pendingStaff is the staff member this browser is signing in as, between
// the password and the second factor; false when there is none, it took
// too long, or the account went.
func (h *Handler) pendingStaff(r *http.Request) (store.Staff, bool, error) {
	ctx := r.Context()
	id := h.Sessions.GetInt64(ctx, sessPendingStaff)
	at := time.Unix(h.Sessions.GetInt64(ctx, sessPendingAt), 0)
	if id == 0 || h.Now().Sub(at) > pendingTTL {
		return store.Staff{}, false, nil
	}
	s, err := h.Store.StaffByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (s.Disabled || !s.SecondFactor)) {
		return store.Staff{}, false, nil
	}
	return s, err == nil, err
}

// factorView is the second-factor form for a staff member.
func (h *Handler) factorView(r *http.Request, s store.Staff, v views.FactorFormView) (views.FactorFormView, error) {
	ctx := r.Context()
	keys, err := h.Store.Passkeys(ctx, s.ID)
	if err != nil {
		return v, err
	}
	_, err = h.Store.StaffTOTP(ctx, s.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return v, err
	}
	v.HasPasskey, v.HasTOTP = len(keys) > 0 && h.factors.webauthn != nil, err == nil
	v.Script = h.Assets.WebAuthn
	if v.Fields == nil {
		v.Fields = views.FieldErrors{}
	}
	return v, nil
}

func (h *Handler) signInFactorView() views.FactorFormView {
	return views.FactorFormView{Title: "Second factor", Intro: "Your password was right. Now prove it is you with your second factor.",
		Action: "/login/second-factor", BeginURL: "/login/second-factor/passkey/begin"}
}

func (h *Handler) pendingGone(w http.ResponseWriter, r *http.Request) {
	h.Flash(r, "info", "Sign in again: the second step was not finished in time.")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// SecondFactorForm is the second step of a sign-in.
func (h *Handler) SecondFactorForm(w http.ResponseWriter, r *http.Request) {
	s, ok, err := h.pendingStaff(r)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !ok {
		h.pendingGone(w, r)
		return
	}
	v, err := h.factorView(r, s, h.signInFactorView())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Second factor", views.FactorFormPage(v), nil)
}

// SecondFactorPasskeyBegin starts the passkey check of a sign-in.
func (h *Handler) SecondFactorPasskeyBegin(w http.ResponseWriter, r *http.Request) {
	s, ok, err := h.pendingStaff(r)
	if err != nil || !ok {
		jsonError(w, http.StatusUnauthorized, "Sign in again: the second step was not finished in time.")
		return
	}
	h.beginPasskeyLogin(w, r, s)
}

// SecondFactor checks the second factor of a sign-in and starts the
// session.
func (h *Handler) SecondFactor(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, ok, err := h.pendingStaff(r)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !ok {
		h.pendingGone(w, r)
		return
	}
	_, field, msg, err := h.checkFactor(w, r, s, true)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if msg != "" {
		v := h.signInFactorView()
		v.Fields = views.FieldErrors{}
		if field != "" {
			v.Fields[field] = msg
		} else {
			v.Error = msg
		}
		if v, err = h.factorView(r, s, v); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.Render(w, r, http.StatusUnprocessableEntity, "Second factor", views.FactorFormPage(v), nil)
		return
	}
	next := safeNext(h.Sessions.GetString(ctx, sessPendingNext))
	if err := h.startSession(ctx, r, s, h.Now().Unix()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (h *Handler) stepUpView(next string, replay *views.ReplayForm) views.FactorFormView {
	return views.FactorFormView{Title: "Confirm it is you", Intro: "This needs your second factor again: the last time you used it was a while ago.",
		Action: "/account/verify", BeginURL: "/account/verify/passkey/begin", Next: safeNext(next), Replay: replay}
}

// renderStepUp shows the step-up form for the signed-in staff member.
func (h *Handler) renderStepUp(w http.ResponseWriter, r *http.Request, status int, v views.FactorFormView) {
	viewer := handlers.ViewerFrom(r.Context())
	v, err := h.factorView(r, viewer.Staff, v)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, status, v.Title, views.FactorFormPage(v), nil)
}

// VerifyForm asks the signed-in staff member for their second factor
// (step-up, or a session that has not proved one yet).
func (h *Handler) VerifyForm(w http.ResponseWriter, r *http.Request) {
	h.renderStepUp(w, r, http.StatusOK, h.stepUpView(r.URL.Query().Get("next"), nil))
}

// VerifyPasskeyBegin starts the passkey check of a step-up.
func (h *Handler) VerifyPasskeyBegin(w http.ResponseWriter, r *http.Request) {
	h.beginPasskeyLogin(w, r, handlers.ViewerFrom(r.Context()).Staff)
}

// Verify checks the second factor of a step-up: the session's proof is
// renewed, and the form the step-up interrupted is offered to send again,
// or the page it was on is shown.
func (h *Handler) Verify(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	replay := replayFromForm(r)
	next := safeNext(r.PostFormValue("next"))
	if !viewer.Staff.SecondFactor {
		http.Redirect(w, r, "/account/security", http.StatusSeeOther)
		return
	}
	_, field, msg, err := h.checkFactor(w, r, viewer.Staff, false)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if msg != "" {
		v := h.stepUpView(next, replay)
		v.Fields = views.FieldErrors{}
		if field != "" {
			v.Fields[field] = msg
		} else {
			v.Error = msg
		}
		h.renderStepUp(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	h.Sessions.Put(ctx, SessionSecondFactorAt, h.Now().Unix())
	if replay != nil {
		h.Render(w, r, http.StatusOK, "Confirmed", views.ContinuePage(views.ContinueView{Replay: *replay, Next: next}), nil)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// replayPrefix marks the fields of the interrupted form in a step-up form.
const replayPrefix = "replay."

// replayFromForm reads the interrupted form a step-up form carries.
func replayFromForm(r *http.Request) *views.ReplayForm {
	action := r.PostFormValue("replay_action")
	if action == "" || handlers.SafeLocalPath(action) != action {
		return nil
	}
	rp := &views.ReplayForm{Action: action}
	for k, vs := range r.PostForm {
		if name, ok := strings.CutPrefix(k, replayPrefix); ok && name != "" {
			for _, v := range vs {
				rp.Fields = append(rp.Fields, views.ReplayField{Name: name, Value: v})
			}
		}
	}
	sort.SliceStable(rp.Fields, func(i, j int) bool { return rp.Fields[i].Name < rp.Fields[j].Name })
	return rp
}

// replayOf is a posted form (URL-encoded) as a form to send again.
func replayOf(r *http.Request) *views.ReplayForm {
	rp := &views.ReplayForm{Action: r.URL.Path}
	for k, vs := range r.PostForm {
		for _, v := range vs {
			rp.Fields = append(rp.Fields, views.ReplayField{Name: k, Value: v})
		}
	}
	sort.SliceStable(rp.Fields, func(i, j int) bool { return rp.Fields[i].Name < rp.Fields[j].Name })
	return rp
}
