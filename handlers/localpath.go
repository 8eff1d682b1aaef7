package handlers

import (
	"net/url"
	"strings"
)

// SafeLocalPath keeps a redirect or a back link on this site (the login's
// next, a form's return_to): it returns next when a browser would resolve
// it to a path of this origin, and "/" otherwise.
// Browsers remove tab, CR and LF anywhere in a URL and read a backslash as a
// slash, so "/\t/evil.com" and "/\evil.com" are "//evil.com": another host.
// The check is made on next as the browser will read it, and again after
// each round of percent-decoding, so that an encoded "//" or "/\" cannot
// turn into one further along (a proxy or a later redirect that decodes).
func SafeLocalPath(next string) string {
	next = stripTabsAndNewlines(next)
	if !startsLocal(next) {
		return "/"
	}
	for _, r := range next {
		if r == '\\' || r < 0x20 || r == 0x7f {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	// Each decoding that changes s shortens it, so this ends. A string
	// that no longer decodes is left as it is by browsers too.
	for s := next; ; {
		d, err := url.PathUnescape(s)
		if err != nil || d == s {
			break
		}
		if !startsLocal(stripTabsAndNewlines(d)) {
			return "/"
		}
		s = d
	}
	return next
}

// startsLocal reports whether s starts with one slash and is not followed
// by another or a backslash (which would name a host).
func startsLocal(s string) bool {
	return len(s) > 0 && s[0] == '/' && !strings.HasPrefix(s, "//") && !strings.HasPrefix(s, `/\`)
}

func stripTabsAndNewlines(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}
