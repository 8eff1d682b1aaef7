// Package ethsig signs and verifies the secp256k1 signatures the Partner API
// uses for owner keys: raw 32-byte hashes for proposals and workflows, and the
// Ethereum signed-message scheme for owner-proof challenges.
//
// Signatures are 65 bytes laid out r (32) ‖ s (32) ‖ v (1) with v equal to 27
// or 28 (spec, Authentication rule 5). Addresses are the last 20 bytes of the
// keccak-256 hash of the uncompressed public key.
package ethsig

import (
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

// SignatureLen is the length of an r‖s‖v signature in bytes.
const SignatureLen = 65

// Address is a 20-byte EVM address.
type Address [20]byte

// Signature is a 65-byte r‖s‖v signature with v in {27, 28}.
type Signature [SignatureLen]byte

// Hash is a 32-byte digest.
type Hash [32]byte

// Errors returned by the parsers. Each wraps a message that names the mistake.
var (
	ErrSignatureEncoding = errors.New("ethsig: signature is not 0x-prefixed hex")
	ErrSignatureLength   = errors.New("ethsig: signature must be 65 bytes (0x plus 130 hex characters)")
	ErrSignatureV        = errors.New("ethsig: signature v must be 27 or 28 (or 0 or 1 before normalising)")
	ErrAddress           = errors.New("ethsig: address must be 0x plus 40 hex characters")
	ErrHash              = errors.New("ethsig: hash must be 0x plus 64 hex characters")
	ErrRecover           = errors.New("ethsig: signature does not recover to a public key")
)

// Keccak256 returns the legacy Keccak-256 digest (as Ethereum uses it) of the
// concatenated inputs.
func Keccak256(data ...[]byte) Hash {
	h := sha3.NewLegacyKeccak256()
	for _, d := range data {
		h.Write(d)
	}
	var out Hash
	h.Sum(out[:0])
	return out
}

// MessageHash returns the Ethereum signed-message hash of msg:
// keccak256("\x19Ethereum Signed Message:\n" + len(msg) + msg).
func MessageHash(msg []byte) Hash {
	prefix := "\x19Ethereum Signed Message:\n" + strconv.Itoa(len(msg))
	return Keccak256([]byte(prefix), msg)
}

// GenerateKey returns a new random private key.
func GenerateKey() (*secp256k1.PrivateKey, error) {
	k, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		return nil, fmt.Errorf("ethsig: generate key: %w", err)
	}
	return k, nil
}

// ParsePrivateKey decodes a 32-byte private key from hex (with or without 0x).
func ParsePrivateKey(s string) (*secp256k1.PrivateKey, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(s), "0x"))
	if err != nil || len(b) != 32 {
		return nil, errors.New("ethsig: private key must be 32 bytes of hex")
	}
	k := secp256k1.PrivKeyFromBytes(b)
	if k.Key.IsZero() {
		return nil, errors.New("ethsig: private key is zero")
	}
	return k, nil
}

// PrivateKeyHex encodes a private key as 0x-prefixed hex.
func PrivateKeyHex(k *secp256k1.PrivateKey) string {
	b := k.Serialize()
	return "0x" + hex.EncodeToString(b)
}

// PubkeyToAddress derives the EVM address of a public key.
func PubkeyToAddress(pub *secp256k1.PublicKey) Address {
	h := Keccak256(pub.SerializeUncompressed()[1:])
	var a Address
	copy(a[:], h[12:])
	return a
}

// KeyAddress is the address of a private key's public key.
func KeyAddress(k *secp256k1.PrivateKey) Address {
	return PubkeyToAddress(k.PubKey())
}

// Sign signs a raw 32-byte hash (no prefix), as proposals and workflows need.
func Sign(k *secp256k1.PrivateKey, hash Hash) Signature {
	compact := ecdsa.SignCompact(k, hash[:], false) // [27+recid] ‖ R ‖ S
	var sig Signature
	copy(sig[:64], compact[1:])
	sig[64] = compact[0]
	return sig
}

// SignMessage signs msg with the Ethereum signed-message prefix, as
// owner-proof challenges need.
func SignMessage(k *secp256k1.PrivateKey, msg []byte) Signature {
	return Sign(k, MessageHash(msg))
}

// Recover returns the address that signed hash.
func Recover(hash Hash, sig Signature) (Address, error) {
	v := sig[64]
	if v != 27 && v != 28 {
		return Address{}, ErrSignatureV
	}
	compact := make([]byte, SignatureLen)
	compact[0] = v
	copy(compact[1:], sig[:64])
	pub, _, err := ecdsa.RecoverCompact(compact, hash[:])
	if err != nil {
		return Address{}, fmt.Errorf("%w: %v", ErrRecover, err)
	}
	return PubkeyToAddress(pub), nil
}

// RecoverMessage returns the address that signed msg with the signed-message
// prefix.
func RecoverMessage(msg []byte, sig Signature) (Address, error) {
	return Recover(MessageHash(msg), sig)
}

// SignatureError is a signature text ParseSignature refuses: Kind is
// ErrSignatureEncoding, ErrSignatureLength or ErrSignatureV, and Detail
// says what is wrong in words ("it has 12 hex characters").
type SignatureError struct {
	Kind   error
	Detail string
}

func (e *SignatureError) Error() string { return e.Kind.Error() + ": " + e.Detail }

func (e *SignatureError) Unwrap() error { return e.Kind }

// ParseSignature decodes a 0x-prefixed hex signature, accepting v of 0 or 1
// and normalising it to 27 or 28 (spec: "v equal to 27 or 28 (not 0 or 1)").
func ParseSignature(s string) (Signature, error) {
	var sig Signature
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return sig, &SignatureError{ErrSignatureEncoding, "it does not start with 0x"}
	}
	body := s[2:]
	if len(body) != 2*SignatureLen {
		if _, err := hex.DecodeString(body); err != nil && len(body)%2 == 0 {
			return sig, &SignatureError{ErrSignatureEncoding, "it holds a character that is not hex"}
		}
		return sig, &SignatureError{ErrSignatureLength, fmt.Sprintf("it has %d hex characters", len(body))}
	}
	b, err := hex.DecodeString(body)
	if err != nil {
		return sig, &SignatureError{ErrSignatureEncoding, "it holds a character that is not hex"}
	}
	copy(sig[:], b)
	switch sig[64] {
	case 0, 1:
		sig[64] += 27
	case 27, 28:
	default:
		return sig, &SignatureError{ErrSignatureV, fmt.Sprintf("its v is %d", sig[64])}
	}
	return sig, nil
}

// Hex encodes the signature as 0x plus 130 lowercase hex characters.
func (s Signature) Hex() string { return "0x" + hex.EncodeToString(s[:]) }

// String is Hex.
func (s Signature) String() string { return s.Hex() }

// ParseHash decodes a 0x-prefixed 32-byte hex digest.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if !strings.HasPrefix(s, "0x") || len(s) != 66 {
		return h, ErrHash
	}
	if _, err := hex.Decode(h[:], []byte(s[2:])); err != nil {
		return h, ErrHash
	}
	return h, nil
}

// Hex encodes the hash as 0x plus 64 lowercase hex characters.
func (h Hash) Hex() string { return "0x" + hex.EncodeToString(h[:]) }

// String is Hex.
func (h Hash) String() string { return h.Hex() }

// ParseAddress decodes a 0x-prefixed 20-byte hex address. Mixed-case input is
// accepted whether or not its EIP-55 checksum is right: the API compares
// addresses, not their spelling.
func ParseAddress(s string) (Address, error) {
	var a Address
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") || len(s) != 42 {
		return a, ErrAddress
	}
	if _, err := hex.Decode(a[:], []byte(s[2:])); err != nil {
		return a, ErrAddress
	}
	return a, nil
}

// Equal compares two addresses in constant time.
func (a Address) Equal(b Address) bool { return subtle.ConstantTimeCompare(a[:], b[:]) == 1 }

// IsZero reports whether the address is all zeros.
func (a Address) IsZero() bool { return a == Address{} }

// Hex encodes the address with its EIP-55 mixed-case checksum.
func (a Address) Hex() string {
	lower := hex.EncodeToString(a[:])
	hash := Keccak256([]byte(lower))
	out := []byte(lower)
	for i := range out {
		if out[i] < 'a' {
			continue
		}
		nibble := hash[i/2]
		if i%2 == 0 {
			nibble >>= 4
		}
		if nibble&0x0f >= 8 {
			out[i] -= 'a' - 'A'
		}
	}
	return "0x" + string(out)
}

// String is Hex.
func (a Address) String() string { return a.Hex() }

// MarshalText encodes the address in its checksummed form.
func (a Address) MarshalText() ([]byte, error) { return []byte(a.Hex()), nil }

// UnmarshalText decodes a 0x-prefixed address.
func (a *Address) UnmarshalText(b []byte) error {
	v, err := ParseAddress(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
