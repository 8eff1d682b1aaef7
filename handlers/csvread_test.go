package handlers

import (
	"errors"
	"strings"
	"testing"
)

// TestReadCSVSaysQuotingMistakesInWords: the quoting mistakes of a
// hand-edited export are refused with their line and what to do, never
// with encoding/csv's own texts.
func TestReadCSVSaysQuotingMistakesInWords(t *testing.T) {
	header := func(names []string) (map[string]int, error) { return map[string]int{"name": 0, "note": 1}, nil }
	row := func(int, func(string) string) error { return nil }
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"name,note\nAda,a 5\" screen\n", []string{"line 2", "double quote", `"5"" screen"`}},
		{"name,note\nAda,ok\nBea,\"never closed\n", []string{"line 3", "do not close"}},
		{"name,\"note\n", []string{"not a CSV file", "line 1", "do not close"}},
	} {
		err := ReadCSV(strings.NewReader(tc.file), 10, header, row)
		var ce CSVError
		if !errors.As(err, &ce) {
			t.Fatalf("%q: %v, want a CSVError", tc.file, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(ce.Words, w) {
				t.Errorf("%q: %q lacks %q", tc.file, ce.Words, w)
			}
		}
		for _, jargon := range []string{"bare", "non-quoted-field", "extraneous", "parse error"} {
			if strings.Contains(ce.Words, jargon) {
				t.Errorf("%q: %q says %q", tc.file, ce.Words, jargon)
			}
		}
	}
	if err := ReadCSV(strings.NewReader("name,note\n\"Ada, Countess\",\"a \"\"5\"\" screen\"\n"), 10, header, row); err != nil {
		t.Fatalf("a well-quoted file: %v", err)
	}
}

// A Latin-1 file (a spreadsheet's plain "CSV" export) is refused as a whole
// with what to do: save it as UTF-8, not type it again.
func TestReadCSVSaysSaveAsUTF8(t *testing.T) {
	header := func(names []string) (map[string]int, error) { return map[string]int{"name": 0}, nil }
	rows := 0
	row := func(int, func(string) string) error { rows++; return nil }
	for _, file := range []string{"name\nAda\nDiego Mart\xednez\n", "nom\xe9\nAda\n"} {
		err := ReadCSV(strings.NewReader(file), 10, header, row)
		var ce CSVError
		if !errors.As(err, &ce) || !strings.Contains(ce.Words, "save the file as UTF-8") || strings.Contains(ce.Words, "type or paste") {
			t.Errorf("%q: %v", file, err)
		}
	}
	if err := ReadCSV(strings.NewReader("name\nDiego Martínez\n"), 10, header, row); err != nil {
		t.Fatalf("UTF-8: %v", err)
	}
}
