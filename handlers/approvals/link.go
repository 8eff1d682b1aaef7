package approvals

import (
	"errors"
	"net/http"
	"strings"

	"partneradmin/apiclient"

	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/views"
)

// adminOptions lists the wallet admins of the partner's treasury users.
func (h *Handler) adminOptions(r *http.Request) ([]views.Choice, map[string]bool, error) {
	ctx := r.Context()
	treasuries, err := h.store.TreasuryUsers(ctx)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	var ids []string
	for _, t := range treasuries {
		if t.ServiceUserID == "" {
			continue
		}
		pol, err := h.api.GetApprovalPolicy(ctx, t.ServiceUserID)
		if err != nil {
			return nil, nil, upstreamError{err}
		}
		for _, a := range pol.Admins {
			if !seen[a] {
				seen[a] = true
				ids = append(ids, a)
			}
		}
	}
	names, err := h.store.EmployeesByServiceUserIDs(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	var opts []views.Choice
	for _, id := range ids {
		label := proposal.Names(names).Of(id)
		if e, ok := names[id]; ok && e.Email != "" && e.Email != label {
			label += " (" + e.Email + ")"
		}
		opts = append(opts, views.Choice{Value: id, Label: label})
	}
	return opts, seen, nil
}

// upstreamError marks a failed read of the Partner API: the page says so
// instead of failing.
type upstreamError struct{ err error }

func (e upstreamError) Error() string { return e.err.Error() }
func (e upstreamError) Unwrap() error { return e.err }

// unavailable renders the link page without its form when the wallet admins
// cannot be read: nothing is saved that could not be checked.
func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request, cur string, err error) {
	h.Logger.WarnContext(r.Context(), "approver link: wallet admins not read", "err", err)
	h.Render(w, r, http.StatusServiceUnavailable, "Approve as a wallet admin", views.ApproverLinkPage(views.ApproverLinkView{
		Current: cur, Fields: views.FieldErrors{}, Token: handlers.NewFormToken(),
		Unavailable: "The wallet admins cannot be listed now: " + apiclient.Words(err) + " Nothing was changed; reload this page in a moment.",
	}), nil)
}

// LinkForm shows the viewer's link to a wallet admin.
func (h *Handler) LinkForm(w http.ResponseWriter, r *http.Request) {
	v := handlers.ViewerFrom(r.Context())
	cur, err := h.store.ApproverLink(r.Context(), v.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	opts, _, err := h.adminOptions(r)
	if ue := (upstreamError{}); errors.As(err, &ue) {
		h.unavailable(w, r, cur, ue.err)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Approve as a wallet admin", views.ApproverLinkPage(views.ApproverLinkView{Current: cur, Admins: opts, Value: cur, Fields: views.FieldErrors{},
		Token: handlers.NewFormToken()}), nil)
}

// Link saves the viewer's link to a wallet admin (one of the treasury
// wallets' admins, or none).
func (h *Handler) Link(w http.ResponseWriter, r *http.Request) {
	v := handlers.ViewerFrom(r.Context())
	// Like every state-changing form, this one carries its one-time token:
	// a form posted without one was not this page's.
	if _, ok := handlers.FormKey(r); !ok {
		h.StaleForm(w, r)
		return
	}
	value := strings.TrimSpace(r.PostFormValue("service_user_id"))
	opts, admins, err := h.adminOptions(r)
	if ue := (upstreamError{}); errors.As(err, &ue) {
		cur, err := h.store.ApproverLink(r.Context(), v.Staff.ID)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.unavailable(w, r, cur, ue.err)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if value != "" && !admins[value] {
		cur, err := h.store.ApproverLink(r.Context(), v.Staff.ID)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if handlers.CheckText(value, maxWho, false) != "" {
			value = "" // not worth showing back
		}
		h.Render(w, r, http.StatusUnprocessableEntity, "Approve as a wallet admin", views.ApproverLinkPage(views.ApproverLinkView{
			Current: cur, Admins: opts, Value: value, Fields: views.FieldErrors{"service_user_id": "Choose one of the wallet admins listed."},
			Token: handlers.NewFormToken(),
		}), nil)
		return
	}
	if err := h.store.SetApproverLink(r.Context(), v.Staff.ID, value, v.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Saved: your approvals are sent as this wallet admin.")
	h.Redirect(w, r, "/approvals")
}
