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
	validateInvite(&f, true, testNow)
	if f.Fields.Any() || f.State != "Lagos" {
		t.Fatalf("valid Nigerian invite refused: %v (state %q)", f.Fields, f.State)
	}
	if p := inviteRequest(f).KYC.Profile; p.Employment.OccupationCode != "OCC-1" || p.Employment.Occupation != "" {
		t.Fatalf("occupation must travel as a code only: %+v", p.Employment)
	}
	for over, field := range map[[2]string]string{
		{"state", "FCT"}:                          "",
		{"estimated_monthly_volume", "-1"}:        "estimated_monthly_volume",
		{"estimated_monthly_volume", "1e3x"}:      "estimated_monthly_volume",
		{"date_of_birth", "2020-01-01"}:           "date_of_birth",
		{"nationality", "XX"}:                     "nationality",
		{"employment_status", "astronaut"}:        "employment_status",
		{"occupation_code", "Software developer"}: "occupation_code",
		{"phone_number", "0803-abc"}:              "phone_number",
	} {
		f := readInviteForm(get(map[string]string{over[0]: over[1]}))
		validateInvite(&f, true, testNow)
		if field == "" && f.Fields.Any() {
			t.Errorf("%v refused: %v", over, f.Fields)
		}
		if field != "" && f.Fields[field] == "" {
			t.Errorf("%v: no message on %s (%v)", over, field, f.Fields)
		}
	}
}
