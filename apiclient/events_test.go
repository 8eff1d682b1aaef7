package apiclient

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSignBodyKnownAnswer(t *testing.T) {
	t.Parallel()
	// HMAC-SHA256 of the classic pangram keyed with "key".
	got := SignBody("key", []byte("The quick brown fox jumps over the lazy dog"))
	if want := "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"; got != want {
		t.Fatalf("SignBody = %s, want %s", got, want)
	}
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("0f", 32)
	body := []byte(`{"id":"ev-1","eventType":"employee.linked","payload":{},"timestamp":"2026-01-01T00:00:00Z"}`)
	good := SignBody(secret, body)
	tests := []struct {
		name   string
		secret string
		body   []byte
		header string
		ok     bool
	}{
		{"valid", secret, body, good, true},
		{"upper-case hex and spaces", secret, body, " " + strings.ToUpper(good) + " ", true},
		{"wrong secret", strings.Repeat("1f", 32), body, good, false},
		{"body re-serialised", secret, []byte(strings.ReplaceAll(string(body), ",", ", ")), good, false},
		{"tampered body", secret, []byte(strings.Replace(string(body), "ev-1", "ev-2", 1)), good, false},
		{"empty header", secret, body, "", false},
		{"not hex", secret, body, "sha256=" + good, false},
		{"truncated", secret, body, good[:62], false},
		{"no secret", "", body, SignBody("", body), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := VerifySignature(tc.secret, tc.body, tc.header)
			if tc.ok != (err == nil) {
				t.Fatalf("VerifySignature = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrWebhookSignature) {
				t.Errorf("err = %v, want ErrWebhookSignature", err)
			}
		})
	}
}

func TestParseEvent(t *testing.T) {
	t.Parallel()
	ts := `"timestamp":"2026-01-01T10:00:00Z"`
	tests := []struct {
		name    string
		body    string
		wantErr bool
		check   func(t *testing.T, payload any)
	}{
		{
			name: "employee.linked",
			body: `{"id":"ev-1","eventType":"employee.linked","payload":{"invitationId":"inv-1","serviceUserId":"u-1","companyEmail":"ada@corp.example","partnerName":"Corp","linkedAt":"2026-01-01T09:00:00Z","kycSubmitted":true},` + ts + `}`,
			check: func(t *testing.T, payload any) {
				p := payload.(*EmployeeLinkedPayload)
				if p.ServiceUserID != "u-1" || !p.KYCSubmitted || !p.LinkedAt.Equal(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)) {
					t.Errorf("payload = %+v", p)
				}
			},
		},
		{
			name: "employee deposit",
			body: `{"id":"ev-2","eventType":"employee.deposit.completed","payload":{"userId":"u-1","amount":"100.000001","txHash":"0x1"},` + ts + `}`,
			check: func(t *testing.T, payload any) {
				p := payload.(*MoneyMovementPayload)
				if p.UserID != "u-1" || !p.Amount.Equal(dec("100.000001")) {
					t.Errorf("payload = %+v", p)
				}
			},
		},
		{
			name:  "legacy wallet withdrawal",
			body:  `{"id":"ev-3","eventType":"wallet.withdrawal.failed","payload":{"userId":"u-2","amount":"5"},` + ts + `}`,
			check: func(t *testing.T, payload any) { wantEq(t, payload.(*MoneyMovementPayload).UserID, "u-2") },
		},
		{
			name: "card transaction with decimal strings",
			body: `{"id":"ev-4","eventType":"card.transaction.created","payload":{"amount":"12345678901234567.89","fee":"0.10"},` + ts + `}`,
			check: func(t *testing.T, payload any) {
				p := payload.(*CardTransactionPayload)
				if p.Amount.String() != "12345678901234567.89" || !p.Fee.Equal(dec("0.1")) {
					t.Errorf("payload = %+v", p)
				}
			},
		},
		{
			name: "unknown type kept raw",
			body: `{"id":"ev-5","eventType":"card.fulfillment.updated","payload":{"stage":"shipped","n":1},` + ts + `}`,
			check: func(t *testing.T, payload any) {
				raw := payload.(RawPayload)
				var m map[string]any
				if err := json.Unmarshal(raw, &m); err != nil || m["stage"] != "shipped" {
					t.Errorf("raw payload = %s", raw)
				}
			},
		},
		{
			name: "future event type kept raw",
			body: `{"id":"ev-6","eventType":"employee.promoted","payload":{"x":true},` + ts + `}`,
			check: func(t *testing.T, payload any) {
				if _, ok := payload.(RawPayload); !ok {
					t.Errorf("payload type %T", payload)
				}
			},
		},
		{name: "missing id", body: `{"eventType":"employee.linked","payload":{}}`, wantErr: true},
		{name: "missing eventType", body: `{"id":"ev-7","payload":{}}`, wantErr: true},
		{name: "payload not an object", body: `{"id":"ev-8","eventType":"x","payload":[1]}`, wantErr: true},
		{name: "not JSON", body: `id=ev-9`, wantErr: true},
		{name: "bad timestamp", body: `{"id":"ev-10","eventType":"x","payload":{},"timestamp":"yesterday"}`, wantErr: true},
		{name: "typed payload of wrong shape", body: `{"id":"ev-11","eventType":"card.transaction.created","payload":{"amount":"twelve"}}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ParseEvent([]byte(tc.body))
			var payload any
			if err == nil {
				payload, err = ev.Decode()
			}
			if tc.wantErr {
				if err == nil || !errors.Is(err, ErrEvent) {
					t.Fatalf("err = %v, want ErrEvent", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Timestamp.IsZero() {
				t.Error("timestamp not decoded")
			}
			tc.check(t, payload)
		})
	}
}

func FuzzParseEvent(f *testing.F) {
	seeds := []string{
		`{"id":"ev-1","eventType":"employee.linked","payload":{"serviceUserId":"u-1","kycSubmitted":true},"timestamp":"2026-01-01T00:00:00Z"}`,
		`{"id":"ev-2","eventType":"employee.deposit.completed","payload":{"userId":"u","amount":"1.5"}}`,
		`{"id":"ev-3","eventType":"card.transaction.created","payload":{"amount":"1","fee":"0"}}`,
		`{"id":"ev-4","eventType":"card.transaction.created","payload":null}`,
		`{"id":"ev-5","eventType":"x","payload":"str"}`,
		`{"id":"","eventType":""}`,
		`[]`,
		`{"amount":1e999999999}`,
		``,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := ParseEvent(body)
		if err != nil {
			if !errors.Is(err, ErrEvent) {
				t.Fatalf("error %v is not ErrEvent", err)
			}
			return
		}
		if ev.ID == "" || ev.EventType == "" {
			t.Fatalf("accepted event without id or type: %+v", ev)
		}
		if _, err := ev.Decode(); err != nil && !errors.Is(err, ErrEvent) {
			t.Fatalf("Decode error %v is not ErrEvent", err)
		}
		// Signing is over raw bytes, whatever they hold.
		if VerifySignature("s", body, SignBody("s", body)) != nil {
			t.Fatal("a body's own signature does not verify")
		}
	})
}
