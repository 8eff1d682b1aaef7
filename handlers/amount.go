package handlers

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
)

// maxAmountLength bounds a typed amount before it is read.
const maxAmountLength = 40

// TokenDecimals is how many decimal places an amount of the token may have.
// The spec gives no token precision; every token of its currency table is a
// stablecoin of a fiat currency with cents (USD, NGN, CAD, EUR, GBP, MXN),
// so an amount is counted in that currency's hundredths.
func TokenDecimals(apiclient.Stablecoin) int32 { return 2 }

// ParsedAmount is a typed amount as it was understood.
type ParsedAmount struct {
	Value decimal.Decimal
	// Understood says how an amount with thousands separators was read
	// ("1,234.56 was read as 1234.56"); "" when there were none.
	Understood string
}

// ParseAmount reads an amount a person typed: digits, at most one decimal
// point, commas only as thousands separators (1,234.56), positive, and with
// at most decimals places. A comma that does not group thousands is
// refused, never guessed: 1,50 may mean one and a half or a hundred and
// fifty. msg says what is wrong, "" when the amount is good.
func ParseAmount(typed string, decimals int32) (a ParsedAmount, msg string) {
	s := strings.TrimSpace(typed)
	switch {
	case s == "":
		return a, "Enter an amount."
	case len(s) > maxAmountLength:
		return a, fmt.Sprintf("An amount has at most %d characters.", maxAmountLength)
	case CheckText(s, maxAmountLength, false) != "":
		return a, "Write the amount as plain digits, like 1250.50."
	case strings.HasPrefix(s, "-"):
		return a, "The amount must be more than zero."
	}
	whole, frac, hasPoint := strings.Cut(s, ".")
	plain := strings.ReplaceAll(whole, ",", "")
	switch {
	case !digits(plain) && !(plain == "" && hasPoint) || hasPoint && !digits(frac):
		return a, "Write the amount as plain digits, like 1250.50."
	case strings.Contains(whole, ",") && !grouped(whole):
		if !hasPoint && strings.Count(whole, ",") == 1 {
			return a, s + " is not an amount: use a point for decimals (" + strings.Replace(s, ",", ".", 1) + ")."
		}
		return a, s + " is not an amount: a comma may only separate thousands, as in 1,234,567.89."
	}
	d, err := decimal.NewFromString(plain + "." + frac)
	if !hasPoint {
		d, err = decimal.NewFromString(plain)
	}
	if err != nil {
		return a, "Write the amount as plain digits, like 1250.50."
	}
	if !d.IsPositive() {
		return a, "The amount must be more than zero."
	}
	if !d.Equal(d.Truncate(decimals)) {
		return a, fmt.Sprintf("Use at most %d decimal places (%s has %d).", decimals, s, len(strings.TrimRight(frac, "0")))
	}
	a.Value = d
	if strings.Contains(whole, ",") {
		a.Understood = s + " was read as " + d.String()
	}
	return a, ""
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// grouped reports whether s is digits grouped in thousands by commas:
// one to three digits, then groups of exactly three.
func grouped(s string) bool {
	groups := strings.Split(s, ",")
	if len(groups[0]) < 1 || len(groups[0]) > 3 || !digits(groups[0]) {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 || !digits(g) {
			return false
		}
	}
	return true
}
