package handlers

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
)

// invisibleFormat reports whether r is a formatting character (Unicode
// category Cf) that shows nothing yet changes what a text is or how it is
// drawn: zero-width spaces, word joiners, byte order marks, soft hyphens and the bidirectional overrides that can make a name or an email
// read differently from what is stored. The zero-width non-joiner and joiner
// (U+200C, U+200D) are kept: Persian, Indic scripts and emoji need them.
func invisibleFormat(r rune) bool {
	return unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d'
}

// CheckText says what is wrong with a text a person typed, "" when
// nothing: it must be valid UTF-8, hold no control characters (a tab or a
// line break only where multiline allows) nor invisible formatting ones,
// and have at most max characters. Every text input is checked with it before anything is stored
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
		if invisibleFormat(r) {
			return fmt.Sprintf("This text holds an invisible formatting character (%U): remove it.", r)
		}
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Sprintf("Keep it to %d characters (it has %d).", max, n)
	}
	return ""
}

// maxEmail is the longest email address, in characters (RFC 5321's path
// limit less its angle brackets).
const maxEmail = 254

// CheckEmail says what is wrong with a typed email address, "" when
// nothing; an empty address is the caller's to refuse with its own words.
// An address is a sign-in name or the place an invite goes, so it must be
// text (CheckText), one plain address (no display name), only ASCII
// characters (a Cyrillic "а" or a Greek "ο" reads like a Latin letter and
// would make a second, look-alike account) and a domain with a dot (the
// Partner API refuses ada@localhost).
func CheckEmail(s string) string {
	if msg := CheckText(s, maxEmail, false); msg != "" {
		return msg
	}
	for _, r := range s {
		if r > unicode.MaxASCII {
			return fmt.Sprintf("An email address here uses Latin letters, digits and ASCII signs only: %q (%U) is not one of them, though it may look like one.", r, r)
		}
	}
	_, domain, _ := strings.Cut(s, "@")
	if a, err := mail.ParseAddress(s); err != nil || a.Address != s || !strings.Contains(domain, ".") {
		return "Enter an email address like name@company.com."
	}
	return ""
}

// Printable is s as it can be shown or stored again whatever was sent:
// bytes that are not UTF-8 and control characters become U+FFFD, and a
// text over max characters is cut there with an ellipsis.
func Printable(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if rs := []rune(s); len(rs) > max {
		s = string(rs[:max]) + "…"
	}
	return s
}
