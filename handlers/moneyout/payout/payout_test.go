package payout

import (
	"testing"

	"partneradmin/apiclient"
	"partneradmin/handlers"
)

func TestMoneyOutParseAmountAndMinorUnits(t *testing.T) {
	for in, want := range map[string]string{"1250.50": "125050", "1,250.5": "125050", "0.01": "1", "12": "1200"} {
		a, msg := handlers.ParseAmount(in, usdbDecimals)
		if msg != "" {
			t.Fatalf("%q: %s", in, msg)
		}
		m, err := apiclient.MinorUnitsFromMajor(a.Value, usdbDecimals)
		if err != nil || m.String() != want {
			t.Errorf("%q → %s minor units (%v), want %s", in, m, err, want)
		}
	}
}
