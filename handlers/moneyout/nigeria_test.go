package moneyout

import (
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/handlers"
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
		a, msg := handlers.ParseAmount(in, bpUSDBDecimals)
		if msg != "" {
			t.Fatalf("%q: %s", in, msg)
		}
		m, err := apiclient.MinorUnitsFromMajor(a.Value, bpUSDBDecimals)
		if err != nil || m.String() != want {
			t.Errorf("%q → %s minor units (%v), want %s", in, m, err, want)
		}
	}
}
