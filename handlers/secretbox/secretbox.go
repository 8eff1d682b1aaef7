// Package secretbox seals secrets kept at rest (the webhook secretKey, staff
// TOTP secrets) with AES-256-GCM under the configured encryption key.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ErrSealed is returned when a sealed secret cannot be opened (wrong key or
// tampered ciphertext).
var ErrSealed = errors.New("secretbox: cannot open the sealed secret")

// Box seals a secret at rest (the webhook secretKey, unless NewPurpose) with AES-256-GCM under the
// configured encryption key. An opened secret is never kept: it is opened
// for the delivery that needs it.
type Box struct {
	aead cipher.AEAD
	// ad is the purpose the box seals for (sealAD unless NewPurpose).
	ad []byte
}

// ParseKey decodes a 32-byte key given as 64 hex characters.
func ParseKey(hexKey string) ([]byte, error) {
	k, err := hex.DecodeString(strings.TrimSpace(hexKey))
	if err != nil || len(k) != 32 {
		return nil, errors.New("secretbox: ENCRYPTION_KEY must be 64 hex characters (32 bytes)")
	}
	return k, nil
}

// New returns a box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secretbox: encryption key has %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secretbox: encryption key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox: encryption key: %w", err)
	}
	return &Box{aead: aead, ad: sealAD}, nil
}

// NewPurpose returns a box for a 32-byte key whose sealed values are
// bound to purpose: they open only in a box made for the same purpose, so
// the one encryption key serves other secrets at rest (staff TOTP secrets)
// without a value moving between columns.
func NewPurpose(key []byte, purpose string) (*Box, error) {
	b, err := New(key)
	if err != nil {
		return nil, err
	}
	b.ad = []byte(purpose)
	return b, nil
}

// sealAD binds the ciphertext to its purpose, so a sealed value cannot be
// moved to another column that uses the same key.
var sealAD = []byte("partneradmin webhook secretKey v1")

// Seal encrypts a secret: nonce ‖ ciphertext ‖ tag.
func (b *Box) Seal(secret string) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secretbox: nonce: %w", err)
	}
	return b.aead.Seal(nonce, nonce, []byte(secret), b.ad), nil
}

// Open decrypts a sealed secret.
func (b *Box) Open(sealed []byte) (string, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return "", ErrSealed
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], b.ad)
	if err != nil {
		return "", ErrSealed
	}
	return string(plain), nil
}
