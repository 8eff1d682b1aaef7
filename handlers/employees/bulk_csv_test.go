package employees

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"partneradmin/apiclient"
	"partneradmin/handlers"
)

var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func templateCSV(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(templateRows()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTemplateRowsAreValid(t *testing.T) {
	lines, err := parseBulkCSV(bytes.NewReader(templateCSV(t)), testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if len(l.Problems) != 0 {
			t.Errorf("template line %d: %v", l.Line, l.Problems)
		}
	}
}

func TestParseBulkCSVRules(t *testing.T) {
	head := "name,email,first_name,last_name,date_of_birth,nationality,street_line1,city,postal_code,country_code,employment_status,source_of_funds,nino\n"
	row := func(email, postal, country string) string {
		return "A B," + email + ",A,B,1990-01-01,GB,1 Road,London," + postal + "," + country + ",employed,salary,QQ123456C\n"
	}
	cases := []struct {
		name     string
		file     string
		fileErr  string
		problems map[int]string // line → substring of a problem
	}{
		{name: "empty", file: "", fileErr: "empty"},
		{name: "header only", file: head, fileErr: "no rows"},
		{name: "nin column refused", file: "name,email,nin\nA,a@x.example,123\n", fileErr: "does not take"},
		{name: "header not text", file: "name,em\x00ail\nA,a@x.example\n", fileErr: "not a column name"},
		{name: "bvn column checked", file: "name,email,first_name,last_name,date_of_birth,nationality,phone_number,street_line1,city,state," +
			"postal_code,country_code,employment_status,occupation_code,source_of_funds,estimated_monthly_volume,BVN\n" +
			"A B,a@x.example,A,B,1990-01-01,NG,08031234567,1 Road,Lagos,Lagos,100001,NGA,employed,OCC-1,salary,1000,2222\n",
			problems: map[int]string{2: "11 digits"}},
		{name: "uk row without nino", file: strings.ReplaceAll(head, ",nino", "") + "A B,a@x.example,A,B,1990-01-01,GB,1 Road,London,SW1A 1AA,GBR,employed,salary\n",
			problems: map[int]string{2: "National Insurance"}},
		{name: "nul in a cell", file: head + row("a@x.example", "SW1A\x001AA", "GBR"), problems: map[int]string{2: "control character"}},
		{name: "invalid utf-8 in a cell", file: head + strings.Replace(row("a@x.example", "SW1A 1AA", "GBR"), "London", "Lon\xffdon", 1),
			fileErr: "save the file as UTF-8"},
		{name: "a huge first name", file: head + strings.Replace(row("a@x.example", "SW1A 1AA", "GBR"), ",A,B,", ","+strings.Repeat("A", 1<<20)+",B,", 1),
			problems: map[int]string{2: "Keep it to 100"}},
		{name: "unknown column", file: "email,shoe_size\na@x.example,42\n", fileErr: "unknown columns shoe_size"},
		{name: "no email column", file: "name\nA\n", fileErr: "email column"},
		{name: "duplicate column", file: "email,email\na,b\n", fileErr: "twice"},
		{name: "broken quotes", file: head + "\"A,B\n", fileErr: "line"},
		{name: "valid", file: head + row("a@x.example", "SW1A 1AA", "GBR"), problems: map[int]string{}},
		{name: "bom and case", file: "\ufeffEMAIL,Name\na@x.example,A\n", problems: map[int]string{2: "first name"}},
		{name: "duplicate email", file: head + row("a@x.example", "SW1A 1AA", "GBR") + row("A@X.example", "SW1A 1AA", "GBR"),
			problems: map[int]string{3: "line 2"}},
		{name: "nigeria postal", file: head + row("n@x.example", "1234", "NGA"), problems: map[int]string{2: "6 digits"}},
		{name: "blank lines skipped", file: head + ",,,\n" + row("a@x.example", "SW1A 1AA", "GBR"), problems: map[int]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := parseBulkCSV(strings.NewReader(tc.file), testNow)
			if tc.fileErr != "" {
				if !isFileProblem(err) || !strings.Contains(err.Error(), tc.fileErr) {
					t.Fatalf("err %v, want %q", err, tc.fileErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				want, flagged := tc.problems[l.Line]
				got := strings.Join(l.Problems, " | ")
				if !flagged && got != "" {
					t.Errorf("line %d unexpected problems: %s", l.Line, got)
				}
				if flagged && !strings.Contains(got, want) {
					t.Errorf("line %d problems %q, want %q", l.Line, got, want)
				}
			}
		})
	}
}

func TestParseBulkCSVRowLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("email\n")
	for i := 0; i <= MaxBulkRows; i++ {
		b.WriteString("a@x.example\n")
	}
	if _, err := parseBulkCSV(strings.NewReader(b.String()), testNow); !isFileProblem(err) || !strings.Contains(err.Error(), "split") {
		t.Fatalf("err %v", err)
	}
}

// FuzzParseBulkCSV checks that any upload is either refused as a file or
// checked line by line, never panics, and that a line without problems
// always carries a valid email and the required fields.
func FuzzParseBulkCSV(f *testing.F) {
	f.Add(templateCSV(f))
	f.Add([]byte("email\n"))
	f.Add([]byte("name,email,ssn\nA,a@x,1\n"))
	f.Add([]byte("name,email,first_name,last_name,date_of_birth,nationality,street_line1,city,state,postal_code,country_code,employment_status,source_of_funds,ssn\n" +
		"A B,a@x.example,A,B,1990-01-01,US,1 Road,X,CA,1,USA,employed,salary,123-45-6789\n"))
	f.Add([]byte("\ufeffemail,name\n\"a@x.example\",\"A \"\"B\"\"\"\n"))
	f.Add([]byte("email,country_code,postal_code\na@x.example,NGA,12345\n"))
	f.Add([]byte{0xff, 0xfe, 'e', 'm', 'a', 'i', 'l', '\n'})
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := parseBulkCSV(bytes.NewReader(data), testNow)
		if err != nil {
			if !isFileProblem(err) {
				t.Fatalf("error not marked as a file problem: %v", err)
			}
			return
		}
		if len(lines) == 0 {
			t.Fatal("no error and no lines")
		}
		seen := map[string]bool{}
		for _, l := range lines {
			if len(l.Problems) > 0 {
				continue
			}
			if l.Form.Email == "" || l.Form.FirstName == "" || l.Form.LastName == "" || l.Form.CountryCode == "" {
				t.Fatalf("line %d valid without required fields: %+v", l.Line, l.Form)
			}
			if !utf8.ValidString(l.Form.Email + l.Form.Name) {
				t.Fatalf("line %d valid with invalid UTF-8", l.Line)
			}
			key := strings.ToLower(l.Form.Email)
			if seen[key] {
				t.Fatalf("duplicate email %q passed", key)
			}
			seen[key] = true
			p := bulkProfile(l.Form)
			if len(p) == 0 {
				t.Fatalf("line %d: no profile", l.Line)
			}
			var kept apiclient.KYCProfile
			if err := json.Unmarshal(p, &kept); err != nil {
				t.Fatal(err)
			}
			if kept.BVN != "" {
				t.Fatalf("line %d: the stored profile keeps the BVN: %s", l.Line, p)
			}
			for _, id := range kept.IdentificationNumbers {
				if id.Number != "" {
					t.Fatalf("line %d: the stored profile keeps the %s number: %s", l.Line, id.Type, p)
				}
			}
			if len(kept.IdentificationNumbers) != len(idNumbersOf(l.Form)) {
				t.Fatalf("line %d: %d kinds of number kept, %d given", l.Line, len(kept.IdentificationNumbers), len(idNumbersOf(l.Form)))
			}
		}
	})
}

func TestFieldInWords(t *testing.T) {
	for in, want := range map[string]string{
		"employment.occupationCode":         "occupation",
		"kyc.profile.address.postalCode":    "postal code",
		"identificationNumbers[0].number":   "identification number",
		"profile.personalInfo.someNewField": "some new field",
		"identificationNumbers.ssn":         "Social Security number (SSN)",
		"proofOfAddress":                    "proof of address (uploaded by the employee)",
		"documents.biometric":               "selfie (taken by the employee in the app)",
	} {
		if got := FieldInWords(in); got != want {
			t.Errorf("FieldInWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// isFileProblem reports whether err refuses the file as a whole.
func isFileProblem(err error) bool {
	_, ok := handlers.FileNotAccepted(err)
	return ok
}
