package views

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestFormatDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"0", "0.00"},
		{"1234.5", "1,234.50"},
		{"1234567.891", "1,234,567.891"},
		{"-1234.56", "-1,234.56"},
		{"100", "100.00"},
		{"999999", "999,999.00"},
		{"0.000001", "0.000001"},
		// Zeros beyond the minimum are dropped, never those within it,
		// however many the value was written with.
		{"1.200", "1.20"},
		{"1.2000", "1.20"},
		{"1.230", "1.23"},
		{"1.2340", "1.234"},
		{"-5.000", "-5.00"},
		{"1234567890123456789.200", "1,234,567,890,123,456,789.20"},
	}
	for _, tt := range tests {
		if got := FormatDecimal(decimal.RequireFromString(tt.in), 2); got != tt.want {
			t.Errorf("FormatDecimal(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	a := Amount{Value: decimal.RequireFromString("1234.56"), Currency: "USD", Token: "USDB"}
	if a.String() != "1,234.56 USD (USDB)" {
		t.Errorf("Amount = %q", a.String())
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		10 * time.Second: "just now", 5 * time.Minute: "5 min ago", 3 * time.Hour: "3 h ago", 72 * time.Hour: "3 days ago",
	} {
		if got := Ago(now.Add(-d), now); got != want {
			t.Errorf("Ago(-%s) = %q, want %q", d, got, want)
		}
	}
}

// The int64 path of FormatDecimal writes what the decimal package's
// strings give, for every sign, size, exponent and minimum of places.
func TestFormatDecimalFastPathAsBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	coefficients := []int64{0, 1, -1, 5, 10, 100, 1000, 120, 1200, 123456, -123456, 1000000, 999999999999999999, -999999999999999999}
	for i := 0; i < 400; i++ {
		c := rng.Int64N(1 << uint(rng.IntN(62)+1))
		if rng.IntN(2) == 0 {
			c = -c
		}
		coefficients = append(coefficients, c, c*10, c*100)
	}
	for _, c := range coefficients {
		for exp := int32(-20); exp <= 2; exp++ {
			for minPlaces := int32(0); minPlaces <= 4; minPlaces++ {
				d := decimal.New(c, exp)
				if got, want := FormatDecimal(d, minPlaces), formatDecimalBig(d, minPlaces); got != want {
					t.Fatalf("FormatDecimal(%d e%d, %d) = %q, want %q", c, exp, minPlaces, got, want)
				}
			}
		}
	}
}
