package webhooks

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"partneradmin/apiclient"
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
	box, err := NewSecretBox(bytes.Repeat([]byte{7}, 32))
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
	other, _ := NewSecretBox(bytes.Repeat([]byte{8}, 32))
	h2 := &Handler{Box: other}
	// A secret sealed under another key cannot be opened: 503 so the sender
	// retries once the configuration is fixed, never 401.
	if status, _ := h2.verify(store.WebhookSubscription{SecretSealed: sealed}, []byte(katBody), katSignature); status != http.StatusServiceUnavailable {
		t.Fatalf("wrong key: %d", status)
	}
}

func TestSecretBox(t *testing.T) {
	box, _ := NewSecretBox(bytes.Repeat([]byte{1}, 32))
	a, err := box.Seal(katSecret)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := box.Seal(katSecret)
	if bytes.Equal(a, b) {
		t.Fatal("two seals of the same secret are equal: nonce reused")
	}
	if bytes.Contains(a, []byte(katSecret)) {
		t.Fatal("sealed value contains the secret")
	}
	if got, err := box.Open(a); err != nil || got != katSecret {
		t.Fatalf("open: %q %v", got, err)
	}
	tampered := bytes.Clone(b)
	tampered[len(tampered)-1] ^= 1
	if _, err := box.Open(tampered); err == nil {
		t.Fatal("tampered ciphertext opened")
	}
	if _, err := ParseKey("abc"); err == nil {
		t.Fatal("short key accepted")
	}
	if _, err := ParseKey(strings.Repeat("ab", 32)); err != nil {
		t.Fatal(err)
	}
}

func TestEnvelope(t *testing.T) {
	hd := deliveryHeaders{WebhookID: "wh_1", SourceEventID: "src_1"}
	d := envelope([]byte(katBody), hd)
	if d.Unparseable || d.EventType != apiclient.EventEmployeeDepositCompleted || d.WebhookID != "wh_1" || d.SourceEventID != "src_1" {
		t.Fatalf("delivery %+v", d)
	}
	// Without the header the body's id is the key.
	if d := envelope([]byte(katBody), deliveryHeaders{}); d.WebhookID != "evt_kat_1" {
		t.Fatalf("key %q", d.WebhookID)
	}
	for _, body := range []string{`not json`, `{"id":"x"}`, `{"eventType":"a"}`, `[]`, `{"id":"x","eventType":"y","payload":[1]}`} {
		d := envelope([]byte(body), deliveryHeaders{})
		if !d.Unparseable || !strings.HasPrefix(d.WebhookID, "sha256:") || d.Reason == "" {
			t.Errorf("%s: %+v", body, d)
		}
		if again := envelope([]byte(body), deliveryHeaders{}); again.WebhookID != d.WebhookID {
			t.Errorf("%s: key not stable", body)
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
	f.Add([]byte(katBody), "wh_1")
	f.Add([]byte(`{}`), "")
	f.Add([]byte(`{"id":"a","eventType":"b","payload":null}`), "")
	f.Add([]byte(`{"id":"a","eventType":"employee.linked","payload":{"linkedAt":"nope"}}`), "h")
	f.Add([]byte("\xff\xfe"), "")
	f.Fuzz(func(t *testing.T, body []byte, headerID string) {
		hd := deliveryHeaders{}
		if validID(headerID) {
			hd.WebhookID = headerID
		}
		d := envelope(body, hd)
		if !validID(d.WebhookID) && !strings.HasPrefix(d.WebhookID, "sha256:") {
			t.Fatalf("unusable key %q", d.WebhookID)
		}
		if !d.Unparseable && d.EventType == "" {
			t.Fatal("parsed event without a type")
		}
		if d.Unparseable && (d.Reason == "" || !utf8.ValidString(prettyBody(body)) && utf8.Valid(body)) {
			t.Fatal("unparseable without a reason")
		}
		// Processing's view of the same bytes must agree with the receiver.
		if ev, err := apiclient.ParseEvent(body); (err == nil) == d.Unparseable {
			t.Fatalf("receiver and processing disagree: %v %+v", err, ev)
		}
		_ = prettyBody(body)
	})
}
