package cards

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"partneradmin/apiclient"
)

func TestNormalizeNigerianPhone(t *testing.T) {
	for in, want := range map[string]string{
		"+2348031234567":   "+2348031234567",
		"2348031234567":    "+2348031234567",
		"08031234567":      "+2348031234567",
		"0803 123 4567":    "+2348031234567",
		"(0803) 123-4567":  "+2348031234567",
		"+234 803 123 456": "",
		"8031234567":       "",
		"+44 20 7946 0958": "",
		"":                 "",
	} {
		got, ok := NormalizeNigerianPhone(in)
		if got != want || ok != (want != "") {
			t.Errorf("%q: %q %v, want %q", in, got, ok, want)
		}
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]string{"1500": "1500", "1,500.50": "1500.5", " 10.00 ": "10", "0.01": "0.01"} {
		d, msg := parseLimit(in)
		if msg != "" || d.String() != want {
			t.Errorf("%q: %s %q", in, d, msg)
		}
	}
	for _, in := range []string{"", "abc", "1e3", "-1", "0", "10.001", "NaN"} {
		if _, msg := parseLimit(in); msg == "" {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestActionsAndExplanations(t *testing.T) {
	for status, want := range map[string]string{"active": "freeze", "ACTIVE": "freeze", "pending": "freeze", "restricted": "freeze",
		"inactive": "freeze", "frozen": "unfreeze", "BLOCKED": "unfreeze", "lost": "", "stolen": "", "canceled": "", "RESERVED": "", "something-new": "freeze"} {
		if got := actionFor(status); got != want {
			t.Errorf("actionFor(%q) = %q, want %q", status, got, want)
		}
	}
	if !strings.Contains(explainRefusal("unfreeze", "pending"), "ACTIVE does not activate") {
		t.Error("pending unfreeze explanation")
	}
	if !strings.Contains(explainRefusal("unfreeze", "lost"), "cannot be unfrozen") || !strings.Contains(explainRefusal("freeze", "stolen"), "cannot be frozen") {
		t.Error("lost/stolen explanation")
	}
	for _, s := range []string{"pending", "active", "frozen", "inactive", "restricted", "lost", "stolen", "canceled", "reserved", "new"} {
		if explainStatus(s) == "" || badge(s, true, nowForTest, nowForTest).Label == "" {
			t.Errorf("%s: no words", s)
		}
	}
}

func TestStatusNotAllowed(t *testing.T) {
	refusal := &apiclient.Error{StatusCode: 500, Messages: []string{"The current status does not allow it"}}
	if !statusNotAllowed(refusal) || !statusNotAllowed(errors.Join(errors.New("wrapped"), refusal)) {
		t.Error("refusal not recognised")
	}
	if statusNotAllowed(&apiclient.Error{StatusCode: 500, Messages: []string{"Internal server error"}}) || statusNotAllowed(errors.New("timeout")) {
		t.Error("other failures taken for a refusal")
	}
}

func TestEntryFromKeepsOnlyFourDigits(t *testing.T) {
	e := entryFrom(apiclient.Card{ID: "c", Last4: "4111111111111111", CardColor: "red", Status: "RESERVED"})
	if e.Last4 != "" || e.CardColor != "" || !e.Reserved {
		t.Fatalf("%+v", e)
	}
	if e := entryFrom(apiclient.Card{ID: "c", Last4: "1111", CardColor: "#abc"}); e.Last4 != "1111" || e.CardColor != "#abc" {
		t.Fatalf("%+v", e)
	}
}

func TestTxnQuery(t *testing.T) {
	q, v := txnQuery(url.Values{"from": {"2026-01-01"}, "to": {"2026-01-31"}, "status": {"completed"}, "page": {"3"}})
	if v.Fields.Any() || q.Size != 60 || q.Status != "COMPLETED" || v.Page != 3 || q.From.IsZero() {
		t.Fatalf("%+v %+v", q, v)
	}
	if _, v := txnQuery(url.Values{"page": {"99"}}); v.Page != 5 {
		t.Fatalf("page capped at %d", v.Page)
	}
	_, v = txnQuery(url.Values{"from": {"01/02/2026"}, "status": {"WHATEVER"}})
	if !v.Fields.Has("from") || !v.Fields.Has("status") {
		t.Fatalf("%+v", v.Fields)
	}
}

var nowForTest = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// TestAPINeverReachesSensitiveData: the area's API interface has no method
// for the sensitive-data endpoints, so no card page can call them.
func TestAPINeverReachesSensitiveData(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[API](), reflect.TypeFor[IndexAPI]()} {
		for i := range typ.NumMethod() {
			if name := typ.Method(i).Name; strings.Contains(name, "Sensitive") || strings.Contains(name, "Identity") {
				t.Errorf("%s has %s", typ, name)
			}
		}
	}
}
