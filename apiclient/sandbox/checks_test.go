package sandbox

import (
	"crypto/hmac"
	"encoding/hex"
	"strings"
)

// Checks only the tests make on what the sandbox produces.

// verifySignature reports whether sig is the X-Webhook-Signature of body
// under secret, comparing in constant time (spec: Authentication rule 9).
func verifySignature(secret string, body []byte, sig string) bool {
	want, err := hex.DecodeString(sign(secret, body))
	if err != nil {
		return false
	}
	got, err := hex.DecodeString(strings.TrimSpace(sig))
	if err != nil {
		return false
	}
	return hmac.Equal(want, got)
}

// validCLABE checks length, digits and the control digit.
func validCLABE(s string) bool {
	return len(s) == 18 && numDigits(s) == 18 && clabe(s[:3], s[3:6], s[6:17]) == s
}
