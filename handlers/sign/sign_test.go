package sign

import (
	"strings"
	"testing"

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

func TestBatchSignLinkTemplateContent(t *testing.T) {
	link := "https://admin.example.com/sign/abc_DEF-1"
	for _, tc := range []struct{ tpl, want string }{
		{"", link},
		{DefaultLinkTemplate, link},
		{"myapp://sign?link={link}", "myapp://sign?link=https%3A%2F%2Fadmin.example.com%2Fsign%2Fabc_DEF-1"},
	} {
		if got := LinkContent(tc.tpl, link); got != tc.want {
			t.Errorf("LinkContent(%q) = %q, want %q", tc.tpl, got, tc.want)
		}
		if err := CheckLinkTemplate(tc.tpl); err != nil {
			t.Errorf("CheckLinkTemplate(%q): %v", tc.tpl, err)
		}
	}
	for _, bad := range []string{"myapp://sign", "no-scheme?link={link}", "myapp://sign?link={link}&x= y", strings.Repeat("a", 490) + "://{link}x"} {
		if CheckLinkTemplate(bad) == nil {
			t.Errorf("CheckLinkTemplate(%q) accepted", bad)
		}
	}
}
