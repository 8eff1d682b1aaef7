package apiclient

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestMinorUnitsJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{`"12345"`, 12345, false},
		{`"0"`, 0, false},
		{`"-500"`, -500, false},
		{`12345`, 12345, false},
		{`"12.5"`, 0, true},
		{`12.5`, 0, true},
		{`"1e3"`, 0, true},
		{`""`, 0, true},
		{`"abc"`, 0, true},
		{`"99999999999999999999"`, 0, true},
		{`true`, 0, true},
	}
	for _, tc := range tests {
		var m MinorUnits
		err := json.Unmarshal([]byte(tc.in), &m)
		if tc.wantErr {
			if err == nil {
				t.Errorf("%s: decoded to %v, want error", tc.in, m)
			} else if !errors.Is(err, ErrMinorUnits) {
				t.Errorf("%s: err = %v, want ErrMinorUnits", tc.in, err)
			}
			continue
		}
		if err != nil || m.Int64() != tc.want {
			t.Errorf("%s: got %v, %v; want %d", tc.in, m, err, tc.want)
		}
		out, _ := json.Marshal(m)
		if want, _ := json.Marshal(m.String()); string(out) != string(want) {
			t.Errorf("%s: marshals to %s, want a string of digits", tc.in, out)
		}
	}
}

func TestMinorUnitsFromMajor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		major   string
		places  int32
		want    int64
		wantErr bool
	}{
		{"12.34", 2, 1234, false},
		{"12", 2, 1200, false},
		{"0.000001", 6, 1, false},
		{"12.345", 2, 0, true},
		{"-1.5", 2, -150, false},
		{"1e30", 2, 0, true},
	}
	for _, tc := range tests {
		m, err := MinorUnitsFromMajor(dec(tc.major), tc.places)
		if tc.wantErr != (err != nil) || (!tc.wantErr && m.Int64() != tc.want) {
			t.Errorf("MinorUnitsFromMajor(%s, %d) = %v, %v", tc.major, tc.places, m, err)
		}
		if !tc.wantErr && !m.Major(tc.places).Equal(dec(tc.major)) {
			t.Errorf("round trip of %s gave %s", tc.major, m.Major(tc.places))
		}
	}
}

func TestDecimalNumberKeepsPrecision(t *testing.T) {
	t.Parallel()
	// float64 would turn these into 12345678901234567000 and 0.30000000000000004.
	tests := []struct{ in, want string }{
		{`12345678901234567890.123456789`, "12345678901234567890.123456789"},
		{`0.3`, "0.3"},
		{`"0.1"`, "0.1"},
		{`-2`, "-2"},
		{`1.5e2`, "150"},
	}
	for _, tc := range tests {
		var d DecimalNumber
		if err := json.Unmarshal([]byte(tc.in), &d); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if !d.Equal(dec(tc.want)) {
			t.Errorf("%s decoded to %s, want %s", tc.in, d, tc.want)
		}
		out, _ := json.Marshal(d)
		if out[0] == '"' {
			t.Errorf("%s re-encoded as a string %s, want a number", tc.in, out)
		}
	}
	for _, bad := range []string{`"x"`, `{}`, `[1]`} {
		var d DecimalNumber
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s decoded to %s, want error", bad, d)
		}
	}
}

func TestCurrencyTable(t *testing.T) {
	t.Parallel()
	pairs := []struct {
		fiat Fiat
		coin Stablecoin
	}{{USD, USDB}, {NGN, CNGN}, {CAD, CADC}, {EUR, EURe}, {GBP, GBPe}, {MXN, MEXe}}
	for _, p := range pairs {
		if got, ok := StablecoinFor(p.fiat); !ok || got != p.coin {
			t.Errorf("StablecoinFor(%s) = %s, %v", p.fiat, got, ok)
		}
		if got, ok := p.coin.Fiat(); !ok || got != p.fiat {
			t.Errorf("%s.Fiat() = %s, %v", p.coin, got, ok)
		}
		if p.coin.IsLegacy() {
			t.Errorf("%s flagged legacy", p.coin)
		}
	}
	if f, ok := MXNe.Fiat(); !ok || f != MXN || !MXNe.IsLegacy() {
		t.Errorf("MXNe.Fiat() = %s, %v; legacy %v", f, ok, MXNe.IsLegacy())
	}
	if s, ok := StablecoinFor(MXN); s != MEXe || !ok {
		t.Errorf("MXN maps to %s, want the current MEXe", s)
	}
	if _, ok := StablecoinFor("KES"); ok {
		t.Error("KES has no stablecoin")
	}
	if _, ok := Stablecoin("USDC").Fiat(); ok {
		t.Error("USDC is not a wallet stablecoin")
	}
	for in, want := range map[string]Stablecoin{"eure": EURe, " USDB ": USDB, "mxne": MXNe, "Mexe": MEXe} {
		if got, err := ParseStablecoin(in); err != nil || got != want {
			t.Errorf("ParseStablecoin(%q) = %s, %v", in, got, err)
		}
	}
	if _, err := ParseStablecoin("USD"); err == nil {
		t.Error("ParseStablecoin(USD) should fail: fiat is not a stablecoin code")
	}
	if got, err := ParseFiat("ngn"); err != nil || got != NGN {
		t.Errorf("ParseFiat(ngn) = %s, %v", got, err)
	}
	if _, err := ParseFiat("USDB"); err == nil {
		t.Error("ParseFiat(USDB) should fail")
	}
	wantEq(t, Stablecoins(), []Stablecoin{USDB, CNGN, CADC, EURe, GBPe, MEXe})
}
