package employees

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"partneradmin/views"
)

// bulkColumns are the columns of a bulk invite file, in the template's
// order. There is deliberately no column for identification numbers or BVN:
// they would have to be kept between the preview and the background send,
// which DESIGN.md decision 8 forbids.
var bulkColumns = []string{
	"name", "email", "first_name", "middle_name", "last_name", "date_of_birth", "nationality", "phone_number", "gender",
	"street_line1", "city", "state", "postal_code", "country_code", "employment_status", "occupation_code", "employer_name",
	"source_of_funds", "estimated_monthly_volume", "account_purpose",
}

// forbiddenColumns would carry identification numbers.
var forbiddenColumns = map[string]bool{"ssn": true, "nino": true, "bvn": true, "nin": true, "rfc": true, "curp": true,
	"identification_number": true, "identification_numbers": true, "passport": true, "document_number": true}

// Limits of a bulk file.
const (
	MaxBulkRows  = 5000
	MaxBulkBytes = 5 << 20
)

// bulkLine is one checked line of a file.
type bulkLine struct {
	Line     int
	Form     views.InviteForm
	Problems []string
}

// ErrBulkFile is a problem with the file as a whole.
var ErrBulkFile = errors.New("bulk invite file")

// parseBulkCSV reads and checks a whole bulk invite file before anything is
// sent: the header, every row against the invite rules, and duplicate
// emails inside the file. Problems with the file as a whole are ErrBulkFile.
func parseBulkCSV(r io.Reader, now time.Time) ([]bulkLine, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: the file is empty; start from the template", ErrBulkFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the file is not a CSV file (%s)", ErrBulkFile, csvProblem(err))
	}
	index := map[string]int{}
	known := map[string]bool{}
	for _, c := range bulkColumns {
		known[c] = true
	}
	var unknown []string
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !utf8.ValidString(name) {
			return nil, fmt.Errorf("%w: the header is not UTF-8 text", ErrBulkFile)
		}
		if forbiddenColumns[name] {
			return nil, fmt.Errorf("%w: the column %q holds identification numbers; remove it. Identification numbers are entered per employee, never uploaded in bulk", ErrBulkFile, name)
		}
		if !known[name] {
			unknown = append(unknown, name)
			continue
		}
		if _, dup := index[name]; dup {
			return nil, fmt.Errorf("%w: the column %q appears twice", ErrBulkFile, name)
		}
		index[name] = i
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%w: unknown columns %s; use the template's columns", ErrBulkFile, strings.Join(unknown, ", "))
	}
	if _, ok := index["email"]; !ok {
		return nil, fmt.Errorf("%w: the email column is missing; start from the template", ErrBulkFile)
	}
	var lines []bulkLine
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s", ErrBulkFile, csvProblem(err))
		}
		line, _ := cr.FieldPos(0)
		if blank(rec) {
			continue
		}
		if len(lines) == MaxBulkRows {
			return nil, fmt.Errorf("%w: more than %d rows; split the file", ErrBulkFile, MaxBulkRows)
		}
		get := func(name string) string {
			i, ok := index[name]
			if !ok || i >= len(rec) {
				return ""
			}
			return rec[i]
		}
		f := readInviteForm(get)
		var problems []string
		for _, v := range rec {
			if !utf8.ValidString(v) {
				problems = append(problems, "The row is not UTF-8 text: save the file as CSV UTF-8.")
				break
			}
		}
		validateInvite(&f, false, now)
		keys := make([]string, 0, len(f.Fields))
		for k := range f.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			problems = append(problems, strings.ReplaceAll(k, "_", " ")+": "+f.Fields[k])
		}
		if f.Email != "" {
			key := strings.ToLower(f.Email)
			if first, dup := seen[key]; dup {
				problems = append(problems, fmt.Sprintf("email: the same email is on line %d of this file.", first))
			} else {
				seen[key] = line
			}
		}
		lines = append(lines, bulkLine{Line: line, Form: f, Problems: problems})
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%w: the file has a header but no rows", ErrBulkFile)
	}
	return lines, nil
}

func blank(rec []string) bool {
	for _, v := range rec {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

func csvProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: %s", pe.Line, pe.Err)
	}
	return "it could not be read"
}

// bulkProfile is the employer-held profile of a valid line, kept until the
// line is sent (no identification numbers: the file has none).
func bulkProfile(f views.InviteForm) json.RawMessage {
	req := inviteRequest(f)
	return mustJSON(req.KYC.Profile)
}

// templateRows is the downloadable template: the header and two examples.
func templateRows() [][]string {
	return [][]string{
		bulkColumns,
		{"Ada Obi", "ada.obi@example.com", "Ada", "", "Obi", "1992-03-14", "GB", "+447700900123", "female", "10 Example Way", "London",
			"", "SW1A 1AA", "GBR", "employed", "", "Example Ltd", "salary", "1500", "personal"},
		{"Sam Lee", "sam.lee@example.com", "Sam", "", "Lee", "1988-11-02", "US", "+14155550100", "", "1 Market St", "San Francisco",
			"CA", "94105", "USA", "employed", "", "Example Inc", "salary", "", "personal"},
	}
}
