package views

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
// decimal places, keeping any further significant digits (then without
// trailing zeros, as decimal's String gives them).
func FormatDecimal(d decimal.Decimal, minPlaces int32) string {
	var buf [48]byte
	return string(appendDecimal(buf[:0], d, minPlaces))
}

// appendDecimal appends FormatDecimal(d, minPlaces) to dst. A coefficient
// of up to 18 digits (every amount the console shows) is formatted from
// its int64 without the decimal package's big.Int strings.
func appendDecimal(dst []byte, d decimal.Decimal, minPlaces int32) []byte {
	exp := d.Exponent()
	if exp > 0 || exp < -18 || minPlaces < 0 || minPlaces > 18 || !decimal.TrimTrailingZeros || d.NumDigits() > 18 {
		return append(dst, formatDecimalBig(d, minPlaces)...)
	}
	c := d.CoefficientInt64()
	u := uint64(c)
	if c < 0 {
		u = -u
		dst = append(dst, '-')
	}
	places := int(-exp)
	var digits [20]byte
	ds := strconv.AppendUint(digits[:0], u, 10)
	// The integer part, with a comma every three digits.
	intLen := len(ds) - places
	if intLen <= 0 {
		dst = append(dst, '0')
	} else {
		for i := 0; i < intLen; i++ {
			if i > 0 && (intLen-i)%3 == 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, ds[i])
		}
	}
	// The fraction: its digits as the coefficient has them, then
	// padded to minPlaces or, beyond minPlaces, without trailing zeros.
	var fbuf [40]byte
	frac := fbuf[:0]
	for i := intLen; i < 0; i++ {
		frac = append(frac, '0')
	}
	frac = append(frac, ds[max(intLen, 0):]...)
	for len(frac) > int(minPlaces) && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	for len(frac) < int(minPlaces) {
		frac = append(frac, '0')
	}
	if len(frac) > 0 {
		dst = append(dst, '.')
		dst = append(dst, frac...)
	}
	return dst
}

// formatDecimalBig is FormatDecimal through the decimal package's strings,
// for coefficients of more than 18 digits.
func formatDecimalBig(d decimal.Decimal, minPlaces int32) string {
	s := d.StringFixed(minPlaces)
	if exp := -d.Exponent(); exp > minPlaces {
		s = d.String()
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if pad := int(minPlaces) - len(frac); pad > 0 {
		// d.String() dropped trailing zeros the minimum keeps.
		frac, hasFrac = frac+strings.Repeat("0", pad), true
	}
	// One allocation: the result is built in a buffer of its final size.
	n := len(intPart) + (len(intPart)-1)/3
	if hasFrac {
		n += 1 + len(frac)
	}
	if neg {
		n++
	}
	var b strings.Builder
	b.Grow(n)
	if neg {
		b.WriteByte('-')
	}
	for i := 0; i < len(intPart); i++ {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intPart[i])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// DateTime formats an instant in the time zone of the person the page is
// for (Zone): "22 Nov 2026 15:05 WAT". It is the one way instants are
// written for people.
func DateTime(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(Zone(ctx)).Format(dateTimeLayout)
}

const dateTimeLayout = "2 Jan 2006 15:04 MST"

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

// Capitalize upper-cases the first letter, for words that start a title.
func Capitalize(s string) string {
	for i, r := range s {
		return strings.ToUpper(string(r)) + s[i+len(string(r)):]
	}
	return s
}

// Clock is an instant's time of day in the person's zone, for deadlines
// within the day: "14:05 UTC".
func Clock(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(Zone(ctx)).Format(clockLayout)
}

const clockLayout = "15:04 MST"

// Relative says when t is from now in words: "in 9 minutes", "in 45
// seconds", "3 hours ago"; more than two days away it gives the date.
func Relative(ctx context.Context, t, now time.Time) string {
	d := t.Sub(now)
	future := d > 0
	if !future {
		d = -d
	}
	var s string
	switch {
	case d < 5*time.Second:
		return "now"
	case d < time.Minute:
		s = plural(int(d.Seconds()), "second")
	case d < time.Hour:
		s = plural(int(d.Minutes()), "minute")
	case d < 48*time.Hour:
		s = plural(int(d.Hours()), "hour")
	default:
		return "on " + DateTime(ctx, t)
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// Shorten shortens a long identifier for a person to recognise it: its
// first 8 and last 4 characters ("0x12ab34…9f3c"); short ones stay.
func Shorten(id string) string {
	head, tail, short := shortParts(id)
	if !short {
		return id
	}
	return head + "…" + tail
}

// shortParts are the first 8 and the last 4 characters of a value longer
// than 16 characters, and whether it is.
func shortParts(id string) (head, tail string, short bool) {
	if len(id) <= 16 || utf8.RuneCountInString(id) <= 16 {
		return "", "", false
	}
	end := 0
	for i := 0; i < 8; i++ {
		_, size := utf8.DecodeRuneInString(id[end:])
		end += size
	}
	start := len(id)
	for i := 0; i < 4; i++ {
		_, size := utf8.DecodeLastRuneInString(id[:start])
		start -= size
	}
	return id[:end], id[start:], true
}

// SlippagePercent says basis points as a percentage: 50 → "0.5%".
func SlippagePercent(bps int) string {
	return decimal.New(int64(bps), -2).String() + "%"
}
