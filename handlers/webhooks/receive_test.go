package webhooks

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"partneradmin/apiclient"
	"partneradmin/handlers/secretbox"
	"partneradmin/store"
)

// Known answer computed independently of Go:
//
//	printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET"
const (
	katSecret    = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff"
	katBody      = `{"id":"evt_kat_1","eventType":"employee.deposit.completed","payload":{"userId":"user-1","amount":"12.50"},"timestamp":"2026-11-22T10:00:00Z"}`
	katSignature = "53074a75075c5a1ddf53b68490417cba32f5057f818ec7b181e5d017dca0cce3"
	// The same body with a trailing newline (printf '%s\n'), also from openssl.
	katSignatureNewline = "cbd86567b0628e051a3f0153820a7c9bbc5ad284dc436cb898c59b2208c33c76"
)

func newTestHandler(t *testing.T) (*Handler, []byte) {
	t.Helper()
	box, err := secretbox.New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := box.Seal(katSecret)
	if err != nil {
		t.Fatal(err)
	}
	return &Handler{Box: box}, sealed
}

func TestSignatureKnownAnswer(t *testing.T) {
	if got := apiclient.SignBody(katSecret, []byte(katBody)); got != katSignature {
		t.Fatalf("SignBody = %s, openssl says %s", got, katSignature)
	}
	h, sealed := newTestHandler(t)
	sub := store.WebhookSubscription{SecretSealed: sealed}

	// A re-serialised body (same JSON value, other bytes) must fail: the
	// signature covers the raw bytes.
	var v any
	if err := json.Unmarshal([]byte(katBody), &v); err != nil {
		t.Fatal(err)
	}
	reserialised, _ := json.MarshalIndent(v, "", " ")
	compact, _ := json.Marshal(v) // keys sorted: differs from the sender's order

	cases := []struct {
		name   string
		body   string
		header string
		want   int
	}{
		{"exact body", katBody, katSignature, http.StatusOK},
		{"upper-case hex", katBody, strings.ToUpper(katSignature), http.StatusOK},
		{"trailing newline in body", katBody + "\n", katSignature, http.StatusUnauthorized},
		{"newline body with its own openssl signature", katBody + "\n", katSignatureNewline, http.StatusOK},
		{"re-serialised JSON (indented)", string(reserialised), katSignature, http.StatusUnauthorized},
		{"re-serialised JSON (sorted keys)", string(compact), katSignature, http.StatusUnauthorized},
		{"missing header", katBody, "", http.StatusUnauthorized},
		{"truncated signature", katBody, katSignature[:62], http.StatusUnauthorized},
		{"one flipped nibble", katBody, "63" + katSignature[2:], http.StatusUnauthorized},
		{"sha256= prefix", katBody, "sha256=" + katSignature, http.StatusUnauthorized},
	}
	for _, c := range cases {
		status, reason := h.verify(sub, []byte(c.body), c.header)
		if status != c.want {
			t.Errorf("%s: status %d (%s), want %d", c.name, status, reason, c.want)
		}
	}
	t.Logf("known answer: HMAC-SHA256(secret %s…, %d-byte body) = %s (openssl)", katSecret[:8], len(katBody), katSignature)
}

func TestVerifyWithoutSecretOrWithWrongKey(t *testing.T) {
	h, sealed := newTestHandler(t)
	if status, _ := h.verify(store.WebhookSubscription{}, []byte(katBody), katSignature); status != http.StatusUnauthorized {
		t.Fatalf("no secret: %d", status)
	}
	other, _ := secretbox.New(bytes.Repeat([]byte{8}, 32))
	h2 := &Handler{Box: other}
	// A secret sealed under another key cannot be opened: 503 so the sender
	// retries once the configuration is fixed, never 401.
	if status, _ := h2.verify(store.WebhookSubscription{SecretSealed: sealed}, []byte(katBody), katSignature); status != http.StatusServiceUnavailable {
		t.Fatalf("wrong key: %d", status)
	}
}

func TestEnvelope(t *testing.T) {
	hd := deliveryHeaders{WebhookID: "evt_kat_1", HasWebhookID: true, SourceEventID: "src_1"}
	d := envelope([]byte(katBody), "evt_kat_1", hd)
	if d.Unparseable || d.EventType != apiclient.EventEmployeeDepositCompleted || d.WebhookID != "evt_kat_1" || d.SourceEventID != "src_1" {
		t.Fatalf("delivery %+v", d)
	}
	for _, body := range []string{`{"id":"x"}`, `{"id":"x","eventType":"y","payload":[1]}`, `{"id":"x","eventType":7}`} {
		d := envelope([]byte(body), "x", deliveryHeaders{})
		if !d.Unparseable || d.WebhookID != "x" || d.Reason == "" {
			t.Errorf("%s: %+v", body, d)
		}
	}
}

// The key is the signed body's id; the header, which the signature does not
// cover, must agree with it when sent.
func TestDeliveryKey(t *testing.T) {
	header := func(v string) deliveryHeaders {
		h := http.Header{}
		h.Set(apiclient.HeaderWebhookID, v)
		return parseHeaders(h)
	}
	cases := []struct {
		name string
		body string
		hd   deliveryHeaders
		key  string
		err  error
	}{
		{"header equals the body's id", katBody, header("evt_kat_1"), "evt_kat_1", nil},
		{"no header", katBody, deliveryHeaders{}, "evt_kat_1", nil},
		{"empty header", katBody, header(" "), "evt_kat_1", nil},
		{"another header id", katBody, header("evt_kat_2"), "", errIDMismatched},
		{"header differs in case", katBody, header("EVT_KAT_1"), "", errIDMismatched},
		{"unusable header id", katBody, header(strings.Repeat("e", 300)), "", errIDMismatched},
		{"id but not an event", `{"id":"evt_x"}`, header("evt_x"), "evt_x", nil},
		{"no id", `{"eventType":"a"}`, header("evt_x"), "", errNoBodyID},
		{"no id, no header", `{"hello":"world"}`, deliveryHeaders{}, "", errNoBodyID},
		{"empty id", `{"id":"","eventType":"a"}`, header("evt_x"), "", errNoBodyID},
		{"numeric id", `{"id":7,"eventType":"a"}`, header("7"), "", errNoBodyID},
		{"id with a space", `{"id":"a b","eventType":"a"}`, header("a"), "", errNoBodyID},
		{"id too long", `{"id":"` + strings.Repeat("e", 201) + `","eventType":"a"}`, deliveryHeaders{}, "", errNoBodyID},
		{"not JSON", `not json`, header("evt_x"), "", errNoBodyID},
		{"array", `[{"id":"evt_x"}]`, header("evt_x"), "", errNoBodyID},
	}
	for _, c := range cases {
		key, err := deliveryKey([]byte(c.body), c.hd)
		if key != c.key || err != c.err {
			t.Errorf("%s: key %q, err %v; want %q, %v", c.name, key, err, c.key, c.err)
		}
	}
}

func FuzzParseHeaders(f *testing.F) {
	f.Add(katSignature, "wh_1", "src_1")
	f.Add("", "", "")
	f.Add(" "+katSignature+" ", strings.Repeat("x", 300), "a b")
	f.Add("zz", "\x00id", "évènement")
	f.Fuzz(func(t *testing.T, sig, id, source string) {
		h := http.Header{}
		h.Set(apiclient.HeaderWebhookSignature, sig)
		h.Set(apiclient.HeaderWebhookID, id)
		h.Set(apiclient.HeaderSourceEventID, source)
		d := parseHeaders(h)
		for _, v := range []string{d.WebhookID, d.SourceEventID} {
			if v != "" && !validID(v) {
				t.Fatalf("invalid id kept: %q", v)
			}
		}
	})
}

func FuzzEnvelope(f *testing.F) {
	f.Add([]byte(katBody), "evt_kat_1")
	f.Add([]byte(katBody), "wh_1")
	f.Add([]byte(`{}`), "")
	f.Add([]byte(`{"id":"a","eventType":"b","payload":null}`), "")
	f.Add([]byte(`{"id":"a","ID":"b","eventType":"employee.linked","payload":{"linkedAt":"nope"}}`), "a")
	f.Add([]byte("\xff\xfe"), "")
	f.Fuzz(func(t *testing.T, body []byte, headerID string) {
		h := http.Header{}
		h.Set(apiclient.HeaderWebhookID, headerID)
		hd := parseHeaders(h)
		key, err := deliveryKey(body, hd)
		if err != nil {
			if key != "" {
				t.Fatalf("refused with a key %q", key)
			}
			return
		}
		if !validID(key) {
			t.Fatalf("unusable key %q", key)
		}
		if hd.HasWebhookID && hd.WebhookID != key {
			t.Fatalf("header %q accepted for key %q", headerID, key)
		}
		d := envelope(body, key, hd)
		if d.WebhookID != key {
			t.Fatalf("stored under %q, key %q", d.WebhookID, key)
		}
		if !d.Unparseable && d.EventType == "" {
			t.Fatal("parsed event without a type")
		}
		if d.Unparseable && (d.Reason == "" || !utf8.ValidString(prettyBody(body)) && utf8.Valid(body)) {
			t.Fatal("unparseable without a reason")
		}
		// Processing's view of the same bytes must agree with the receiver,
		// and the id it sees is the key.
		ev, perr := apiclient.ParseEvent(body)
		if (perr == nil) == d.Unparseable {
			t.Fatalf("receiver and processing disagree: %v %+v", perr, ev)
		}
		if perr == nil && ev.ID != key {
			t.Fatalf("processing sees id %q, stored under %q", ev.ID, key)
		}
	})
}
