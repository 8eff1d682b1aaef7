package destination

import (
	"strings"
	"testing"

	"partneradmin/store"
)

func TestCheckDestination(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind        store.DestinationKind
		value, code string
		want        string // the normalised value; "" when refused
	}{
		{store.DestNigerianBank, "0123456789", "058", "0123456789"},
		{store.DestNigerianBank, "012345678", "058", ""},
		{store.DestNigerianBank, "0123456789", "", ""},
		{store.DestIBAN, "DE89 3704 0044 0532 0130 00", "", "DE89370400440532013000"},
		{store.DestIBAN, "DE89 3704 0044 0532 0130 01", "", ""},
		{store.DestIBAN, "TR33 0006 1005 1978 6457 8413 26", "", ""}, // outside the SEPA area: no rail reaches it
		{store.DestCLABE, "032180000118359719", "", "032180000118359719"},
		{store.DestCLABE, "032180000118359718", "", ""},
		{store.DestBankAccount, "12345678", "gbr-barclays", "12345678"},
		{store.DestBankAccount, "123", "gbr-barclays", ""},
		{store.DestBankAccount, "12345678", "", ""},
		{store.DestBankAccount, "12345678", "gbr barclays", ""},
		{store.DestCrypto, "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", "", "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"},
		{store.DestCrypto, "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23", "", "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"},
		{store.DestCrypto, "0x2C7536E3605D9C16a7a3D7b1898e529396a65c23", "", ""},
		{store.DestCrypto, "0x0000000000000000000000000000000000000000", "", ""},
	} {
		got, _, bad := Check(c.kind, c.value, c.code)
		if c.want == "" {
			if len(bad) == 0 {
				t.Errorf("%s %q %q: accepted, want refused", c.kind, c.value, c.code)
			}
			continue
		}
		if len(bad) > 0 || got != c.want {
			t.Errorf("%s %q %q: got %q %v, want %q", c.kind, c.value, c.code, got, bad, c.want)
		}
	}
}

func TestNUBAN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0123456789":  "",
		"012345678":   "exactly 10 digits (this one has 9)",
		"01234567890": "exactly 10 digits (this one has 11)",
		"01234567ab":  "digits only",
		"01234 56789": "digits only",
		"":            "Enter the 10-digit",
	} {
		got := NUBAN(in)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("NUBAN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAddress(t *testing.T) {
	t.Parallel()
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
		a, msg := Address(tc.in)
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
