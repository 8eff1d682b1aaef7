package web

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"unicode"
	"unicode/utf8"

	"partneradmin/handlers"
)

// maxFormBytes bounds a URL-encoded form's body. The largest text a form
// takes is a few thousand characters; file uploads are multipart and
// bounded by their own handler.
const maxFormBytes = 256 << 10

// checkInput refuses, before any handler runs, a request whose query or
// URL-encoded form holds text that is not text: invalid UTF-8, or a control
// character other than tab and line breaks (NUL above all). Such input is
// never stored or sent upstream, and a person gets words instead of a 500.
// Each form still checks its own fields' lengths and formats.
func checkInput(base *handlers.Base) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !cleanValues(r.URL.Query()) || !utf8.ValidString(r.URL.Path) {
				refuseInput(base, w, r, http.StatusBadRequest)
				return
			}
			if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
				ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
				if ct == "application/x-www-form-urlencoded" {
					r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
					if err := r.ParseForm(); err != nil {
						var tooBig *http.MaxBytesError
						if errors.As(err, &tooBig) {
							base.ErrorPage(w, r, http.StatusRequestEntityTooLarge, "Too much text",
								"The form sent more text than any field takes, so nothing was changed. Shorten what you typed and send it again.")
							return
						}
						refuseInput(base, w, r, http.StatusBadRequest)
						return
					}
					if !cleanValues(r.PostForm) {
						refuseInput(base, w, r, http.StatusBadRequest)
						return
					}
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

func refuseInput(base *handlers.Base, w http.ResponseWriter, r *http.Request, status int) {
	base.ErrorPage(w, r, status, "Not text",
		"What was sent holds characters that are not text (bytes that are not valid UTF-8, or an invisible control character such as NUL), so nothing was changed. Type or paste it again.")
}

// cleanValues reports whether every key and value is valid UTF-8 without
// control characters other than tab, CR and LF.
func cleanValues(v url.Values) bool {
	for k, vs := range v {
		if !cleanText(k) {
			return false
		}
		for _, s := range vs {
			if !cleanText(s) {
				return false
			}
		}
	}
	return true
}

func cleanText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\t' || r == '\n' || r == '\r' {
			continue
		}
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
