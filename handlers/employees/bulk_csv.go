package employees

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/views"
)

// bulkColumns are the columns of a bulk invite file, in the template's
// order: every field of the single invite form. Identification numbers
// are read from the file when the rows are checked and again when they
// are sent, and never kept in between (DESIGN.md decision 8): the stored
// row keeps which kinds of number it has, not the numbers.
var bulkColumns = []string{
	"name", "email", "first_name", "middle_name", "last_name", "date_of_birth", "nationality", "phone_number", "gender",
	"street_line1", "city", "state", "postal_code", "country_code", "employment_status", "occupation_code", "employer_name",
	"source_of_funds", "estimated_monthly_volume", "account_purpose", "acting_as_intermediary", "ssn", "nino", "rfc", "curp", "bvn",
}

// forbiddenColumns would carry numbers the invite does not take.
var forbiddenColumns = map[string]bool{"nin": true, "identification_number": true, "identification_numbers": true,
	"passport": true, "document_number": true}

// Limits of a bulk file.
const (
	MaxBulkRows  = 10000
	MaxBulkBytes = 5 << 20
)

// bulkLine is one checked line of a file.
type bulkLine struct {
	Line     int
	Form     views.InviteForm
	Problems []string
}

// parseBulkCSV reads and checks a whole bulk invite file before anything is
// sent: the header, every row against the invite rules, and duplicate
// emails inside the file. Problems with the file as a whole are handlers.CSVError.
func parseBulkCSV(r io.Reader, now time.Time) ([]bulkLine, error) {
	header := func(names []string) (map[string]int, error) {
		index := map[string]int{}
		known := map[string]bool{}
		for _, c := range bulkColumns {
			known[c] = true
		}
		var unknown []string
		for i, name := range names {
			if forbiddenColumns[name] {
				return nil, handlers.CSVError{Words: fmt.Sprintf("the column %q holds a number the invite does not take; remove it", name)}
			}
			if !known[name] {
				unknown = append(unknown, name)
				continue
			}
			if _, dup := index[name]; dup {
				return nil, handlers.CSVError{Words: fmt.Sprintf("the column %q appears twice", name)}
			}
			index[name] = i
		}
		if len(unknown) > 0 {
			return nil, handlers.CSVError{Words: fmt.Sprintf("unknown columns %s; use the template's columns", someOf(unknown, 10))}
		}
		if _, ok := index["email"]; !ok {
			return nil, handlers.CSVError{Words: "the email column is missing; start from the template"}
		}
		return index, nil
	}
	var lines []bulkLine
	seen := map[string]int{}
	err := handlers.ReadCSV(r, MaxBulkRows, header, func(line int, get func(string) string) error {
		f := readInviteForm(get)
		var problems []string
		validateInvite(&f, now)
		keys := make([]string, 0, len(f.Fields))
		for k := range f.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			problems = append(problems, strings.ReplaceAll(k, "_", " ")+": "+f.Fields[k])
		}
		if f.Email != "" && !f.Fields.Has("email") {
			key := strings.ToLower(f.Email)
			if first, dup := seen[key]; dup {
				problems = append(problems, fmt.Sprintf("email: the same email is on line %d of this file.", first))
			} else {
				seen[key] = line
			}
		}
		lines = append(lines, bulkLine{Line: line, Form: f, Problems: problems})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, handlers.CSVError{Words: "the file has a header but no rows"}
	}
	return lines, nil
}

// bulkProfile is the employer-held profile of a valid line, kept until the
// line is sent: an identification number is kept as its type and issuing
// country with an empty number (the BVN too, as an entry of type bvn), so
// the sender knows to read it from the file again.
func bulkProfile(f views.InviteForm) json.RawMessage {
	p := inviteRequest(f).KYC.Profile
	ids := make([]apiclient.IdentificationNumber, 0, len(p.IdentificationNumbers)+1)
	for _, id := range p.IdentificationNumbers {
		ids = append(ids, apiclient.IdentificationNumber{Type: id.Type, IssuingCountryCode: id.IssuingCountryCode})
	}
	if p.BVN != "" {
		ids = append(ids, apiclient.IdentificationNumber{Type: "bvn", IssuingCountryCode: "NGA"})
		p.BVN = ""
	}
	p.IdentificationNumbers = ids
	if len(ids) == 0 {
		p.IdentificationNumbers = nil
	}
	b, _ := json.Marshal(p) // the API's own types: cannot fail
	return b
}

// idNumbersOf is a valid line's identification numbers by type, as sent.
func idNumbersOf(f views.InviteForm) map[string]string {
	out := map[string]string{}
	p := inviteRequest(f).KYC.Profile
	for _, id := range p.IdentificationNumbers {
		out[id.Type] = id.Number
	}
	if p.BVN != "" {
		out["bvn"] = p.BVN
	}
	return out
}

// withIDNumbers puts the numbers back into a stored profile for sending;
// false when one it needs is missing.
func withIDNumbers(p apiclient.KYCProfile, numbers map[string]string) (apiclient.KYCProfile, bool) {
	var ids []apiclient.IdentificationNumber
	for _, id := range p.IdentificationNumbers {
		n := numbers[id.Type]
		if n == "" {
			return p, false
		}
		if id.Type == "bvn" {
			p.BVN = n
			continue
		}
		id.Number = n
		ids = append(ids, id)
	}
	p.IdentificationNumbers = ids
	return p, true
}

// templateRows is the downloadable template: the header and two examples.
func templateRows() [][]string {
	return [][]string{
		bulkColumns,
		{"Ada Obi", "ada.obi@example.com", "Ada", "", "Obi", "1992-03-14", "GB", "+447700900123", "female", "10 Example Way", "London",
			"", "SW1A 1AA", "GBR", "employed", "", "Example Ltd", "salary", "1500", "personal", "false", "", "QQ123456C", "", "", ""},
		{"Sam Lee", "sam.lee@example.com", "Sam", "", "Lee", "1988-11-02", "US", "+14155550100", "", "1 Market St", "San Francisco",
			"CA", "94105", "USA", "employed", "", "Example Inc", "salary", "", "personal", "false", "123-45-6789", "", "", "", ""},
	}
}

// someOf lists at most n of names, then how many more there are: a file
// with thousands of stray columns gets a message a person can read.
func someOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
