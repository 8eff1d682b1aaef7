package handlers

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// NewLinkToken returns the token of a one-time link (32 random bytes,
// base64url) and the hash that is stored in its place.
func NewLinkToken() (string, []byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("link token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	return tok, HashLinkToken(tok), nil
}

// HashLinkToken is the stored form of a link token.
func HashLinkToken(tok string) []byte {
	sum := sha256.Sum256([]byte(tok))
	return sum[:]
}

// ValidLinkToken reports whether tok has the shape NewLinkToken gives, so
// that anything else is refused without a database read.
func ValidLinkToken(tok string) bool {
	if len(tok) != base64.RawURLEncoding.EncodedLen(32) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(tok)
	return err == nil
}
