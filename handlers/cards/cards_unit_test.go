package cards

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/views"
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
	for in, want := range map[string]string{"1500": "1500", "1,500.50": "1500.5", " 10.00 ": "10", "0.01": "0.01",
		"1,000,000": "1000000", "250,000.5": "250000.5"} {
		d, msg := parseLimit(in, "NGN")
		if msg != "" || d.String() != want {
			t.Errorf("%q: %s %q", in, d, msg)
		}
	}
	// A comma that does not group thousands is refused, never stripped
	// ("1,50" is not 150); no more decimals than the currency's kobo or
	// cents.
	for in, want := range map[string]string{"": "Enter an amount", "abc": "such as 1500", "1e3": "such as 1500",
		"-1": "more than zero", "0": "more than zero", "0.00": "more than zero", "NaN": "such as 1500",
		"1,50": "comma only separates thousands", "1,5000": "comma", "12,34,567": "comma", ",500": "comma", "1,500,": "comma",
		"1.500,50": "comma", "10.001": "at most 2 decimal places", "10.000": "at most 2 decimal places", "1.": "such as 1500",
		".5": "such as 1500", "1 500": "such as 1500", "١٥٠٠": "such as 1500"} {
		if _, msg := parseLimit(in, "NGN"); !strings.Contains(msg, want) {
			t.Errorf("%q: %q, want %q", in, msg, want)
		}
	}
	if _, msg := parseLimit("1.234", "USD"); !strings.Contains(msg, "USD amounts have at most 2 decimal places") {
		t.Errorf("USD: %q", msg)
	}
}

func TestActionsForStatuses(t *testing.T) {
	for status, want := range map[views.CardStatus]string{"active": "freeze", "ACTIVE": "freeze", "pending": "freeze", "restricted": "freeze",
		"inactive": "freeze", "frozen": "unfreeze", "BLOCKED": "unfreeze", "lost": "", "stolen": "", "canceled": "", "RESERVED": "",
		"": "", "something-new": "freeze"} {
		if got := actionFor(status); got != want {
			t.Errorf("actionFor(%q) = %q, want %q", status, got, want)
		}
	}
	for _, s := range []views.CardStatus{"pending", "active", "frozen", "BLOCKED", "inactive", "restricted", "lost", "stolen", "canceled", "RESERVED", "new"} {
		if s.Label() == "" || s.Meaning() == "" || strings.Contains(s.Meaning(), "reports the status") != (s == "new") {
			t.Errorf("%s: no words (%q, %q)", s, s.Label(), s.Meaning())
		}
	}
}

func TestCheckText(t *testing.T) {
	for in, want := range map[string]string{"fine": "", "bad\x00": "control", "tab\there": "control", "\xff\xfe": "not text",
		strings.Repeat("é", 201): "at most 200"} {
		if got := checkText(in, 200, "The reason"); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
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
