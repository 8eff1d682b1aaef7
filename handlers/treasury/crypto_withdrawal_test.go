package treasury

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
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

func TestWithdrawalWords(t *testing.T) {
	for _, tc := range []struct {
		err          error
		field, state string
	}{
		{&apiclient.Error{StatusCode: http.StatusBadRequest, Messages: []string{"destinationAddress must be a 0x-prefixed 20-byte address"}}, "address", store.WithdrawalRefused},
		{&apiclient.Error{StatusCode: http.StatusBadRequest, Messages: []string{"destinationChain and destinationCurrency must be a supported pair for USDB"}}, "route", store.WithdrawalRefused},
		{&apiclient.Error{StatusCode: http.StatusBadRequest, Messages: []string{"Wallet has no balance to withdraw"}}, "wallet", store.WithdrawalRefused},
		{&apiclient.Error{StatusCode: http.StatusNotFound, Messages: []string{"Item not found"}}, "wallet", store.WithdrawalRefused},
		{&apiclient.Error{StatusCode: http.StatusForbidden}, "", store.WithdrawalRefused},
		{&apiclient.Error{StatusCode: http.StatusServiceUnavailable, Messages: []string{"Service Unavailable"}}, "", store.WithdrawalFailed},
		{fmt.Errorf("apiclient: CreateCryptoWithdrawal: %w", context.DeadlineExceeded), "", store.WithdrawalUnknown},
	} {
		field, msg, state := withdrawalWords(tc.err)
		if field != tc.field || state != tc.state || msg == "" {
			t.Errorf("%v: field %q state %q msg %q, want %q %q", tc.err, field, state, msg, tc.field, tc.state)
		}
	}
}

func TestFormToken(t *testing.T) {
	a, err := newFormToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newFormToken()
	if a == b || !validFormToken(a) || validFormToken("") || validFormToken(a+"x") || validFormToken("not a token at all!!!") {
		t.Fatalf("tokens %q %q", a, b)
	}
}
