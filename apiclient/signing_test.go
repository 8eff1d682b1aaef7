package apiclient

import (
	"errors"
	"testing"
	"time"

	"partneradmin/apiclient/ethsig"
)

func TestCheckHashSignature(t *testing.T) {
	t.Parallel()
	owner, err := ethsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	other, _ := ethsig.GenerateKey()
	ownerAddr := ethsig.KeyAddress(owner)
	hash := ethsig.Keccak256([]byte("proposal p-1"))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	deadline := now.Add(5 * time.Minute)
	good := ethsig.Sign(owner, hash)
	v0 := good
	v0[64] -= 27
	tests := []struct {
		name    string
		sig     string
		now     time.Time
		wantErr error // nil: accepted
	}{
		{"raw hash by the owner", good.Hex(), now, nil},
		{"v of 0/1 normalised", v0.Hex(), now, nil},
		{"after the deadline", good.Hex(), deadline, ErrSignatureExpired},
		{"another key", ethsig.Sign(other, hash).Hex(), now, ErrWrongSigner},
		{"message prefix over the hash bytes", ethsig.SignMessage(owner, hash[:]).Hex(), now, ErrMessagePrefix},
		{"message prefix over the hash text", ethsig.SignMessage(owner, []byte(hash.Hex())).Hex(), now, ErrMessagePrefix},
		{"malformed", "0x1234", now, ErrValidation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := &SignPayload{HashToSign: hash.Hex(), Deadline: deadline}
			sig, err := p.CheckSignature(tc.sig, ownerAddr, tc.now)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if sig != good {
					t.Errorf("signature = %s, want the normalised %s", sig.Hex(), good.Hex())
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if errors.Is(tc.wantErr, ErrMessagePrefix) && !errors.Is(err, ErrWrongSigner) {
				t.Error("ErrMessagePrefix must also match ErrWrongSigner")
			}
		})
	}
	// A workflow's signatureRequest is checked the same way.
	sr := &SignatureRequest{HashToSign: hash.Hex()}
	if _, err := sr.CheckSignature(good.Hex(), ownerAddr, now); err != nil {
		t.Errorf("signature request without deadline: %v", err)
	}
}

func TestOwnerProofCheckSignature(t *testing.T) {
	t.Parallel()
	owner, _ := ethsig.GenerateKey()
	other, _ := ethsig.GenerateKey()
	addr := ethsig.KeyAddress(owner)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	msg := "Prove ownership of " + addr.Hex()
	tests := []struct {
		name    string
		ch      OwnerProofChallenge
		sig     ethsig.Signature
		wantErr error
	}{
		{"signed message", OwnerProofChallenge{Message: msg, ExpiresAt: now.Add(time.Minute)}, ethsig.SignMessage(owner, []byte(msg)), nil},
		{"only eip191Message set", OwnerProofChallenge{EIP191Message: msg}, ethsig.SignMessage(owner, []byte(msg)), nil},
		{"expired", OwnerProofChallenge{Message: msg, ExpiresAt: now}, ethsig.SignMessage(owner, []byte(msg)), ErrSignatureExpired},
		{"other key", OwnerProofChallenge{Message: msg}, ethsig.SignMessage(other, []byte(msg)), ErrWrongSigner},
		{"raw hash instead of message", OwnerProofChallenge{Message: msg}, ethsig.Sign(owner, ethsig.Keccak256([]byte(msg))), ErrRawHashSigned},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.ch.CheckSignature(tc.sig.Hex(), addr, now)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}
