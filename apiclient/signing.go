package apiclient

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"partneradmin/apiclient/ethsig"
)

// Errors of the local signature checks that run before a signature is
// relayed upstream (DESIGN decision 5: "The server checks the signature
// before it relays it"). The API itself gives no useful answer: spec: "No
// endpoint validates a signature without submitting it".
var (
	// ErrSignatureExpired: spec: "a signature after deadline is refused."
	ErrSignatureExpired = errors.New("apiclient: the signing deadline has passed; fetch a fresh sign payload")
	// ErrWrongSigner: the signature recovers to an address other than the
	// registered owner. spec: "The recovered signer must be on the
	// proposal's signer snapshot".
	ErrWrongSigner = errors.New("apiclient: the signature does not come from the registered owner key")
	// ErrMessagePrefix wraps ErrWrongSigner when the owner signed a proposal
	// hash with the signed-message prefix. spec: "A message-signing method
	// on a proposal hash produces a valid-looking signature that recovers to
	// a different address".
	ErrMessagePrefix = fmt.Errorf("%w: it was made with the signed-message prefix; sign the raw 32-byte hash instead", ErrWrongSigner)
	// ErrRawHashSigned wraps ErrWrongSigner when an owner-proof challenge was
	// signed as a raw hash instead of as a signed message.
	ErrRawHashSigned = fmt.Errorf("%w: the challenge must be signed as a message (with the signed-message prefix)", ErrWrongSigner)
)

// CheckHashSignature checks a signature of a raw 32-byte hash (a proposal's
// or workflow's hashToSign) before it is relayed: format (0x plus 130 hex,
// v of 0/1 normalised to 27/28), deadline (when non-zero) and signer. It
// returns the normalised signature to send.
func CheckHashSignature(hashToSign, signature string, owner ethsig.Address, deadline, now time.Time) (ethsig.Signature, error) {
	sig, err := ethsig.ParseSignature(strings.TrimSpace(signature))
	if err != nil {
		return sig, fmt.Errorf("%w: %w", ErrValidation, err)
	}
	if !deadline.IsZero() && !now.Before(deadline) {
		return sig, ErrSignatureExpired
	}
	hash, err := ethsig.ParseHash(hashToSign)
	if err != nil {
		return sig, fmt.Errorf("apiclient: hash to sign: %w", err)
	}
	if signer, err := ethsig.Recover(hash, sig); err == nil && signer.Equal(owner) {
		return sig, nil
	}
	// Diagnose the common mistake: a message-signing method applied to the
	// hash, as bytes or as its hex text.
	for _, msg := range [][]byte{hash[:], []byte(hash.Hex())} {
		if signer, err := ethsig.RecoverMessage(msg, sig); err == nil && signer.Equal(owner) {
			return sig, ErrMessagePrefix
		}
	}
	return sig, ErrWrongSigner
}

// CheckSignature checks a signature of the payload's HashToSign against the
// owner address and the payload's Deadline; see CheckHashSignature.
func (p *SignPayload) CheckSignature(signature string, owner ethsig.Address, now time.Time) (ethsig.Signature, error) {
	return CheckHashSignature(p.HashToSign, signature, owner, p.Deadline, now)
}

// CheckSignature checks a signature of the request's HashToSign against the
// owner address and the request's Deadline; see CheckHashSignature.
func (s *SignatureRequest) CheckSignature(signature string, owner ethsig.Address, now time.Time) (ethsig.Signature, error) {
	return CheckHashSignature(s.HashToSign, signature, owner, s.Deadline, now)
}

// CheckSignature checks an owner-proof signature: the challenge Message
// signed with the Ethereum signed-message scheme by the address that will
// be registered as userOwnerAddress (create-managed "rejects when the
// owner-proof signature does not come from the address in
// userOwnerAddress"). ExpiresAt is honoured when set.
func (ch *OwnerProofChallenge) CheckSignature(signature string, owner ethsig.Address, now time.Time) (ethsig.Signature, error) {
	sig, err := ethsig.ParseSignature(strings.TrimSpace(signature))
	if err != nil {
		return sig, fmt.Errorf("%w: %w", ErrValidation, err)
	}
	if !ch.ExpiresAt.IsZero() && !now.Before(ch.ExpiresAt) {
		return sig, ErrSignatureExpired
	}
	msg := ch.Message
	if msg == "" {
		msg = ch.EIP191Message
	}
	if signer, err := ethsig.RecoverMessage([]byte(msg), sig); err == nil && signer.Equal(owner) {
		return sig, nil
	}
	if signer, err := ethsig.Recover(ethsig.Keccak256([]byte(msg)), sig); err == nil && signer.Equal(owner) {
		return sig, ErrRawHashSigned
	}
	return sig, ErrWrongSigner
}
