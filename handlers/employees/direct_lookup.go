package employees

import (
	"context"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// holderView is what HR is shown of a lookup's holder: the name alone,
// compared with the employee's. Nothing of it is kept (DESIGN.md 8).
func holderView(kind string, e store.Employee, hd *apiclient.IdentityHolder) *views.DirectHolderView {
	name := strings.Join(strings.Fields(hd.FirstName+" "+hd.MiddleName+" "+hd.LastName), " ")
	return &views.DirectHolderView{Kind: kind, Name: name,
		Matches: strings.EqualFold(strings.TrimSpace(hd.FirstName), strings.TrimSpace(e.FirstName)) &&
			strings.EqualFold(strings.TrimSpace(hd.LastName), strings.TrimSpace(e.LastName))}
}

// lookupProblem says why a lookup gave no holder.
func lookupProblem(kind string, err error) string {
	if apiclient.IsNotFound(err) {
		return "The Partner API knows no one with this " + kind + ". Check the number with the employee."
	}
	return "The " + kind + " could not be looked up. " + apiclient.ReadWords(err)
}

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
		f.Problem = lookupProblem(kind, err)
		status = http.StatusUnprocessableEntity
		if !apiclient.IsNotFound(err) && apiclient.StatusCode(err) != http.StatusBadRequest {
			status = http.StatusBadGateway
		}
	} else {
		f.Holder = holderView(kind, e, hd)
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
