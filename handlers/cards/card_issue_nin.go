package cards

import (
	"net/http"

	"partneradmin/handlers/identity"
	"partneradmin/views"
)

// LookupNIN shows whose a NIN is before a first card (GET
// .../kyc/nin-lookup: holder details, nothing saved), on the card form as
// it was posted; the form then asks for the NIN again and for staff's
// confirmation of the holder. The number lives only in this call.
func (h *Handler) LookupNIN(w http.ResponseWriter, r *http.Request) {
	t, in, ok := h.postedIssueForm(w, r)
	if !ok {
		return
	}
	f := &t.form
	f.NeedsNIN, f.NINHolder = true, ""
	status := http.StatusOK
	if !identity.ValidNumber(in.nin) {
		// spec: "NIN must be exactly 11 digits". The typed value is never
		// echoed back.
		f.Fields["nin"] = "A NIN is exactly 11 digits. It was not kept: type it again."
		status = http.StatusUnprocessableEntity
	} else if hd, err := h.API.LookupNIN(r.Context(), t.employee.ServiceUserID, in.nin); err != nil {
		f.NINLookup.Problem, status = identity.Problem("NIN", err)
	} else {
		f.NINLookup.Holder = identity.Holder("NIN", t.employee, hd)
		f.NINHolder = f.NINLookup.Holder.Name
	}
	h.render(w, r, status, "Issue a card", views.CardIssuePage(views.CardIssueView{Form: f}), nil)
}
