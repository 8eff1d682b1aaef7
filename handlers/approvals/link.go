package approvals

import (
	"net/http"
	"strings"

	"partneradmin/handlers"
	"partneradmin/views"
)

// adminOptions lists the wallet admins of the partner's treasury users.
func (h *Handler) adminOptions(r *http.Request) ([]views.Choice, map[string]bool, error) {
	ctx := r.Context()
	treasuries, err := h.Store.TreasuryUsers(ctx)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	var ids []string
	for _, t := range treasuries {
		if t.ServiceUserID == "" {
			continue
		}
		pol, err := h.API.GetApprovalPolicy(ctx, t.ServiceUserID)
		if err != nil {
			return nil, nil, err
		}
		for _, a := range pol.Admins {
			if !seen[a] {
				seen[a] = true
				ids = append(ids, a)
			}
		}
	}
	names, err := h.Store.EmployeesByServiceUserIDs(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	var opts []views.Choice
	for _, id := range ids {
		opts = append(opts, views.Choice{Value: id, Label: Names(names).Of(id) + " (" + id + ")"})
	}
	return opts, seen, nil
}

// LinkForm shows the viewer's link to a wallet admin.
func (h *Handler) LinkForm(w http.ResponseWriter, r *http.Request) {
	v := handlers.ViewerFrom(r.Context())
	cur, err := h.Store.ApproverLink(r.Context(), v.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	opts, _, err := h.adminOptions(r)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Approve as a wallet admin", views.ApproverLinkPage(views.ApproverLinkView{Current: cur, Admins: opts, Value: cur, Fields: views.FieldErrors{}}), nil)
}

// Link saves the viewer's link to a wallet admin (one of the treasury
// wallets' admins, or none).
func (h *Handler) Link(w http.ResponseWriter, r *http.Request) {
	v := handlers.ViewerFrom(r.Context())
	value := strings.TrimSpace(r.PostFormValue("service_user_id"))
	opts, admins, err := h.adminOptions(r)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if value != "" && !admins[value] {
		cur, _ := h.Store.ApproverLink(r.Context(), v.Staff.ID)
		h.Render(w, r, http.StatusUnprocessableEntity, "Approve as a wallet admin", views.ApproverLinkPage(views.ApproverLinkView{
			Current: cur, Admins: opts, Value: value, Fields: views.FieldErrors{"service_user_id": "Choose one of the wallet admins listed."},
		}), nil)
		return
	}
	if err := h.Store.SetApproverLink(r.Context(), v.Staff.ID, value, v.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Saved: your approvals are sent as this wallet admin.")
	h.Redirect(w, r, "/approvals")
}
