package payroll

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
)

// columns are the columns of a payroll file, in the template's order.
func columns() []string { return []string{"employee", "amount", "currency", "description"} }

// columnAlias is the column another accepted header name stands for.
func columnAlias(name string) string {
	switch name {
	case "email", "serviceuserid", "service_user_id", "recipient":
		return "employee"
	case "note":
		return "description"
	}
	return name
}

// Limits of a run.
const (
	MaxRows  = 10000
	MaxBytes = 5 << 20
	// MaxDescription leaves room in the API's 500 characters for the
	// run's reference, which is how a proposal whose answer was lost is
	// found again.
	MaxDescription = 400
	maxRecipient   = 254
	maxNameLength  = 200
)

// input is one row as given: a line of the file, or one selected employee.
type input struct {
	Line        int
	Recipient   string
	Amount      string
	Currency    string
	Description string
}

// parseCSV reads a payroll file: the header (a BOM is dropped, columns in
// any order and case), then every non-blank line. Problems with the file as
// a whole are handlers.CSVError; a line's own problems are found by check.
func parseCSV(r io.Reader) ([]input, error) {
	header := func(names []string) (map[string]int, error) {
		index := map[string]int{}
		for i, name := range names {
			name = columnAlias(name)
			if !slices.Contains(columns(), name) {
				return nil, handlers.CSVError{Words: fmt.Sprintf("unknown column %q; use the template's columns (%s)", name, strings.Join(columns(), ", "))}
			}
			if _, dup := index[name]; dup {
				return nil, handlers.CSVError{Words: fmt.Sprintf("the column %q appears twice", name)}
			}
			index[name] = i
		}
		for _, c := range columns()[:3] {
			if _, ok := index[c]; !ok {
				return nil, handlers.CSVError{Words: fmt.Sprintf("the %s column is missing; start from the template", c)}
			}
		}
		return index, nil
	}
	var out []input
	err := handlers.ReadCSV(r, MaxRows, header, func(line int, get func(string) string) error {
		out = append(out, input{Line: line, Recipient: get("employee"), Amount: get("amount"), Currency: get("currency"),
			Description: get("description")})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, handlers.CSVError{Words: "the file has a header but no rows"}
	}
	return out, nil
}

// templateRows is the downloadable template.
func templateRows() [][]string {
	return [][]string{
		columns(),
		{"emily.carter@acme-payroll.example", "1250.50", "USD", "November salary"},
		{"ACME-001", "150000", "CNGN", "November salary"},
	}
}

// parseCurrency reads a token code (USDB) or a fiat code (USD) and returns
// the token; msg says what is wrong.
func parseCurrency(s string) (apiclient.Stablecoin, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "currency: give a token such as USDB or a currency such as USD."
	}
	if coin, err := apiclient.ParseStablecoin(s); err == nil {
		if coin.IsLegacy() {
			return "", "currency: MXNe is the former MXN token; pay in MEXe (MXN)."
		}
		return coin, ""
	}
	if fiat, err := apiclient.ParseFiat(s); err == nil {
		if coin, ok := apiclient.StablecoinFor(fiat); ok {
			return coin, ""
		}
	}
	if handlers.CheckText(s, 20, false) != "" {
		s = "this value"
	}
	return "", "currency: " + s + " is not a currency the treasury pays in (USD, NGN, CAD, EUR, GBP, MXN or their tokens USDB, CNGN, CADC, EURe, GBPe, MEXe)."
}

// check checks every row before anything is sent: the employee is known,
// linked and not deleted, and holds an active wallet in the currency; the
// treasury has a wallet in it; the amount is positive with no more decimals
// than the token allows (commas only as thousands separators); the
// description is text; and no employee is paid twice in one currency.
func (h *Handler) check(ctx context.Context, in []input, t treasury) ([]store.PayrollRow, error) {
	keys := make([]string, 0, len(in))
	for _, i := range in {
		if k := strings.TrimSpace(i.Recipient); k != "" && handlers.CheckText(k, maxRecipient, false) == "" {
			keys = append(keys, k)
		}
	}
	people, err := h.store.PayrollRecipients(ctx, keys)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	rows := make([]store.PayrollRow, 0, len(in))
	for _, i := range in {
		row := store.PayrollRow{Line: i.Line, Recipient: strings.TrimSpace(i.Recipient), AmountText: strings.TrimSpace(i.Amount),
			CurrencyText: strings.TrimSpace(i.Currency), Description: strings.TrimSpace(i.Description)}
		var problems []string
		// Only text is stored: a field that is not is kept as what it was
		// said to be.
		for _, f := range []struct {
			name  string
			value *string
			max   int
		}{{"employee", &row.Recipient, maxRecipient}, {"amount", &row.AmountText, 40}, {"currency", &row.CurrencyText, 20},
			{"description", &row.Description, MaxDescription}} {
			if msg := handlers.CheckText(*f.value, f.max, false); msg != "" {
				problems = append(problems, f.name+": "+msg)
				*f.value = ""
			}
		}
		var coin apiclient.Stablecoin
		if !hasPrefix(problems, "currency") {
			var msg string
			if coin, msg = parseCurrency(row.CurrencyText); msg != "" {
				problems = append(problems, msg)
			}
		}
		row.Currency = string(coin)
		if coin != "" {
			if w, ok := t.wallets[string(coin)]; ok {
				row.WalletID = w.ID
			} else {
				problems = append(problems, "currency: the treasury has no "+string(coin)+" wallet to pay from.")
			}
		}
		if !hasPrefix(problems, "amount") {
			a, msg := handlers.ParseAmount(row.AmountText, handlers.TokenDecimals(coin))
			if msg != "" {
				problems = append(problems, "amount: "+msg)
			} else {
				row.Amount.Decimal, row.Amount.Valid = a.Value, true
			}
		}
		p, ok := people[lookupKey(row.Recipient)]
		problems = checkRecipient(&row, p, ok, coin, seen, problems)
		row.Problems = problems
		rows = append(rows, row)
	}
	return rows, nil
}

// lookupKey is how PayrollRecipients keys a person: lower-cased email, or
// the serviceUserId as it is.
func lookupKey(recipient string) string {
	if strings.Contains(recipient, "@") {
		return strings.ToLower(recipient)
	}
	return recipient
}

func hasPrefix(problems []string, field string) bool {
	for _, p := range problems {
		if strings.HasPrefix(p, field+":") {
			return true
		}
	}
	return false
}

// checkRecipient checks the row's employee (p, when found): linked, not
// deleted, with an active wallet of the coin, and paid once in it per run
// (seen holds the first line of each). It returns problems with this
// row's added.
func checkRecipient(row *store.PayrollRow, p store.PayrollRecipient, ok bool, coin apiclient.Stablecoin, seen map[string]int, problems []string) []string {
	switch {
	case row.Recipient == "" && !hasPrefix(problems, "employee"):
		problems = append(problems, "employee: give the employee's work email or serviceUserId.")
	case row.Recipient == "":
	case !ok:
		problems = append(problems, "employee: no employee here has this email or serviceUserId.")
	default:
		e := p.Employee
		row.Name, row.ServiceUserID = e.Name(), e.ServiceUserID
		switch {
		case e.DeletedAt != nil || e.InviteState == store.InviteDeleted:
			problems = append(problems, "employee: "+e.Name()+"'s account was deleted.")
		case e.ServiceUserID == "":
			problems = append(problems, "employee: "+e.Name()+" has not linked their account yet (invited), so they have no wallet.")
		case coin == "":
		default:
			w, ok := p.Wallets[string(coin)]
			switch {
			case !ok:
				problems = append(problems, "wallet: "+e.Name()+" has no "+string(coin)+" wallet.")
			case w.Status != "" && !strings.EqualFold(w.Status, "active"):
				problems = append(problems, "wallet: "+e.Name()+"'s "+string(coin)+" wallet is "+w.Status+", not active.")
			}
			dup := e.ServiceUserID + "|" + string(coin)
			if first, twice := seen[dup]; twice {
				problems = append(problems, fmt.Sprintf("employee: %s is already paid in %s on line %d of this run.", e.Name(), coin, first))
			} else {
				seen[dup] = row.Line
			}
		}
	}
	return problems
}
