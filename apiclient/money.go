package apiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// MinorUnits is an amount in a currency's smallest unit (cents, kobo): the
// payout amount, a card's balanceMinor and card ledger amounts. It travels as
// a JSON string of digits (spec: payout "amount ... string in USDB minor
// units (not a decimal amount)").
//
// It is a distinct type so it cannot be passed where a decimal amount is
// expected: spec: "confusing them moves the wrong amount without a type
// error" (DESIGN decision 2).
type MinorUnits struct {
	n int64
}

// ErrMinorUnits is returned for a minor-unit value that is not an integer.
var ErrMinorUnits = errors.New("apiclient: minor units must be a whole number")

// NewMinorUnits returns n minor units.
func NewMinorUnits(n int64) MinorUnits { return MinorUnits{n: n} }

// ParseMinorUnits parses an optionally signed string of digits.
func ParseMinorUnits(s string) (MinorUnits, error) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || !isDigits(digits) {
		return MinorUnits{}, fmt.Errorf("%w: %q", ErrMinorUnits, s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return MinorUnits{}, fmt.Errorf("%w: %q: %w", ErrMinorUnits, s, err)
	}
	return MinorUnits{n: n}, nil
}

// MinorUnitsFromMajor converts a major-unit decimal (12.34) to minor units
// given the currency's number of decimal places (2 → 1234). An amount with
// more decimal places than the currency has is refused rather than rounded.
func MinorUnitsFromMajor(major decimal.Decimal, places int32) (MinorUnits, error) {
	shifted := major.Shift(places)
	if !shifted.IsInteger() {
		return MinorUnits{}, fmt.Errorf("%w: %s has more than %d decimal places", ErrMinorUnits, major, places)
	}
	if !shifted.BigInt().IsInt64() {
		return MinorUnits{}, fmt.Errorf("%w: %s is out of range", ErrMinorUnits, major)
	}
	return MinorUnits{n: shifted.IntPart()}, nil
}

// Int64 returns the number of minor units.
func (m MinorUnits) Int64() int64 { return m.n }

// Major converts to major units given the currency's decimal places.
func (m MinorUnits) Major(places int32) decimal.Decimal { return decimal.New(m.n, -places) }

// IsPositive reports m > 0.
func (m MinorUnits) IsPositive() bool { return m.n > 0 }

// String is the decimal digits.
func (m MinorUnits) String() string { return strconv.FormatInt(m.n, 10) }

// MarshalJSON encodes a string of digits.
func (m MinorUnits) MarshalJSON() ([]byte, error) { return json.Marshal(m.String()) }

// UnmarshalJSON accepts a string of digits and, leniently, a bare JSON
// integer. A fractional value is refused: minor units have no fraction.
func (m *MinorUnits) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("%w: %w", ErrMinorUnits, err)
		}
	}
	v, err := ParseMinorUnits(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// DecimalNumber is a decimal that travels as a JSON number: card-transaction
// amounts (major units), card limits and estimatedMonthlyVolume. It is
// decoded from the number's text, never through float64 (DESIGN decision 2).
type DecimalNumber struct {
	decimal.Decimal
}

// NewDecimalNumber wraps d.
func NewDecimalNumber(d decimal.Decimal) DecimalNumber { return DecimalNumber{Decimal: d} }

// MarshalJSON encodes a bare JSON number.
func (d DecimalNumber) MarshalJSON() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalJSON decodes a JSON number (or, leniently, a decimal string).
func (d *DecimalNumber) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var n json.Number
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("apiclient: decimal number: %w", err)
		}
		n = json.Number(s)
	} else {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&n); err != nil {
			return fmt.Errorf("apiclient: decimal number: %w", err)
		}
	}
	v, err := decimal.NewFromString(string(n))
	if err != nil {
		return fmt.Errorf("apiclient: decimal number %q: %w", string(n), err)
	}
	d.Decimal = v
	return nil
}

// Fiat is an ISO 4217 currency code as shown on screens and used by card,
// payout and display fields ("USD", "NGN").
type Fiat string

// Stablecoin is a token code as smart-wallet calls take it ("USDB",
// "CNGN"). spec: "smart-wallet calls use the stablecoin code, not the fiat
// code."
type Stablecoin string

// The currency table of the spec (DESIGN decision 3).
const (
	USD Fiat = "USD"
	NGN Fiat = "NGN"
	CAD Fiat = "CAD"
	EUR Fiat = "EUR"
	GBP Fiat = "GBP"
	MXN Fiat = "MXN"

	USDB Stablecoin = "USDB"
	CNGN Stablecoin = "CNGN"
	CADC Stablecoin = "CADC"
	EURe Stablecoin = "EURe"
	GBPe Stablecoin = "GBPe"
	MEXe Stablecoin = "MEXe"
	// MXNe is the former MXN token. spec: "the former MXN token MXNe was
	// replaced by MEXe; users onboarded before the migration should be
	// checked for a legacy balance."
	MXNe Stablecoin = "MXNe"
)

type currencyPair struct {
	fiat Fiat
	coin Stablecoin
}

// currencyPairs is the one mapping table, in the spec's order. It is a
// function returning an array value so no caller can change the table.
func currencyPairs() [6]currencyPair {
	return [6]currencyPair{{USD, USDB}, {NGN, CNGN}, {CAD, CADC}, {EUR, EURe}, {GBP, GBPe}, {MXN, MEXe}}
}

// Stablecoins returns the current stablecoin codes in the spec's order
// (without the legacy MXNe).
func Stablecoins() []Stablecoin {
	pairs := currencyPairs()
	out := make([]Stablecoin, len(pairs))
	for i, p := range pairs {
		out[i] = p.coin
	}
	return out
}

// StablecoinFor maps a fiat code to its stablecoin (USD → USDB).
func StablecoinFor(f Fiat) (Stablecoin, bool) {
	for _, p := range currencyPairs() {
		if strings.EqualFold(string(p.fiat), string(f)) {
			return p.coin, true
		}
	}
	return "", false
}

// Fiat maps a stablecoin to its fiat code (USDB → USD, legacy MXNe → MXN).
func (s Stablecoin) Fiat() (Fiat, bool) {
	if s == MXNe {
		return MXN, true
	}
	for _, p := range currencyPairs() {
		if p.coin == s {
			return p.fiat, true
		}
	}
	return "", false
}

// IsLegacy reports the pre-migration MXN token MXNe.
func (s Stablecoin) IsLegacy() bool { return s == MXNe }

// Known reports whether s is in the currency table (legacy MXNe included).
func (s Stablecoin) Known() bool {
	_, ok := s.Fiat()
	return ok
}

// ParseStablecoin accepts a stablecoin code in any letter case and returns
// its canonical spelling ("eure" → EURe).
func ParseStablecoin(s string) (Stablecoin, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, string(MXNe)) {
		return MXNe, nil
	}
	for _, p := range currencyPairs() {
		if strings.EqualFold(t, string(p.coin)) {
			return p.coin, nil
		}
	}
	return "", fmt.Errorf("apiclient: unknown stablecoin %q (want one of USDB, CNGN, CADC, EURe, GBPe, MEXe)", s)
}

// ParseFiat accepts a fiat code from the currency table in any letter case.
func ParseFiat(s string) (Fiat, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	for _, p := range currencyPairs() {
		if t == string(p.fiat) {
			return p.fiat, nil
		}
	}
	return "", fmt.Errorf("apiclient: unknown fiat currency %q (want one of USD, NGN, CAD, EUR, GBP, MXN)", s)
}
