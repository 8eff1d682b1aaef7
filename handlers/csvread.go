package handlers

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// CSVError is a problem with an uploaded file as a whole, in words for the
// person who sent it.
type CSVError struct{ Words string }

func (e CSVError) Error() string { return e.Words }

// FileNotAccepted is the words for a file refused as a whole (a CSVError
// in err), and whether err is one.
func FileNotAccepted(err error) (string, bool) {
	var ce CSVError
	if !errors.As(err, &ce) {
		return "", false
	}
	return "The file was not accepted: " + ce.Words + ".", true
}

// ReadCSV reads an uploaded CSV file: the header's column names (a BOM
// dropped, trimmed, in lower case, each checked as text) go to header,
// which returns where each known column is; then every row that is not
// blank goes to row with its line in the file and a getter by column name
// ("" for a column the file lacks). More than maxRows rows is refused.
// Problems with the file itself are CSVError; header's and row's errors are
// returned as they are. It is the one CSV upload reader of the app.
func ReadCSV(r io.Reader, maxRows int, header func(names []string) (map[string]int, error),
	row func(line int, get func(name string) string) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return CSVError{"the file is empty; start from the template"}
	}
	if err != nil {
		return CSVError{"the file is not a CSV file (" + csvProblem(err) + ")"}
	}
	if len(head) > 0 && (strings.HasPrefix(head[0], "\xff\xfe") || strings.HasPrefix(head[0], "\xfe\xff")) {
		// A spreadsheet's "Unicode text": every other byte is a NUL.
		return CSVError{"the file is UTF-16 text, not CSV UTF-8; save it again as CSV UTF-8 (comma delimited) from the template"}
	}
	names := make([]string, len(head))
	for i, h := range head {
		// Checked before lower-casing, which would turn bytes that are
		// not UTF-8 into U+FFFD and hide them.
		name := strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if !utf8.ValidString(name) {
			return CSVError{notUTF8(1)}
		}
		if msg := CheckText(name, 100, false); msg != "" {
			return CSVError{fmt.Sprintf("column %d of the header is not a column name (%s) Save the file as CSV UTF-8 from the template", i+1, msg)}
		}
		names[i] = strings.ToLower(name)
	}
	index, err := header(names)
	if err != nil {
		return err
	}
	rows := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return CSVError{csvProblem(err)}
		}
		line, _ := cr.FieldPos(0)
		if blankRecord(rec) {
			continue
		}
		if !utf8Record(rec) {
			return CSVError{notUTF8(line)}
		}
		if n := valuesBeyond(rec, len(head)); n > 0 {
			return CSVError{fmt.Sprintf("line %d has %d values but the header names %d columns; a value holding a comma, as 1,000.50, must be in double quotes (\"1,000.50\")",
				line, len(head)+n, len(head))}
		}
		if rows == maxRows {
			return CSVError{fmt.Sprintf("more than %d rows; split the file", maxRows)}
		}
		rows++
		get := func(name string) string {
			i, ok := index[name]
			if !ok || i >= len(rec) {
				return ""
			}
			return rec[i]
		}
		if err := row(line, get); err != nil {
			return err
		}
	}
}

// valuesBeyond counts the values of rec past its first columns, up to its
// last value that is not blank: values a header does not name, which
// would be dropped unread (an unquoted comma splits one value in two).
// Empty trailing cells, as spreadsheets save, are not values.
func valuesBeyond(rec []string, columns int) int {
	for i := len(rec) - 1; i >= columns; i-- {
		if strings.TrimSpace(rec[i]) != "" {
			return i + 1 - columns
		}
	}
	return 0
}

// notUTF8 is the words for a file whose text is not UTF-8: most often a
// spreadsheet's "CSV" export in Latin-1 or Windows-1252, where "í" is one
// byte that UTF-8 does not read.
func notUTF8(line int) string {
	return fmt.Sprintf("line %d has characters that are not UTF-8 (the file was probably saved as Latin-1 or Windows-1252); save the file as UTF-8 (in a spreadsheet: CSV UTF-8) and upload it again", line)
}

func utf8Record(rec []string) bool {
	for _, v := range rec {
		if !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

func blankRecord(rec []string) bool {
	for _, v := range rec {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

// csvProblem is a reader's error in words, with the line where it is.
// encoding/csv's own texts ("bare \" in non-quoted-field") are for
// programmers: the quoting mistakes people make in a spreadsheet export
// are said plainly.
func csvProblem(err error) string {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return "it could not be read"
	}
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return fmt.Sprintf("line %d has a double quote inside a value that does not start with one; put the whole value in double quotes and double the quote inside it (\"5\"\" screen\")", pe.Line)
	case errors.Is(pe.Err, csv.ErrQuote):
		return fmt.Sprintf("line %d has a value whose double quotes do not close; close the quote, or double a quote inside the value", pe.StartLine)
	}
	return fmt.Sprintf("line %d cannot be read as CSV; save the file as CSV UTF-8 from the template", pe.Line)
}
