package apiclient

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"
)

// KYCProfile is the body of PATCH /kyc and the profile GET /kyc returns.
// Every field is optional so a partial update sends only what was set: empty
// strings, nil pointers and empty slices are left out.
type KYCProfile struct {
	Profile    *KYCPersonalProfile `json:"profile,omitempty"`
	Address    *KYCAddress         `json:"address,omitempty"`
	Employment *KYCEmployment      `json:"employment,omitempty"`
	// SourceOfFunds such as "salary".
	SourceOfFunds string `json:"sourceOfFunds,omitempty"`
	// EstimatedMonthlyVolume is in USD, sent as a JSON number.
	EstimatedMonthlyVolume *DecimalNumber `json:"estimatedMonthlyVolume,omitempty"`
	// AccountPurpose defaults to "personal" upstream.
	AccountPurpose string `json:"accountPurpose,omitempty"`
	// ActingAsIntermediary defaults to false upstream.
	ActingAsIntermediary  *bool                  `json:"actingAsIntermediary,omitempty"`
	IdentificationNumbers []IdentificationNumber `json:"identificationNumbers,omitempty"`
	// BVN is the Nigerian bank verification number, 11 digits.
	BVN string `json:"bvn,omitempty"`
	// Documents says which KYC documents GET /kyc reports on file (shape
	// not shown in the spec; README). Never sent: PATCH /kyc leaves it out.
	Documents *KYCDocuments `json:"documents,omitempty"`
}

// KYCDocuments is which documents are on file. The identification's
// number is deliberately not decoded (DESIGN.md decision 8).
type KYCDocuments struct {
	Identification *KYCDocumentOnFile `json:"identification"`
	ProofOfAddress bool               `json:"proofOfAddress"`
	Biometric      bool               `json:"biometric"`
}

// KYCDocumentOnFile is the identification document on file: its type and
// which sides were uploaded.
type KYCDocumentOnFile struct {
	Type  string   `json:"type"`
	Sides []string `json:"sides"`
}

// KYCPersonalProfile is the "profile" member of a KYC profile.
type KYCPersonalProfile struct {
	PersonalInfo *PersonalInfo `json:"personalInfo,omitempty"`
}

// PersonalInfo is profile.personalInfo.
type PersonalInfo struct {
	FirstName  string `json:"firstName,omitempty"`
	LastName   string `json:"lastName,omitempty"`
	MiddleName string `json:"middleName,omitempty"`
	// DateOfBirth is a date, YYYY-MM-DD.
	DateOfBirth string `json:"dateOfBirth,omitempty"`
	Nationality string `json:"nationality,omitempty"`
	// PhoneNumber needs at least 10 digits for Nigeria.
	PhoneNumber string `json:"phoneNumber,omitempty"`
	Gender      string `json:"gender,omitempty"`
}

// KYCAddress is the address member of a KYC profile.
type KYCAddress struct {
	StreetLine1 string `json:"streetLine1,omitempty"`
	City        string `json:"city,omitempty"`
	// State is the state or province.
	State string `json:"state,omitempty"`
	// PostalCode is 6 digits in Nigeria.
	PostalCode string `json:"postalCode,omitempty"`
	// CountryCode is ISO 3166-1 alpha-3 ("NGA", "USA").
	CountryCode string `json:"countryCode,omitempty"`
}

// KYCEmployment is the employment member of a KYC profile.
//
// spec (silent failure): free-text Occupation that does not resolve to
// exactly one occupation is dropped while the call succeeds. Send
// OccupationCode from SearchOccupations, then confirm with GetKYC that
// Employment and OccupationCode are present.
type KYCEmployment struct {
	EmploymentStatus string `json:"employmentStatus,omitempty"`
	OccupationCode   string `json:"occupationCode,omitempty"`
	EmployerName     string `json:"employerName,omitempty"`
	Occupation       string `json:"occupation,omitempty"`
}

// IdentificationNumber is an entry of identificationNumbers.
type IdentificationNumber struct {
	// Type is one of ssn, nino, bvn, rfc, curp.
	Type   string `json:"type"`
	Number string `json:"number"`
	// IssuingCountryCode is ISO 3166-1 alpha-3.
	IssuingCountryCode string `json:"issuingCountryCode"`
}

// Validate checks the fields that are set (a partial update is valid).
func (p KYCProfile) Validate() error {
	c := newChecker()
	p.check(c, "")
	return c.err()
}

// check validates p, prefixing field names (for the invite's kyc.profile).
func (p KYCProfile) check(c *checker, prefix string) {
	nigeria := p.Address != nil && strings.EqualFold(p.Address.CountryCode, "NGA")
	if p.Profile != nil && p.Profile.PersonalInfo != nil {
		pi := p.Profile.PersonalInfo
		if pi.DateOfBirth != "" {
			if _, err := time.Parse(time.DateOnly, pi.DateOfBirth); err != nil {
				c.fail(prefix+"profile.personalInfo.dateOfBirth", "must be a date, YYYY-MM-DD")
			}
		}
		if nigeria && pi.PhoneNumber != "" && countDigits(pi.PhoneNumber) < 10 {
			c.fail(prefix+"profile.personalInfo.phoneNumber", "must have at least 10 digits for Nigeria")
		}
	}
	if a := p.Address; a != nil {
		if a.CountryCode != "" && !isAlpha(a.CountryCode, 3) {
			c.fail(prefix+"address.countryCode", "must be an ISO 3166-1 alpha-3 code such as NGA")
		}
		if nigeria && a.PostalCode != "" {
			// spec: "Nigerian postal code | 6 digits".
			c.digits(prefix+"address.postalCode", a.PostalCode, 6, "Nigerian postal code")
		}
	}
	if p.EstimatedMonthlyVolume != nil && p.EstimatedMonthlyVolume.IsNegative() {
		c.fail(prefix+"estimatedMonthlyVolume", "must not be negative")
	}
	if p.BVN != "" {
		c.bvn(prefix+"bvn", p.BVN)
	}
	for i, id := range p.IdentificationNumbers {
		field := fmt.Sprintf("%sidentificationNumbers[%d]", prefix, i)
		c.oneOf(field+".type", id.Type, "ssn", "nino", "bvn", "rfc", "curp")
		c.required(field+".number", id.Number)
		if id.Type == "bvn" && id.Number != "" {
			c.bvn(field+".number", id.Number)
		}
		if !isAlpha(id.IssuingCountryCode, 3) {
			c.fail(field+".issuingCountryCode", "must be an ISO 3166-1 alpha-3 code such as USA")
		}
	}
}

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

func isAlpha(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z') {
			return false
		}
	}
	return true
}

// normalised trims the BVN values, as the API does, so the digits sent are
// the digits validated.
func (p KYCProfile) normalised() KYCProfile {
	p.BVN = trim(p.BVN)
	if len(p.IdentificationNumbers) > 0 {
		ids := make([]IdentificationNumber, len(p.IdentificationNumbers))
		copy(ids, p.IdentificationNumbers)
		for i := range ids {
			ids[i].Number = trim(ids[i].Number)
		}
		p.IdentificationNumbers = ids
	}
	return p
}

// UpdateKYC submits (part of) the KYC profile (PATCH /v1/users/{userId}/kyc).
// spec: submit after the document uploads and before GetKYCReadiness.
func (c *Client) UpdateKYC(ctx context.Context, userID string, p KYCProfile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	p.Documents = nil
	return c.do(ctx, request{op: "UpdateKYC", method: http.MethodPatch, path: userPath(userID, "kyc"), body: p.normalised()}, nil)
}

// GetKYC returns the stored profile (GET /v1/users/{userId}/kyc). Employment
// is nil when an employment write did not land.
func (c *Client) GetKYC(ctx context.Context, userID string) (*KYCProfile, error) {
	var out KYCProfile
	if err := c.do(ctx, request{op: "GetKYC", method: http.MethodGet, path: userPath(userID, "kyc")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// KYCOption is one choice of a KYC form field.
type KYCOption struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// KYCOptions are the option lists per field, grouped as the spec names them
// (shape not shown in the spec; README).
type KYCOptions struct {
	Personal   map[string][]KYCOption `json:"personal"`
	Address    map[string][]KYCOption `json:"address"`
	Employment map[string][]KYCOption `json:"employment"`
}

// GetKYCOptions returns the option lists (GET /v1/users/{userId}/kyc/options).
func (c *Client) GetKYCOptions(ctx context.Context, userID string) (*KYCOptions, error) {
	var out KYCOptions
	if err := c.do(ctx, request{op: "GetKYCOptions", method: http.MethodGet, path: userPath(userID, "kyc", "options")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Occupation is an entry of the occupations lookup.
type Occupation struct {
	Code    string   `json:"code"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
}

// SearchOccupations looks up occupations by text
// (GET /v1/users/{userId}/kyc/occupations?search=...).
func (c *Client) SearchOccupations(ctx context.Context, userID, search string) ([]Occupation, error) {
	var out []Occupation
	if err := c.do(ctx, request{op: "SearchOccupations", method: http.MethodGet, path: userPath(userID, "kyc", "occupations"),
		query: url.Values{"search": {search}}}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// KYCReadiness says whether KYC can be activated, and what is missing.
type KYCReadiness struct {
	CanActivate bool     `json:"canActivate"`
	Missing     []string `json:"missing"`
}

// GetKYCReadiness reports readiness (GET /v1/users/{userId}/kyc/readiness).
func (c *Client) GetKYCReadiness(ctx context.Context, userID string) (*KYCReadiness, error) {
	var out KYCReadiness
	if err := c.do(ctx, request{op: "GetKYCReadiness", method: http.MethodGet, path: userPath(userID, "kyc", "readiness")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Identity levels of POST /kyc/activate.
const (
	IdentityLevelIDOnly        = "id-only"
	IdentityLevelIDAndLiveness = "id-and-liveness"
	IdentityLevelIDVAndPhone   = "idv-and-phone-verification"
)

// ActivateKYCRequest activates KYC for a currency's onboarding.
type ActivateKYCRequest struct {
	// Currency is the fiat currency being onboarded. It is not sent; it lets
	// Validate apply spec rule 3: identityLevelName "is required for USD,
	// EUR, MXN and must be omitted for CAD and NGN".
	Currency Fiat `json:"-"`
	// IdentityLevelName is one of the IdentityLevel constants.
	IdentityLevelName string `json:"identityLevelName,omitempty"`
}

// Validate applies the identity level rule.
func (r ActivateKYCRequest) Validate() error {
	c := newChecker()
	switch r.Currency {
	case USD, EUR, MXN:
		if r.IdentityLevelName == "" {
			c.fail("identityLevelName", "is required for USD, EUR and MXN")
		}
	case CAD, NGN:
		if r.IdentityLevelName != "" {
			c.fail("identityLevelName", "must be omitted for CAD and NGN")
		}
	case "":
	default:
		c.fail("currency", "must be one of USD, EUR, MXN, CAD, NGN")
	}
	if r.IdentityLevelName != "" {
		c.oneOf("identityLevelName", r.IdentityLevelName, IdentityLevelIDOnly, IdentityLevelIDAndLiveness, IdentityLevelIDVAndPhone)
	}
	return c.err()
}

// KYCActivation is the answer to ActivateKYC (not shown in the spec; README).
type KYCActivation struct {
	Status string `json:"status"`
}

// ActivateKYC activates KYC (POST /v1/users/{userId}/kyc/activate). spec:
// "Activation is per onboarding": call it again before each new currency's
// start call. The body is omitted when IdentityLevelName is empty (CAD, NGN).
func (c *Client) ActivateKYC(ctx context.Context, userID string, req ActivateKYCRequest) (*KYCActivation, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	r := request{op: "ActivateKYC", method: http.MethodPost, path: userPath(userID, "kyc", "activate")}
	if req.IdentityLevelName != "" {
		r.body = req
	}
	var out KYCActivation
	if err := c.do(ctx, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// USDReadiness reports whether the USD rail can start; Missing holds field
// names of the PATCH /kyc payload.
type USDReadiness struct {
	Ready   bool     `json:"ready"`
	Missing []string `json:"missing"`
}

// GetUSDReadiness reports USD readiness
// (GET /v1/users/{userId}/kyc/usd-readiness).
func (c *Client) GetUSDReadiness(ctx context.Context, userID string) (*USDReadiness, error) {
	var out USDReadiness
	if err := c.do(ctx, request{op: "GetUSDReadiness", method: http.MethodGet, path: userPath(userID, "kyc", "usd-readiness")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// IdentityHolder is the holder of a BVN or NIN (shape not shown in the spec;
// README). Personal data: do not store or log it.
type IdentityHolder struct {
	FirstName   string `json:"firstName"`
	MiddleName  string `json:"middleName,omitempty"`
	LastName    string `json:"lastName"`
	DateOfBirth string `json:"dateOfBirth,omitempty"`
	PhoneNumber string `json:"phoneNumber,omitempty"`
	Gender      string `json:"gender,omitempty"`
}

// LookupBVN returns the holder of a BVN; nothing is saved
// (GET /v1/users/{userId}/kyc/bvn-lookup/{bvn}). The BVN never appears in
// logs or errors.
func (c *Client) LookupBVN(ctx context.Context, userID, bvn string) (*IdentityHolder, error) {
	ch := newChecker()
	ch.bvn("bvn", bvn)
	if err := ch.err(); err != nil {
		return nil, err
	}
	var out IdentityHolder
	if err := c.do(ctx, request{op: "LookupBVN", method: http.MethodGet, path: userPath(userID, "kyc", "bvn-lookup").withSecret(trim(bvn))}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// LookupNIN returns the holder of a NIN; nothing is saved
// (GET /v1/users/{userId}/kyc/nin-lookup/{nin}). The NIN never appears in
// logs or errors.
func (c *Client) LookupNIN(ctx context.Context, userID, nin string) (*IdentityHolder, error) {
	ch := newChecker()
	ch.nin("nin", nin)
	if err := ch.err(); err != nil {
		return nil, err
	}
	var out IdentityHolder
	if err := c.do(ctx, request{op: "LookupNIN", method: http.MethodGet, path: userPath(userID, "kyc", "nin-lookup").withSecret(trim(nin))}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EUKYCRequest links the EUR provider's authorization to the wallet.
type EUKYCRequest struct {
	// Code is the provider authorization code.
	Code string `json:"code"`
	// Signature is the 0x hex wallet-ownership signature from the on-device
	// SDK.
	Signature string `json:"signature"`
}

// Validate checks both fields are set and the signature is 0x hex.
func (r EUKYCRequest) Validate() error {
	c := newChecker()
	c.required("code", r.Code)
	if s := r.Signature; len(s) < 4 || !strings.HasPrefix(s, "0x") || !isHex(s[2:]) {
		c.fail("signature", "must be 0x-prefixed hex")
	}
	return c.err()
}

// EURProviderAuthorizationMessage is the text the on-device SDK signs, with
// the signed-message prefix, to prove it holds the EURe wallet's owner key
// for the provider's authorization code. The spec asks for "a 0x hex
// wallet-ownership signature from the on-device SDK" and does not show the
// text; this is the sandbox's (apiclient/sandbox/README.md).
func EURProviderAuthorizationMessage(code string) string {
	return "EUR provider authorization: " + strings.TrimSpace(code)
}

// SubmitEUKYC submits the EUR provider authorization
// (POST /v1/users/{userId}/eu/kyc).
func (c *Client) SubmitEUKYC(ctx context.Context, userID string, req EUKYCRequest) error {
	if err := req.Validate(); err != nil {
		return err
	}
	return c.do(ctx, request{op: "SubmitEUKYC", method: http.MethodPost, path: userPath(userID, "eu", "kyc"), body: req}, nil)
}

// File is an uploaded image.
type File struct {
	// Name is the file name sent in the part header.
	Name string
	// ContentType such as image/jpeg; detected from Data when empty.
	ContentType string
	Data        []byte
}

// Identification document types accepted by the spec.
const (
	DocumentPassport       = "passport"
	DocumentDriversLicense = "drivers_license"
	DocumentNationalID     = "national_id"
	DocumentGovernmentID   = "government_id"
)

// IdentificationUpload is the multipart body of the identification upload.
// spec: "A front or additional image is required."
type IdentificationUpload struct {
	Type           string
	DocumentNumber string
	IssuingCountry string
	// ExpirationDate and IssueDate are optional dates, YYYY-MM-DD.
	ExpirationDate string
	IssueDate      string
	Front          *File
	Back           *File
	Additional     *File
}

// Validate checks the fields and files.
func (u IdentificationUpload) Validate() error {
	c := newChecker()
	c.oneOf("type", u.Type, DocumentPassport, DocumentDriversLicense, DocumentNationalID, DocumentGovernmentID)
	c.required("documentNumber", u.DocumentNumber)
	c.required("issuingCountry", u.IssuingCountry)
	for _, d := range []struct{ field, v string }{{"expirationDate", u.ExpirationDate}, {"issueDate", u.IssueDate}} {
		if d.v == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d.v); err != nil {
			c.fail(d.field, "must be a date, YYYY-MM-DD")
		}
	}
	if emptyFile(u.Front) && emptyFile(u.Additional) {
		c.fail("front", "a front or additional image is required")
	}
	if u.Back != nil && emptyFile(u.Back) {
		c.fail("back", "is empty")
	}
	return c.err()
}

func emptyFile(f *File) bool { return f == nil || len(f.Data) == 0 }

// IsJPEGOrPNG reports whether the file's bytes are a JPEG or PNG image.
// spec: "Mexico: documents must be JPEG or PNG." The content is sniffed;
// the declared ContentType and file name are not trusted.
func (f *File) IsJPEGOrPNG() bool {
	if emptyFile(f) {
		return false
	}
	switch http.DetectContentType(f.Data) {
	case "image/jpeg", "image/png":
		return true
	}
	return false
}

// ProofOfAddressUpload is the multipart body of the proof-of-address
// upload: the file (part "file") and its type.
type ProofOfAddressUpload struct {
	// Type names the document, e.g. "utility_bill" or "bank_statement".
	Type string
	File *File
}

// Validate checks the type and file.
func (u ProofOfAddressUpload) Validate() error {
	c := newChecker()
	c.required("type", u.Type)
	if emptyFile(u.File) {
		c.fail("file", "is required")
	}
	return c.err()
}

// BiometricUpload is the selfie (part "selfie").
type BiometricUpload struct {
	Selfie *File
}

// Validate checks the selfie is present.
func (u BiometricUpload) Validate() error {
	c := newChecker()
	if emptyFile(u.Selfie) {
		c.fail("selfie", "is required")
	}
	return c.err()
}

// multipartBody encodes fields (in order, empty values skipped) and files.
func multipartBody(fields [][2]string, files map[string]*File) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if f[1] == "" {
			continue
		}
		if err := w.WriteField(f[0], f[1]); err != nil {
			return nil, "", err
		}
	}
	for _, name := range []string{"front", "back", "additional", "file", "selfie"} {
		f := files[name]
		if emptyFile(f) {
			continue
		}
		ct := f.ContentType
		if ct == "" {
			ct = http.DetectContentType(f.Data)
		}
		filename := f.Name
		if filename == "" {
			filename = name
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, name, filename))
		h.Set("Content-Type", ct)
		part, err := w.CreatePart(h)
		if err != nil {
			return nil, "", err
		}
		if _, err := part.Write(f.Data); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

func (c *Client) upload(ctx context.Context, op string, path apiPath, fields [][2]string, files map[string]*File) error {
	body, ct, err := multipartBody(fields, files)
	if err != nil {
		return fmt.Errorf("apiclient: %s: encode multipart body: %w", op, err)
	}
	return c.do(ctx, request{op: op, method: http.MethodPost, path: path, rawBody: body, contentType: ct}, nil)
}

// UploadIdentification uploads the identity document
// (POST /v1/users/{userId}/kyc/documents/identification, multipart).
// spec: Mexico documents must be JPEG or PNG.
func (c *Client) UploadIdentification(ctx context.Context, userID string, u IdentificationUpload) error {
	if err := u.Validate(); err != nil {
		return err
	}
	return c.upload(ctx, "UploadIdentification", userPath(userID, "kyc", "documents", "identification"),
		[][2]string{{"type", u.Type}, {"documentNumber", u.DocumentNumber}, {"issuingCountry", u.IssuingCountry},
			{"expirationDate", u.ExpirationDate}, {"issueDate", u.IssueDate}},
		map[string]*File{"front": u.Front, "back": u.Back, "additional": u.Additional})
}

// UploadProofOfAddress uploads the proof of address
// (POST /v1/users/{userId}/kyc/documents/proof-of-address, multipart).
func (c *Client) UploadProofOfAddress(ctx context.Context, userID string, u ProofOfAddressUpload) error {
	if err := u.Validate(); err != nil {
		return err
	}
	return c.upload(ctx, "UploadProofOfAddress", userPath(userID, "kyc", "documents", "proof-of-address"),
		[][2]string{{"type", u.Type}}, map[string]*File{"file": u.File})
}

// UploadBiometric uploads the selfie
// (POST /v1/users/{userId}/kyc/documents/biometric, multipart). spec:
// required on the Global KYC path (USD, EUR, MXN), not for CAD or NGN.
func (c *Client) UploadBiometric(ctx context.Context, userID string, u BiometricUpload) error {
	if err := u.Validate(); err != nil {
		return err
	}
	return c.upload(ctx, "UploadBiometric", userPath(userID, "kyc", "documents", "biometric"), nil, map[string]*File{"selfie": u.Selfie})
}
