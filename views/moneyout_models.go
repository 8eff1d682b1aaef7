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

// FieldIDsOf maps a form's error keys to its controls' ids: the key's entry
// in ids, else "f-"+key (InputField's id). Forms whose error keys differ
// from their input names (an error "bank" on the input bank_id) list them.
func FieldIDsOf(ids map[string]string) func(string) string {
	return func(n string) string {
		if id, ok := ids[n]; ok {
			return id
		}
		return "f-" + n
	}
}

// ChoiceOptions are a select's choices as Field's options.
func ChoiceOptions(cs []Choice) []Option {
	out := make([]Option, 0, len(cs))
	for _, c := range cs {
		out = append(out, Option{Value: c.Value, Label: c.Label})
	}
	return out
}

// StringOptions are plain values (currency codes, countries) as options
// whose label is the value.
func StringOptions(vs []string) []Option {
	out := make([]Option, 0, len(vs))
	for _, s := range vs {
		out = append(out, Option{Value: s, Label: s})
	}
	return out
}

// MaskTail shows only the last four characters of an account number
// ("****6789"); shorter values are masked whole.
func MaskTail(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return "****" + s[len(s)-4:]
}
