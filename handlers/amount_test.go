package handlers

import (
	"strings"
	"testing"
)

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct {
		typed      string
		want       string // the value, "" when refused
		understood string // how a grouped amount was read
		msg        string // part of the message when refused
	}{
		{"1250.50", "1250.5", "", ""},
		{" 12 ", "12", "", ""},
		{".5", "0.5", "", ""},
		{"12.300", "12.3", "", ""},
		{"1,234.56", "1234.56", "1,234.56 was read as 1234.56", ""},
		{"1,234,567", "1234567", "1,234,567 was read as 1234567", ""},
		{"1,500", "1500", "1,500 was read as 1500", ""},
		{"1,50", "", "", "1,50 is not an amount: use a point for decimals (1.50)."},
		{"12,5", "", "", "use a point for decimals (12.5)"},
		{"1234,56", "", "", "use a point for decimals (1234.56)"},
		{"12,34,567", "", "", "a comma may only separate thousands"},
		{"1,234,56.7", "", "", "a comma may only separate thousands"},
		{",500", "", "", "use a point for decimals (.500)"},
		{"1.234,56", "", "", "plain digits"},
		{"1.005", "", "", "at most 2 decimal places (1.005 has 3)"},
		{"0.000000000000000001", "", "", "at most 2 decimal places"},
		{"", "", "", "Enter an amount"},
		{"0", "", "", "more than zero"},
		{"0.00", "", "", "more than zero"},
		{"-5", "", "", "more than zero"},
		{"1e3", "", "", "plain digits"},
		{"+5", "", "", "plain digits"},
		{"5.", "", "", "plain digits"},
		{"1..2", "", "", "plain digits"},
		{"١٢", "", "", "plain digits"},
		{"12\x00", "", "", "plain digits"},
		{"\xff12", "", "", "plain digits"},
		{strings.Repeat("9", 41), "", "", "at most 40 characters"},
	} {
		a, msg := ParseAmount(tc.typed, 2)
		if tc.want == "" {
			if msg == "" || !strings.Contains(msg, tc.msg) {
				t.Errorf("%q: accepted as %s (message %q), want refused with %q", tc.typed, a.Value, msg, tc.msg)
			}
			continue
		}
		if msg != "" || a.Value.String() != tc.want || a.Understood != tc.understood {
			t.Errorf("%q: %s %q (message %q), want %s %q", tc.typed, a.Value, a.Understood, msg, tc.want, tc.understood)
		}
	}
}
