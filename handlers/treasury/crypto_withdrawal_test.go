package treasury

import (
	"strings"
	"testing"
)

func TestCheckAddress(t *testing.T) {
	// web3.js docs' known address with its EIP-55 checksum.
	const good = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
	for _, tc := range []struct {
		in   string
		want string // "" when accepted
	}{
		{good, ""},
		{strings.ToLower(good), ""},
		{"0x" + strings.ToUpper(good[2:]), ""},
		{"", "Give the destination address"},
		{"0x12", "40 hex characters (this one has 4"},
		{"2c7536E3605D9C16a7a3D7b1898e529396a65c2300", "40 hex characters"},
		{"0X2c7536E3605D9C16a7a3D7b1898e529396a65c23", "40 hex characters"},
		{"0x2c7536E3605D9C16a7a3D7b1898e529396a65g23"[:42], "hex characters"},
		{"0x2c7536e3605D9C16a7a3D7b1898e529396a65c23", "EIP-55"},
		{"0x2C7536E3605D9C16a7a3D7b1898e529396a65c23", "EIP-55"},
		{"0x0000000000000000000000000000000000000000", "zero address"},
	} {
		a, msg := checkAddress(tc.in)
		if tc.want == "" {
			if msg != "" || a.Hex() != good {
				t.Errorf("%q: refused %q (%s)", tc.in, msg, a.Hex())
			}
			continue
		}
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%q: message %q, want it to say %q", tc.in, msg, tc.want)
		}
	}
}
