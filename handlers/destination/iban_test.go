package destination

import (
	"strings"
	"testing"
)

func TestIBAN(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typed, want, msg string
	}{
		{"DE89 3704 0044 0532 0130 00", "DE89370400440532013000", ""},
		{"de89370400440532013000", "DE89370400440532013000", ""},
		{"GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432", ""},
		{"FR14 2004 1010 0505 0001 3M02 606", "FR1420041010050500013M02606", ""},
		{"NL91ABNA0417164300", "NL91ABNA0417164300", ""},
		{"DE89 3704 0044 0532 0130 01", "", "check digits do not match"},         // one digit changed
		{"DE88 3704 0044 0532 0130 00", "", "check digits do not match"},         // the check digits changed
		{"DE89 3704 0044 0532 0130 0", "", "has 22 characters; this one has 21"}, // one short
		{"DE89 3704 0044 0532 0130 000", "", "has 22 characters; this one has 23"},
		{"DE89 3704 0044 0532 0130 0A", "", "check digits do not match"}, // a letter where the bank wrote a digit
		{"DEAB 3704 0044 0532 0130 00", "", "two check digits"},
		{"1289 3704 0044 0532 0130 00", "", "country's two letters"},
		{"ZZ89 3704 0044 0532 0130 00", "", "not a country that issues IBANs"},
		{"TR33 0006 1005 1978 6457 8413 26", "", "outside the SEPA area"},
		{"DE89-3704-0044", "", "only letters and digits"},
		{"", "", "Enter the beneficiary's IBAN"},
	} {
		got, msg := IBAN(tc.typed)
		if got != tc.want || (tc.msg == "") != (msg == "") || !strings.Contains(msg, tc.msg) {
			t.Errorf("IBAN(%q) = %q, %q; want %q, %q", tc.typed, got, msg, tc.want, tc.msg)
		}
	}
	if g := GroupIBAN("DE89370400440532013000"); g != "DE89 3704 0044 0532 0130 00" {
		t.Errorf("grouped %q", g)
	}
	if m := MaskIBAN("DE89370400440532013000"); m != "DE•• … 3000" || strings.Contains(m, "0532") {
		t.Errorf("masked %q", m)
	}
}
