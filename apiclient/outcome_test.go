package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"partneradmin/apiclient"
)

// Every row of the spec's Errors table is classified and put in words. The
// classification follows status and endpoint, not the message, whose
// wording the spec calls unstable: each case is checked with the spec's
// message and with a different one.
func TestOutcomeAndWordsCoverTheErrorsTable(t *testing.T) {
	for _, tc := range []struct {
		row    string
		op     string
		status int
		msg    string
		want   apiclient.OutcomeKind
		words  string // a part of the summary
	}{
		{"BVN not 11 digits", "LookupBVN", 400, "BVN must be exactly 11 digits", apiclient.Refused, "invalid"},
		{"NIN not 11 digits", "LookupNIN", 400, "NIN must be exactly 11 digits", apiclient.Refused, "invalid"},
		{"validation failure", "CreateUser", 400, "email must be an email", apiclient.Refused, "invalid"},
		{"transfer without recipient", "CreateTransferProposal", 400, "toUserId or toAddress required", apiclient.Refused, "recipient"},
		{"no active account in the currency", "Send", 400, "recipient has no active account", apiclient.Refused, "active account"},
		{"balances exist (E101)", "DeleteUser", 400, "E101", apiclient.Refused, "balances"},
		{"not enrolled for cards (E101)", "CreateCard", 400, "E101", apiclient.Refused, "NIN"},
		{"bad card status", "SetCardStatus", 400, "status must be BLOCKED or ACTIVE", apiclient.Refused, "BLOCKED or ACTIVE"},
		{"Mexico not approved", "ActivateMexicoKYC", 400, "profile not approved", apiclient.Refused, "RFC"},
		{"deleted over 90 days ago", "ReactivateUser", 400, "cannot reactivate", apiclient.Refused, "90 days"},
		{"API key", "GetWallet", 401, "Unauthorized", apiclient.Refused, "API key"},
		{"another partner's user", "CreateTransferProposal", 403, "User does not belong to this partner", apiclient.Refused, "does not belong"},
		{"not a wallet admin", "ApproveProposal", 403, "Forbidden", apiclient.Refused, "wallet admin"},
		{"unknown user", "DeleteUser", 404, "User not found", apiclient.Refused, "does not know"},
		{"item not found", "ApproveProposal", 404, "requested item could not be found", apiclient.Refused, "does not know"},
		{"no webhook config", "UpdateWebhookConfig", 404, "No webhook config found", apiclient.Refused, "no webhook subscription"},
		{"no Nigerian account", "VerifyNigerianAccount", 404, "no account matches", apiclient.Refused, "Nigerian"},
		{"user exists", "CreateUser", 409, "User already exists with this email", apiclient.Refused, "already has a user"},
		{"webhook exists", "CreateWebhookConfig", 409, "Webhook config already exists", apiclient.Refused, "update it instead"},
		{"state changed", "RejectProposal", 409, "conflict", apiclient.Refused, "changed state"},
		{"rate limited", "CreateUser", 429, "Too Many Requests", apiclient.Refused, "limiting"},
		{"point not on curve", "SignProposal", 500, "Point is not on curve", apiclient.Refused, "65 bytes"},
		{"v of 0 or 1", "SignProposal", 500, "Invalid yParityOrV", apiclient.Refused, "v 27 or 28"},
		{"issuer refused transition", "SetCardStatus", 500, "The current status does not allow it", apiclient.Refused, "retrying cannot succeed"},
		{"balances not verified", "DeleteUser", 503, "balances could not be verified", apiclient.Refused, "nothing was deleted"},
		{"server error", "CreateTransferProposal", 500, "Internal Server Error", apiclient.Unknown, "reads it back"},
		{"bad gateway", "ApproveProposal", 502, "Bad Gateway", apiclient.Unknown, "reads it back"},
		{"gateway timeout", "Send", 504, "", apiclient.Unknown, "reads it back"},
		{"request timeout", "Send", 408, "", apiclient.Unknown, "reads it back"},
	} {
		for _, msg := range []string{tc.msg, "wording changed upstream"} {
			t.Run(tc.row+"/"+msg, func(t *testing.T) {
				err := fmt.Errorf("call: %w", &apiclient.Error{Op: tc.op, Method: http.MethodPost, Path: "/v1/x", StatusCode: tc.status, Messages: []string{msg}})
				if got := apiclient.Outcome(err); got != tc.want {
					t.Fatalf("Outcome = %v, want %v", got, tc.want)
				}
				p := apiclient.Explain(err)
				if p.Kind != tc.want || p.Status != tc.status {
					t.Fatalf("Explain = %+v", p)
				}
				if !strings.Contains(p.Summary, tc.words) {
					t.Fatalf("summary %q lacks %q", p.Summary, tc.words)
				}
			})
		}
	}
}

// No answer at all is unknown; a request refused before sending is refused.
func TestOutcomeWithoutAnAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want apiclient.OutcomeKind
	}{
		{"done", nil, apiclient.Done},
		{"timeout", context.DeadlineExceeded, apiclient.Unknown},
		{"reset", errors.New("read: connection reset by peer"), apiclient.Unknown},
		{"local validation", apiclient.FieldErrors{"amount": "must be positive"}, apiclient.Refused},
		{"bad path", fmt.Errorf("apiclient: POST /v1/users//x: %w: empty id", apiclient.ErrValidation), apiclient.Refused},
	} {
		if got := apiclient.Outcome(tc.err); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if tc.err != nil && apiclient.Words(tc.err) == "" {
			t.Errorf("%s: no words", tc.name)
		}
	}
	p := apiclient.Explain(apiclient.FieldErrors{"amount": "must be positive"})
	if p.Fields["amount"] != "must be positive" {
		t.Fatalf("local field errors not kept: %+v", p)
	}
}

// Field messages from a 400 are mapped to the fields they name.
func TestExplainKeepsFieldMessages(t *testing.T) {
	err := &apiclient.Error{Op: "SetCardLimits", StatusCode: 400, Messages: []string{"daily must be a positive number", "monthly must not be less than daily"}}
	p := apiclient.Explain(err)
	if p.Fields["daily"] == "" || p.Fields["monthly"] == "" {
		t.Fatalf("fields: %+v", p.Fields)
	}
}
