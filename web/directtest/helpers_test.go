package directtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// jpegWith is bytes a JPEG sniffer takes for a JPEG, carrying a marker to
// look for where the file must never be.
func jpegWith(marker string) []byte {
	return append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), []byte(marker+strings.Repeat(".", 64))...)
}

func pngWith(marker string) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n"), []byte(marker+strings.Repeat(".", 64))...)
}

// filePart is one file of a multipart form.
type filePart struct {
	field, name string
	data        []byte
}

// postMultipart posts a multipart form with a fresh one-time token (unless
// the fields carry one) as a browser on this site would.
func postMultipart(t *testing.T, env *webtest.Env, c *http.Client, path string, fields map[string]string, files ...filePart) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if _, ok := fields[handlers.FormTokenField]; !ok {
		if err := mw.WriteField(handlers.FormTokenField, handlers.NewFormToken()); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return env.Do(c, http.MethodPost, path, &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

func wantStatus(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, webtest.ReadBody(t, resp))
	}
}

// addDirect adds a user through the form and returns the employee.
func addDirect(t *testing.T, env *webtest.Env, c *http.Client, email, first, last string) store.Employee {
	t.Helper()
	resp := env.PostForm(c, "/employees/direct", webtest.WithFormToken(url.Values{"email": {email}, "first_name": {first}, "last_name": {last}}))
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()
	e, err := env.Store.EmployeeByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("/employees/%d/kyc", e.ID); resp.Header.Get("Location") != want {
		t.Fatalf("redirected to %q, want %q", resp.Header.Get("Location"), want)
	}
	return e
}

func kycPath(e store.Employee, rest string) string {
	return "/employees/" + strconv.FormatInt(e.ID, 10) + "/kyc" + rest
}

// createWallet makes the employee's wallet in a currency as the partner's
// own app does with the employee's key (owner proof, then create).
func createWallet(t *testing.T, env *webtest.Env, userID string, coin apiclient.Stablecoin) {
	t.Helper()
	ctx := context.Background()
	k, err := ethsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	owner := ethsig.KeyAddress(k).Hex()
	ch, err := env.API.CreateOwnerProofChallenge(ctx, userID, apiclient.OwnerProofChallengeRequest{Currency: coin, UserOwnerAddress: owner})
	if err != nil {
		t.Fatal(err)
	}
	sig := ethsig.SignMessage(k, []byte(ch.Message))
	if _, err := env.API.CreateManagedWallet(ctx, userID, apiclient.CreateManagedWalletRequest{Currency: coin, UserOwnerAddress: owner,
		OwnerProofChallengeID: ch.ChallengeID, OwnerProofSignature: sig.Hex()}); err != nil {
		t.Fatal(err)
	}
}

// sandboxKYC is the sandbox's KYC record of a user, from its state.
func sandboxKYC(t *testing.T, env *webtest.Env, userID string) map[string]any {
	t.Helper()
	var st struct {
		Rails struct {
			KYC map[string]map[string]any `json:"kyc"`
		} `json:"rails"`
	}
	if err := json.Unmarshal(webtest.SandboxControl(t, env, http.MethodGet, "/_sandbox/state", nil), &st); err != nil {
		t.Fatal(err)
	}
	return st.Rails.KYC[userID]
}

// inDatabase counts the rows of every table of the app's schema whose text
// holds s.
func inDatabase(t *testing.T, env *webtest.Env, s string) []string {
	t.Helper()
	ctx := context.Background()
	rows, err := env.Store.Pool().Query(ctx, `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	var found []string
	for _, tbl := range tables {
		var n int
		if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM `+tbl+` t WHERE strpos(t::text, $1) > 0`, s).Scan(&n); err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
		if n > 0 {
			found = append(found, tbl)
		}
	}
	return found
}

func auditRows(t *testing.T, env *webtest.Env, action string) []store.AuditEntry {
	t.Helper()
	return webtest.AuditRows(t, env, action)
}
