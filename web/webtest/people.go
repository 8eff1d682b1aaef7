// The demo company's people and cards, and the employee's side of an
// invitation.

package webtest

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/apiclient/sandbox"
	"partneradmin/handlers"
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

// EmployeeWallet finds a demo employee and their wallet of a stablecoin in
// the mirror.
func EmployeeWallet(t testing.TB, env *Env, email, coin string) (store.Employee, store.Wallet) {
	t.Helper()
	ctx := context.Background()
	e, err := env.Store.EmployeeByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := env.Store.WalletsByEmployee(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Currency == coin {
			return e, w
		}
	}
	t.Fatalf("%s has no %s wallet", email, coin)
	return e, store.Wallet{}
}

// PostCardForm posts a card form with a fresh one-time token (unless it has
// one).
func PostCardForm(env *Env, c *http.Client, path string, form url.Values) *http.Response {
	env.T.Helper()
	return env.PostForm(c, path, WithFormTokenUnlessSet(form))
}

// NewCardsEnv starts the app and fills the card index through the real
// refresh route, as support would.
func NewCardsEnv(t testing.TB) (*Env, *http.Client, Staff) {
	t.Helper()
	env := New(t, Options{})
	c, s := env.SignedIn(store.RoleSupport)
	resp := env.PostForm(c, "/cards/refresh", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("refresh: %d", resp.StatusCode)
	}
	return env, c, s
}

// SetIssuerStatus sets a card's status at the issuer, in the sandbox.
func SetIssuerStatus(t testing.TB, env *Env, cardID, status string) {
	t.Helper()
	SandboxControl(t, env, http.MethodPut, "/_sandbox/cards/"+cardID+"/issuer-status", map[string]string{"status": status})
}

// InviteFormFields are the names of the single invite form's fields, as the
// page renders them (the occupation is a picker whose choices carry
// occupation_code), sorted.
func InviteFormFields(t testing.TB, env *Env, c *http.Client) []string {
	t.Helper()
	doc := Doc(t, env.Get(c, "/employees/invite"))
	names := []string{"occupation_code"}
	doc.Find(`[data-testid="invite-form"] input[name], [data-testid="invite-form"] select[name]`).Each(func(_ int, s *goquery.Selection) {
		n, _ := s.Attr("name")
		if n != handlers.FormTokenField && n != "occupation_search" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	})
	return slices.Sorted(slices.Values(names))
}

// SeedLoadEmployees adds n employees with readiness cells in every
// currency, as a partner with a large workforce would have.
func SeedLoadEmployees(tb testing.TB, env *Env, n int) {
	tb.Helper()
	ctx := context.Background()
	_, err := env.Store.Pool().Exec(ctx, `
		INSERT INTO employees (kind, email, first_name, last_name, country, invite_state, service_user_id, kyc_submitted, last_activity_at)
		SELECT 'employee', 'person' || lpad(i::text, 5, '0') || '@load.example', 'First' || i, 'Person' || lpad(i::text, 5, '0'),
			(ARRAY['GBR','USA','NGA','MEX','CAN'])[1 + i % 5],
			(ARRAY['invited','linked','kyc_submitted','action_required','deleted'])[1 + i % 5],
			CASE WHEN i % 5 = 0 THEN NULL ELSE 'svc-' || md5(i::text) END, i % 5 = 2,
			now() - i * interval '1 minute'
		FROM generate_series(1, $1) AS i`, n)
	if err != nil {
		tb.Fatal(err)
	}
	_, err = env.Store.Pool().Exec(ctx, `
		INSERT INTO employee_readiness (employee_id, currency, state, missing, read_at)
		SELECT e.id, c, (ARRAY['missing','ready','onboarding','active','failed','rejected'])[1 + (e.id + length(c)) % 6],
			CASE WHEN (e.id + length(c)) % 6 = 0 THEN ARRAY['employment.occupationCode', 'identificationNumbers.ssn'] ELSE '{}' END, now()
		FROM employees e CROSS JOIN unnest(ARRAY['USD','EUR','NGN','MXN','CAD']) AS c
		WHERE e.email LIKE '%@load.example' AND e.service_user_id IS NOT NULL`)
	if err != nil {
		tb.Fatal(err)
	}
	// A steady-state database: autovacuum has cleaned the trigram index's
	// pending list and gathered statistics.
	for _, table := range []string{"employees", "employee_search_words", "employee_readiness"} {
		if _, err := env.Store.Pool().Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
			tb.Fatal(err)
		}
	}
}

// UKInviteForm is a valid invite of a UK resident.
func UKInviteForm(email string) url.Values {
	return url.Values{
		"name": {"Grace Hopper"}, "email": {email}, "first_name": {"Grace"}, "last_name": {"Hopper"},
		"date_of_birth": {"1990-04-23"}, "nationality": {"GB"}, "phone_number": {"+44 7700 900123"},
		"street_line1": {"1 Example Street"}, "city": {"London"}, "postal_code": {"SW1A 1AA"}, "country_code": {"GBR"},
		"employment_status": {"employed"}, "source_of_funds": {"salary"}, "account_purpose": {"personal"}, "nino": {"QQ123456C"},
	}
}

// LinkedDemoEmployee finds a linked demo employee with (or without) money.
func LinkedDemoEmployee(t testing.TB, env *Env, withBalance bool) store.Employee {
	t.Helper()
	for _, d := range env.Demo.Employees {
		if d.ServiceUserID == "" {
			continue
		}
		balances, err := env.API.ListBalances(context.Background(), d.ServiceUserID)
		if err != nil {
			t.Fatal(err)
		}
		has := false
		for _, b := range balances {
			if b.Balance.IsPositive() {
				has = true
			}
		}
		if has == withBalance {
			e, err := env.Store.EmployeeByServiceUserID(context.Background(), d.ServiceUserID)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
	}
	t.Fatalf("no demo employee with balance=%v", withBalance)
	return store.Employee{}
}

// UploadBulkInvite posts a bulk invite file named name.
func UploadBulkInvite(t testing.TB, env *Env, c *http.Client, name string, data []byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(data)
	_ = mw.Close()
	return env.Do(c, "POST", "/employees/invite/bulk", &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

// EmployeeRowByEmail is the employee list's row of email (nil when absent).
func EmployeeRowByEmail(doc *goquery.Document, email string) *goquery.Selection {
	var found *goquery.Selection
	doc.Find(`[data-testid="employee-row"]`).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if strings.EqualFold(strings.TrimSpace(s.Find(`[data-testid="employee-email"]`).Text()), email) {
			found = s
			return false
		}
		return true
	})
	return found
}

// MirroredDemoEmployee is the mirror's row of the demo employee with that
// first name.
func MirroredDemoEmployee(t testing.TB, env *Env, first string) store.Employee {
	t.Helper()
	for _, d := range env.Demo.Employees {
		if d.FirstName == first {
			e, err := env.Store.EmployeeByEmail(context.Background(), d.Email)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
	}
	t.Fatalf("no demo employee %s", first)
	return store.Employee{}
}

// WaitBulkFinished waits until a bulk invite run's progress says it has
// finished and returns that progress fragment.
func WaitBulkFinished(t testing.TB, env *Env, c *http.Client, runURL string) *goquery.Document {
	t.Helper()
	var doc *goquery.Document
	WaitFor(t, "the bulk invite run to finish", 30*time.Second, func() bool {
		doc = Doc(t, env.Do(c, http.MethodGet, runURL+"/progress", nil, http.Header{"HX-Request": {"true"}}))
		return TestID(doc, "bulk-finished") != ""
	})
	return doc
}
