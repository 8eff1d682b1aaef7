package controls

import (
	"fmt"
	"math/big"
	"strings"

	"partneradmin/apiclient/ethsig"
	"partneradmin/store"
)

// The destinations are checked as the rails check them, so that a typo is
// caught before anyone confirms it.

// checkDestination normalises a destination's value and bank code and
// returns a message per field ("value", "bank_code") when they are wrong.
func checkDestination(kind store.DestinationKind, value, bankCode string) (string, string, map[string]string) {
	bad := map[string]string{}
	clean := strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(value), " ", ""), "-", "")
	code := strings.TrimSpace(bankCode)
	switch kind {
	case store.DestNigerianBank:
		if len(clean) != 10 || !digitsOnly(clean) {
			bad["value"] = "A Nigerian account number (NUBAN) is 10 digits."
		}
		if code == "" || len(code) > 10 || !digitsOnly(code) {
			bad["bank_code"] = "Give the bank's code: digits only."
		}
	case store.DestBankAccount:
		if len(clean) < 4 || len(clean) > 17 || !digitsOnly(clean) {
			bad["value"] = "A bank account number is 4 to 17 digits."
		}
		if !routingNumber(code) {
			bad["bank_code"] = "A routing number is 9 digits with a valid check digit: copy it again."
		}
	case store.DestIBAN:
		clean = strings.ToUpper(clean)
		code = ""
		if msg := checkIBAN(clean); msg != "" {
			bad["value"] = msg
		}
	case store.DestCLABE:
		code = ""
		if msg := checkCLABE(clean); msg != "" {
			bad["value"] = msg
		}
	case store.DestCrypto:
		code = ""
		a, msg := checkAddress(strings.TrimSpace(value))
		if msg != "" {
			bad["value"] = msg
		} else {
			clean = a.Hex()
		}
	}
	return clean, code, bad
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// checkIBAN checks the shape and the ISO 13616 mod-97 check.
func checkIBAN(s string) string {
	if len(s) < 15 || len(s) > 34 {
		return fmt.Sprintf("An IBAN is 15 to 34 characters (this one has %d).", len(s))
	}
	for i, r := range s {
		letter, digit := r >= 'A' && r <= 'Z', r >= '0' && r <= '9'
		if i < 2 && !letter || i >= 2 && i < 4 && !digit || !letter && !digit {
			return "An IBAN starts with two letters and two check digits, then letters and digits only."
		}
	}
	var b strings.Builder
	for _, r := range s[4:] + s[:4] {
		if r >= 'A' {
			fmt.Fprintf(&b, "%d", r-'A'+10)
		} else {
			b.WriteRune(r)
		}
	}
	n, _ := new(big.Int).SetString(b.String(), 10)
	if new(big.Int).Mod(n, big.NewInt(97)).Int64() != 1 {
		return "The IBAN's check digits do not match: a character is probably mistyped."
	}
	return ""
}

// checkCLABE checks 18 digits and the check digit (weights 3, 7, 1).
func checkCLABE(s string) string {
	if len(s) != 18 || !digitsOnly(s) {
		return "A CLABE is 18 digits."
	}
	weights := [3]int{3, 7, 1}
	sum := 0
	for i := range 17 {
		sum += int(s[i]-'0') * weights[i%3] % 10
	}
	if (10-sum%10)%10 != int(s[17]-'0') {
		return "The CLABE's check digit does not match: a digit is probably mistyped."
	}
	return ""
}

// routingNumber checks an ABA routing number's check digit.
func routingNumber(s string) bool {
	if len(s) != 9 || !digitsOnly(s) {
		return false
	}
	d := func(i int) int { return int(s[i] - '0') }
	return (3*(d(0)+d(3)+d(6))+7*(d(1)+d(4)+d(7))+d(2)+d(5)+d(8))%10 == 0
}

// checkAddress checks 0x and 40 hex characters and, when the case is
// mixed, the EIP-55 checksum.
func checkAddress(s string) (ethsig.Address, string) {
	if !strings.HasPrefix(s, "0x") || len(s) != 42 {
		return ethsig.Address{}, "An address is 0x and 40 hex characters."
	}
	a, err := ethsig.ParseAddress(s)
	if err != nil {
		return ethsig.Address{}, "An address has only the hex characters 0-9 and a-f after 0x."
	}
	h := s[2:]
	if h != strings.ToLower(h) && h != strings.ToUpper(h) && s != a.Hex() {
		return ethsig.Address{}, "The address's capital letters do not match its EIP-55 checksum: a character is probably mistyped."
	}
	if a.IsZero() {
		return ethsig.Address{}, "This is the zero address: value sent there is lost for good."
	}
	return a, ""
}
