package employees

import (
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/views"
)

// The API's exhaustive array of field messages lands next to the fields.
func TestMapAPIFieldsPutsMessagesNextToFields(t *testing.T) {
	f := readInviteForm(func(n string) string {
		return map[string]string{"name": "A B", "email": "a@x.example", "country_code": "USA", "ssn": "123-45-6789"}[n]
	})
	req := inviteRequest(f)
	apiErr := &apiclient.Error{StatusCode: 400, Messages: []string{
		"kyc.profile.address.postalCode must be a valid postal code",
		"kyc.profile.identificationNumbers[0].number must be a valid SSN",
		"kyc.profile.employment.occupationCode must be a known occupation",
		"BVN must be exactly 11 digits",
		"Something about the whole request",
	}}
	into := views.FieldErrors{}
	rest := mapAPIFields(apiErr.Fields(), req, into)
	for field, want := range map[string]string{
		"postal_code":     "Postal code: must be a valid postal code.",
		"ssn":             "must be a valid SSN",
		"occupation_code": "Occupation: must be a known occupation.",
		"bvn":             "must be exactly 11 digits",
	} {
		if !strings.Contains(into[field], want) {
			t.Errorf("%s = %q, want %q", field, into[field], want)
		}
	}
	if len(rest) != 1 || !strings.Contains(rest[0], "whole request") {
		t.Fatalf("rest %v", rest)
	}
	if strings.Contains(into["ssn"], "123") {
		t.Fatal("the SSN is echoed in a message")
	}
}

// An ID number refused under either spelling of its index lands at its
// field, not at the top of the form.
func TestMapAPIFieldsPlacesIDNumbersUnderEitherIndexSpelling(t *testing.T) {
	f := readInviteForm(func(n string) string {
		return map[string]string{"name": "A B", "email": "a@x.example", "country_code": "USA", "ssn": "123-45-6789"}[n]
	})
	req := inviteRequest(f)
	for _, msg := range []string{
		"identificationNumbers.0.number must be a valid SSN",
		"kyc.profile.identificationNumbers.0.number must be a valid SSN",
		"identificationNumbers[0].number must be a valid SSN",
	} {
		into := views.FieldErrors{}
		rest := mapAPIFields((&apiclient.Error{StatusCode: 400, Messages: []string{msg}}).Fields(), req, into)
		if len(rest) != 0 || !strings.Contains(into["ssn"], "must be a valid SSN") {
			t.Errorf("%q: field %q, top of the form %v", msg, into["ssn"], rest)
		}
	}
	if got := formPath("kyc.profile.a.12.b.3"); got != "a[12].b[3]" {
		t.Errorf("formPath: %q", got)
	}
}

func TestValidateInviteRegionRules(t *testing.T) {
	base := map[string]string{"name": "A B", "email": "a@x.example", "first_name": "A", "last_name": "B", "date_of_birth": "1990-01-01",
		"nationality": "NG", "phone_number": "08031234567", "street_line1": "1 Road", "city": "Lagos", "state": "lagos state",
		"postal_code": "100001", "country_code": "NGA", "employment_status": "employed", "occupation_code": "OCC-1",
		"source_of_funds": "salary", "estimated_monthly_volume": "1000"}
	get := func(over map[string]string) formGetter {
		return func(n string) string {
			if v, ok := over[n]; ok {
				return v
			}
			return base[n]
		}
	}
	f := readInviteForm(get(nil))
	validateInvite(&f, testNow)
	if f.Fields.Any() || f.State != "Lagos" {
		t.Fatalf("valid Nigerian invite refused: %v (state %q)", f.Fields, f.State)
	}
	if p := inviteRequest(f).KYC.Profile; p.Employment.OccupationCode != "OCC-1" || p.Employment.Occupation != "" {
		t.Fatalf("occupation must travel as a code only: %+v", p.Employment)
	}
	for over, field := range map[[2]string]string{
		{"state", "FCT"}:                            "",
		{"estimated_monthly_volume", "-1"}:          "estimated_monthly_volume",
		{"estimated_monthly_volume", "1e3x"}:        "estimated_monthly_volume",
		{"estimated_monthly_volume", "1e5"}:         "estimated_monthly_volume",
		{"estimated_monthly_volume", "1E-2"}:        "estimated_monthly_volume",
		{"estimated_monthly_volume", "2500.505"}:    "estimated_monthly_volume",
		{"estimated_monthly_volume", "1,50"}:        "estimated_monthly_volume",
		{"estimated_monthly_volume", "2,500.50"}:    "",
		{"estimated_monthly_volume", "0"}:           "",
		{"email", "ada@localhost"}:                  "email",
		{"email", "ada@example."}:                   "email",
		{"email", "ada@.example.com"}:               "email",
		{"date_of_birth", "2020-01-01"}:             "date_of_birth",
		{"nationality", "XX"}:                       "nationality",
		{"employment_status", "astronaut"}:          "employment_status",
		{"occupation_code", "Software developer"}:   "occupation_code",
		{"phone_number", "0803-abc"}:                "phone_number",
		{"first_name", "Ad\x00a"}:                   "first_name",
		{"last_name", "Ob\xffi"}:                    "last_name",
		{"city", "Lag\u0007os"}:                     "city",
		{"employer_name", strings.Repeat("x", 201)}: "employer_name",
		{"first_name", strings.Repeat("é", 1<<20)}:  "first_name",
	} {
		f := readInviteForm(get(map[string]string{over[0]: over[1]}))
		validateInvite(&f, testNow)
		if field == "" && f.Fields.Any() {
			t.Errorf("%v refused: %v", over, f.Fields)
		}
		if field != "" && f.Fields[field] == "" {
			t.Errorf("%v: no message on %s (%v)", over, field, f.Fields)
		}
	}
}

// An estimated monthly volume is read like every other amount a person
// types: thousands separators are understood, and what is sent is the
// number they meant.
func TestInviteSendsTheMonthlyVolumeTyped(t *testing.T) {
	for typed, want := range map[string]string{"2,500.50": "2500.5", "1000": "1000", "0": "0"} {
		f := readInviteForm(func(n string) string {
			return map[string]string{"estimated_monthly_volume": typed}[n]
		})
		v := inviteRequest(f).KYC.Profile.EstimatedMonthlyVolume
		if v == nil {
			t.Errorf("%s: no volume sent", typed)
			continue
		}
		if got, _ := v.MarshalJSON(); string(got) != want {
			t.Errorf("%s: sent %s, want %s", typed, got, want)
		}
	}
}

// TestValidateInviteOneRuleForBothForms: a US or UK resident needs their
// SSN or National Insurance number, on the single form and in a bulk file
// alike (one validator).
func TestValidateInviteOneRuleForBothForms(t *testing.T) {
	for _, tc := range []struct{ country, field, number string }{{"USA", "ssn", "123-45-6789"}, {"GBR", "nino", "QQ123456C"}} {
		values := map[string]string{"name": "A B", "email": "a@x.example", "first_name": "A", "last_name": "B", "date_of_birth": "1990-01-01",
			"nationality": "GB", "street_line1": "1 Road", "city": "X", "state": "CA", "postal_code": "1", "country_code": tc.country,
			"employment_status": "employed", "source_of_funds": "salary"}
		f := readInviteForm(func(n string) string { return values[n] })
		validateInvite(&f, testNow)
		if f.Fields[tc.field] == "" {
			t.Errorf("%s resident without %s accepted: %v", tc.country, tc.field, f.Fields)
		}
		header := "name,email,first_name,last_name,date_of_birth,nationality,street_line1,city,state,postal_code,country_code,employment_status,source_of_funds\n"
		row := "A B,a@x.example,A,B,1990-01-01,GB,1 Road,X,CA,1," + tc.country + ",employed,salary\n"
		lines, err := parseBulkCSV(strings.NewReader(header+row), testNow)
		if err != nil || len(lines) != 1 || !strings.Contains(strings.Join(lines[0].Problems, " "), tc.field) {
			t.Errorf("bulk row of a %s resident without %s: %v %v", tc.country, tc.field, lines, err)
		}
		values[tc.field] = tc.number
		f = readInviteForm(func(n string) string { return values[n] })
		validateInvite(&f, testNow)
		if f.Fields.Any() {
			t.Errorf("%s resident with %s refused: %v", tc.country, tc.field, f.Fields)
		}
		lines, err = parseBulkCSV(strings.NewReader(strings.TrimSuffix(header, "\n")+","+tc.field+"\n"+strings.TrimSuffix(row, "\n")+","+tc.number+"\n"), testNow)
		if err != nil || len(lines) != 1 || len(lines[0].Problems) != 0 {
			t.Errorf("bulk row of a %s resident with %s: %v %v", tc.country, tc.field, lines, err)
		}
	}
}
