package employees

import (
	"context"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/identity"
	"partneradmin/views"
)

// lookup reads the typed number and asks the API; the number lives only in
// this call. It answers the page itself.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request, kind string,
	ask func(ctx context.Context, userID, number string) (*apiclient.IdentityHolder, error),
	show func(v *views.DirectKYCView, f views.DirectLookupForm)) {
	e, ok := h.directEmployee(w, r)
	if !ok {
		return
	}
	number := strings.TrimSpace(r.PostFormValue(strings.ToLower(kind)))
	f := views.DirectLookupForm{Token: handlers.NewFormToken()}
	if !bvnPattern.MatchString(number) {
		// spec: "BVN must be exactly 11 digits" / "NIN must be exactly 11
		// digits". The typed value is never echoed back.
		f.Error = "A " + kind + " is exactly 11 digits. It was not kept: type it again."
		h.renderDirect(w, r, http.StatusUnprocessableEntity, e, func(v *views.DirectKYCView) { show(v, f) })
		return
	}
	hd, err := ask(r.Context(), e.ServiceUserID, number)
	number = ""
	status := http.StatusOK
	if err != nil {
		f.Problem, status = identity.Problem(kind, err)
	} else {
		f.Holder = identity.Holder(kind, e, hd)
	}
	h.renderDirect(w, r, status, e, func(v *views.DirectKYCView) { show(v, f) })
}

// LookupBVN shows whose a BVN is before the Nigerian start (GET
// .../kyc/bvn-lookup: "holder details, nothing saved"); the start form then
// asks for the BVN again and for HR's confirmation.
func (h *Handler) LookupBVN(w http.ResponseWriter, r *http.Request) {
	h.lookup(w, r, "BVN", h.API.LookupBVN, func(v *views.DirectKYCView, f views.DirectLookupForm) {
		v.BVN = f
		if ngn := directNigeria(v); ngn != nil && ngn.NeedsBVNLookup && f.Holder != nil {
			ngn.NigeriaStart = &views.DirectNigeriaStart{Token: handlers.NewFormToken(), Holder: f.Holder.Name, Fields: views.FieldErrors{}}
		}
	})
}

// LookupNIN shows whose a NIN is before a first card (GET
// .../kyc/nin-lookup); the card form asks for it again.
func (h *Handler) LookupNIN(w http.ResponseWriter, r *http.Request) {
	h.lookup(w, r, "NIN", h.API.LookupNIN, func(v *views.DirectKYCView, f views.DirectLookupForm) { v.NIN = f })
}
