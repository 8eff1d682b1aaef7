package sign

import (
	"errors"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
)

func TestTokensAreRandomAndOnlyTheirHashIsKept(t *testing.T) {
	a, ha, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := NewToken()
	if a == b || len(a) != 43 || len(ha) != 32 || string(HashToken(a)) != string(ha) || strings.Contains(string(ha), a) {
		t.Fatalf("tokens %q %q", a, b)
	}
}

func TestUpstreamRefusalsInWords(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&apiclient.Error{StatusCode: 500, Messages: []string{"Point is not on curve"}}, "65 bytes"},
		{&apiclient.Error{StatusCode: 500, Messages: []string{"Invalid yParityOrV"}}, "27 or 28"},
		{&apiclient.Error{StatusCode: 400, Messages: []string{"Signature deadline exceeded: fetch a fresh sign payload"}}, "deadline passed"},
		{&apiclient.Error{StatusCode: 403, Messages: []string{"Signer not authorised: 0x… is not on the snapshot"}}, "not authorised"},
		{errors.New("connection reset"), "did not answer"},
	}
	for _, tc := range cases {
		if got := UpstreamWords(tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("%v → %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestOwnerMatchNamesTheMessagePrefixMistake(t *testing.T) {
	k, _ := ethsig.GenerateKey()
	owner := ethsig.KeyAddress(k).Hex()
	h := ethsig.Keccak256([]byte("proposal"))
	if ok, why := ownerMatches(h, ethsig.Sign(k, h), owner); !ok {
		t.Fatalf("raw signature refused: %s", why)
	}
	if ok, why := ownerMatches(h, ethsig.SignMessage(k, h[:]), owner); ok || !strings.Contains(why, "signed-message prefix") {
		t.Fatalf("prefixed signature: %v %q", ok, why)
	}
	other, _ := ethsig.GenerateKey()
	if ok, why := ownerMatches(h, ethsig.Sign(other, h), owner); ok || !strings.Contains(why, "not from the wallet's registered owner") {
		t.Fatalf("other key: %v %q", ok, why)
	}
}
