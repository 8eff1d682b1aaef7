// Payroll runs through the app's pages: upload, read, approve.

package webtest

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/store"
)

// UploadPayroll posts a payroll CSV file.
func UploadPayroll(t testing.TB, env *Env, c *http.Client, name string, data string) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("name", name)
	fw, err := mw.CreateFormFile("file", "payroll.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte(data))
	_ = mw.Close()
	return env.Do(c, "POST", "/payroll/csv", &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

// CreatePayroll uploads a file and returns the new run's id.
func CreatePayroll(t testing.TB, env *Env, c *http.Client, data string) int64 {
	t.Helper()
	resp := UploadPayroll(t, env, c, "November payroll", data)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	id, err := strconv.ParseInt(strings.TrimPrefix(loc, "/payroll/"), 10, 64)
	if resp.StatusCode != http.StatusSeeOther || err != nil {
		t.Fatalf("upload: %d %q", resp.StatusCode, loc)
	}
	return id
}

// PayrollPage reads a run's page.
func PayrollPage(t testing.TB, env *Env, c *http.Client, id int64) *goquery.Document {
	t.Helper()
	resp := env.Get(c, fmt.Sprintf("/payroll/%d", id))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("run page: %d", resp.StatusCode)
	}
	return Doc(t, resp)
}

// FormTokenOf is the one-time token of a form of the page.
func FormTokenOf(t testing.TB, doc *goquery.Document, form string) string {
	t.Helper()
	tok, _ := doc.Find(`[data-testid="` + form + `"] input[name="form_token"]`).Attr("value")
	if tok == "" {
		t.Fatalf("no token in %s", form)
	}
	return tok
}

// ApprovePayrollRun asks for the run's approval in one action and waits for the
// job to give every row its outcome; it returns the run page then.
func ApprovePayrollRun(t testing.TB, env *Env, c *http.Client, id int64) *goquery.Document {
	t.Helper()
	doc := PayrollPage(t, env, c, id)
	tok, _ := doc.Find(`[data-testid="payroll-approve-form"] input[name="form_token"]`).Attr("value")
	if tok == "" {
		tok = FormTokenOf(t, doc, "payroll-cancel-form") // a fresh token: the form is not offered
	}
	for range 2 { // a double click starts one approval
		resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/approve", id), url.Values{"form_token": {tok}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("approve run: %d", resp.StatusCode)
		}
	}
	WaitFor(t, "the run's approval to finish", 60*time.Second, func() bool {
		doc = PayrollPage(t, env, c, id)
		running, _ := doc.Find(`[data-testid="payroll-approval"]`).Attr("data-running")
		return running == "false"
	})
	return doc
}

// SandboxPayees creates n users with an active USDB wallet at the sandbox
// (the owner-proof flow) and in the mirror, so proposals to them are
// accepted upstream; it returns their ids. Their emails start with name.
func SandboxPayees(t testing.TB, env *Env, name string, n int) []string {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	ids := make([]string, n)
	for i := range n {
		u, err := env.API.CreateUser(ctx, apiclient.CreateUserRequest{Email: fmt.Sprintf("%s%04d@payees.example", name, i), FirstName: "Payee",
			LastName: fmt.Sprintf("N%04d", i)})
		if err != nil {
			t.Fatal(err)
		}
		k, err := ethsig.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		owner := ethsig.KeyAddress(k).Hex()
		ch, err := env.API.CreateOwnerProofChallenge(ctx, u.ServiceUserID, apiclient.OwnerProofChallengeRequest{Currency: apiclient.USDB,
			UserOwnerAddress: owner})
		if err != nil {
			t.Fatal(err)
		}
		w, err := env.API.CreateManagedWallet(ctx, u.ServiceUserID, apiclient.CreateManagedWalletRequest{Currency: apiclient.USDB,
			UserOwnerAddress: owner, OwnerProofChallengeID: ch.ChallengeID, OwnerProofSignature: ethsig.SignMessage(k, []byte(ch.Message)).Hex()})
		if err != nil {
			t.Fatal(err)
		}
		e, err := env.Store.UpsertEmployee(ctx, store.Employee{Kind: store.KindEmployee, ServiceUserID: u.ServiceUserID, Email: u.Email,
			FirstName: "Payee", LastName: u.LastName, Country: "USA", InviteState: store.InviteLinked, LinkedAt: &now})
		if err != nil {
			t.Fatal(err)
		}
		if err := env.Store.UpsertWallet(ctx, store.Wallet{ID: w.ID, EmployeeID: e.ID, Currency: "USDB", DisplayCurrency: "USD",
			Status: "active", Address: w.Address}); err != nil {
			t.Fatal(err)
		}
		ids[i] = u.ServiceUserID
	}
	return ids
}
