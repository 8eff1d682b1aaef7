package apiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors. An *Error (and a local FieldErrors) matches them with
// errors.Is, so callers can write errors.Is(err, apiclient.ErrNotFound) or
// use the Is* helpers below.
var (
	ErrUnauthorized = errors.New("apiclient: unauthorized")
	ErrForbidden    = errors.New("apiclient: forbidden")
	ErrNotFound     = errors.New("apiclient: not found")
	ErrConflict     = errors.New("apiclient: conflict")
	ErrValidation   = errors.New("apiclient: validation failed")
	ErrNotReady     = errors.New("apiclient: not ready yet")
)

// Operation names carried in Error.Op that error classification depends on.
const (
	opGetSignPayload     = "GetSignPayload"
	opGetCardSignPayload = "GetCardSignPayload"
	opCreateCard         = "CreateCard"
)

// Error is a non-2xx answer from the API.
//
// spec: "Error body: { statusCode: integer, message: string or string[],
// error: string (HTTP status name) }" and errors passed through from upstream
// "may instead carry a code (for example E101) and lack error". Match on
// StatusCode and Op, not on Code or message wording, which the spec calls
// unstable.
type Error struct {
	// Op is the client method that made the call, e.g. "GetSignPayload".
	Op string
	// Method and Path are the HTTP method and request path. Sensitive path
	// segments (BVN, NIN) are replaced by [redacted].
	Method string
	Path   string
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Messages holds every entry of the body's message, whether it was a
	// string or an array (validation failures have one entry per field).
	Messages []string
	// Code is the upstream code such as "E101", when present.
	Code string
	// Name is the body's "error" field, the HTTP status name, when present.
	Name string
	// Body is a short plain-text excerpt of a body that was not the JSON
	// error shape (an HTML page from a proxy, say); empty otherwise.
	Body string
}

// Error formats the status, messages and code. It never contains the API
// key or a request body.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("apiclient: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if len(e.Messages) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(e.Messages, "; "))
	} else if e.Body != "" {
		b.WriteString(": non-JSON response: ")
		b.WriteString(e.Body)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " (code %s)", e.Code)
	}
	return b.String()
}

// Message is all messages joined by "; ".
func (e *Error) Message() string { return strings.Join(e.Messages, "; ") }

// Is matches the sentinel errors by status (and, for ErrNotReady, by
// operation).
func (e *Error) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrValidation:
		return e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity
	case ErrNotReady:
		// spec: sign-payload "Before that it returns 404 (or 409 on the card
		// issuance route); both mean not ready, so poll."
		switch e.Op {
		case opGetSignPayload, opGetCardSignPayload:
			return e.StatusCode == http.StatusNotFound || e.StatusCode == http.StatusConflict
		case opCreateCard:
			return e.StatusCode == http.StatusConflict
		}
	}
	return false
}

// Fields maps the messages to the fields they name, for showing each next to
// its form field. Validation messages begin with the field's name
// ("cardName must be shorter than or equal to 50 characters",
// "BVN must be exactly 11 digits"); messages that name no field are kept under
// the empty key.
func (e *Error) Fields() FieldErrors {
	f := FieldErrors{}
	for _, m := range e.Messages {
		f.add(fieldOfMessage(m), m)
	}
	return f
}

// fieldOfMessage returns the field a validation message starts with, or "".
func fieldOfMessage(m string) string {
	tok, _, ok := strings.Cut(strings.TrimSpace(m), " ")
	if !ok || tok == "" {
		return ""
	}
	for _, r := range tok {
		if !(r == '.' || r == '_' || r == '[' || r == ']' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return ""
		}
	}
	first, _ := utf8.DecodeRuneInString(tok)
	switch {
	case unicode.IsLower(first):
		return tok // camelCase field path such as profile.personalInfo.firstName
	case len(tok) <= 4 && strings.ToUpper(tok) == tok:
		return strings.ToLower(tok) // BVN, NIN, PIN, PAN: the spec's field names are lower case
	}
	return "" // an English sentence such as "User not found"
}

// decodeError builds an Error from a response body of any shape.
func decodeError(status int, raw []byte) *Error {
	e := &Error{StatusCode: status}
	trimmed := bytes.TrimSpace(raw)
	var body struct {
		StatusCode int             `json:"statusCode"`
		Message    json.RawMessage `json:"message"`
		Error      json.RawMessage `json:"error"`
		Code       json.RawMessage `json:"code"`
	}
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &body) == nil {
		e.Messages = rawMessages(body.Message)
		e.Name = rawString(body.Error)
		e.Code = rawString(body.Code)
		if len(e.Messages) == 0 && e.Name != "" && e.Name != http.StatusText(status) {
			// Some upstreams put the description in "error" instead.
			e.Messages = []string{e.Name}
		}
		return e
	}
	e.Body = excerpt(trimmed)
	return e
}

// rawMessages reads message as a string, an array (of strings or of
// anything else, kept as JSON text), or any other value.
func rawMessages(raw json.RawMessage) []string {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		out := make([]string, 0, len(arr))
		for _, item := range arr {
			if m := rawString(item); m != "" {
				out = append(out, m)
			}
		}
		return out
	}
	return []string{string(raw)}
}

// rawString is a JSON string's value, or the JSON text of any other value.
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// excerpt turns a non-JSON body into one short line: an HTML page's title
// (or its text), else the text itself.
func excerpt(raw []byte) string {
	s := string(raw)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	lower := strings.ToLower(s)
	if i := strings.Index(lower, "<title>"); i >= 0 {
		if j := strings.Index(lower[i:], "</title>"); j > 0 {
			s = s[i+len("<title>") : i+j]
		}
	} else if strings.HasPrefix(strings.TrimSpace(lower), "<") {
		s = stripTags(s)
	}
	s = strings.Join(strings.Fields(s), " ")
	const limit = 200
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit]) + "…"
	}
	if s == "" && len(raw) == 0 {
		return ""
	}
	if s == "" {
		return "(unreadable body)"
	}
	return s
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FieldErrors maps a field name (the JSON path of the request field, such as
// "cardName" or "bankDetails.accountNumber") to what is wrong with it. It is
// returned by every Validate method, before anything is sent, and lists every
// invalid field at once, as the API does.
type FieldErrors map[string]string

// Error lists the fields in name order.
func (f FieldErrors) Error() string { return "apiclient: invalid request: " + f.List() }

// List is what is wrong, field by field in name order, for a person.
func (f FieldErrors) List() string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if k == "" {
			parts = append(parts, f[k])
			continue
		}
		parts = append(parts, k+": "+f[k])
	}
	return strings.Join(parts, "; ")
}

// Is makes errors.Is(err, ErrValidation) true.
func (f FieldErrors) Is(target error) bool { return target == ErrValidation }

func (f FieldErrors) add(field, msg string) {
	if prev, ok := f[field]; ok {
		f[field] = prev + "; " + msg
		return
	}
	f[field] = msg
}

// err returns f as an error, or nil when it is empty (never a typed nil).
func (f FieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return f
}

// IsForbidden reports a 403, such as another partner's user.
func IsForbidden(err error) bool { return errors.Is(err, ErrForbidden) }

// IsNotFound reports a 404. Note that a deleted user and another partner's
// transfer recipient are also 404 (spec, Authentication rule 2).
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// IsConflict reports a 409, including a *UserConflictError from CreateUser.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// IsNotReady reports that a sign payload is not available yet (404 or 409
// from GetSignPayload or GetCardSignPayload, 409 from CreateCard): poll
// again.
func IsNotReady(err error) bool { return errors.Is(err, ErrNotReady) }

// ValidationFields returns the per-field messages of a validation error (see
// ErrValidation), or nil when err is not one.
func ValidationFields(err error) FieldErrors {
	var f FieldErrors
	if errors.As(err, &f) {
		return f
	}
	var e *Error
	if errors.As(err, &e) && errors.Is(e, ErrValidation) {
		return e.Fields()
	}
	return nil
}

// StatusCode returns the HTTP status of an *Error in err's chain, or 0.
func StatusCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}
