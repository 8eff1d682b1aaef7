// Package destination checks where money may leave the treasury to, as the
// rails check it: a Nigerian account number (NUBAN), a payout bank
// account, an IBAN, a CLABE and an EVM address. The address book (the
// controls area) and every money-out form (the treasury and money-out
// areas) use these checks, so a destination the book accepts is one a rail
// accepts, and a typo is caught before anyone confirms it.
package destination

import (
	"fmt"
	"strings"

	"partneradmin/apiclient/ethsig"
	"partneradmin/store"
)

// Check normalises a book entry's value and bank code and returns a
// message per field ("value", "bank_code") when they are wrong.
func Check(kind store.DestinationKind, value, bankCode string) (string, string, map[string]string) {
	bad := map[string]string{}
	clean := strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(value), " ", ""), "-", "")
	code := strings.TrimSpace(bankCode)
	switch kind {
	case store.DestNigerianBank:
		if msg := NUBAN(clean); msg != "" {
			bad["value"] = msg
		}
		if code == "" || len(code) > 10 || !digitsOnly(code) {
			bad["bank_code"] = "Give the bank's code as the Nigerian bank list gives it: digits only."
		}
	case store.DestBankAccount:
		clean = strings.ToUpper(clean)
		if msg := PayoutAccount(clean); msg != "" {
			bad["value"] = msg
		}
		if msg := PayoutBank(code); msg != "" {
			bad["bank_code"] = msg
		}
	case store.DestIBAN:
		code = ""
		iban, msg := IBAN(value)
		if msg != "" {
			bad["value"] = msg
		}
		clean = iban
	case store.DestCLABE:
		code = ""
		if msg := CLABE(clean); msg != "" {
			bad["value"] = msg
		}
	case store.DestCrypto:
		code = ""
		a, msg := Address(strings.TrimSpace(value))
		if msg != "" {
			bad["value"] = msg
		} else {
			clean = a.Hex()
		}
	}
	return clean, code, bad
}

// NUBAN says what is wrong with a Nigerian account number, "" when nothing
// (spec Limits: "NUBAN | 10 digits").
func NUBAN(s string) string {
	if s == "" {
		return "Enter the 10-digit account number (NUBAN)."
	}
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return "A NUBAN has digits only (no letters, spaces or dashes)."
		}
		n++
	}
	if n != 10 {
		return fmt.Sprintf("A NUBAN has exactly 10 digits (this one has %d).", n)
	}
	return ""
}

// maxPayoutAccount bounds a payout account number: the spec gives no
// length; the longest national account numbers (and an IBAN) fit in 34.
const maxPayoutAccount = 34

// PayoutAccount says what is wrong with a payout rail's account number,
// "" when nothing. The rail's bank decides the exact length when the
// account is validated; here only its shape.
func PayoutAccount(s string) string {
	if len(s) < 4 || len(s) > maxPayoutAccount {
		return fmt.Sprintf("An account number is 4 to %d letters and digits.", maxPayoutAccount)
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return "An account number has letters and digits only."
		}
	}
	return ""
}

// PayoutBank says what is wrong with a payout bank's id as the payout
// rail's bank list gives it (spec: GET /payouts/banks), "" when nothing.
func PayoutBank(s string) string {
	if s == "" || len(s) > 100 {
		return "Choose the bank from the payout rail's list."
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_' || r == '.') {
			return "Choose the bank from the payout rail's list."
		}
	}
	return ""
}

// CLABE says what is wrong with a Mexican CLABE, "" when nothing: 18
// digits, the last a check digit (weights 3, 7, 1 over the first 17).
func CLABE(s string) string {
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

// Address checks an EVM address: 0x and 40 hex characters, and, when it
// mixes upper and lower case, its EIP-55 checksum. It returns the address
// and a message for the field ("" when it is good).
func Address(s string) (ethsig.Address, string) {
	if s == "" {
		return ethsig.Address{}, "Give the destination address: 0x and 40 hex characters."
	}
	if !strings.HasPrefix(s, "0x") || len(s) != 42 {
		return ethsig.Address{}, fmt.Sprintf("An address is 0x and 40 hex characters (this one has %d characters).", len([]rune(s)))
	}
	a, err := ethsig.ParseAddress(s)
	if err != nil {
		return ethsig.Address{}, "An address has only the hex characters 0-9 and a-f after 0x."
	}
	hexPart := s[2:]
	if hexPart != strings.ToLower(hexPart) && hexPart != strings.ToUpper(hexPart) && s != a.Hex() {
		return ethsig.Address{}, "The address's capital letters do not match its EIP-55 checksum: a character is probably mistyped. Copy the address again from the recipient."
	}
	if a.IsZero() {
		return ethsig.Address{}, "This is the zero address: value sent there is lost for good."
	}
	return a, ""
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
