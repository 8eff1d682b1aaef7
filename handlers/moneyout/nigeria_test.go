package moneyout

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
)

func TestMoneyOutNigeriaCheckNUBAN(t *testing.T) {
	for in, want := range map[string]string{
		"0123456789":    "",
		"012345678":     "exactly 10 digits (this one has 9)",
		"01234567890":   "exactly 10 digits (this one has 11)",
		"01234567ab":    "digits only",
		"01234 56789":   "digits only",
		"":              "Enter the 10-digit",
		"012345678\x00": "control character",
	} {
		got := checkNUBAN(in)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("checkNUBAN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMoneyOutParseAmountAndMinorUnits(t *testing.T) {
	for in, want := range map[string]string{"1250.50": "125050", "1,250.5": "125050", "0.01": "1", "12": "1200"} {
		d, msg := npParseAmount(in, bpUSDBDecimals)
		if msg != "" {
			t.Fatalf("%q: %s", in, msg)
		}
		m, err := apiclient.MinorUnitsFromMajor(d, bpUSDBDecimals)
		if err != nil || m.String() != want {
			t.Errorf("%q → %s minor units (%v), want %s", in, m, err, want)
		}
	}
	for in, want := range map[string]string{"1,50": "comma", "1.505": "decimal places", "-1": "more than zero", "0": "more than zero",
		"1e3": "plain digits", "": "Enter", "12,34.5": "comma", "١٢": "plain digits"} {
		if d, msg := npParseAmount(in, 2); !strings.Contains(msg, want) {
			t.Errorf("npParseAmount(%q) = %s, %q; want %q", in, d, msg, want)
		}
	}
	if d, _ := npParseAmount("1,234,567.89", 2); !d.Equal(decimal.RequireFromString("1234567.89")) {
		t.Errorf("grouped: %s", d)
	}
}
