package nigeria

import (
	"strings"
	"testing"
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
