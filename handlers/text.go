package handlers

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// CheckText says what is wrong with a text a person typed, "" when
// nothing: it must be valid UTF-8, hold no control characters (a tab or a
// line break only where multiline allows), and have at most max
// characters. Every text input is checked with it before anything is stored
// or sent.
func CheckText(s string, max int, multiline bool) string {
	if !utf8.ValidString(s) {
		return "This text has bytes that are not valid UTF-8 characters: type or paste it again."
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Sprintf("This text holds an invisible control character (%U): remove it.", r)
		}
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Sprintf("Keep it to %d characters (it has %d).", max, n)
	}
	return ""
}
