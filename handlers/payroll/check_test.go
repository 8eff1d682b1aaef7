package payroll

import (
	"fmt"
	"strings"
	"testing"

	"partneradmin/handlers"
)

func TestPayrollParseCSV(t *testing.T) {
	in, err := parseCSV(strings.NewReader("\ufeffEmail,AMOUNT,currency\r\na@example.com,1.50,USD\r\n,,\r\nb@example.com,2,USDB\r\n"))
	if err != nil || len(in) != 2 || in[0].Recipient != "a@example.com" || in[1].Line != 4 || in[1].Currency != "USDB" {
		t.Fatalf("%+v %v", in, err)
	}
	for _, tc := range []struct{ file, want string }{
		{"", "empty"},
		{"employee,amount\nx,1\n", "currency column is missing"},
		{"employee,amount,currency,ssn\n", "unknown column"},
		{"employee,email,amount,currency\n", "appears twice"},
		{"employee,amount,currency\n", "no rows"},
		{"employee,amount,currency\n\"a,1,USD\n", "line"},
	} {
		_, err := parseCSV(strings.NewReader(tc.file))
		if !isFileProblem(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
	var b strings.Builder
	b.WriteString("employee,amount,currency\n")
	for i := range MaxRows + 1 {
		fmt.Fprintf(&b, "p%d@example.com,1,USD\n", i)
	}
	if _, err := parseCSV(strings.NewReader(b.String())); err == nil || !strings.Contains(err.Error(), "split the file") {
		t.Fatalf("over the row limit: %v", err)
	}
}

func TestPayrollParseCurrency(t *testing.T) {
	for typed, want := range map[string]string{"USD": "USDB", "usdb": "USDB", " ngn ": "CNGN", "EURe": "EURe", "MXN": "MEXe"} {
		if got, msg := parseCurrency(typed); string(got) != want || msg != "" {
			t.Errorf("%q: %q %q", typed, got, msg)
		}
	}
	for _, typed := range []string{"", "XYZ", "MXNe", "US\x00D"} {
		if got, msg := parseCurrency(typed); got != "" || msg == "" {
			t.Errorf("%q accepted as %q", typed, got)
		}
	}
}

// FuzzPayrollParseCSV: any file is read or refused as a whole, never a panic, and
// every row it reads has a line number.
func FuzzPayrollParseCSV(f *testing.F) {
	f.Add("employee,amount,currency,description\na@example.com,1,USD,x\n")
	f.Add("\ufeffemail,amount,currency\n\"a\"\"b\",1,2\n")
	f.Fuzz(func(t *testing.T, file string) {
		in, err := parseCSV(strings.NewReader(file))
		if err != nil && !isFileProblem(err) {
			t.Fatalf("not a file problem: %v", err)
		}
		for _, i := range in {
			if i.Line < 2 {
				t.Fatalf("line %d", i.Line)
			}
		}
	})
}

// isFileProblem reports whether err refuses the file as a whole.
func isFileProblem(err error) bool {
	_, ok := handlers.FileNotAccepted(err)
	return ok
}
