package employees

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/views"
)

// DirectStartNigeria is the NGN start after the BVN lookup: HR confirms the
// holder, types the BVN again, and the start goes the one way every start
// goes (StartRail: the KYC activation, then start-nigeria, once).
func (h *Handler) DirectStartNigeria(w http.ResponseWriter, r *http.Request) {
	if _, ok := handlers.FormKey(r); !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.directEmployee(w, r)
	if !ok {
		return
	}
	if r.PostFormValue("holder_confirmed") != "1" {
		holder := strings.TrimSpace(r.PostFormValue("holder"))
		if handlers.CheckText(holder, 200, false) != "" {
			holder = ""
		}
		h.renderDirect(w, r, http.StatusUnprocessableEntity, e, func(v *views.DirectKYCView) {
			ngn := directNigeria(v)
			if ngn == nil || !ngn.NeedsBVNLookup {
				return
			}
			if holder == "" {
				v.BVN.Error = "Look up the BVN first, then confirm whose it is."
				return
			}
			ngn.NigeriaStart = &views.DirectNigeriaStart{Token: r.PostFormValue(handlers.FormTokenField), Holder: holder,
				Fields: views.FieldErrors{"holder_confirmed": "Tick the box to confirm the BVN belongs to this employee.",
					"bvn": "The BVN was not kept: type it again."}}
		})
		return
	}
	chi.RouteContext(r.Context()).URLParams.Add("currency", "NGN")
	h.StartRail(w, r)
}
