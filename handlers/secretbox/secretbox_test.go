package secretbox

import (
	"bytes"
	"strings"
	"testing"
)

const katSecret = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff"

func TestBox(t *testing.T) {
	box, _ := New(bytes.Repeat([]byte{1}, 32))
	a, err := box.Seal(katSecret)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := box.Seal(katSecret)
	if bytes.Equal(a, b) {
		t.Fatal("two seals of the same secret are equal: nonce reused")
	}
	if bytes.Contains(a, []byte(katSecret)) {
		t.Fatal("sealed value contains the secret")
	}
	if got, err := box.Open(a); err != nil || got != katSecret {
		t.Fatalf("open: %q %v", got, err)
	}
	tampered := bytes.Clone(b)
	tampered[len(tampered)-1] ^= 1
	if _, err := box.Open(tampered); err == nil {
		t.Fatal("tampered ciphertext opened")
	}
	if _, err := ParseKey("abc"); err == nil {
		t.Fatal("short key accepted")
	}
	if _, err := ParseKey(strings.Repeat("ab", 32)); err != nil {
		t.Fatal(err)
	}
}

// A value sealed for one purpose opens only in a box for the same purpose.
func TestPurposeBox(t *testing.T) {
	key := bytes.Repeat([]byte{2}, 32)
	totp, _ := NewPurpose(key, "totp")
	plain, _ := New(key)
	sealed, err := totp.Seal(katSecret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Open(sealed); err == nil {
		t.Fatal("a value sealed for a purpose opened in the plain box")
	}
	if got, err := totp.Open(sealed); err != nil || got != katSecret {
		t.Fatalf("open: %q %v", got, err)
	}
}
