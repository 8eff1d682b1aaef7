package views

// Rail is one way value leaves the treasury.
type Rail struct {
	Name        string
	Href        string
	Description string
}

// MoneyOutView is the index of the rails.
type MoneyOutView struct {
	Rails    []Rail
	Balances []MoneyOutBalance
}

// MoneyOutBalance is a treasury wallet's balance as last read.
type MoneyOutBalance struct {
	Amount Amount
	Read   bool
}

// MaskTail shows only the last four characters of an account number
// ("****6789"); shorter values are masked whole.
func MaskTail(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return "****" + s[len(s)-4:]
}
