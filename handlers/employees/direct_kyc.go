package employees

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// directEmployee loads the employee of a KYC walk: they must have an
// active user at the Partner API.
func (h *Handler) directEmployee(w http.ResponseWriter, r *http.Request) (store.Employee, bool) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return e, false
	}
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted || e.DeletedAt != nil {
		h.ErrorPage(w, r, http.StatusConflict, "No account at the Partner API",
			e.Name()+" has no active user at the Partner API (only invited, or deleted), so there is no KYC to walk here.")
		return e, false
	}
	if h.API == nil {
		h.ErrorPage(w, r, http.StatusServiceUnavailable, "No Partner API", "The app has no Partner API connection.")
		return e, false
	}
	return e, true
}

// DirectKYC shows the employee's KYC walk in the spec's fixed order. Rule
// 1: "options and occupations lookups, then identification,
// proof-of-address, biometric uploads, then PATCH /kyc, then GET
// /kyc/readiness, then POST /kyc/activate, then the rail-specific start":
// showing the page makes the options lookup, and the occupations lookup
// until the first document is on file.
func (h *Handler) DirectKYC(w http.ResponseWriter, r *http.Request) {
	e, ok := h.directEmployee(w, r)
	if !ok {
		return
	}
	h.renderDirect(w, r, http.StatusOK, e, nil)
}

func (h *Handler) renderDirect(w http.ResponseWriter, r *http.Request, status int, e store.Employee, set func(v *views.DirectKYCView)) {
	v, err := h.directView(r.Context(), e)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if set != nil {
		set(&v)
	}
	h.Render(w, r, status, "KYC for "+e.Name(), views.DirectKYCPage(v), nil)
}

var defaultIDTypes = []views.Option{
	{Value: apiclient.DocumentPassport, Label: "Passport"}, {Value: apiclient.DocumentDriversLicense, Label: "Driver's licence"},
	{Value: apiclient.DocumentNationalID, Label: "National identity card"}, {Value: apiclient.DocumentGovernmentID, Label: "Other government ID"},
}

var defaultPOATypes = []views.Option{
	{Value: "utility_bill", Label: "Utility bill"}, {Value: "bank_statement", Label: "Bank statement"},
	{Value: "tax_document", Label: "Tax document"}, {Value: "tenancy_agreement", Label: "Tenancy agreement"},
	{Value: "government_letter", Label: "Government letter"},
}

func optionsOf(list []apiclient.KYCOption, fallback []views.Option) []views.Option {
	if len(list) == 0 {
		return fallback
	}
	out := make([]views.Option, 0, len(list))
	for _, o := range list {
		label := o.Label
		if label == "" {
			label = o.Value
		}
		out = append(out, views.Option{Value: o.Value, Label: label})
	}
	return out
}

// directView reads what the page shows: the lookups, the documents and
// profile on file, the readiness, and the readiness cells and wallets the
// store holds.
func (h *Handler) directView(ctx context.Context, e store.Employee) (views.DirectKYCView, error) {
	uid := e.ServiceUserID
	v := views.DirectKYCView{EmployeeID: e.ID, Name: e.Name(), Email: e.Email, IDTypes: defaultIDTypes, POATypes: defaultPOATypes,
		Identification: views.DirectDocForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		ProofOfAddress: views.DirectDocForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		Biometric:      views.DirectDocForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		BVN:            views.DirectLookupForm{Token: handlers.NewFormToken()},
		NIN:            views.DirectLookupForm{Token: handlers.NewFormToken()}}
	for _, c := range countries {
		v.Countries = append(v.Countries, views.Option{Value: c.Alpha3, Label: c.Name})
	}
	f := views.InviteForm{Name: e.Name(), Email: e.Email, FirstName: e.FirstName, LastName: e.LastName, CountryCode: e.Country,
		AccountPurpose: "personal", Fields: views.FieldErrors{}, Token: handlers.NewFormToken()}
	begun := false
	if p, err := h.API.GetKYC(ctx, uid); err == nil {
		prefillProfile(&f, p)
		begun = documentsOnFile(&v, p.Documents)
	} else {
		h.Logger.WarnContext(ctx, "direct kyc: read the profile", "employee", e.ID, "status", apiclient.StatusCode(err))
	}
	h.directLookups(ctx, uid, &v, begun)

	kr, err := h.API.GetKYCReadiness(ctx, uid)
	switch {
	case err == nil:
		v.ReadinessRead, v.CanActivate = true, kr.CanActivate
		placeMissing(&v, &f, kr.Missing)
	case apiclient.StatusCode(err) == http.StatusBadRequest:
		v.ReadinessProblem = "The Partner API tells the readiness once the documents and the profile are sent, in that order."
	default:
		v.ReadinessProblem = "The readiness could not be read. " + apiclient.ReadWords(err)
	}
	v.Profile = invitePage(f)

	rails, err := h.directRails(ctx, e)
	if err != nil {
		return v, err
	}
	v.Rails = rails
	return v, nil
}

// directLookups reads the option lists. The spec's order puts the
// occupations lookup before the first upload, so it is made only while no
// document is on file (begun false); afterwards the occupation picker
// searches it when someone types.
func (h *Handler) directLookups(ctx context.Context, uid string, v *views.DirectKYCView, begun bool) {
	opts, err := h.API.GetKYCOptions(ctx, uid)
	if err == nil && !begun {
		_, err = h.API.SearchOccupations(ctx, uid, "")
	}
	if err != nil {
		v.LookupProblem = "The lists of choices could not be read from the Partner API. " + apiclient.ReadWords(err)
		return
	}
	v.Lookups = true
	v.IDTypes = optionsOf(opts.Personal["identificationType"], defaultIDTypes)
	v.POATypes = optionsOf(opts.Personal["proofOfAddressType"], defaultPOATypes)
}

// documentsOnFile says on the upload steps what the API holds, and whether
// any document is on file.
func documentsOnFile(v *views.DirectKYCView, d *apiclient.KYCDocuments) bool {
	if d == nil {
		return false
	}
	if d.Identification != nil {
		v.Identification.OnFile = "an identity document (" + strings.ReplaceAll(d.Identification.Type, "_", " ") + ", " + strings.Join(d.Identification.Sides, " and ") + ")"
	}
	if d.ProofOfAddress {
		v.ProofOfAddress.OnFile = "a proof of address"
	}
	if d.Biometric {
		v.Biometric.OnFile = "a selfie"
	}
	return d.Identification != nil || d.ProofOfAddress || d.Biometric
}

// prefillProfile puts what the API holds into the profile form: never an
// identification number (DESIGN.md decision 8).
func prefillProfile(f *views.InviteForm, p *apiclient.KYCProfile) {
	if p.Profile != nil && p.Profile.PersonalInfo != nil {
		pi := p.Profile.PersonalInfo
		f.FirstName, f.MiddleName, f.LastName = orKeep(pi.FirstName, f.FirstName), pi.MiddleName, orKeep(pi.LastName, f.LastName)
		f.DateOfBirth, f.Nationality, f.PhoneNumber, f.Gender = pi.DateOfBirth, pi.Nationality, pi.PhoneNumber, pi.Gender
	}
	if a := p.Address; a != nil {
		f.StreetLine1, f.City, f.State, f.PostalCode, f.CountryCode = a.StreetLine1, a.City, a.State, a.PostalCode, orKeep(a.CountryCode, f.CountryCode)
	}
	if em := p.Employment; em != nil {
		f.EmploymentStatus, f.OccupationCode, f.EmployerName = em.EmploymentStatus, em.OccupationCode, em.EmployerName
	}
	f.SourceOfFunds = p.SourceOfFunds
	if p.EstimatedMonthlyVolume != nil {
		f.EstimatedMonthlyVolume = p.EstimatedMonthlyVolume.String()
	}
	if p.AccountPurpose != "" {
		f.AccountPurpose = p.AccountPurpose
	}
}

func orKeep(v, keep string) string {
	if v == "" {
		return keep
	}
	return v
}

// placeMissing says each missing field of the readiness next to its place:
// a document beside its upload, a profile field beside its input, the rest
// under the readiness.
func placeMissing(v *views.DirectKYCView, f *views.InviteForm, missing []string) {
	for _, m := range missing {
		words := FieldInWords(m)
		path := strings.TrimPrefix(m, "kyc.profile.")
		switch {
		case strings.HasPrefix(path, "documents.identification") || path == "identification" || path == "identificationDocument":
			v.Identification.Missing = "identity document"
		case path == "documents.proofOfAddress" || path == "proofOfAddress":
			v.ProofOfAddress.Missing = "proof of address"
		case path == "documents.biometric" || path == "biometric" || path == "selfie":
			v.Biometric.Missing = "selfie"
		case formFieldOf[path] != "":
			setMissing(f, formFieldOf[path], words)
		case strings.HasPrefix(path, "identificationNumbers."):
			typ := strings.TrimPrefix(path, "identificationNumbers.")
			switch typ {
			case "ssn", "nino", "rfc", "curp", "bvn":
				setMissing(f, typ, words)
			default:
				v.MissingElsewhere = append(v.MissingElsewhere, words)
			}
		case path == "address":
			setMissing(f, "street_line1", words)
		case path == "employment":
			setMissing(f, "employment_status", words)
		default:
			v.MissingElsewhere = append(v.MissingElsewhere, words)
		}
	}
}

func setMissing(f *views.InviteForm, field, words string) {
	if f.Fields.Get(field) == "" {
		f.Fields[field] = "Missing: the Partner API still needs the " + words + "."
	}
}

// directRails is the last step per currency: the start form when the
// currency is ready and the employee has its wallet; otherwise why not.
func (h *Handler) directRails(ctx context.Context, e store.Employee) ([]views.DirectRailView, error) {
	cells, err := h.Store.ReadinessOf(ctx, []int64{e.ID})
	if err != nil {
		return nil, err
	}
	wallets, err := h.Store.WalletsByEmployee(ctx, e.ID)
	if err != nil {
		return nil, err
	}
	var out []views.DirectRailView
	for _, cur := range store.ReadinessCurrencies() {
		rl, ok := railOf(cur)
		if !ok {
			continue
		}
		c, read := cells[e.ID][cur]
		cv := cellView(cur, c, read)
		rv := views.DirectRailView{Currency: cur, Label: cv.Label, Missing: cv.Missing}
		hasWallet := false
		for _, w := range wallets {
			if w.Currency == string(rl.Token) && !w.Legacy {
				hasWallet = true
			}
		}
		switch {
		case !read:
			rv.Why = "Not read from the Partner API yet: refresh the employee's page."
		case c.State == store.ReadyToActivate && !hasWallet:
			rv.Why = fmt.Sprintf("Ready, but the employee has no %s wallet yet: your app creates it with the employee's own key; then refresh the employee's page.", rl.Token)
		case c.State == store.ReadyToActivate && cur == "NGN":
			rv.NeedsBVNLookup = true
		case c.State == store.ReadyToActivate:
			rv.Start = h.startForm(rl)
		case c.State == store.ReadyActive:
			rv.Why = "Active: the employee can use " + cur + "."
		case c.State == store.ReadyOnboarding:
			rv.Why = "Started: the Partner API reports its progress by webhooks."
		case c.State == store.ReadyMissing:
			rv.Why = "Finish the steps above first."
		}
		out = append(out, rv)
	}
	return out, nil
}

// directNigeria is the NGN rail of the page, for a lookup's answer.
func directNigeria(v *views.DirectKYCView) *views.DirectRailView {
	for i := range v.Rails {
		if v.Rails[i].Currency == "NGN" {
			return &v.Rails[i]
		}
	}
	return nil
}

// directAsked reads what a kyc.action_required asks (its words, as kept
// from the event) into who can provide it.
func directAsked(e store.Employee) *views.DirectAskedView {
	if e.ActionRequired == "" || e.ServiceUserID == "" {
		return nil
	}
	s := strings.ToLower(e.ActionRequired)
	v := &views.DirectAskedView{EmployeeID: e.ID}
	switch {
	case strings.Contains(s, "proof of address") || strings.Contains(s, "proof-of-address") || strings.Contains(s, "proofofaddress"):
		v.Document = "proof of address"
	case strings.Contains(s, "document") || strings.Contains(s, "identification") || strings.Contains(s, "passport"):
		v.Document = "identity document"
	}
	v.Selfie = strings.Contains(s, "selfie") || strings.Contains(s, "biometric") || strings.Contains(s, "liveness")
	if v.Document == "" && !v.Selfie {
		return nil
	}
	return v
}
