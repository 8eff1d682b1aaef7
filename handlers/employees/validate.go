package employees

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/views"
)

// country is a row of the region table the form offers.
type country struct {
	Alpha3, Alpha2, Name string
}

// countries the invite form offers for the address and nationality. The
// spec's region table names USA, GBR, NGA, MEX and "rest of world (e.g. GHA,
// CHN, IND, ZAF)"; EUR countries and Canada complete the currencies followed.
var countries = []country{
	{"USA", "US", "United States"}, {"GBR", "GB", "United Kingdom"}, {"NGA", "NG", "Nigeria"}, {"MEX", "MX", "Mexico"},
	{"CAN", "CA", "Canada"}, {"DEU", "DE", "Germany"}, {"FRA", "FR", "France"}, {"ESP", "ES", "Spain"}, {"ITA", "IT", "Italy"},
	{"NLD", "NL", "Netherlands"}, {"IRL", "IE", "Ireland"}, {"PRT", "PT", "Portugal"}, {"GHA", "GH", "Ghana"},
	{"KEN", "KE", "Kenya"}, {"ZAF", "ZA", "South Africa"}, {"CHN", "CN", "China"}, {"IND", "IN", "India"},
	{"BRA", "BR", "Brazil"}, {"COL", "CO", "Colombia"}, {"ARG", "AR", "Argentina"},
}

func countryByAlpha3(code string) (country, bool) {
	for _, c := range countries {
		if c.Alpha3 == strings.ToUpper(code) {
			return c, true
		}
	}
	return country{}, false
}

func countryByAlpha2(code string) (country, bool) {
	for _, c := range countries {
		if c.Alpha2 == strings.ToUpper(code) {
			return c, true
		}
	}
	return country{}, false
}

// nigerianStates are the 36 states and the Federal Capital Territory.
// spec (NGA NGN stage 1): "Nigerian address with valid state name".
var nigerianStates = []string{
	"Abia", "Adamawa", "Akwa Ibom", "Anambra", "Bauchi", "Bayelsa", "Benue", "Borno", "Cross River", "Delta", "Ebonyi", "Edo",
	"Ekiti", "Enugu", "Federal Capital Territory", "Gombe", "Imo", "Jigawa", "Kaduna", "Kano", "Katsina", "Kebbi", "Kogi",
	"Kwara", "Lagos", "Nasarawa", "Niger", "Ogun", "Ondo", "Osun", "Oyo", "Plateau", "Rivers", "Sokoto", "Taraba", "Yobe", "Zamfara",
}

func nigerianState(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "FCT") || strings.EqualFold(t, "Abuja") {
		return "Federal Capital Territory", true
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, " State"), " state")
	for _, st := range nigerianStates {
		if strings.EqualFold(st, t) {
			return st, true
		}
	}
	return "", false
}

var employmentStatuses = []views.Option{
	{Value: "employed", Label: "Employed"}, {Value: "self_employed", Label: "Self-employed"},
	{Value: "unemployed", Label: "Unemployed"}, {Value: "student", Label: "Student"}, {Value: "retired", Label: "Retired"},
}

var fundsSources = []views.Option{
	{Value: "salary", Label: "Salary"}, {Value: "savings", Label: "Savings"}, {Value: "investments", Label: "Investments"},
	{Value: "business_income", Label: "Business income"}, {Value: "pension", Label: "Pension"}, {Value: "gift", Label: "Gift"},
	{Value: "other", Label: "Other"},
}

var genders = []views.Option{{Value: "", Label: "Not given"}, {Value: "female", Label: "Female"}, {Value: "male", Label: "Male"}, {Value: "other", Label: "Other"}}

var purposes = []views.Option{{Value: "personal", Label: "Personal"}, {Value: "salary", Label: "Receiving salary"}, {Value: "business", Label: "Business"}}

func optionValid(opts []views.Option, v string) bool {
	for _, o := range opts {
		if o.Value == v {
			return true
		}
	}
	return false
}

func selectOptions(opts []views.Option, selected string) []views.Option {
	out := make([]views.Option, len(opts))
	for i, o := range opts {
		o.Selected = o.Value == selected
		out[i] = o
	}
	return out
}

var (
	ninoPattern       = regexp.MustCompile(`^[A-Z]{2}[0-9]{6}[A-D]$`)
	rfcPattern        = regexp.MustCompile(`^[A-ZÑ&]{3,4}[0-9]{6}[A-Z0-9]{3}$`)
	curpPattern       = regexp.MustCompile(`^[A-Z]{4}[0-9]{6}[HMX][A-Z]{5}[A-Z0-9][0-9]$`)
	occupationPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,40}$`)
)

func digitsOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// formGetter reads one named value (a form field or a CSV column).
type formGetter func(name string) string

// readInviteForm reads the invite form's fields, trimmed.
func readInviteForm(get formGetter) views.InviteForm {
	g := func(n string) string { return strings.TrimSpace(get(n)) }
	f := views.InviteForm{
		Name: g("name"), Email: g("email"), FirstName: g("first_name"), MiddleName: g("middle_name"), LastName: g("last_name"),
		DateOfBirth: g("date_of_birth"), Nationality: strings.ToUpper(g("nationality")), PhoneNumber: g("phone_number"),
		Gender: g("gender"), StreetLine1: g("street_line1"), City: g("city"), State: g("state"), PostalCode: g("postal_code"),
		CountryCode: strings.ToUpper(g("country_code")), EmploymentStatus: g("employment_status"), OccupationCode: g("occupation_code"),
		OccupationLabel: g("occupation_label"), EmployerName: g("employer_name"), SourceOfFunds: g("source_of_funds"),
		EstimatedMonthlyVolume: g("estimated_monthly_volume"), AccountPurpose: g("account_purpose"),
		ActingAsIntermediary: g("acting_as_intermediary") == "true" || g("acting_as_intermediary") == "on",
		SSN:                  g("ssn"), NINO: strings.ToUpper(strings.ReplaceAll(g("nino"), " ", "")), RFC: strings.ToUpper(g("rfc")),
		CURP: strings.ToUpper(g("curp")), BVN: g("bvn"), Fields: views.FieldErrors{},
	}
	if f.Name == "" && (f.FirstName != "" || f.LastName != "") {
		f.Name = strings.TrimSpace(f.FirstName + " " + f.LastName)
	}
	if f.AccountPurpose == "" {
		f.AccountPurpose = "personal"
	}
	return f
}

// inviteText lists every text field of an invite with its length limit
// (characters), for the checks every text input gets before anything is
// stored or sent.
var inviteText = []struct {
	field string
	max   int
	value func(f *views.InviteForm) *string
}{
	{"name", 100, func(f *views.InviteForm) *string { return &f.Name }},
	{"email", 254, func(f *views.InviteForm) *string { return &f.Email }},
	{"first_name", 100, func(f *views.InviteForm) *string { return &f.FirstName }},
	{"middle_name", 100, func(f *views.InviteForm) *string { return &f.MiddleName }},
	{"last_name", 100, func(f *views.InviteForm) *string { return &f.LastName }},
	{"date_of_birth", 10, func(f *views.InviteForm) *string { return &f.DateOfBirth }},
	{"nationality", 2, func(f *views.InviteForm) *string { return &f.Nationality }},
	{"phone_number", 32, func(f *views.InviteForm) *string { return &f.PhoneNumber }},
	{"gender", 20, func(f *views.InviteForm) *string { return &f.Gender }},
	{"street_line1", 200, func(f *views.InviteForm) *string { return &f.StreetLine1 }},
	{"city", 100, func(f *views.InviteForm) *string { return &f.City }},
	{"state", 100, func(f *views.InviteForm) *string { return &f.State }},
	{"postal_code", 20, func(f *views.InviteForm) *string { return &f.PostalCode }},
	{"country_code", 3, func(f *views.InviteForm) *string { return &f.CountryCode }},
	{"employment_status", 40, func(f *views.InviteForm) *string { return &f.EmploymentStatus }},
	{"occupation_code", 40, func(f *views.InviteForm) *string { return &f.OccupationCode }},
	{"occupation_label", 200, func(f *views.InviteForm) *string { return &f.OccupationLabel }},
	{"employer_name", 200, func(f *views.InviteForm) *string { return &f.EmployerName }},
	{"source_of_funds", 40, func(f *views.InviteForm) *string { return &f.SourceOfFunds }},
	{"estimated_monthly_volume", 30, func(f *views.InviteForm) *string { return &f.EstimatedMonthlyVolume }},
	{"account_purpose", 40, func(f *views.InviteForm) *string { return &f.AccountPurpose }},
	{"ssn", 20, func(f *views.InviteForm) *string { return &f.SSN }},
	{"nino", 20, func(f *views.InviteForm) *string { return &f.NINO }},
	{"rfc", 20, func(f *views.InviteForm) *string { return &f.RFC }},
	{"curp", 30, func(f *views.InviteForm) *string { return &f.CURP }},
	{"bvn", 20, func(f *views.InviteForm) *string { return &f.BVN }},
}

// printable is s as it can be shown again: valid UTF-8, control characters
// replaced.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// validateInvite checks an invite the way the spec and its region table
// would, so nothing invalid is sent. The single form and every row of a
// bulk file go through it: one set of rules. It fills f.Fields, keyed by
// form field name; a text that fails the text checks is made printable for
// showing again.
func validateInvite(f *views.InviteForm, now time.Time) {
	defer checkInviteText(f)
	e := fieldErrors(f.Fields)
	validatePerson(f, e, now)
	c := validateResidence(f, e)
	validateEmployment(f, e)
	validateIDNumbers(f, e, c)
}

// fieldErrors are a form's messages by field.
type fieldErrors map[string]string

// require says msg at field when v is empty, and reports whether v was
// given.
func (e fieldErrors) require(field, v, msg string) bool {
	if v == "" {
		e[field] = msg
		return false
	}
	return true
}

// checkInviteText refuses text too long or not printable in every free
// text field (last, so that its message wins).
func checkInviteText(f *views.InviteForm) {
	for _, t := range inviteText {
		p := t.value(f)
		if msg := handlers.CheckText(*p, t.max, false); msg != "" {
			if t.field == "occupation_label" {
				f.Fields["occupation_code"] = msg
			} else {
				f.Fields[t.field] = msg
			}
			*p = printable(*p)
		}
	}
}

// validatePerson checks the name, email, date of birth and nationality.
func validatePerson(f *views.InviteForm, e fieldErrors, now time.Time) {
	e.require("name", f.Name, "Enter the employee's name.")
	if e.require("email", f.Email, "Enter the work email the invite goes to.") {
		if msg := handlers.CheckEmail(f.Email); msg != "" {
			e["email"] = msg
		}
	}
	e.require("first_name", f.FirstName, "Enter the first name as on their identity document.")
	e.require("last_name", f.LastName, "Enter the last name as on their identity document.")
	if e.require("date_of_birth", f.DateOfBirth, "Enter the date of birth.") {
		d, err := time.Parse(time.DateOnly, f.DateOfBirth)
		switch {
		case err != nil:
			e["date_of_birth"] = "Enter the date as YYYY-MM-DD, for example 1990-04-23."
		case !d.Before(now.AddDate(-16, 0, 0)):
			e["date_of_birth"] = "The employee must be at least 16 years old: check the date."
		case d.Year() < 1900:
			e["date_of_birth"] = "Check the year of birth."
		}
	}
	if e.require("nationality", f.Nationality, "Choose the nationality.") {
		if _, ok := countryByAlpha2(f.Nationality); !ok {
			e["nationality"] = "Choose a nationality from the list."
		}
	}
}

// validateResidence checks the address and phone by the rules of the
// country of residence, which it returns (zero when unknown).
func validateResidence(f *views.InviteForm, e fieldErrors) country {
	c, known := countryByAlpha3(f.CountryCode)
	if e.require("country_code", f.CountryCode, "Choose the country of residence.") && !known {
		e["country_code"] = "Choose a country from the list."
	}
	e.require("street_line1", f.StreetLine1, "Enter the street address.")
	e.require("city", f.City, "Enter the city.")
	phoneDigits := len(digitsOf(f.PhoneNumber))
	if f.PhoneNumber != "" && strings.Trim(f.PhoneNumber, "+0123456789 -()") != "" {
		e["phone_number"] = "Use digits only, with an optional leading +."
	}
	switch c.Alpha3 {
	case "NGA":
		validateNigerianResidence(f, e, phoneDigits)
	case "USA", "CAN", "MEX":
		e.require("state", f.State, "Enter the state or province.")
		e.require("postal_code", f.PostalCode, "Enter the postal code.")
	default:
		if known {
			e.require("postal_code", f.PostalCode, "Enter the postal code.")
		}
	}
	if f.PhoneNumber != "" && phoneDigits < 7 && e["phone_number"] == "" {
		e["phone_number"] = "Enter the full phone number with its country code."
	}
	return c
}

// validateNigerianResidence applies Nigeria's rules.
func validateNigerianResidence(f *views.InviteForm, e fieldErrors, phoneDigits int) {
	// spec, NGA NGN stage 1: "phoneNumber (at least 10 digits) ... Nigerian
	// address with valid state name, 6-digit postal code, countryCode NGA".
	if e.require("phone_number", f.PhoneNumber, "Enter the phone number: Nigeria needs one for NGN.") && phoneDigits < 10 && e["phone_number"] == "" {
		e["phone_number"] = "A Nigerian phone number has at least 10 digits."
	}
	if e.require("state", f.State, "Choose the Nigerian state.") {
		if st, ok := nigerianState(f.State); ok {
			f.State = st
		} else {
			e["state"] = "Enter a Nigerian state, for example Lagos or Federal Capital Territory."
		}
	}
	if e.require("postal_code", f.PostalCode, "Enter the postal code.") && (len(f.PostalCode) != 6 || digitsOf(f.PostalCode) != f.PostalCode) {
		e["postal_code"] = "A Nigerian postal code is exactly 6 digits."
	}
	// spec, NGA USD (enhanced due diligence): employmentStatus, non-null
	// occupationCode, sourceOfFunds, estimatedMonthlyVolume.
	e.require("occupation_code", f.OccupationCode, "Choose the occupation from the list: Nigeria requires it.")
	e.require("estimated_monthly_volume", f.EstimatedMonthlyVolume, "Enter the estimated monthly volume in USD: Nigeria requires it.")
}

// validateEmployment checks the employment, funds and purpose choices.
func validateEmployment(f *views.InviteForm, e fieldErrors) {
	if e.require("employment_status", f.EmploymentStatus, "Choose the employment status.") && !optionValid(employmentStatuses, f.EmploymentStatus) {
		e["employment_status"] = "Choose an employment status from the list."
	}
	if f.OccupationCode != "" && !occupationPattern.MatchString(f.OccupationCode) {
		e["occupation_code"] = "Choose the occupation from the lookup list."
	}
	if e.require("source_of_funds", f.SourceOfFunds, "Choose the source of funds.") {
		if !optionValid(fundsSources, f.SourceOfFunds) {
			e["source_of_funds"] = "Choose a source of funds from the list."
		} else if f.SourceOfFunds == "salary" && (f.EmploymentStatus == "unemployed" || f.EmploymentStatus == "student") {
			// spec: "sourceOfFunds (not salary when unemployed or a student)".
			e["source_of_funds"] = "Salary cannot be the source of funds of someone unemployed or a student."
		}
	}
	if f.EstimatedMonthlyVolume != "" {
		if _, msg := monthlyVolume(f.EstimatedMonthlyVolume); msg != "" {
			e["estimated_monthly_volume"] = msg
		}
	}
	if f.Gender != "" && !optionValid(genders, f.Gender) {
		e["gender"] = "Choose from the list."
	}
	if !optionValid(purposes, f.AccountPurpose) {
		e["account_purpose"] = "Choose an account purpose from the list."
	}
}

// validateIDNumbers checks the identification numbers given, and asks for
// the one the country of residence c needs.
func validateIDNumbers(f *views.InviteForm, e fieldErrors, c country) {
	// spec, region table: "USA | identificationNumbers entry type: ssn,
	// issuingCountryCode: USA"; "GBR | entry type: nino". A number given
	// for someone living elsewhere is checked all the same.
	if c.Alpha3 == "USA" {
		e.require("ssn", f.SSN, "Enter the Social Security number: US residents need it.")
	}
	if c.Alpha3 == "GBR" {
		e.require("nino", f.NINO, "Enter the National Insurance number: UK residents need it.")
	}
	if f.SSN != "" && (len(digitsOf(f.SSN)) != 9 || strings.Trim(f.SSN, "0123456789- ") != "") {
		e["ssn"] = "A Social Security number has 9 digits, like 123-45-6789."
	}
	if f.NINO != "" && !ninoPattern.MatchString(f.NINO) {
		e["nino"] = "A National Insurance number looks like QQ123456C."
	}
	if f.RFC != "" && !rfcPattern.MatchString(f.RFC) {
		e["rfc"] = "An RFC has 12 or 13 characters, like GODE561231GR8."
	}
	if f.CURP != "" && !curpPattern.MatchString(f.CURP) {
		e["curp"] = "A CURP has 18 characters."
	}
	if f.BVN != "" && (len(f.BVN) != 11 || digitsOf(f.BVN) != f.BVN) {
		// spec: "BVN must be exactly 11 digits".
		e["bvn"] = "A BVN is exactly 11 digits."
	}
}

// inviteRequest builds the API request from a valid form.
func inviteRequest(f views.InviteForm) apiclient.InviteEmployeeRequest {
	p := apiclient.KYCProfile{
		Profile: &apiclient.KYCPersonalProfile{PersonalInfo: &apiclient.PersonalInfo{
			FirstName: f.FirstName, LastName: f.LastName, MiddleName: f.MiddleName, DateOfBirth: f.DateOfBirth,
			Nationality: f.Nationality, PhoneNumber: f.PhoneNumber, Gender: f.Gender,
		}},
		Address: &apiclient.KYCAddress{StreetLine1: f.StreetLine1, City: f.City, State: f.State, PostalCode: f.PostalCode, CountryCode: f.CountryCode},
		// spec (silent failure): send occupationCode from the lookup, never
		// free-text occupation.
		Employment:     &apiclient.KYCEmployment{EmploymentStatus: f.EmploymentStatus, OccupationCode: f.OccupationCode, EmployerName: f.EmployerName},
		SourceOfFunds:  f.SourceOfFunds,
		AccountPurpose: f.AccountPurpose,
	}
	intermediary := f.ActingAsIntermediary
	p.ActingAsIntermediary = &intermediary
	if f.EstimatedMonthlyVolume != "" {
		if d, msg := monthlyVolume(f.EstimatedMonthlyVolume); msg == "" {
			v := apiclient.NewDecimalNumber(d)
			p.EstimatedMonthlyVolume = &v
		}
	}
	add := func(typ, number, issuer string) {
		if number != "" {
			p.IdentificationNumbers = append(p.IdentificationNumbers, apiclient.IdentificationNumber{Type: typ, Number: number, IssuingCountryCode: issuer})
		}
	}
	add("ssn", digitsOf(f.SSN), "USA")
	add("nino", f.NINO, "GBR")
	add("rfc", f.RFC, "MEX")
	add("curp", f.CURP, "MEX")
	p.BVN = f.BVN
	return apiclient.InviteEmployeeRequest{Name: f.Name, Email: f.Email, KYC: &apiclient.InviteKYC{Profile: p}}
}

// formFieldOf maps a request field path (as the API's validation messages
// and apiclient's FieldErrors name it) to the form field showing it.
var formFieldOf = map[string]string{
	"name": "name", "email": "email",
	"profile.personalInfo.firstName": "first_name", "profile.personalInfo.lastName": "last_name",
	"profile.personalInfo.middleName": "middle_name", "profile.personalInfo.dateOfBirth": "date_of_birth",
	"profile.personalInfo.nationality": "nationality", "profile.personalInfo.phoneNumber": "phone_number",
	"profile.personalInfo.gender": "gender", "address.streetLine1": "street_line1", "address.city": "city",
	"address.state": "state", "address.postalCode": "postal_code", "address.countryCode": "country_code",
	"employment.employmentStatus": "employment_status", "employment.occupationCode": "occupation_code",
	"employment.occupation": "occupation_code", "employment.employerName": "employer_name", "sourceOfFunds": "source_of_funds",
	"estimatedMonthlyVolume": "estimated_monthly_volume", "accountPurpose": "account_purpose", "bvn": "bvn",
}

// mapAPIFields puts the API's per-field messages next to the form's fields;
// messages naming no known field are returned for the form's top.
func mapAPIFields(fields apiclient.FieldErrors, req apiclient.InviteEmployeeRequest, into views.FieldErrors) []string {
	var rest []string
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		msg := fields[k]
		if k != "" && len(msg) > len(k) && strings.EqualFold(msg[:len(k)], k) {
			msg = strings.TrimSpace(msg[len(k):])
		}
		path := formPath(k)
		if form, ok := formFieldOf[path]; ok {
			into[form] = sentence(FieldInWords(path), msg)
			continue
		}
		if strings.HasPrefix(path, "identificationNumbers[") {
			if form := idFieldOf(path, req); form != "" {
				into[form] = sentence(form, msg)
				continue
			}
		}
		if k == "" {
			rest = append(rest, msg)
		} else {
			rest = append(rest, sentence(FieldInWords(k), msg))
		}
	}
	return rest
}

// dotIndex is an index written as a path segment ("identificationNumbers.0.number").
var dotIndex = regexp.MustCompile(`\.(\d+)(\.|$)`)

// formPath is the API's error path in the form's spelling: without the
// "kyc.profile." an invite's paths carry, and with indexes in brackets,
// however the API writes them ("identificationNumbers.0.number" and
// "identificationNumbers[0].number" are one field).
func formPath(apiPath string) string {
	return dotIndex.ReplaceAllString(strings.TrimPrefix(apiPath, "kyc.profile."), "[$1]$2")
}

// idFieldOf finds which identification number an indexed path points at.
func idFieldOf(path string, req apiclient.InviteEmployeeRequest) string {
	if req.KYC == nil {
		return ""
	}
	var i int
	for _, id := range req.KYC.Profile.IdentificationNumbers {
		if strings.HasPrefix(path, "identificationNumbers["+strconv.Itoa(i)+"]") {
			return id.Type
		}
		i++
	}
	return ""
}

// sentence turns "must be 6 digits" into "Postal code: must be 6 digits."
func sentence(field, msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return strings.ToUpper(field[:1]) + field[1:] + ": " + msg
}

// zeroAmount matches a typed zero: 0, 0.0, 00.00.
var zeroAmount = regexp.MustCompile(`^0+(\.0+)?$`)

// monthlyVolume reads an estimated monthly volume in USD the way every
// amount a person types is read (handlers.ParseAmount: plain digits,
// thousands separators, cents, no exponent), except that zero is a fair
// estimate. msg says what is wrong, "" when the volume is good.
func monthlyVolume(typed string) (decimal.Decimal, string) {
	if zeroAmount.MatchString(strings.TrimSpace(typed)) {
		return decimal.Zero, ""
	}
	a, msg := handlers.ParseAmount(typed, 2)
	if msg != "" {
		return decimal.Decimal{}, msg
	}
	return a.Value, ""
}
