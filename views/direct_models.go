package views

// DirectCreateForm is the "add as a user" form: HR creates the employee's
// user at the Partner API directly, for partners whose own app onboards
// their people.
type DirectCreateForm struct {
	Email       string
	FirstName   string
	LastName    string
	PhoneNumber string
	// EmployeeRef is the partner's own employee identifier (optional).
	EmployeeRef string
	Fields      FieldErrors
	Problem     string
	Token       string
}

// DirectDocForm is one document upload of the KYC walk.
type DirectDocForm struct {
	Token string
	// OnFile says what the Partner API reports on file ("" when nothing).
	OnFile string
	// Missing is the readiness's words for this document, "" when not
	// listed.
	Missing string
	Type    string
	Issuing string
	Fields  FieldErrors
	Problem string
}

// DirectHolderView is what an identity lookup returned, shown once for HR
// to compare with the employee; nothing of it is kept.
type DirectHolderView struct {
	// Kind is "BVN" or "NIN".
	Kind string
	Name string
	// Matches: the holder's names are the employee's.
	Matches bool
}

// DirectLookupForm is a BVN or NIN lookup: the number is never drawn back.
type DirectLookupForm struct {
	Token   string
	Error   string
	Holder  *DirectHolderView
	Problem string
}

// DirectRailView is one currency's last step: activation and the start.
type DirectRailView struct {
	Currency string
	Label    string
	Missing  []string
	// Start is the activation-and-start form when the rail can start.
	Start *RailStartForm
	// Why says why it cannot start yet, in words.
	Why string
	// NeedsBVNLookup: NGN starts only after the BVN lookup.
	NeedsBVNLookup bool
	// NigeriaStart is the start after a looked-up BVN was confirmed.
	NigeriaStart *DirectNigeriaStart
}

// DirectNigeriaStart is the NGN start after the BVN lookup: the BVN is
// typed again (never redrawn) and the holder confirmed.
type DirectNigeriaStart struct {
	Token   string
	Holder  string
	Fields  FieldErrors
	Problem string
}

// DirectKYCView is the employee's KYC walk in the spec's fixed order.
type DirectKYCView struct {
	EmployeeID int64
	Name       string
	Email      string
	// Lookups: the options and occupations lookups answered.
	Lookups        bool
	LookupProblem  string
	IDTypes        []Option
	POATypes       []Option
	Countries      []Option
	Identification DirectDocForm
	ProofOfAddress DirectDocForm
	Biometric      DirectDocForm
	// Profile is the KYC profile form (the invite's fields).
	Profile InvitePageView
	// OccupationNotLanded: the last profile was accepted but GET /kyc shows
	// no employment (spec: silently dropped).
	OccupationNotLanded bool
	// Readiness as GET /kyc/readiness says it now.
	ReadinessRead    bool
	ReadinessProblem string
	CanActivate      bool
	MissingElsewhere []string
	Rails            []DirectRailView
	BVN              DirectLookupForm
	NIN              DirectLookupForm
}

// DirectAskedView is what the API asks of a flagged employee
// (kyc.action_required) on the employee's page: a document HR may upload,
// or a selfie, which is the employee's own step.
type DirectAskedView struct {
	EmployeeID int64
	// Document: HR may provide it from the KYC page.
	Document string
	// Selfie: the employee takes it in the partner's app.
	Selfie bool
}

// DocForm is the upload form of a document by its path
// ("identification", "proof-of-address", "biometric").
func (v *DirectKYCView) DocForm(path string) *DirectDocForm {
	switch path {
	case "identification":
		return &v.Identification
	case "proof-of-address":
		return &v.ProofOfAddress
	}
	return &v.Biometric
}
