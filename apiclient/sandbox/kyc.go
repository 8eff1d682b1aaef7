package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
)

// sandboxBVN is the sandbox's one test BVN (spec: "one fixed 11-digit test
// BVN (the digit 2 eleven times), which always verifies and returns fixed
// holder details"). The sandbox uses the same persona number for NIN.
const sandboxBVN = "22222222222"

func sandboxPersona() map[string]any {
	return map[string]any{
		"firstName":   "Chioma",
		"middleName":  "Adaeze",
		"lastName":    "Okonkwo",
		"dateOfBirth": "1990-01-15",
		"phoneNumber": "08031234567",
		"gender":      "female",
	}
}

// Spec error messages (Errors table).
const (
	msgBVNDigits = "BVN must be exactly 11 digits"
	msgNINDigits = "NIN must be exactly 11 digits"
)

func elevenDigits(s string) bool {
	if len(s) != 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// kycFor returns the user's KYC record; a profile stored by the invite flow
// before this record existed (u.KYC) is taken over on first use.
func (s *Server) kycFor(u *user) *kycRecord {
	if k := s.rails().KYC[u.ID]; k != nil {
		return k
	}
	k := s.kycOf(u.ID)
	if len(u.KYC) > 0 {
		s.applyInviteProfile(k, u.KYC)
	}
	return k
}

// ---- lookups ----

// kycOptions implements GET .../kyc/options. Shape (not shown in the spec):
// { personal, address, employment } maps of field → [{ value, label }].
func (c *call) kycOptions() (any, error) {
	k := c.s.kycFor(c.user)
	now := c.s.now()
	k.OptionsAt = &now
	var countryOpts, nationalityOpts []option
	for _, x := range countries {
		countryOpts = append(countryOpts, option{x.alpha3, x.name})
		nationalityOpts = append(nationalityOpts, option{x.alpha2, x.name})
	}
	var states []option
	for _, st := range nigerianStates {
		states = append(states, option{st, st})
	}
	return map[string]any{"data": map[string]any{
		"personal": map[string][]option{
			"gender":                   genders,
			"nationality":              nationalityOpts,
			"identificationType":       documentTypes,
			"identificationNumberType": idNumberTypes,
			"proofOfAddressType":       addressProofs,
		},
		"address": map[string][]option{
			"countryCode": countryOpts,
			"state":       states, // Nigerian states (stage 1)
		},
		"employment": map[string][]option{
			"employmentStatus": employmentStatuses,
			"sourceOfFunds":    sourcesOfFunds,
			"accountPurpose":   accountPurposes,
		},
	}}, nil
}

// kycOccupations implements GET .../kyc/occupations?search=.
func (c *call) kycOccupations() (any, error) {
	k := c.s.kycFor(c.user)
	now := c.s.now()
	k.OccupationsAt = &now
	return map[string]any{"data": searchOccupations(c.r.URL.Query().Get("search"))}, nil
}

// ---- document uploads ----

type uploadedFile struct {
	field       string
	contentType string // detected from the content, never from the name
	size        int
	// sha256 is the hex SHA-256 of the file's bytes: the sandbox keeps a
	// digest, never the image, so a test can check which bytes arrived.
	sha256 string
}

// readMultipart parses a multipart/form-data body into fields and files.
func (c *call) readMultipart() (map[string]string, map[string]uploadedFile, error) {
	mt, params, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, nil, validation([]string{"Content-Type must be multipart/form-data"})
	}
	mr := multipart.NewReader(bytes.NewReader(c.body), params["boundary"])
	fields := map[string]string{}
	files := map[string]uploadedFile{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, validation([]string{"body must be valid multipart/form-data"})
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return nil, nil, validation([]string{"body must be valid multipart/form-data"})
		}
		name := p.FormName()
		if p.FileName() == "" && p.Header.Get("Content-Type") == "" {
			fields[name] = strings.TrimSpace(string(b))
			continue
		}
		if len(b) == 0 {
			continue
		}
		sum := sha256.Sum256(b)
		files[name] = uploadedFile{field: name, contentType: detectType(b), size: len(b), sha256: hex.EncodeToString(sum[:])}
	}
	return fields, files, nil
}

// detectType sniffs the content (spec, Mexico: "detect by content, not by
// the file name").
func detectType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return "application/pdf"
	case len(b) > 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	case len(b) > 12 && string(b[4:8]) == "ftyp" && (string(b[8:12]) == "heic" || string(b[8:12]) == "heix" || string(b[8:12]) == "mif1"):
		return "image/heic"
	}
	return http.DetectContentType(b)
}

func jpegOrPNG(ct string) bool { return ct == "image/jpeg" || ct == "image/png" }

// mexican reports whether the Mexico document rule applies to the user.
func (k *kycRecord) mexican(extraCountry string) bool {
	if alpha3Of(extraCountry) == "MEX" {
		return true
	}
	if k.Identification != nil && k.Identification.IssuingCountry == "MEX" {
		return true
	}
	return k.Profile.addr().CountryCode == "MEX" || k.Profile.idNumber("rfc") != nil
}

func checkFileType(field string, f uploadedFile, mexico bool, allowPDF bool, msgs *[]string) {
	switch {
	case mexico && !jpegOrPNG(f.contentType):
		// spec: "Mexico: documents must be JPEG or PNG."
		*msgs = append(*msgs, fmt.Sprintf("%s must be a JPEG or PNG image for Mexico (got %s)", field, f.contentType))
	case jpegOrPNG(f.contentType), f.contentType == "image/webp", f.contentType == "image/heic":
	case allowPDF && f.contentType == "application/pdf":
	default:
		kinds := "JPEG, PNG, WEBP or HEIC image"
		if allowPDF {
			kinds += " or a PDF"
		}
		*msgs = append(*msgs, fmt.Sprintf("%s must be a %s (got %s)", field, kinds, f.contentType))
	}
}

var identificationTypes = []string{"passport", "drivers_license", "national_id", "government_id"}

// orderError is the validation error of a step taken out of the fixed
// submit order.
func orderError(msg string) error {
	return validation([]string{"Fixed submit order: " + msg})
}

// uploadIdentification implements POST .../kyc/documents/identification.
func (c *call) uploadIdentification() (any, error) {
	k := c.s.kycFor(c.user)
	fields, files, err := c.readMultipart()
	if err != nil {
		return nil, err
	}
	// spec rule 1: "options and occupations lookups, then identification".
	if k.OptionsAt == nil || k.OccupationsAt == nil {
		return nil, orderError("call GET /kyc/options and GET /kyc/occupations before uploading documents")
	}
	var msgs []string
	typ := fields["type"]
	if !slices.Contains(identificationTypes, typ) {
		msgs = append(msgs, "type must be one of passport, drivers_license, national_id, government_id")
	}
	if fields["documentNumber"] == "" {
		msgs = append(msgs, "documentNumber should not be empty")
	} else if len(fields["documentNumber"]) > 40 {
		msgs = append(msgs, "documentNumber must be shorter than or equal to 40 characters")
	}
	issuing := alpha3Of(fields["issuingCountry"])
	if fields["issuingCountry"] == "" {
		msgs = append(msgs, "issuingCountry should not be empty")
	} else if issuing == "" {
		msgs = append(msgs, "issuingCountry must be an ISO 3166-1 country code")
	}
	now := c.s.now()
	for _, d := range []string{"expirationDate", "issueDate"} {
		v := fields[d]
		if v == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, v)
		switch {
		case err != nil:
			msgs = append(msgs, d+" must be a date, YYYY-MM-DD")
		case d == "expirationDate" && !t.After(now):
			msgs = append(msgs, "expirationDate must be in the future: the document has expired")
		case d == "issueDate" && t.After(now):
			msgs = append(msgs, "issueDate must not be in the future")
		}
	}
	_, front := files["front"]
	_, additional := files["additional"]
	if !front && !additional {
		// spec: "A front or additional image is required."
		msgs = append(msgs, "front or additional image is required")
	}
	mexico := k.mexican(fields["issuingCountry"])
	var sides, types, digests []string
	for _, name := range []string{"front", "back", "additional"} {
		if f, ok := files[name]; ok {
			checkFileType(name, f, mexico, true, &msgs)
			sides = append(sides, name)
			types = append(types, f.contentType)
			digests = append(digests, f.sha256)
		}
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	k.Identification = &kycIdentification{Type: typ, DocumentNumber: fields["documentNumber"], IssuingCountry: issuing,
		ExpirationDate: fields["expirationDate"], IssueDate: fields["issueDate"], Sides: sides, ContentTypes: types, SHA256: digests, UploadedAt: now}
	k.ChangedAt = &now
	k.ChangeSeq = c.s.st.next()
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{"document": "identification", "type": typ, "issuingCountry": issuing, "sides": sides, "status": "uploaded"}}, nil
}

// uploadProofOfAddress implements POST .../kyc/documents/proof-of-address.
func (c *call) uploadProofOfAddress() (any, error) {
	k := c.s.kycFor(c.user)
	fields, files, err := c.readMultipart()
	if err != nil {
		return nil, err
	}
	if k.Identification == nil {
		return nil, orderError("upload the identification document before the proof of address")
	}
	var msgs []string
	if !validOption(addressProofs, fields["type"]) {
		msgs = append(msgs, "type must be one of "+optionValues(addressProofs))
	}
	f, ok := files["file"]
	if !ok {
		msgs = append(msgs, "file is required")
	} else {
		checkFileType("file", f, k.mexican(""), true, &msgs)
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	now := c.s.now()
	k.ProofOfAddress = &kycFile{Type: fields["type"], ContentType: f.contentType, Size: f.size, SHA256: f.sha256, UploadedAt: now}
	k.ChangedAt = &now
	k.ChangeSeq = c.s.st.next()
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{"document": "proof-of-address", "type": fields["type"], "status": "uploaded"}}, nil
}

// uploadBiometric implements POST .../kyc/documents/biometric (selfie).
func (c *call) uploadBiometric() (any, error) {
	k := c.s.kycFor(c.user)
	_, files, err := c.readMultipart()
	if err != nil {
		return nil, err
	}
	if k.Identification == nil {
		return nil, orderError("upload the identification document before the biometric selfie")
	}
	var msgs []string
	f, ok := files["selfie"]
	if !ok {
		f, ok = files["file"]
	}
	if !ok {
		msgs = append(msgs, "selfie is required")
	} else {
		checkFileType("selfie", f, k.mexican(""), false, &msgs)
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	now := c.s.now()
	k.Biometric = &kycFile{ContentType: f.contentType, Size: f.size, SHA256: f.sha256, UploadedAt: now}
	k.ChangedAt = &now
	k.ChangeSeq = c.s.st.next()
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{"document": "biometric", "status": "uploaded"}}, nil
}

// ---- PATCH /kyc ----

type kycPatchInfo struct {
	FirstName   *string `json:"firstName"`
	LastName    *string `json:"lastName"`
	MiddleName  *string `json:"middleName"`
	DateOfBirth *string `json:"dateOfBirth"`
	Nationality *string `json:"nationality"`
	PhoneNumber *string `json:"phoneNumber"`
	Gender      *string `json:"gender"`
}

type kycPatchAddress struct {
	StreetLine1 *string `json:"streetLine1"`
	City        *string `json:"city"`
	State       *string `json:"state"`
	PostalCode  *string `json:"postalCode"`
	CountryCode *string `json:"countryCode"`
}

type kycPatchEmployment struct {
	EmploymentStatus *string `json:"employmentStatus"`
	OccupationCode   *string `json:"occupationCode"`
	EmployerName     *string `json:"employerName"`
	Occupation       *string `json:"occupation"`
}

type kycPatch struct {
	Profile *struct {
		PersonalInfo *kycPatchInfo `json:"personalInfo"`
	} `json:"profile"`
	Address                *kycPatchAddress    `json:"address"`
	Employment             *kycPatchEmployment `json:"employment"`
	SourceOfFunds          *string             `json:"sourceOfFunds"`
	EstimatedMonthlyVolume *json.Number        `json:"estimatedMonthlyVolume"`
	AccountPurpose         *string             `json:"accountPurpose"`
	ActingAsIntermediary   *bool               `json:"actingAsIntermediary"`
	IdentificationNumbers  *[]kycIDNumber      `json:"identificationNumbers"`
	BVN                    *string             `json:"bvn"`
}

var (
	ssnPattern = regexp.MustCompile(`^\d{3}-?\d{2}-?\d{4}$`)
	// The spec names the nino type but says of formats only "Other fields
	// and their formats: not shown", so the sandbox checks the shape its own
	// message describes (two letters, six digits, a letter A to D), which
	// includes the QQ prefix used in examples.
	ninoPattern = regexp.MustCompile(`^[A-Z]{2}\d{6}[A-D]$`)
	rfcPattern  = regexp.MustCompile(`^[A-ZÑ&]{3,4}\d{6}[A-Z0-9]{3}$`)
	curpPattern = regexp.MustCompile(`^[A-Z]{4}\d{6}[HMX][A-Z]{5}[A-Z0-9]\d$`)
	namePattern = regexp.MustCompile(`^[\p{L}][\p{L} .'\-]*$`)
)

// idNumberCountry is the issuing country each identification number type
// must carry.
var idNumberCountry = map[string]string{"ssn": "USA", "nino": "GBR", "bvn": "NGA", "rfc": "MEX", "curp": "MEX"}

func trimPtr(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

// validatePatch checks every field present in the body and returns one
// message per invalid field (spec: "the array is exhaustive"). country is
// the address country after the update.
func (s *Server) validatePatch(in kycPatch, country string) []string {
	var msgs []string
	if in.Profile != nil && in.Profile.PersonalInfo != nil {
		msgs = append(msgs, validatePersonalInfo(in.Profile.PersonalInfo, country, s.now())...)
	}
	if in.Address != nil {
		msgs = append(msgs, validateAddress(in.Address, country)...)
	}
	if in.Employment != nil {
		msgs = append(msgs, validateEmployment(in.Employment)...)
	}
	if in.SourceOfFunds != nil && !validOption(sourcesOfFunds, trimPtr(in.SourceOfFunds)) {
		msgs = append(msgs, "sourceOfFunds must be one of "+optionValues(sourcesOfFunds))
	}
	if in.EstimatedMonthlyVolume != nil {
		d, err := decimal.NewFromString(in.EstimatedMonthlyVolume.String())
		if err != nil || d.IsNegative() {
			msgs = append(msgs, "estimatedMonthlyVolume must be a non-negative number (USD)")
		}
	}
	if in.AccountPurpose != nil && !validOption(accountPurposes, trimPtr(in.AccountPurpose)) {
		msgs = append(msgs, "accountPurpose must be one of "+optionValues(accountPurposes))
	}
	if in.IdentificationNumbers != nil {
		msgs = append(msgs, validateIDNumbers(*in.IdentificationNumbers)...)
	}
	if in.BVN != nil && !elevenDigits(trimPtr(in.BVN)) {
		// spec: "400 | BVN must be exactly 11 digits | BVN not 11 digits after trimming"
		msgs = append(msgs, msgBVNDigits)
	}
	return msgs
}

// validatePersonalInfo checks profile.personalInfo; country is the address
// country after the update.
func validatePersonalInfo(pi *kycPatchInfo, country string, now time.Time) []string {
	var msgs []string
	name := func(field string, v *string, required bool) {
		if v == nil {
			return
		}
		t := strings.TrimSpace(*v)
		switch {
		case t == "" && required:
			msgs = append(msgs, field+" should not be empty")
		case t == "":
		case len([]rune(t)) > 100:
			msgs = append(msgs, field+" must be shorter than or equal to 100 characters")
		case !namePattern.MatchString(t):
			msgs = append(msgs, field+" must contain only letters, spaces, apostrophes, dots and hyphens")
		}
	}
	name("profile.personalInfo.firstName", pi.FirstName, true)
	name("profile.personalInfo.lastName", pi.LastName, true)
	name("profile.personalInfo.middleName", pi.MiddleName, false)
	if pi.DateOfBirth != nil {
		t, err := time.Parse(time.DateOnly, strings.TrimSpace(*pi.DateOfBirth))
		switch {
		case err != nil:
			msgs = append(msgs, "profile.personalInfo.dateOfBirth must be a date, YYYY-MM-DD")
		case t.After(now):
			msgs = append(msgs, "profile.personalInfo.dateOfBirth must be in the past")
		case t.AddDate(18, 0, 0).After(now):
			msgs = append(msgs, "profile.personalInfo.dateOfBirth: the user must be at least 18 years old")
		case t.Year() < 1900:
			msgs = append(msgs, "profile.personalInfo.dateOfBirth must be after 1900-01-01")
		}
	}
	if pi.Nationality != nil && !knownAlpha2(strings.ToUpper(trimPtr(pi.Nationality))) {
		msgs = append(msgs, "profile.personalInfo.nationality must be an ISO 3166-1 alpha-2 code such as NG")
	}
	if pi.PhoneNumber != nil {
		p := trimPtr(pi.PhoneNumber)
		switch {
		case !phonePattern.MatchString(p):
			msgs = append(msgs, "profile.personalInfo.phoneNumber must be a valid phone number")
		case country == "NGA" && numDigits(p) < 10:
			// spec: "Nigeria: at least 10 digits"
			msgs = append(msgs, "profile.personalInfo.phoneNumber must have at least 10 digits for Nigeria")
		}
	}
	if pi.Gender != nil && trimPtr(pi.Gender) != "" && !validOption(genders, trimPtr(pi.Gender)) {
		msgs = append(msgs, "profile.personalInfo.gender must be one of "+optionValues(genders))
	}
	return msgs
}

// validateAddress checks address; country is the address country after
// the update.
func validateAddress(a *kycPatchAddress, country string) []string {
	var msgs []string
	for _, f := range []struct {
		field string
		v     *string
	}{{"address.streetLine1", a.StreetLine1}, {"address.city", a.City}, {"address.state", a.State}, {"address.postalCode", a.PostalCode}} {
		if f.v != nil && trimPtr(f.v) == "" {
			msgs = append(msgs, f.field+" should not be empty")
		} else if f.v != nil && len(trimPtr(f.v)) > 100 {
			msgs = append(msgs, f.field+" must be shorter than or equal to 100 characters")
		}
	}
	if a.CountryCode != nil && !knownAlpha3(trimPtr(a.CountryCode)) {
		msgs = append(msgs, "address.countryCode must be an ISO 3166-1 alpha-3 code such as NGA")
	}
	if country == "NGA" {
		if a.State != nil && trimPtr(a.State) != "" {
			if _, ok := nigerianState(*a.State); !ok {
				msgs = append(msgs, "address.state must be a Nigerian state name such as Lagos")
			}
		}
		if a.PostalCode != nil && trimPtr(a.PostalCode) != "" && !(len(trimPtr(a.PostalCode)) == 6 && numDigits(trimPtr(a.PostalCode)) == 6) {
			// spec: "Nigerian postal code | 6 digits"
			msgs = append(msgs, "address.postalCode must be exactly 6 digits for Nigeria")
		}
	}
	return msgs
}

// validateEmployment checks employment.
func validateEmployment(e *kycPatchEmployment) []string {
	var msgs []string
	if e.EmploymentStatus != nil && !validOption(employmentStatuses, trimPtr(e.EmploymentStatus)) {
		msgs = append(msgs, "employment.employmentStatus must be one of "+optionValues(employmentStatuses))
	}
	if e.OccupationCode != nil && trimPtr(e.OccupationCode) != "" {
		if o, ok := occupationByCode(trimPtr(e.OccupationCode)); !ok || !o.Active {
			msgs = append(msgs, "employment.occupationCode must be an active code from the occupations lookup")
		}
	}
	if e.EmployerName != nil && len(trimPtr(e.EmployerName)) > 200 {
		msgs = append(msgs, "employment.employerName must be shorter than or equal to 200 characters")
	}
	if e.Occupation != nil && len(trimPtr(e.Occupation)) > 200 {
		msgs = append(msgs, "employment.occupation must be shorter than or equal to 200 characters")
	}
	return msgs
}

// validateIDNumbers checks identificationNumbers: each number's shape
// and the issuing country its type must carry.
func validateIDNumbers(ids []kycIDNumber) []string {
	var msgs []string
	for i, id := range ids {
		f := fmt.Sprintf("identificationNumbers.%d", i)
		num := strings.ToUpper(strings.TrimSpace(id.Number))
		want, known := idNumberCountry[id.Type]
		if !known {
			msgs = append(msgs, f+".type must be one of ssn, nino, bvn, rfc, curp")
		}
		switch {
		case num == "":
			msgs = append(msgs, f+".number should not be empty")
		case id.Type == "ssn" && !ssnPattern.MatchString(num):
			msgs = append(msgs, f+".number must be a 9-digit SSN")
		case id.Type == "nino" && !ninoPattern.MatchString(strings.ReplaceAll(num, " ", "")):
			msgs = append(msgs, f+".number must be a National Insurance number such as QQ123456C")
		case id.Type == "bvn" && !elevenDigits(num):
			msgs = append(msgs, msgBVNDigits)
		case id.Type == "rfc" && !rfcPattern.MatchString(num):
			msgs = append(msgs, f+".number must be a 12 or 13 character RFC")
		case id.Type == "curp" && !curpPattern.MatchString(num):
			msgs = append(msgs, f+".number must be an 18 character CURP")
		}
		cc := strings.TrimSpace(id.IssuingCountryCode)
		switch {
		case !knownAlpha3(cc):
			msgs = append(msgs, f+".issuingCountryCode must be an ISO 3166-1 alpha-3 code")
		case known && cc != want:
			msgs = append(msgs, fmt.Sprintf("%s.issuingCountryCode must be %s for %s", f, want, id.Type))
		}
	}
	return msgs
}

func setStr(dst *string, v *string) {
	if v != nil {
		*dst = strings.TrimSpace(*v)
	}
}

// patchKYC implements PATCH .../kyc (partial updates).
func (c *call) patchKYC() (any, error) {
	k := c.s.kycFor(c.user)
	var in kycPatch
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if k.OptionsAt == nil || k.OccupationsAt == nil {
		return nil, orderError("call GET /kyc/options and GET /kyc/occupations before PATCH /kyc")
	}
	country := k.Profile.addr().CountryCode
	if in.Address != nil && in.Address.CountryCode != nil {
		country = strings.ToUpper(trimPtr(in.Address.CountryCode))
	}
	if msgs := c.s.validatePatch(in, country); len(msgs) > 0 {
		return nil, validation(msgs)
	}
	dropped := c.s.applyPatch(k, in)
	now := c.s.now()
	k.PatchedAt, k.ChangedAt = &now, &now
	k.ChangeSeq = c.s.st.next()
	out := c.s.kycJSON(c.user, k)
	// The call succeeds even when employment was dropped (spec: "Silent
	// failure (2xx)"); nothing in the answer says so.
	_ = dropped
	return map[string]any{"data": out}, nil
}

// applyPatch merges a validated patch. It reports whether employment was
// silently dropped by the occupation resolution rule.
func (s *Server) applyPatch(k *kycRecord, in kycPatch) (dropped bool) {
	p := &k.Profile
	if in.Profile != nil && in.Profile.PersonalInfo != nil {
		p.applyPersonalInfo(in.Profile.PersonalInfo)
	}
	if in.Address != nil {
		p.applyAddress(in.Address)
	}
	if in.Employment != nil {
		dropped = !p.applyEmployment(in.Employment)
	}
	setStr(&p.SourceOfFunds, in.SourceOfFunds)
	if in.EstimatedMonthlyVolume != nil {
		d, _ := decimal.NewFromString(in.EstimatedMonthlyVolume.String())
		p.EstimatedMonthlyVolume = &d
	}
	setStr(&p.AccountPurpose, in.AccountPurpose)
	if in.ActingAsIntermediary != nil {
		v := *in.ActingAsIntermediary
		p.ActingAsIntermediary = &v
	}
	if in.IdentificationNumbers != nil {
		p.applyIDNumbers(*in.IdentificationNumbers)
	}
	if in.BVN != nil {
		p.BVN = trimPtr(in.BVN)
	}
	return dropped
}

func (p *storedProfile) applyPersonalInfo(x *kycPatchInfo) {
	if p.Profile == nil {
		p.Profile = &kycPersonal{}
	}
	if p.Profile.PersonalInfo == nil {
		p.Profile.PersonalInfo = &kycPersonalInfo{}
	}
	pi := p.Profile.PersonalInfo
	setStr(&pi.FirstName, x.FirstName)
	setStr(&pi.LastName, x.LastName)
	setStr(&pi.MiddleName, x.MiddleName)
	setStr(&pi.DateOfBirth, x.DateOfBirth)
	setStr(&pi.Nationality, x.Nationality)
	pi.Nationality = strings.ToUpper(pi.Nationality)
	setStr(&pi.PhoneNumber, x.PhoneNumber)
	setStr(&pi.Gender, x.Gender)
}

func (p *storedProfile) applyAddress(a *kycPatchAddress) {
	if p.Address == nil {
		p.Address = &kycAddress{}
	}
	setStr(&p.Address.StreetLine1, a.StreetLine1)
	setStr(&p.Address.City, a.City)
	setStr(&p.Address.State, a.State)
	setStr(&p.Address.PostalCode, a.PostalCode)
	setStr(&p.Address.CountryCode, a.CountryCode)
	p.Address.CountryCode = strings.ToUpper(p.Address.CountryCode)
	if p.Address.CountryCode == "NGA" {
		if st, ok := nigerianState(p.Address.State); ok {
			p.Address.State = st
		}
	}
}

// applyEmployment merges employment, or reports false when the occupation
// resolution rule drops it.
func (p *storedProfile) applyEmployment(e *kycPatchEmployment) bool {
	next := kycEmployment{}
	if p.Employment != nil {
		next = *p.Employment
	}
	setStr(&next.EmploymentStatus, e.EmploymentStatus)
	setStr(&next.EmployerName, e.EmployerName)
	code := trimPtr(e.OccupationCode)
	switch {
	case code != "":
		next.OccupationCode = &code
		setStr(&next.Occupation, e.Occupation)
	case trimPtr(e.Occupation) != "":
		// spec: "when employment.occupation is sent as free text, the
		// service searches occupations by that string ... If neither
		// applies, no code resolves and employment is silently dropped
		// while the call succeeds."
		resolved, ok := resolveOccupation(*e.Occupation)
		if !ok {
			return false
		}
		next.OccupationCode = &resolved
		next.Occupation = trimPtr(e.Occupation)
	}
	p.Employment = &next
	return true
}

// applyIDNumbers replaces entries of the same type; other types are kept.
func (p *storedProfile) applyIDNumbers(ids []kycIDNumber) {
	for _, id := range ids {
		id.Number = strings.ToUpper(strings.TrimSpace(id.Number))
		id.IssuingCountryCode = strings.TrimSpace(id.IssuingCountryCode)
		if old := p.idNumber(id.Type); old != nil {
			*old = id
		} else {
			p.IdentificationNumbers = append(p.IdentificationNumbers, id)
		}
	}
}

// kycJSON is the GET /kyc answer: the stored profile in the PATCH shape
// (employment absent when no employment write landed), defaults applied,
// plus what was uploaded and activated.
func (s *Server) kycJSON(u *user, k *kycRecord) map[string]any {
	b, _ := json.Marshal(k.Profile)
	out := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&out)
	if v := k.Profile.EstimatedMonthlyVolume; v != nil {
		out["estimatedMonthlyVolume"] = json.Number(v.String()) // spec: "number | in USD"
	}
	if _, ok := out["accountPurpose"]; !ok {
		out["accountPurpose"] = "personal" // spec: "default personal"
	}
	if _, ok := out["actingAsIntermediary"]; !ok {
		out["actingAsIntermediary"] = false // spec: "default false"
	}
	docs := map[string]any{"identification": nil, "proofOfAddress": k.ProofOfAddress != nil, "biometric": k.Biometric != nil}
	if d := k.Identification; d != nil {
		docs["identification"] = map[string]any{"type": d.Type, "documentNumber": d.DocumentNumber, "issuingCountryCode": d.IssuingCountry,
			"expirationDate": nullable(d.ExpirationDate), "issueDate": nullable(d.IssueDate), "sides": d.Sides}
	}
	out["documents"] = docs
	status := "not_started"
	switch {
	case k.Approved:
		status = "approved"
	case len(k.Activations) > 0:
		status = "activated"
	case k.PatchedAt != nil:
		status = "submitted"
	}
	out["status"] = status
	out["serviceUserId"] = u.ID
	return out
}

// getKYC implements GET .../kyc.
func (c *call) kycGet() (any, error) {
	return map[string]any{"data": c.s.kycJSON(c.user, c.s.kycFor(c.user))}, nil
}

// ---- readiness ----

// Requirement paths.
const (
	pathGlobal = "global" // USD, EUR, MXN
	pathNGN    = "ngn"
	pathCAD    = "cad"
)

func pathOfCurrency(fiat string) string {
	switch fiat {
	case "NGN":
		return pathNGN
	case "CAD":
		return pathCAD
	}
	return pathGlobal
}

// missingFor lists what the Region KYC requirements table still needs for
// currency fiat, as PATCH field names (documents as documents.*). With
// docs false the documents are left out (usd-readiness).
func (k *kycRecord) missingFor(fiat string, docs bool) []string {
	var m missing
	if fiat == "NGN" {
		k.Profile.missingNGN(&m)
		return m
	}
	k.missingCore(&m, docs)
	if fiat == "CAD" {
		// CAD is not a row of the table: the sandbox asks the USD core
		// without the Global path extras (biometric is "not needed for CAD").
		return m
	}
	k.missingGlobal(&m, fiat, docs)
	return m
}

// missing collects the fields a readiness check still lacks.
type missing []string

// need adds field unless ok.
func (m *missing) need(ok bool, field string) {
	if !ok {
		*m = append(*m, field)
	}
}

// missingNGN: spec: "NGA NGN (stage 1) | bvn (11 digits, type: bvn) ...;
// firstName, phoneNumber (at least 10 digits), dateOfBirth required;
// Nigerian address with valid state name, 6-digit postal code, countryCode
// NGA"
func (p *storedProfile) missingNGN(m *missing) {
	pi, a := p.info(), p.addr()
	bvn := p.BVN
	if id := p.idNumber("bvn"); bvn == "" && id != nil {
		bvn = id.Number
	}
	m.need(elevenDigits(bvn), "bvn")
	m.need(pi.FirstName != "", "profile.personalInfo.firstName")
	m.need(numDigits(pi.PhoneNumber) >= 10, "profile.personalInfo.phoneNumber")
	m.need(pi.DateOfBirth != "", "profile.personalInfo.dateOfBirth")
	_, stateOK := nigerianState(a.State)
	m.need(stateOK, "address.state")
	m.need(len(a.PostalCode) == 6 && numDigits(a.PostalCode) == 6, "address.postalCode")
	m.need(a.CountryCode == "NGA", "address.countryCode")
}

// missingCore: spec: "USD core (all international) | firstName, lastName,
// dateOfBirth, full address (alpha-3 country), identification document
// with documentNumber and issuingCountryCode"
func (k *kycRecord) missingCore(m *missing, docs bool) {
	pi, a := k.Profile.info(), k.Profile.addr()
	m.need(pi.FirstName != "", "profile.personalInfo.firstName")
	m.need(pi.LastName != "", "profile.personalInfo.lastName")
	m.need(pi.DateOfBirth != "", "profile.personalInfo.dateOfBirth")
	m.need(a.StreetLine1 != "", "address.streetLine1")
	m.need(a.City != "", "address.city")
	m.need(a.State != "", "address.state")
	m.need(a.PostalCode != "", "address.postalCode")
	m.need(knownAlpha3(a.CountryCode), "address.countryCode")
	if !docs {
		return
	}
	if k.Identification == nil {
		*m = append(*m, "documents.identification")
		return
	}
	m.need(k.Identification.DocumentNumber != "", "documents.identification.documentNumber")
	m.need(k.Identification.IssuingCountry != "", "documents.identification.issuingCountryCode")
}

// missingGlobal adds what the Global path (USD, EUR, MXN) asks beyond the
// core, and each country's and currency's own rows.
func (k *kycRecord) missingGlobal(m *missing, fiat string, docs bool) {
	p := &k.Profile
	emp := p.Employment
	status := ""
	if emp != nil {
		status = emp.EmploymentStatus
	}
	// spec: "on the Global path also employment.employmentStatus,
	// sourceOfFunds, a proof-of-address file and a biometric file"
	m.need(status != "", "employment.employmentStatus")
	m.need(p.SourceOfFunds != "", "sourceOfFunds")
	if docs {
		m.need(k.ProofOfAddress != nil, "documents.proofOfAddress")
		m.need(k.Biometric != nil, "documents.biometric")
	}
	switch p.addr().CountryCode {
	case "USA":
		// spec: "USA | identificationNumbers entry type: ssn, issuingCountryCode: USA"
		id := p.idNumber("ssn")
		m.need(id != nil && id.IssuingCountryCode == "USA", "identificationNumbers.ssn")
	case "GBR":
		id := p.idNumber("nino")
		m.need(id != nil && id.IssuingCountryCode == "GBR", "identificationNumbers.nino")
	case "NGA":
		if fiat == "USD" {
			// spec: "NGA USD (enhanced due diligence) | all USD core plus
			// employment.employmentStatus, non-null employment.occupationCode,
			// sourceOfFunds (not salary when unemployed or a student),
			// estimatedMonthlyVolume (USD)"
			m.need(emp != nil && emp.OccupationCode != nil && *emp.OccupationCode != "", "employment.occupationCode")
			m.need(p.SourceOfFunds != "salary" || (status != "unemployed" && status != "student"), "sourceOfFunds")
			m.need(p.EstimatedMonthlyVolume != nil, "estimatedMonthlyVolume")
		}
	}
	if fiat == "MXN" {
		// spec (Mexico rule 1): "an rfc entry in identificationNumbers with
		// issuingCountryCode in ISO alpha-3"
		id := p.idNumber("rfc")
		m.need(id != nil && knownAlpha3(id.IssuingCountryCode), "identificationNumbers.rfc")
	}
}

// defaultReadinessCurrency picks the currency readiness reports when the
// query names none: CAD for a Canadian address, NGN for a Nigerian profile
// without an identification document, USD otherwise.
func (k *kycRecord) defaultReadinessCurrency() string {
	switch c := k.Profile.addr().CountryCode; {
	case c == "CAN":
		return "CAD"
	case c == "NGA" && k.Identification == nil:
		return "NGN"
	}
	return "USD"
}

var onboardingCurrencies = []string{"USD", "EUR", "NGN", "MXN", "CAD"}

// kycReadiness implements GET .../kyc/readiness[?currency=USD|EUR|NGN|MXN|CAD].
func (c *call) kycReadiness() (any, error) {
	k := c.s.kycFor(c.user)
	if k.PatchedAt == nil {
		return nil, orderError("submit PATCH /kyc before GET /kyc/readiness")
	}
	cur := strings.ToUpper(strings.TrimSpace(c.r.URL.Query().Get("currency")))
	if cur == "" {
		cur = k.defaultReadinessCurrency()
	}
	if !slices.Contains(onboardingCurrencies, cur) {
		return nil, validation([]string{"currency must be one of USD, EUR, NGN, MXN, CAD"})
	}
	now := c.s.now()
	k.ReadinessAt = &now
	k.ReadinessSeq = c.s.st.next()
	miss := k.missingFor(cur, true)
	out := map[string]any{"canActivate": len(miss) == 0, "currency": cur, "path": pathOfCurrency(cur)}
	if len(miss) > 0 {
		out["missing"] = miss
	} else {
		out["missing"] = []string{}
	}
	return map[string]any{"data": out}, nil
}

// usdReadiness implements GET .../kyc/usd-readiness: { ready, missing } with
// field names of the PATCH payload.
func (c *call) usdReadiness() (any, error) {
	k := c.s.kycFor(c.user)
	miss := k.missingFor("USD", false)
	if miss == nil {
		miss = []string{}
	}
	return map[string]any{"data": map[string]any{"ready": len(miss) == 0, "missing": miss}}, nil
}

// ---- activation ----

var identityLevels = []string{"id-only", "id-and-liveness", "idv-and-phone-verification"}

// activateKYC implements POST .../kyc/activate.
func (c *call) activateKYC() (any, error) {
	k := c.s.kycFor(c.user)
	var in map[string]json.RawMessage
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	level := ""
	raw, has := in["identityLevelName"]
	if has && string(raw) != "null" {
		if err := json.Unmarshal(raw, &level); err != nil || !slices.Contains(identityLevels, level) {
			return nil, validation([]string{"identityLevelName must be one of id-only, id-and-liveness, idv-and-phone-verification"})
		}
	}
	country := k.Profile.addr().CountryCode
	path := pathGlobal
	fiat := "USD"
	if level == "" {
		// spec rule 3: "identityLevelName is required for USD, EUR, MXN and
		// must be omitted for CAD and NGN": without it the path is NGN or
		// CAD, told apart by the profile address.
		switch country {
		case "NGA":
			path, fiat = pathNGN, "NGN"
		case "CAN":
			path, fiat = pathCAD, "CAD"
		default:
			return nil, validation([]string{"identityLevelName is required for USD, EUR and MXN (the Global path); it is omitted only for CAD and NGN"})
		}
	}
	// spec rule 1: "... then GET /kyc/readiness, then POST /kyc/activate".
	if k.ReadinessAt == nil || k.ReadinessSeq < k.ChangeSeq {
		return nil, orderError("call GET /kyc/readiness after the last KYC change and before POST /kyc/activate")
	}
	// spec rule 5: "On the Global path /kyc/activate detects country from
	// the profile address."
	if miss := k.missingFor(fiat, true); len(miss) > 0 {
		msgs := make([]string, len(miss))
		for i, m := range miss {
			msgs[i] = m + " is required before activation"
		}
		return nil, validation(msgs)
	}
	now := c.s.now()
	act := &kycActivation{Path: path, IdentityLevelName: level, Country: country, At: now}
	k.Activations = append(k.Activations, act)
	if path == pathGlobal {
		k.Approved = true
	}
	return map[string]any{"data": map[string]any{
		"status": "approved", "path": path, "country": country, "identityLevelName": nullable(level), "activatedAt": iso(now),
	}}, nil
}

// takeActivation consumes an unused activation of path for a rail start of
// currency fiat (spec rule 4: "call POST /kyc/activate again before that
// currency's start call").
func (k *kycRecord) takeActivation(path, fiat string, now time.Time) bool {
	for _, a := range k.Activations {
		if a.Path == path && a.UsedBy == "" {
			a.UsedBy, a.UsedAt = fiat, &now
			return true
		}
	}
	return false
}

func startOrderError(fiat, path string) error {
	hint := "with identityLevelName"
	if path != pathGlobal {
		hint = "without a body"
	}
	return orderError(fmt.Sprintf("call POST /kyc/activate (%s) for this onboarding before starting %s: activation is per onboarding", hint, fiat))
}

// ---- BVN, NIN and EU provider ----

// bvnLookup implements GET .../kyc/bvn-lookup/{bvn}: nothing is saved.
func (c *call) bvnLookup() (any, error) {
	bvn := strings.TrimSpace(c.param("bvn"))
	if !elevenDigits(bvn) {
		return nil, badRequest(msgBVNDigits)
	}
	// spec: "Lookup of a number that is not a sandbox test persona returns 404."
	if bvn != sandboxBVN {
		return nil, notFound("No BVN record found: the sandbox only knows the test persona BVN")
	}
	p := sandboxPersona()
	p["bvn"] = bvn
	return map[string]any{"data": p}, nil
}

// ninLookup implements GET .../kyc/nin-lookup/{nin}: nothing is saved.
func (c *call) ninLookup() (any, error) {
	nin := strings.TrimSpace(c.param("nin"))
	if !elevenDigits(nin) {
		return nil, badRequest(msgNINDigits)
	}
	if nin != sandboxBVN {
		return nil, notFound("No NIN record found: the sandbox only knows the test persona NIN")
	}
	p := sandboxPersona()
	p["nin"] = nin
	return map[string]any{"data": p}, nil
}

// euAuthorizationMessage is what the on-device SDK signs, with the
// signed-message prefix, to prove ownership of the EUR wallet (sandbox
// decision, README).
func euAuthorizationMessage(code string) string {
	return apiclient.EURProviderAuthorizationMessage(code)
}

// euKYC implements POST .../eu/kyc { code, signature }.
func (c *call) euKYC() (any, error) {
	var in struct {
		Code      string `json:"code"`
		Signature string `json:"signature"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if strings.TrimSpace(in.Code) == "" {
		msgs = append(msgs, "code should not be empty")
	}
	sig, err := ethsig.ParseSignature(in.Signature)
	if err != nil || !strings.HasPrefix(in.Signature, "0x") {
		msgs = append(msgs, "signature must be a 0x-prefixed 65-byte hex signature")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	o := c.s.onboardingOf(c.user.ID)
	if o.EURStatus == "" {
		return nil, orderError("call POST /onboarding/start-eur-provider before POST /eu/kyc")
	}
	if o.EURStatus == "active" {
		return map[string]any{"data": map[string]any{"eurProviderStatus": o.EURStatus}}, nil
	}
	w := c.s.userWallet(c.user.ID, "EURe")
	if w == nil {
		return nil, badRequest("User has no EURe smart wallet")
	}
	signer, err := ethsig.RecoverMessage([]byte(euAuthorizationMessage(strings.TrimSpace(in.Code))), sig)
	owner, _ := ethsig.ParseAddress(w.UserOwnerAddress)
	if err != nil || !signer.Equal(owner) {
		return nil, badRequest("signature does not prove ownership of the EUR wallet: sign \"" + euAuthorizationMessage("<code>") + "\" with the owner key (signed-message scheme)")
	}
	now := c.s.now()
	k := c.s.kycFor(c.user)
	k.EUAuthorizedAt = &now
	if c.s.takeFailure(railFailEUR) {
		o.EURStatus = "failed"
		c.s.emitUser(c.user, "onboarding.failed", map[string]any{"currency": "EUR", "rail": "eur-provider", "status": "failed",
			"reason": "The EUR provider refused the authorization"})
	} else {
		o.EURStatus = "active"
		c.s.emitUser(c.user, "onboarding.completed", map[string]any{"currency": "EUR", "rail": "eur-provider", "status": "active", "completedAt": iso(now)})
	}
	return map[string]any{"data": map[string]any{"eurProviderStatus": o.EURStatus}}, nil
}

// ---- invite linking ----

// applyInviteProfile stores an employer-held profile (spec: "The
// employer-held KYC in kyc.profile is submitted when the employee links").
// It accepts the PATCH shape and, leniently, personalInfo at the top level.
func (s *Server) applyInviteProfile(k *kycRecord, raw json.RawMessage) {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return
	}
	if pi, ok := top["personalInfo"]; ok {
		if _, has := top["profile"]; !has {
			top["profile"], _ = json.Marshal(map[string]json.RawMessage{"personalInfo": pi})
		}
	}
	b, _ := json.Marshal(top)
	var in kycPatch
	if json.Unmarshal(b, &in) != nil {
		return
	}
	s.applyPatch(k, in)
	now := s.now()
	k.FromInvite = true
	k.PatchedAt, k.ChangedAt = &now, &now
	k.ChangeSeq = s.st.next()
	// The employee's app does the lookups for them.
	k.OptionsAt, k.OccupationsAt = &now, &now
}

// kycFromInvite is called when an invited employee links: the held profile
// becomes the user's KYC, the in-app selfie (if taken) its biometric, and
// without a selfie kyc.action_required asks for one (spec: "a selfie is the
// only possible employee action"). Caller holds mu.
func (s *Server) kycFromInvite(u *user, profile json.RawMessage, selfie bool) {
	k := s.kycOf(u.ID)
	if len(profile) > 0 {
		s.applyInviteProfile(k, profile)
	}
	now := s.now()
	if selfie {
		k.Biometric = &kycFile{ContentType: "image/jpeg", UploadedAt: now}
		return
	}
	s.emitUser(u, "kyc.action_required", map[string]any{"action": "selfie", "reason": "A selfie is needed in the app to complete identity verification"})
}
