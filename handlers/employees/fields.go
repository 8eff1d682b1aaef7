package employees

import (
	"errors"
	"regexp"
	"strings"

	"partneradmin/store"
)

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// fieldWords names the KYC profile's fields (the spec's PATCH /kyc paths,
// which readiness "missing" arrays use) in the HR team's words.
var fieldWords = map[string]string{
	"profile.personalInfo.firstName":           "first name",
	"profile.personalInfo.lastName":            "last name",
	"profile.personalInfo.middleName":          "middle name",
	"profile.personalInfo.dateOfBirth":         "date of birth",
	"profile.personalInfo.nationality":         "nationality",
	"profile.personalInfo.phoneNumber":         "phone number",
	"profile.personalInfo.gender":              "gender",
	"address":                                  "home address",
	"address.streetLine1":                      "street address",
	"address.city":                             "city",
	"address.state":                            "state or province",
	"address.postalCode":                       "postal code",
	"address.countryCode":                      "country of residence",
	"employment":                               "employment details",
	"employment.employmentStatus":              "employment status",
	"employment.occupationCode":                "occupation",
	"employment.employerName":                  "employer name",
	"employment.occupation":                    "occupation",
	"sourceOfFunds":                            "source of funds",
	"estimatedMonthlyVolume":                   "estimated monthly volume (USD)",
	"accountPurpose":                           "account purpose",
	"actingAsIntermediary":                     "acting as an intermediary",
	"identificationNumbers":                    "identification number",
	"identificationNumbers.number":             "identification number",
	"identificationNumbers.type":               "type of identification number",
	"identificationNumbers.issuingCountryCode": "issuing country of an identification number",
	"identificationNumbers.ssn":                "Social Security number (SSN)",
	"identificationNumbers.nino":               "National Insurance number (NINO)",
	"identificationNumbers.rfc":                "RFC (Mexican tax id)",
	"identificationNumbers.curp":               "CURP",
	"bvn":                                      "BVN (Nigerian bank verification number)",
	"ngnWalletAddress":                         "NGN wallet",
	"ngnWalletIndex":                           "NGN wallet",
	"identificationDocument":                   "identity document (photo, uploaded by the employee)",
	"identification":                           "identity document (photo, uploaded by the employee)",
	"documents.identification":                 "identity document (photo, uploaded by the employee)",
	"proofOfAddress":                           "proof of address (uploaded by the employee)",
	"documents.proofOfAddress":                 "proof of address (uploaded by the employee)",
	"biometric":                                "selfie (taken by the employee in the app)",
	"selfie":                                   "selfie (taken by the employee in the app)",
	"documents.biometric":                      "selfie (taken by the employee in the app)",
}

// indexPart matches an index in a field path ("a.b[0].c").
var indexPart = regexp.MustCompile(`\[\d+\]`)

// FieldInWords turns a field path the API reports ("employment.occupationCode")
// into words ("occupation"). Unknown paths are split at dots and camel case,
// so a new field still reads as words rather than a path.
func FieldInWords(path string) string {
	p := strings.TrimSpace(path)
	p = strings.TrimPrefix(p, "kyc.profile.")
	if w, ok := fieldWords[p]; ok {
		return w
	}
	if w, ok := fieldWords[indexPart.ReplaceAllString(p, "")]; ok {
		return w
	}
	last := p
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		last = p[i+1:]
	}
	last = indexPart.ReplaceAllString(last, "")
	var b strings.Builder
	for i, r := range last {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r + ('a' - 'A'))
			continue
		}
		if r == '_' {
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return path
	}
	return b.String()
}
