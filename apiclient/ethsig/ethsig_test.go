package ethsig

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// Known answers from sources we did not write: the web3.js documentation for
// accounts.sign, EIP-55's checksum examples and EIP-155's example key.
const (
	web3Key       = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	web3Address   = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
	web3MsgHash   = "0x1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655"
	web3Signature = "0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c"
)

func TestKeccak256Empty(t *testing.T) {
	got := Keccak256().Hex()
	if got != "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470" {
		t.Fatalf("keccak256(\"\") = %s", got)
	}
}

func TestWeb3SignKnownAnswer(t *testing.T) {
	k, err := ParsePrivateKey(web3Key)
	if err != nil {
		t.Fatal(err)
	}
	if got := KeyAddress(k).Hex(); got != web3Address {
		t.Fatalf("address = %s, want %s", got, web3Address)
	}
	if got := MessageHash([]byte("Some data")).Hex(); got != web3MsgHash {
		t.Fatalf("message hash = %s, want %s", got, web3MsgHash)
	}
	sig := SignMessage(k, []byte("Some data"))
	if sig.Hex() != web3Signature {
		t.Fatalf("signature = %s, want %s", sig.Hex(), web3Signature)
	}
	parsed, err := ParseSignature(web3Signature)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := RecoverMessage([]byte("Some data"), parsed)
	if err != nil {
		t.Fatal(err)
	}
	if addr.Hex() != web3Address {
		t.Fatalf("recovered %s", addr.Hex())
	}
}

func TestEIP155KeyAddress(t *testing.T) {
	k, err := ParsePrivateKey("0x" + strings.Repeat("46", 32))
	if err != nil {
		t.Fatal(err)
	}
	if got := KeyAddress(k).Hex(); got != "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F" {
		t.Fatalf("address = %s", got)
	}
}

func TestEIP55Checksum(t *testing.T) {
	for _, want := range []string{
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
		"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
	} {
		a, err := ParseAddress(strings.ToLower(want))
		if err != nil {
			t.Fatal(err)
		}
		if a.Hex() != want {
			t.Errorf("checksum of %s = %s", strings.ToLower(want), a.Hex())
		}
	}
}

func TestRawHashVersusMessagePrefix(t *testing.T) {
	k, _ := GenerateKey()
	want := KeyAddress(k)
	hash := Keccak256([]byte("proposal"))
	raw := Sign(k, hash)
	got, err := Recover(hash, raw)
	if err != nil || !got.Equal(want) {
		t.Fatalf("raw signature recovered %s, %v", got, err)
	}
	// spec: "A message-signing method on a proposal hash produces a
	// valid-looking signature that recovers to a different address".
	prefixed := SignMessage(k, hash[:])
	got, err = Recover(hash, prefixed)
	if err != nil {
		t.Fatal(err)
	}
	if got.Equal(want) {
		t.Fatal("prefixed signature recovered to the owner")
	}
}

func TestParseSignature(t *testing.T) {
	good := web3Signature
	v0 := good[:len(good)-2] + "00"
	tests := []struct {
		name  string
		in    string
		err   error
		wantV byte
	}{
		{"valid", good, nil, 28},
		{"v zero normalised", v0, nil, 27},
		{"v one normalised", good[:len(good)-2] + "01", nil, 28},
		{"no prefix", good[2:], ErrSignatureEncoding, 0},
		{"short", good[:100], ErrSignatureLength, 0},
		{"long", good + "00", ErrSignatureLength, 0},
		{"not hex", "0x" + strings.Repeat("zz", 65), ErrSignatureEncoding, 0},
		{"base64", "0x" + "uRRn5XCmRmqp6YdsvNATurqQC4l51D/iCKSk8zn1/WAH50zYLgN7gAGGQi/C2hZ8dH7wReXRil9dQwD44aApHA==", ErrSignatureEncoding, 0},
		{"bad v", good[:len(good)-2] + "1d", ErrSignatureV, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig, err := ParseSignature(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sig[64] != tt.wantV {
				t.Fatalf("v = %d", sig[64])
			}
		})
	}
}

func TestParseHashAndAddress(t *testing.T) {
	if _, err := ParseHash("0x" + strings.Repeat("ab", 31)); !errors.Is(err, ErrHash) {
		t.Fatalf("short hash: %v", err)
	}
	h, err := ParseHash(web3MsgHash)
	if err != nil || h.Hex() != web3MsgHash {
		t.Fatalf("hash round trip: %v %s", err, h)
	}
	if _, err := ParseAddress("0x1234"); !errors.Is(err, ErrAddress) {
		t.Fatalf("short address: %v", err)
	}
	if _, err := ParseAddress("0x" + strings.Repeat("g", 40)); !errors.Is(err, ErrAddress) {
		t.Fatalf("non-hex address: %v", err)
	}
}

func FuzzParseSignature(f *testing.F) {
	f.Add(web3Signature)
	f.Add("0x")
	f.Add("0x" + strings.Repeat("00", 65))
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := ParseSignature(s)
		if err != nil {
			return
		}
		if sig[64] != 27 && sig[64] != 28 {
			t.Fatalf("accepted v=%d", sig[64])
		}
		if _, err := hex.DecodeString(sig.Hex()[2:]); err != nil {
			t.Fatal(err)
		}
		_, _ = Recover(Keccak256([]byte(s)), sig)
	})
}
