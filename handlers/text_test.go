package handlers_test

import (
	"strings"
	"testing"

	"partneradmin/handlers"
)

func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		in        string
		max       int
		multiline bool
		ok        bool
	}{
		{"Ada Lovelace", 50, false, true},
		{"Ñúñez Øre 名前", 50, false, true},
		{"bad \xff byte", 50, false, false},
		{"nul\x00", 50, false, false},
		{"line\nbreak", 50, false, false},
		{"line\nbreak", 50, true, true},
		{"bell\a", 50, true, false},
		{"Ada\u200b", 50, false, false},
		{"\u202eecilA", 50, false, false},
		{"\ufeffAda", 50, false, false},
		{"soft\u00adhyphen", 50, false, false},
		{"می\u200cخواهم", 50, false, true},
		{"👩\u200d💻", 50, false, true},
		{strings.Repeat("é", 50), 50, false, true},
		{strings.Repeat("é", 51), 50, false, false},
		{strings.Repeat("a", 1<<20), 100, false, false},
	} {
		got := handlers.CheckText(tc.in, tc.max, tc.multiline)
		if (got == "") != tc.ok {
			t.Errorf("CheckText(%.20q, %d, %v) = %q", tc.in, tc.max, tc.multiline, got)
		}
	}
}
