package apiclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestErrorRows decodes one response per row of the spec's Errors table and
// checks the classification the app relies on.
func TestErrorRows(t *testing.T) {
	t.Parallel()
	getSignPayload := func(ctx context.Context, c *Client) error { _, err := c.GetSignPayload(ctx, "u-1", "p-1"); return err }
	getCard := func(ctx context.Context, c *Client) error { _, err := c.GetCard(ctx, "u-1", "c-1"); return err }
	deleteUser := func(ctx context.Context, c *Client) error { _, err := c.DeleteUser(ctx, "u-1"); return err }
	setStatus := func(ctx context.Context, c *Client) error {
		return c.SetCardStatus(ctx, "u-1", "c-1", SetCardStatusRequest{Status: CardActive})
	}
	createCard := func(ctx context.Context, c *Client) error {
		_, err := c.CreateCard(ctx, "u-1", CreateCardRequest{CardName: "A", CardColor: "#fff", Currency: NGN, Type: "virtual", SmartWalletID: "w-1"})
		return err
	}
	createWebhook := func(ctx context.Context, c *Client) error {
		_, err := c.CreateWebhookConfig(ctx, CreateWebhookConfigRequest{CallbackURL: "https://x.example/h", Events: []string{EventEmployeeLinked}})
		return err
	}
	type flags struct{ unauthorized, forbidden, notFound, conflict, validation, notReady bool }
	tests := []struct {
		name         string
		call         func(context.Context, *Client) error
		status       int
		body         string
		wantMessages []string
		wantCode     string
		wantName     string
		wantFields   FieldErrors
		want         flags
	}{
		{
			name: "BVN string message", call: getCard, status: 400,
			body:         `{"statusCode":400,"message":"BVN must be exactly 11 digits","error":"Bad Request"}`,
			wantMessages: []string{"BVN must be exactly 11 digits"}, wantName: "Bad Request",
			wantFields: FieldErrors{"bvn": "BVN must be exactly 11 digits"}, want: flags{validation: true},
		},
		{
			name: "NIN string message", call: createCard, status: 400,
			body:         `{"statusCode":400,"message":"NIN must be exactly 11 digits","error":"Bad Request"}`,
			wantMessages: []string{"NIN must be exactly 11 digits"}, wantName: "Bad Request",
			wantFields: FieldErrors{"nin": "NIN must be exactly 11 digits"}, want: flags{validation: true},
		},
		{
			name: "array of field messages", call: createCard, status: 400,
			body:         `{"statusCode":400,"message":["cardName must be shorter than or equal to 50 characters","cardColor must be a hex colour","profile.personalInfo.firstName should not be empty"],"error":"Bad Request"}`,
			wantMessages: []string{"cardName must be shorter than or equal to 50 characters", "cardColor must be a hex colour", "profile.personalInfo.firstName should not be empty"},
			wantName:     "Bad Request",
			wantFields: FieldErrors{
				"cardName":                       "cardName must be shorter than or equal to 50 characters",
				"cardColor":                      "cardColor must be a hex colour",
				"profile.personalInfo.firstName": "profile.personalInfo.firstName should not be empty",
			},
			want: flags{validation: true},
		},
		{
			name: "transfer without recipient", call: getCard, status: 400,
			body:         `{"statusCode":400,"message":"Either toUserId or toAddress must be provided","error":"Bad Request"}`,
			wantMessages: []string{"Either toUserId or toAddress must be provided"}, wantName: "Bad Request",
			wantFields: FieldErrors{"": "Either toUserId or toAddress must be provided"}, want: flags{validation: true},
		},
		{
			name: "recipient without active account", call: getCard, status: 400,
			body:         `{"statusCode":400,"message":"Recipient has no active account in CNGN","error":"Bad Request"}`,
			wantMessages: []string{"Recipient has no active account in CNGN"}, wantName: "Bad Request", want: flags{validation: true},
		},
		{
			name: "E101 balances exist: code without error", call: deleteUser, status: 400,
			body:         `{"statusCode":400,"message":"Balances exist in wallets","code":"E101"}`,
			wantMessages: []string{"Balances exist in wallets"}, wantCode: "E101", want: flags{validation: true},
		},
		{
			name: "E101 not enrolled for cards", call: createCard, status: 400,
			body:         `{"statusCode":400,"message":["Card owner is not enrolled for cards"],"code":"E101"}`,
			wantMessages: []string{"Card owner is not enrolled for cards"}, wantCode: "E101", want: flags{validation: true},
		},
		{
			name: "card status not allowed", call: setStatus, status: 400,
			body:         `{"statusCode":400,"message":"status must be one of the following values: BLOCKED, ACTIVE","error":"Bad Request"}`,
			wantMessages: []string{"status must be one of the following values: BLOCKED, ACTIVE"}, wantName: "Bad Request",
			wantFields: FieldErrors{"status": "status must be one of the following values: BLOCKED, ACTIVE"}, want: flags{validation: true},
		},
		{
			name: "Mexico activation refused", call: getCard, status: 400,
			body:         `{"statusCode":400,"message":"Profile not approved or RFC missing","error":"Bad Request"}`,
			wantMessages: []string{"Profile not approved or RFC missing"}, wantName: "Bad Request", want: flags{validation: true},
		},
		{
			name: "reactivation after 90 days", call: getCard, status: 400,
			body:         `{"statusCode":400,"message":"Account was deleted over 90 days ago; contact support","error":"Bad Request"}`,
			wantMessages: []string{"Account was deleted over 90 days ago; contact support"}, wantName: "Bad Request", want: flags{validation: true},
		},
		{
			name: "unauthorized", call: getCard, status: 401,
			body:         `{"statusCode":401,"message":"Unauthorized"}`,
			wantMessages: []string{"Unauthorized"}, want: flags{unauthorized: true},
		},
		{
			name: "invalid webhook signature", call: getCard, status: 401,
			body:         `{"statusCode":401,"message":"Invalid webhook signature","error":"Unauthorized"}`,
			wantMessages: []string{"Invalid webhook signature"}, wantName: "Unauthorized", want: flags{unauthorized: true},
		},
		{
			name: "another partner's user", call: getCard, status: 403,
			body:         `{"statusCode":403,"message":"User does not belong to this partner","error":"Forbidden"}`,
			wantMessages: []string{"User does not belong to this partner"}, wantName: "Forbidden", want: flags{forbidden: true},
		},
		{
			name: "user not found", call: getCard, status: 404,
			body:         `{"statusCode":404,"message":"User not found","error":"Not Found"}`,
			wantMessages: []string{"User not found"}, wantName: "Not Found", want: flags{notFound: true},
		},
		{
			name: "sign payload not ready (404)", call: getSignPayload, status: 404,
			body:         `{"statusCode":404,"message":"requested item could not be found","code":"E404"}`,
			wantMessages: []string{"requested item could not be found"}, wantCode: "E404", want: flags{notFound: true, notReady: true},
		},
		{
			name: "same 404 elsewhere is not 'not ready'", call: getCard, status: 404,
			body:         `{"statusCode":404,"message":"requested item could not be found"}`,
			wantMessages: []string{"requested item could not be found"}, want: flags{notFound: true},
		},
		{
			name: "no webhook config", call: getCard, status: 404,
			body:         `{"statusCode":404,"message":"No webhook config found","error":"Not Found"}`,
			wantMessages: []string{"No webhook config found"}, wantName: "Not Found", want: flags{notFound: true},
		},
		{
			name: "no Nigerian account matches", call: getCard, status: 404,
			body:         `{"statusCode":404,"message":"No account matches the details","error":"Not Found"}`,
			wantMessages: []string{"No account matches the details"}, wantName: "Not Found", want: flags{notFound: true},
		},
		{
			name: "webhook config exists", call: createWebhook, status: 409,
			body:         `{"statusCode":409,"message":"Webhook config already exists for this partner scope. Use PATCH to update.","error":"Conflict"}`,
			wantMessages: []string{"Webhook config already exists for this partner scope. Use PATCH to update."}, wantName: "Conflict", want: flags{conflict: true},
		},
		{
			name: "sign payload on card issuance route (409)", call: getSignPayload, status: 409,
			body:         `{"statusCode":409,"message":"Sign payload not ready","error":"Conflict"}`,
			wantMessages: []string{"Sign payload not ready"}, wantName: "Conflict", want: flags{conflict: true, notReady: true},
		},
		{
			name: "card issuance route sign payload 409", call: func(ctx context.Context, c *Client) error {
				_, err := c.GetCardSignPayload(ctx, "u-1", "p-c")
				return err
			}, status: 409,
			body:         `{"statusCode":409,"message":"Sign payload is not ready yet; keep polling","error":"Conflict"}`,
			wantMessages: []string{"Sign payload is not ready yet; keep polling"}, wantName: "Conflict", want: flags{conflict: true, notReady: true},
		},
		{
			name: "card create 409 is not ready", call: createCard, status: 409,
			body:         `{"statusCode":409,"message":"Sign payload not ready; keep polling"}`,
			wantMessages: []string{"Sign payload not ready; keep polling"}, want: flags{conflict: true, notReady: true},
		},
		{
			name: "point is not on curve", call: deleteUser, status: 500,
			body:         `{"statusCode":500,"message":"Point is not on curve","error":"Internal Server Error"}`,
			wantMessages: []string{"Point is not on curve"}, wantName: "Internal Server Error",
		},
		{
			name: "invalid yParityOrV", call: deleteUser, status: 500,
			body:         `{"statusCode":500,"message":"Invalid yParityOrV"}`,
			wantMessages: []string{"Invalid yParityOrV"},
		},
		{
			name: "card transition refused", call: setStatus, status: 500,
			body:         `{"statusCode":500,"message":"The current status does not allow it"}`,
			wantMessages: []string{"The current status does not allow it"},
		},
		{
			name: "balances could not be verified", call: deleteUser, status: 503,
			body:         `{"statusCode":503,"message":"Balances could not be verified","error":"Service Unavailable"}`,
			wantMessages: []string{"Balances could not be verified"}, wantName: "Service Unavailable",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t, tc.status, tc.body)
			err := tc.call(context.Background(), f.client(t))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if e.StatusCode != tc.status || e.Code != tc.wantCode || e.Name != tc.wantName {
				t.Errorf("status/code/name = %d/%q/%q, want %d/%q/%q", e.StatusCode, e.Code, e.Name, tc.status, tc.wantCode, tc.wantName)
			}
			wantEq(t, e.Messages, tc.wantMessages)
			got := flags{errors.Is(err, ErrUnauthorized), IsForbidden(err), IsNotFound(err), IsConflict(err), errors.Is(err, ErrValidation), IsNotReady(err)}
			if got != tc.want {
				t.Errorf("classification = %+v, want %+v", got, tc.want)
			}
			if tc.wantFields != nil {
				wantEq(t, ValidationFields(err), tc.wantFields)
			}
			if e.Method == "" || !strings.HasPrefix(e.Path, "/v1/") || e.Op == "" {
				t.Errorf("error lacks its endpoint: %+v", e)
			}
			for _, m := range tc.wantMessages {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("Error() = %q, lacks %q", err.Error(), m)
				}
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("Error() contains the API key: %q", err.Error())
			}
			// Writes are never retried, and neither is a 4xx.
			f.mu.Lock()
			n := len(f.requests)
			f.mu.Unlock()
			if n != 1 {
				t.Errorf("server saw %d attempts, want 1", n)
			}
		})
	}
}

func TestNonJSONErrorBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"HTML 502 from a proxy", "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr>nginx</body></html>", 502, "non-JSON response: 502 Bad Gateway"},
		{"HTML without title", "<html><body><h1>Gateway   Timeout</h1></body></html>", 504, "non-JSON response: Gateway Timeout"},
		{"plain text", "upstream connect error", 503, "non-JSON response: upstream connect error"},
		{"empty body", "", 500, "500 Internal Server Error"},
		{"JSON of another shape", `{"detail":"nope"}`, 400, "400 Bad Request"},
		{"message of numbers", `{"statusCode":400,"message":[1,{"a":2}]}`, 400, `1; {"a":2}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t, tc.status, tc.body)
			c := f.client(t, WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
			_, err := c.GetCard(context.Background(), "u-1", "c-1")
			var e *Error
			if !errors.As(err, &e) || e.StatusCode != tc.status {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Error() = %q, want it to contain %q", err.Error(), tc.want)
			}
		})
	}
}

func TestFieldOfMessage(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"cardName must be shorter than or equal to 50 characters": "cardName",
		"bankDetails.accountNumber should not be empty":           "bankDetails.accountNumber",
		"PIN must be exactly 4 digits":                            "pin",
		"User not found":                                          "",
		"Unauthorized":                                            "",
		"identificationNumbers[0].number must be a string":        "identificationNumbers[0].number",
		"": "",
	}
	for msg, want := range tests {
		if got := fieldOfMessage(msg); got != want {
			t.Errorf("fieldOfMessage(%q) = %q, want %q", msg, got, want)
		}
	}
}

func FuzzDecodeError(f *testing.F) {
	seeds := []string{
		`{"statusCode":400,"message":"BVN must be exactly 11 digits","error":"Bad Request"}`,
		`{"statusCode":400,"message":["a must be x","b must be y"],"error":"Bad Request"}`,
		`{"statusCode":400,"message":"Balances exist","code":"E101"}`,
		`{"statusCode":500,"message":null}`,
		`{"message":{"nested":true},"code":7}`,
		`<html><title>502 Bad Gateway</title></html>`,
		`<html><title>unterminated`,
		"\xff\xfe not utf8",
		``,
		`[]`,
	}
	for _, s := range seeds {
		f.Add(502, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := decodeError(status, body)
		if e.StatusCode != status {
			t.Fatalf("status %d lost", status)
		}
		msg := e.Error()
		if msg == "" {
			t.Fatal("empty error string")
		}
		if len(e.Body) > 1000 {
			t.Fatalf("excerpt too long: %d", len(e.Body))
		}
		_ = e.Fields()
	})
}

func TestRedactionOfSecrets(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	f := newFakeAPI(t, http.StatusNotFound, `{"statusCode":404,"message":"Lookup of a number that is not a sandbox test persona"}`)
	c := f.client(t, WithLogger(newTestLogger(&logs)))
	_, err := c.LookupBVN(context.Background(), "u-1", "12345678901")
	if !IsNotFound(err) {
		t.Fatalf("err = %v", err)
	}
	r := f.only(t)
	if r.path != "/v1/users/u-1/kyc/bvn-lookup/12345678901" {
		t.Errorf("path = %s", r.path)
	}
	for what, s := range map[string]string{"error": err.Error(), "logs": logs.String()} {
		if strings.Contains(s, "12345678901") {
			t.Errorf("%s contain the BVN: %s", what, s)
		}
		if strings.Contains(s, testKey) {
			t.Errorf("%s contain the API key: %s", what, s)
		}
	}
	if !strings.Contains(logs.String(), "bvn-lookup/[redacted]") {
		t.Errorf("logs lack the redacted path: %s", logs.String())
	}
}

func TestTransportFailureLogsNoSecrets(t *testing.T) {
	t.Parallel()
	srv, _ := scriptedServer(t, scriptedReply{hangUp: true})
	var logs syncWriter
	c, _ := New(srv.URL, testKey, WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}), WithLogger(newTestLogger(&logs)))
	_, err := c.LookupBVN(context.Background(), "u-1", "22222222222")
	if err == nil || StatusCode(err) != 0 {
		t.Fatalf("err = %v, want a transport error", err)
	}
	_, err2 := c.LookupUserByEmail(context.Background(), "ada@example.com")
	for what, s := range map[string]string{"error": err.Error() + err2.Error(), "logs": logs.String()} {
		for _, secret := range []string{"22222222222", "ada@example.com", testKey} {
			if strings.Contains(s, secret) {
				t.Errorf("%s contain %q: %s", what, secret, s)
			}
		}
	}
	if !strings.Contains(logs.String(), "request failed") {
		t.Errorf("failure not logged: %s", logs.String())
	}
}
