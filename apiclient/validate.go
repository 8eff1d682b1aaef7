package apiclient

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode/utf8"

	"partneradmin/apiclient/ethsig"

	"github.com/shopspring/decimal"
)

// Limits from the spec's Limits table, checked before sending so users get
// field-level messages without a round trip.
const (
	MaxCardNameLength    = 50  // spec: "Card name length | 1 to 50 characters"
	MaxDescriptionLength = 500 // spec: "Proposal description | at most 500 characters"
	MaxNoteLength        = 500 // spec: "Payout note | at most 500 characters"
	MinSlippageBps       = 1   // spec: "slippageBps | 1 to 500"
	MaxSlippageBps       = 500
)

// checker accumulates field messages; every rule runs, so all invalid fields
// are reported at once (spec: "the array is exhaustive").
type checker struct {
	f FieldErrors
}

func newChecker() *checker { return &checker{f: FieldErrors{}} }

func (c *checker) fail(field, format string, args ...any) {
	c.f.add(field, fmt.Sprintf(format, args...))
}

func (c *checker) err() error { return c.f.err() }

func (c *checker) required(field, v string) bool {
	if strings.TrimSpace(v) == "" {
		c.fail(field, "is required")
		return false
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// digits checks that v (after trimming, as the API trims) is exactly n digits.
func (c *checker) digits(field, v string, n int, what string) {
	if t := strings.TrimSpace(v); len(t) != n || !isDigits(t) {
		c.fail(field, "%s must be exactly %d digits", what, n)
	}
}

// NIN and BVN: spec: "BVN must be exactly 11 digits" after trimming.
func (c *checker) bvn(field, v string) { c.digits(field, v, 11, "BVN") }
func (c *checker) nin(field, v string) { c.digits(field, v, 11, "NIN") }

func (c *checker) maxLen(field, v string, n int) {
	if utf8.RuneCountInString(v) > n {
		c.fail(field, "must be at most %d characters", n)
	}
}

// address checks 0x plus 40 hex characters.
func (c *checker) address(field, v string) {
	if !IsAddress(v) {
		c.fail(field, "must be an address: 0x plus 40 hex characters")
	}
}

// signature checks 0x plus 130 hex characters with v of 27/28 (or 0/1,
// which the client normalises before sending).
func (c *checker) signature(field, v string) {
	if _, err := ethsig.ParseSignature(strings.TrimSpace(v)); err != nil {
		c.fail(field, "must be a 65-byte signature: 0x plus 130 hex characters, r then s then v (27 or 28)")
	}
}

func (c *checker) positive(field string, d decimal.Decimal) {
	if !d.IsPositive() {
		c.fail(field, "must be greater than zero")
	}
}

func (c *checker) oneOf(field, v string, allowed ...string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	c.fail(field, "must be one of %s", strings.Join(allowed, ", "))
}

func (c *checker) stablecoin(field string, s Stablecoin) {
	if !s.Known() {
		c.fail(field, "must be a stablecoin code: USDB, CNGN, CADC, EURe, GBPe or MEXe")
	}
}

// httpsURL checks a callback URL. spec: "callbackUrl (required HTTPS)". An
// http:// URL is let through only for a loopback host: the local sandbox
// accepts those so an app on a developer machine can receive deliveries, and
// the real API refuses them itself.
func (c *checker) httpsURL(field, v string) {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname()))) {
		c.fail(field, "must be an https:// URL")
	}
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsAddress reports whether s is 0x plus 40 hex characters.
func IsAddress(s string) bool {
	return len(s) == 42 && (strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")) && isHex(s[2:])
}

// IsCardColor reports whether s is #RGB or #RRGGBB.
func IsCardColor(s string) bool {
	return (len(s) == 4 || len(s) == 7) && s[0] == '#' && isHex(s[1:])
}

// normaliseSignature returns the canonical 0x hex of a signature with v
// converted from 0/1 to 27/28. spec: "Invalid yParityOrV | v is 0 or 1;
// normalise to v + 27". It assumes the signature was validated.
func normaliseSignature(s string) string {
	sig, err := ethsig.ParseSignature(strings.TrimSpace(s))
	if err != nil {
		return s
	}
	return sig.Hex()
}
