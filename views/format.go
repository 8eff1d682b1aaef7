package views

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Amount is money as a view shows it: a decimal in major units and its
// currency. Views never see floats or minor units.
type Amount struct {
	Value    decimal.Decimal
	Currency string // fiat code on screens ("USD"); a token code where that is what it is
	// Token is the stablecoin code shown beside the fiat one, when it
	// differs ("USDB").
	Token string
}

// String formats the amount with thousands separators, at least two decimal
// places, and its currency: "1,234.56 USD".
func (a Amount) String() string {
	s := FormatDecimal(a.Value, 2) + " " + a.Currency
	if a.Token != "" && a.Token != a.Currency {
		s += " (" + a.Token + ")"
	}
	return s
}

// FormatDecimal renders d with thousands separators and at least minPlaces
// decimal places, keeping any further significant digits.
func FormatDecimal(d decimal.Decimal, minPlaces int32) string {
	s := d.StringFixed(minPlaces)
	if exp := -d.Exponent(); exp > minPlaces {
		s = d.String()
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if hasFrac {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// DateTime formats an instant for tables: "22 Nov 2026 14:05 UTC".
func DateTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2 Jan 2006 15:04 UTC")
}

// ISO formats an instant for datetime attributes and CSV.
func ISO(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Ago says how long before now t was, in words: "just now", "5 min ago".
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "in the future"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + " h ago"
	default:
		return strconv.Itoa(int(d.Hours()/24)) + " days ago"
	}
}

// Until says how long after now t is, in words: "in 9 min", "in 3 h".
func Until(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "now"
	case d < time.Minute:
		return "in under a minute"
	case d < time.Hour:
		return "in " + strconv.Itoa(int(d.Minutes())) + " min"
	case d < 48*time.Hour:
		return "in " + strconv.Itoa(int(d.Hours())) + " h"
	default:
		return "in " + strconv.Itoa(int(d.Hours()/24)) + " days"
	}
}
