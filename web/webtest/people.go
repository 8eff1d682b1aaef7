// The demo company's people and cards, and the employee's side of an
// invitation.

package webtest

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
)

// SandboxInvite is an invitation as the sandbox's control API lists it.
type SandboxInvite struct {
	InvitationID  string `json:"invitationId"`
	Email         string `json:"email"`
	InviteURL     string `json:"inviteUrl"`
	WorkEmailCode string `json:"workEmailCode"`
	Status        string `json:"status"`
	Sends         int    `json:"sends"`
	KYCHeld       bool   `json:"kycHeld"`
}

// SandboxInviteOf is the sandbox's invitation of email, if any.
func SandboxInviteOf(t testing.TB, env *Env, email string) (SandboxInvite, bool) {
	t.Helper()
	var list []SandboxInvite
	SandboxControlData(t, env, "GET", "/_sandbox/invites", nil, &list)
	for _, inv := range list {
		if strings.EqualFold(inv.Email, email) {
			return inv, true
		}
	}
	return SandboxInvite{}, false
}

// LinkThroughSandbox plays the employee's side of an invite.
func LinkThroughSandbox(t testing.TB, env *Env, email string) {
	t.Helper()
	inv, ok := SandboxInviteOf(t, env, email)
	if !ok {
		t.Fatalf("no sandbox invite for %s", email)
	}
	SandboxControlData(t, env, "POST", "/_sandbox/invites/link", map[string]any{"invitationId": inv.InvitationID, "code": inv.WorkEmailCode}, nil)
}

// BulkInviteCSV builds a bulk invite CSV of n rows, with bad rows at the given
// indexes (a bad email, a Nigerian row without its postal code, a
// duplicate email).
func BulkInviteCSV(n int) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"name", "email", "first_name", "last_name", "date_of_birth", "nationality", "street_line1", "city", "postal_code",
		"country_code", "employment_status", "source_of_funds"})
	for i := 0; i < n; i++ {
		email := fmt.Sprintf("bulk%03d@acme.example", i)
		postal, country := "D02 X285", "IRL"
		switch i {
		case 7:
			email = "bulk-not-an-email"
		case 21:
			country, postal = "NGA", ""
		case 33:
			email = "bulk001@acme.example" // duplicate of line 3
		}
		_ = w.Write([]string{fmt.Sprintf("Bulk Person %d", i), email, "Bulk", fmt.Sprintf("Person%d", i), "1991-01-01", "GB", "1 Road",
			"Dublin", postal, country, "employed", "salary"})
	}
	w.Flush()
	return b.Bytes()
}

// DemoCard finds one of the demo company's cards by name in the index.
func DemoCard(t testing.TB, env *Env, name string) store.CardHit {
	t.Helper()
	hits, _, err := env.Store.SearchCards(context.Background(), store.CardSearch{Query: name, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.CardName == name {
			return h
		}
	}
	t.Fatalf("card %q not in the index (%d hits)", name, len(hits))
	return store.CardHit{}
}

// DemoEmployee is the demo company's employee with that first name (the
// zero value when there is none).
func (e *Env) DemoEmployee(first string) sandbox.DemoEmployee {
	for _, de := range e.Demo.Employees {
		if de.FirstName == first {
			return de
		}
	}
	return sandbox.DemoEmployee{}
}
