package controls

import (
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
		{store.DestCLABE, "032180000118359719", "", "032180000118359719"},
		{store.DestCLABE, "032180000118359718", "", ""},
		{store.DestBankAccount, "12345678", "021000021", "12345678"},
		{store.DestBankAccount, "12345678", "021000022", ""},
		{store.DestCrypto, "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", "", "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"},
		{store.DestCrypto, "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23", "", "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"},
		{store.DestCrypto, "0x2C7536E3605D9C16a7a3D7b1898e529396a65c23", "", ""},
		{store.DestCrypto, "0x0000000000000000000000000000000000000000", "", ""},
	} {
		got, _, bad := checkDestination(c.kind, c.value, c.code)
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
