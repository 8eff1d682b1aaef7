package destination

import (
	"fmt"
	"strings"
)

// ibanLengths is the length of an IBAN per country, from the ISO 13616
// registry (SWIFT's IBAN registry).
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

// sepaCountries are the IBAN countries of the SEPA scheme: a SEPA payout
// reaches no other.
var sepaCountries = map[string]bool{
	"AD": true, "AL": true, "AT": true, "BE": true, "BG": true, "CH": true, "CY": true, "CZ": true, "DE": true,
	"DK": true, "EE": true, "ES": true, "FI": true, "FR": true, "GB": true, "GI": true, "GR": true, "HR": true,
	"HU": true, "IE": true, "IS": true, "IT": true, "LI": true, "LT": true, "LU": true, "LV": true, "MC": true,
	"MD": true, "ME": true, "MK": true, "MT": true, "NL": true, "NO": true, "PL": true, "PT": true, "RO": true,
	"SE": true, "SI": true, "SK": true, "SM": true, "VA": true,
}

// maxIBANInput bounds the typed IBAN before it is read (34 characters
// and the spaces of its groups).
const maxIBANInput = 50

// IBAN reads a typed IBAN: spaces are ignored and letters may be in
// either case. It returns the IBAN in its electronic form (upper case, no
// spaces) and a message for the field ("" when it is good): the country's
// length from the registry, then the ISO 13616 mod-97 checksum.
func IBAN(typed string) (string, string) {
	s := strings.ToUpper(strings.Join(strings.Fields(typed), ""))
	switch {
	case s == "":
		return "", "Enter the beneficiary's IBAN."
	case len(typed) > maxIBANInput:
		return "", "An IBAN has at most 34 characters."
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "", "An IBAN has only letters and digits (spaces between groups are fine)."
		}
	}
	if len(s) < 4 || !isUpperLetters(s[:2]) {
		return "", "An IBAN starts with its country's two letters, as DE or FR, then two check digits."
	}
	country := s[:2]
	want, ok := ibanLengths[country]
	if !ok {
		return "", country + " is not a country that issues IBANs: check the first two letters."
	}
	if !sepaCountries[country] {
		return "", "IBANs of " + country + " are outside the SEPA area: a SEPA payout cannot reach them."
	}
	if !digitsOnly(s[2:4]) {
		return "", "The third and fourth characters of an IBAN are its two check digits."
	}
	if len(s) != want {
		return "", fmt.Sprintf("An IBAN of %s has %d characters; this one has %d. Copy it again from the beneficiary.", country, want, len(s))
	}
	if ibanMod97(s) != 1 {
		return "", "This IBAN's check digits do not match the rest (ISO 13616 checksum): a character is probably mistyped. Copy it again from the beneficiary."
	}
	return s, ""
}

// ibanMod97 is the remainder of the IBAN, rearranged (the first four
// characters moved to the end) and its letters counted as 10 to 35, by 97.
func ibanMod97(s string) int {
	rem := 0
	for _, ch := range s[4:] + s[:4] {
		switch {
		case ch >= '0' && ch <= '9':
			rem = (rem*10 + int(ch-'0')) % 97
		default:
			rem = (rem*100 + int(ch-'A') + 10) % 97
		}
	}
	return rem
}

// GroupIBAN writes an IBAN in groups of four, as it is printed.
func GroupIBAN(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MaskIBAN keeps an IBAN's country and last four characters: enough to
// tell payouts apart on screen, never the account number.
func MaskIBAN(s string) string {
	if len(s) < 8 {
		return ""
	}
	return s[:2] + "•• … " + s[len(s)-4:]
}

func isUpperLetters(s string) bool {
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}
