package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

const (
	testKey     = "test-key-do-not-log"
	testAddr    = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
	testAddrLow = "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23"
	testHash    = "0x1111111111111111111111111111111111111111111111111111111111111111"
)

// testSig is a well-formed r‖s‖v signature with v = 27 (hex 1b).
var testSig = "0x" + strings.Repeat("ab", 64) + "1b"

// testSigV0 is the same with v = 0, which the client must normalise to 27.
var testSigV0 = "0x" + strings.Repeat("ab", 64) + "00"

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// recorded is what the fake server saw.
type recorded struct {
	method, path, rawPath string
	query                 url.Values
	header                http.Header
	body                  []byte
}

// fakeAPI is an httptest server that records each request and answers with
// a fixed status and body.
type fakeAPI struct {
	mu       sync.Mutex
	requests []recorded
	status   int
	body     string
	srv      *httptest.Server
}

func newFakeAPI(t *testing.T, status int, body string) *fakeAPI {
	t.Helper()
	f := &fakeAPI{status: status, body: body}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests = append(f.requests, recorded{method: r.Method, path: r.URL.Path, rawPath: r.URL.EscapedPath(), query: r.URL.Query(), header: r.Header.Clone(), body: b})
		status, body := f.status, f.body
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) client(t *testing.T, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxRetryAfter: time.Second})}, opts...)
	c, err := New(f.srv.URL, testKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeAPI) only(t *testing.T) recorded {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(f.requests))
	}
	return f.requests[0]
}

// jsonEqual compares two JSON texts by value.
func jsonEqual(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("request body is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("request body\n got %s\nwant %s", got, want)
	}
}

type endpointCase struct {
	name   string
	call   func(ctx context.Context, c *Client) (any, error)
	method string
	path   string
	// rawPath, when set, is the escaped path the server must see.
	rawPath string
	query   url.Values // nil: no query expected
	body    string     // expected JSON body; "" means no body
	resp    string     // response body
	check   func(t *testing.T, got any)
}

func TestEndpoints(t *testing.T) {
	t.Parallel()
	slip := 50
	active := false
	cases := []endpointCase{
		// Users
		{
			name: "CreateUser",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateUser(ctx, CreateUserRequest{Email: " ada@example.com ", FirstName: "Ada", LastName: "Obi", PhoneNumber: "+2348012345678"})
			},
			method: "POST", path: "/v1/users",
			body: `{"email":"ada@example.com","firstName":"Ada","lastName":"Obi","phoneNumber":"+2348012345678"}`,
			resp: `{"serviceUserId":"u-1","email":"ada@example.com","firstName":"Ada","lastName":"Obi","phoneNumber":"+2348012345678","employeeId":"","createdAt":"2026-01-02T03:04:05Z"}`,
			check: func(t *testing.T, got any) {
				u := got.(*User)
				if u.ServiceUserID != "u-1" || !u.CreatedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
					t.Errorf("user = %+v", u)
				}
			},
		},
		{
			name:   "LookupUserByEmail",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.LookupUserByEmail(ctx, "a+b@example.com") },
			method: "GET", path: "/v1/users/lookup", query: url.Values{"email": {"a+b@example.com"}},
			resp:  `{"serviceUserId":"u-1","email":"a+b@example.com"}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*User).ServiceUserID, "u-1") },
		},
		{
			name:   "DeleteUser",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.DeleteUser(ctx, "u-1") },
			method: "DELETE", path: "/v1/users/u-1",
			resp:  `{"success":true,"message":"User deleted"}`,
			check: func(t *testing.T, got any) { wantEq(t, *got.(*StatusMessage), StatusMessage{true, "User deleted"}) },
		},
		{
			name:   "ReactivateUser",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ReactivateUser(ctx, "u-1") },
			method: "POST", path: "/v1/users/u-1/reactivate",
			resp:  `{"success":true,"message":"User is already active"}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*StatusMessage).Message, "User is already active") },
		},
		// Smart wallets
		{
			name:   "SupportedCurrencies",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.SupportedCurrencies(ctx) },
			method: "GET", path: "/v1/smart-wallets/supported-currencies",
			resp:  `{"data":["USDB","CNGN","MEXe"]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]Stablecoin), []Stablecoin{USDB, CNGN, MEXe}) },
		},
		{
			name: "CreateOwnerProofChallenge reads eip191Message",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateOwnerProofChallenge(ctx, "u-1", OwnerProofChallengeRequest{Currency: USDB, UserOwnerAddress: testAddr})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/owner-proof-challenges",
			body: `{"currency":"USDB","userOwnerAddress":"` + testAddr + `"}`,
			resp: `{"data":{"challengeId":"ch-1","eip191Message":"Prove you own ` + testAddr + `","expiresAt":"2026-01-01T00:05:00Z"}}`,
			check: func(t *testing.T, got any) {
				ch := got.(*OwnerProofChallenge)
				wantEq(t, ch.ChallengeID, "ch-1")
				wantEq(t, ch.Message, "Prove you own "+testAddr)
			},
		},
		{
			name: "CreateManagedWallet normalises v",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateManagedWallet(ctx, "u-1", CreateManagedWalletRequest{Currency: CNGN, UserOwnerAddress: testAddr, OwnerProofChallengeID: "ch-1", OwnerProofSignature: testSigV0})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/create-managed",
			body: `{"currency":"CNGN","userOwnerAddress":"` + testAddr + `","ownerProofChallengeId":"ch-1","ownerProofSignature":"` + testSig + `"}`,
			resp: `{"data":{"id":"w-1","address":"` + testAddrLow + `","chain":"base","currency":"CNGN","displayCurrency":"NGN","status":"active","legacy":false,"userOwnerAddress":"` + testAddr + `","balance":"0"}}`,
			check: func(t *testing.T, got any) {
				w := got.(*Wallet)
				wantEq(t, w.ID, "w-1")
				wantEq(t, w.DisplayCurrency, NGN)
			},
		},
		{
			name:   "ListWallets",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListWallets(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/account/wallets",
			resp: `{"data":[{"id":"w-1","currency":"USDB","displayCurrency":"USD","legacy":true,"balance":"12.345678"}]}`,
			check: func(t *testing.T, got any) {
				ws := got.([]Wallet)
				if len(ws) != 1 || !ws[0].Legacy || !ws[0].Balance.Equal(dec("12.345678")) {
					t.Errorf("wallets = %+v", ws)
				}
			},
		},
		{
			name:   "ListBalances",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListBalances(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/account/balances",
			resp: `{"data":[{"smartWalletId":"w-1","currency":"EURe","displayCurrency":"EUR","balance":"0.10"}]}`,
			check: func(t *testing.T, got any) {
				b := got.([]WalletBalance)
				if len(b) != 1 || b[0].Currency != EURe || !b[0].Balance.Equal(dec("0.1")) {
					t.Errorf("balances = %+v", b)
				}
			},
		},
		{
			name:   "GetWallet escapes ids",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetWallet(ctx, "u/1", "w 1") },
			method: "GET", path: "/v1/users/u/1/smart-wallets/w 1", rawPath: "/v1/users/u%2F1/smart-wallets/w%201",
			resp:  `{"data":{"id":"w 1"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*Wallet).ID, "w 1") },
		},
		{
			name: "SetApprovalPolicy",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SetApprovalPolicy(ctx, "u-1", ApprovalPolicy{Mode: ApprovalAdminThreshold, Admins: []string{"u-2", "u-3"}, Threshold: 2, RequiredApprovals: 9})
			},
			method: "PATCH", path: "/v1/users/u-1/smart-wallets/account/approval-policy",
			body:  `{"mode":"ADMIN_THRESHOLD","admins":["u-2","u-3"],"threshold":2}`,
			resp:  `{"data":{"mode":"ADMIN_THRESHOLD","admins":["u-2","u-3"],"threshold":2,"requiredApprovals":2}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*ApprovalPolicy).RequiredApprovals, 2) },
		},
		{
			name: "SetApprovalPolicy any admin sends an empty admin list",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SetApprovalPolicy(ctx, "u-1", ApprovalPolicy{Mode: ApprovalAnyAdmin})
			},
			method: "PATCH", path: "/v1/users/u-1/smart-wallets/account/approval-policy",
			body: `{"mode":"ANY_ADMIN","admins":[]}`,
			resp: `{"data":{"mode":"ANY_ADMIN","admins":[],"threshold":0,"requiredApprovals":1}}`,
		},
		{
			name:   "GetApprovalPolicy",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetApprovalPolicy(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/account/approval-policy",
			resp:  `{"data":{"mode":"OWNER_APPROVAL","admins":[],"threshold":0,"requiredApprovals":1}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*ApprovalPolicy).Mode, ApprovalOwner) },
		},
		// Proposals
		{
			name: "CreateTransferProposal",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateTransferProposal(ctx, "u-1", "w-1", TransferProposal{ToUserID: "u-2", Amount: dec("10.50"), Currency: CNGN, Description: "lunch"})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/w-1/proposals",
			body: `{"proposal":{"type":"TRANSFER","toUserId":"u-2","amount":"10.5","currency":"CNGN","description":"lunch"}}`,
			resp: `{"success":true,"data":{"proposal":{"id":"p-1","status":"PENDING_APPROVALS"}}}`,
			check: func(t *testing.T, got any) {
				p := got.(*Proposal)
				wantEq(t, p.ID, "p-1")
				wantEq(t, p.Status, ProposalPendingApprovals)
			},
		},
		{
			name: "CreateSwapProposal",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateSwapProposal(ctx, "u-1", "w-1", SwapProposal{FromStablecoin: USDB, ToStablecoin: CNGN, FromAmount: dec("5"), SlippageBps: &slip})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/w-1/proposals",
			body:  `{"proposal":{"type":"SWAP","fromStablecoin":"USDB","toStablecoin":"CNGN","fromAmount":"5","slippageBps":50}}`,
			resp:  `{"data":{"proposal":{"id":"p-2","status":"PENDING_APPROVALS"}}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*Proposal).ID, "p-2") },
		},
		{
			name:   "ListProposals",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListProposals(ctx, "u-1", "w-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/w-1/proposals",
			resp: `{"data":[{"id":"p-1","walletId":"w-1","type":"TRANSFER","status":"PENDING_SIGNATURES","currency":"CNGN","amount":"10.5","requiredSignatures":1,"collectedSignatures":0,"approvals":["u-9"],"requiredApprovals":1}]}`,
			check: func(t *testing.T, got any) {
				ps := got.([]Proposal)
				if len(ps) != 1 || ps[0].Status != ProposalPendingSignatures || !ps[0].Amount.Equal(dec("10.5")) || len(ps[0].Approvals) != 1 {
					t.Errorf("proposals = %+v", ps)
				}
			},
		},
		{
			name:   "GetProposal accepts proposalId",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetProposal(ctx, "u-1", "p-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/proposals/p-1",
			resp: `{"data":{"proposalId":"p-1","status":"COMPLETED","amount":"1"}}`,
			check: func(t *testing.T, got any) {
				wantEq(t, got.(*Proposal).ID, "p-1")
				wantEq(t, got.(*Proposal).Status, ProposalCompleted)
			},
		},
		{
			name:   "ApproveProposal",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ApproveProposal(ctx, "u-1", "p-1") },
			method: "POST", path: "/v1/users/u-1/smart-wallets/proposals/p-1/approve",
			resp:  `{"data":{"id":"p-1","status":"PENDING_SIGNATURES"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*Proposal).Status, ProposalPendingSignatures) },
		},
		{
			name:   "GetSignPayload",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetSignPayload(ctx, "u-1", "p-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/proposals/p-1/sign-payload",
			resp: `{"success":true,"data":{"method":"evm","walletIndex":0,"workflowId":"wf-1","hashToSign":"` + testHash + `","payload":"` + testHash + `","deadline":"2026-01-01T00:10:00Z","proposalId":"p-1","userOpHash":null,"safeTxHash":"0xabc","typedData":null}}`,
			check: func(t *testing.T, got any) {
				sp := got.(*SignPayload)
				h, err := sp.Hash()
				if err != nil || h.Hex() != testHash || sp.SafeTxHash == nil || sp.UserOpHash != nil {
					t.Errorf("sign payload = %+v, hash err %v", sp, err)
				}
			},
		},
		{
			name: "SignProposal normalises v",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SignProposal(ctx, "u-1", "p-1", SignProposalRequest{Signature: testSigV0})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/proposals/p-1/sign",
			body:  `{"signature":"` + testSig + `"}`,
			resp:  `{"data":{"id":"p-1","status":"COMPLETED","collectedSignatures":1}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*Proposal).CollectedSignatures, 1) },
		},
		{
			name: "RejectProposal",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.RejectProposal(ctx, "u-1", "p-1", RejectProposalRequest{Reason: "wrong amount"})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/proposals/p-1/reject",
			body:  `{"reason":"wrong amount"}`,
			resp:  `{"data":{"id":"p-1","status":"REJECTED","rejectionReason":"wrong amount"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*Proposal).RejectionReason, "wrong amount") },
		},
		{
			name: "Send",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Send(ctx, "u-1", SendRequest{ToUserID: "u-2", Amount: dec("3"), Note: "thanks"})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/account/send",
			body:  `{"toUserId":"u-2","amount":"3","note":"thanks"}`,
			resp:  `{"data":{"proposal":{"id":"p-3","status":"PENDING_APPROVALS","description":"thanks"}}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*Proposal).Description, "thanks") },
		},
		{
			name: "Fund",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Fund(ctx, "u-1", FundRequest{FromWalletID: "w-1", ToWalletID: "w-9", Amount: dec("2.5"), Currency: USDB})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/fund",
			body:  `{"fromWalletId":"w-1","toWalletId":"w-9","amount":"2.5","currency":"USDB"}`,
			resp:  `{"data":{"proposal":{"id":"p-4","status":"PENDING_APPROVALS"}}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*Proposal).ID, "p-4") },
		},
		// Exchange and signature submission
		{
			name: "CreateExchangeQuote",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateExchangeQuote(ctx, "u-1", ExchangeQuoteRequest{FromCurrency: USDB, ToCurrency: CNGN, Amount: dec("1")})
			},
			method: "POST", path: "/v1/users/u-1/exchange/quote",
			body:  `{"fromCurrency":"USDB","toCurrency":"CNGN","amount":"1"}`,
			resp:  `{"data":{"quoteId":"q-1","fromAmount":"1","toAmount":"1500.25","exchangeRate":"1500.25","expiresAt":"2026-01-01T00:00:30Z"}}`,
			check: func(t *testing.T, got any) { wantDec(t, got.(*ExchangeQuote).ToAmount, "1500.25") },
		},
		{
			name: "Convert",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Convert(ctx, "u-1", ConvertRequest{FromCurrency: CNGN, ToCurrency: USDB, Amount: dec("1500"), Preview: true})
			},
			method: "POST", path: "/v1/users/u-1/exchange/convert",
			body:  `{"fromCurrency":"CNGN","toCurrency":"USDB","amount":"1500","preview":true}`,
			resp:  `{"data":{"fromAmount":"1500","toAmount":"0.99","preview":true}}`,
			check: func(t *testing.T, got any) { wantDec(t, got.(*Conversion).ToAmount, "0.99") },
		},
		{
			name: "SubmitSignature",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SubmitSignature(ctx, "u-1", SubmitSignatureRequest{WorkflowID: "wf-1", Signature: testSig})
			},
			method: "POST", path: "/v1/users/u-1/wallets/submit-signature",
			body:  `{"workflowId":"wf-1","signature":"` + testSig + `"}`,
			resp:  `{"data":{"workflowId":"wf-1","status":"submitted"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*SubmitSignatureResult).Status, "submitted") },
		},
		// Onboarding and KYC
		{
			name:   "GetOnboardingStatus",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetOnboardingStatus(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/onboarding/status",
			resp: `{"data":{"currencies":{"USD":{"active":true,"status":"active"},"NGN":{"active":false,"status":"none"}},"eurProviderStatus":"active"}}`,
			check: func(t *testing.T, got any) {
				s := got.(*OnboardingStatus)
				usd, ok := s.Currencies[USD]
				if !ok || !usd.Active || s.Currencies[NGN].Active || s.EURProviderStatus != "active" {
					t.Errorf("status = %+v", s)
				}
			},
		},
		{
			name:   "GetKYCOptions",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetKYCOptions(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/kyc/options",
			resp: `{"data":{"employment":{"employmentStatus":[{"value":"employed","label":"Employed"}]}}}`,
			check: func(t *testing.T, got any) {
				wantEq(t, got.(*KYCOptions).Employment["employmentStatus"][0].Value, "employed")
			},
		},
		{
			name: "SearchOccupations",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SearchOccupations(ctx, "u-1", "software engineer")
			},
			method: "GET", path: "/v1/users/u-1/kyc/occupations", query: url.Values{"search": {"software engineer"}},
			resp:  `{"data":[{"code":"15-1252","name":"Software Developer"}]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]Occupation)[0].Code, "15-1252") },
		},
		{
			name: "UpdateKYC sends only what was set",
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.UpdateKYC(ctx, "u-1", KYCProfile{
					Employment: &KYCEmployment{EmploymentStatus: "employed", OccupationCode: "15-1252"},
					BVN:        " 22222222222 ",
				})
			},
			method: "PATCH", path: "/v1/users/u-1/kyc",
			body: `{"employment":{"employmentStatus":"employed","occupationCode":"15-1252"},"bvn":"22222222222"}`,
			resp: `{"success":true}`,
		},
		{
			name:   "GetKYC",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetKYC(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/kyc",
			resp: `{"data":{"profile":{"personalInfo":{"firstName":"Ada"}},"employment":null,"estimatedMonthlyVolume":1500.5}}`,
			check: func(t *testing.T, got any) {
				p := got.(*KYCProfile)
				if p.Employment != nil || p.Profile.PersonalInfo.FirstName != "Ada" || !p.EstimatedMonthlyVolume.Equal(dec("1500.5")) {
					t.Errorf("profile = %+v", p)
				}
			},
		},
		{
			name:   "GetKYCReadiness",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetKYCReadiness(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/kyc/readiness",
			resp: `{"data":{"canActivate":false,"missing":["address.postalCode"]}}`,
			check: func(t *testing.T, got any) {
				wantEq(t, *got.(*KYCReadiness), KYCReadiness{false, []string{"address.postalCode"}})
			},
		},
		{
			name: "ActivateKYC USD sends identityLevelName",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ActivateKYC(ctx, "u-1", ActivateKYCRequest{Currency: USD, IdentityLevelName: IdentityLevelIDAndLiveness})
			},
			method: "POST", path: "/v1/users/u-1/kyc/activate",
			body:  `{"identityLevelName":"id-and-liveness"}`,
			resp:  `{"data":{"status":"submitted"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*KYCActivation).Status, "submitted") },
		},
		{
			name: "ActivateKYC NGN omits the body",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ActivateKYC(ctx, "u-1", ActivateKYCRequest{Currency: NGN})
			},
			method: "POST", path: "/v1/users/u-1/kyc/activate",
			resp: `{}`,
		},
		{
			name:   "GetUSDReadiness",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetUSDReadiness(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/kyc/usd-readiness",
			resp: `{"ready":false,"missing":["employment.occupationCode"]}`,
			check: func(t *testing.T, got any) {
				wantEq(t, got.(*USDReadiness).Missing, []string{"employment.occupationCode"})
			},
		},
		{
			name:   "LookupBVN",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.LookupBVN(ctx, "u-1", "22222222222") },
			method: "GET", path: "/v1/users/u-1/kyc/bvn-lookup/22222222222",
			resp:  `{"data":{"firstName":"Test","lastName":"Persona"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*IdentityHolder).LastName, "Persona") },
		},
		{
			name:   "LookupNIN",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.LookupNIN(ctx, "u-1", "12345678901") },
			method: "GET", path: "/v1/users/u-1/kyc/nin-lookup/12345678901",
			resp:  `{"data":{"firstName":"Test","lastName":"Persona"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*IdentityHolder).FirstName, "Test") },
		},
		{
			name: "SubmitEUKYC",
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SubmitEUKYC(ctx, "u-1", EUKYCRequest{Code: "auth-code", Signature: "0xdeadbeef"})
			},
			method: "POST", path: "/v1/users/u-1/eu/kyc",
			body: `{"code":"auth-code","signature":"0xdeadbeef"}`,
			resp: `{"success":true}`,
		},
		// Rail onboarding starts
		{
			name: "StartUSA",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StartUSA(ctx, "u-1", StartUSARequest{SmartWalletID: "w-1"})
			},
			method: "POST", path: "/v1/users/u-1/onboarding/start-usa",
			body:  `{"smartWalletId":"w-1"}`,
			resp:  `{"workflowId":"wf-usa"}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*OnboardingStarted).WorkflowID, "wf-usa") },
		},
		{
			name: "StartCanada",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StartCanada(ctx, "u-1", StartCanadaRequest{CADWalletAddress: testAddr, CADWalletIndex: 0})
			},
			method: "POST", path: "/v1/users/u-1/onboarding/start-canada",
			body: `{"cadWalletAddress":"` + testAddr + `","cadWalletIndex":0}`,
			resp: `{}`,
		},
		{
			name: "StartEURProvider",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StartEURProvider(ctx, "u-1", StartEURProviderRequest{EURWalletAddress: testAddr, EURWalletIndex: 1})
			},
			method: "POST", path: "/v1/users/u-1/onboarding/start-eur-provider",
			body: `{"eurWalletAddress":"` + testAddr + `","eurWalletIndex":1}`,
			resp: `{}`,
		},
		{
			name: "StartNigeria",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StartNigeria(ctx, "u-1", StartNigeriaRequest{BVN: "22222222222 ", NGNWalletAddress: testAddr})
			},
			method: "POST", path: "/v1/users/u-1/onboarding/start-nigeria",
			body: `{"bvn":"22222222222","ngnWalletAddress":"` + testAddr + `","ngnWalletIndex":0}`,
			resp: `{}`,
		},
		{
			name: "StartMexico",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StartMexico(ctx, "u-1", StartMexicoRequest{MXNWalletAddress: testAddr})
			},
			method: "POST", path: "/v1/users/u-1/onboarding/start-mexico",
			body: `{"mxnWalletAddress":"` + testAddr + `","mxnWalletIndex":0}`,
			resp: `{}`,
		},
		// Virtual accounts and deposit accounts
		{
			name:   "GetUSDVirtualAccount",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetUSDVirtualAccount(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/vba/usd",
			resp: `{"status":"active","account":{"id":"a-1","accountNumber":"123","routingNumber":"026","depositMessage":"REF123"},"reason":null}`,
			check: func(t *testing.T, got any) {
				v := got.(*VirtualAccount)
				if v.Status != VirtualAccountActive || v.Account == nil || *v.Account.DepositMessage != "REF123" || v.Reason != nil {
					t.Errorf("vba = %+v", v)
				}
			},
		},
		{
			name:   "ProvisionEURVirtualAccount",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ProvisionEURVirtualAccount(ctx, "u-1") },
			method: "POST", path: "/v1/users/u-1/vba/eu",
			resp:  `{"data":{"status":"provisioning","account":null}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*VirtualAccount).Status, VirtualAccountProvisioning) },
		},
		{
			name:   "ProvisionNGNVirtualAccount",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ProvisionNGNVirtualAccount(ctx, "u-1") },
			method: "POST", path: "/v1/users/u-1/vba/ngn",
			resp:  `{"data":{"status":"active","account":{"accountNumber":"0123456789"}}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*VirtualAccount).Account.AccountNumber, "0123456789") },
		},
		{
			name:   "RouteUSDDeposits",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.RouteUSDDeposits(ctx, "u-1", "w-2") },
			method: "POST", path: "/v1/users/u-1/smart-wallets/w-2/onramp/vba/usd",
			resp: `{"success":true,"message":"routed"}`,
		},
		{
			name:   "UnrouteUSDDeposits",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.UnrouteUSDDeposits(ctx, "u-1", "w-2") },
			method: "DELETE", path: "/v1/users/u-1/smart-wallets/w-2/onramp/vba/usd",
			resp: `{"success":true,"message":"unrouted"}`,
		},
		{
			name:   "RouteNGNDeposits",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.RouteNGNDeposits(ctx, "u-1", "w-2") },
			method: "POST", path: "/v1/users/u-1/smart-wallets/w-2/onramp/vba/nigeria",
			resp: `{"success":true}`,
		},
		{
			name:   "UnrouteNGNDeposits",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.UnrouteNGNDeposits(ctx, "u-1", "w-2") },
			method: "DELETE", path: "/v1/users/u-1/smart-wallets/w-2/onramp/vba/nigeria",
			resp: `{"success":true}`,
		},
		{
			name:   "ListDepositAccounts",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListDepositAccounts(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/bank-accounts/deposit-accounts",
			resp: `{"data":{"accounts":[],"mexicanAccounts":[{"id":"mx-1","clabe":"012345678901234567","targetCurrency":"MEXe","status":"active"}]}}`,
			check: func(t *testing.T, got any) {
				d := got.(*DepositAccounts)
				if len(d.MexicanAccounts) != 1 || !d.MexicanAccounts[0].IsActive() || d.MexicanAccounts[0].TargetCurrency != MEXe {
					t.Errorf("deposit accounts = %+v", d)
				}
			},
		},
		{
			name:   "GetDepositAccounts",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetDepositAccounts(ctx, "u-1", MXN) },
			method: "GET", path: "/v1/users/u-1/bank-accounts/deposit-accounts/MXN",
			resp:  `{"accounts":[{"id":"mx-1","clabe":"012345678901234567","status":"pending"}]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]DepositAccount)[0].IsActive(), false) },
		},
		// Nigerian withdrawal
		{
			name:   "ListNigerianBanks",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListNigerianBanks(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/bank-accounts/nigerian-banks",
			resp:  `{"data":[{"name":"Test Bank","code":"058"}]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]NigerianBank), []NigerianBank{{"Test Bank", "058"}}) },
		},
		{
			name: "VerifyNigerianAccount",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.VerifyNigerianAccount(ctx, "u-1", VerifyNigerianAccountRequest{AccountNumber: "0123456789", BankCode: "058"})
			},
			method: "POST", path: "/v1/users/u-1/bank-accounts/verify-nigerian-account",
			body:  `{"accountNumber":"0123456789","bankCode":"058"}`,
			resp:  `{"data":{"accountNumber":"0123456789","bankCode":"058","accountHolderName":"ADA OBI"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*NigerianAccountHolder).AccountHolderName, "ADA OBI") },
		},
		{
			name: "CreateNigerianWithdrawalAccount",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateNigerianWithdrawalAccount(ctx, "u-1", NigerianWithdrawalAccountRequest{AccountNumber: "0123456789", BankCode: "058", BankName: "Test Bank", AccountHolderName: "ADA OBI"})
			},
			method: "POST", path: "/v1/users/u-1/bank-accounts/withdrawal-accounts/nigeria",
			body:  `{"accountNumber":"0123456789","bankCode":"058","bankName":"Test Bank","accountHolderName":"ADA OBI"}`,
			resp:  `{"data":{"id":"ba-1","accountNumber":"0123456789"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*WithdrawalAccount).ID, "ba-1") },
		},
		{
			name: "CreateNigerianOfframp",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateNigerianOfframp(ctx, "u-1", "w-1", NigerianOfframpRequest{BankAccountID: "ba-1", FromAmount: dec("1000.00")})
			},
			method: "POST", path: "/v1/users/u-1/smart-wallets/w-1/offramp/nigeria",
			body: `{"bankAccountId":"ba-1","fromAmount":"1000"}`,
			resp: `{"data":{"proposalId":"p-9","status":"PENDING_APPROVALS","quote":{"toAmount":"1000","feeAmount":"10"}}}`,
			check: func(t *testing.T, got any) {
				o := got.(*NigerianOfframp)
				if o.ProposalID != "p-9" || o.Status != ProposalPendingApprovals || !o.Quote.FeeAmount.Equal(dec("10")) {
					t.Errorf("offramp = %+v", o)
				}
			},
		},
		// Bank payout rail
		{
			name:   "ListPayoutCountries",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListPayoutCountries(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/payouts/countries",
			resp:  `{"data":[{"code":"KEN","name":"Kenya","currencies":["KES"]}]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]PayoutCountry)[0].Code, "KEN") },
		},
		{
			name:   "ListPayoutBanks",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListPayoutBanks(ctx, "u-1", "ken") },
			method: "GET", path: "/v1/users/u-1/payouts/banks", query: url.Values{"country": {"KEN"}},
			resp:  `{"data":[{"id":"b-1","name":"Bank"}]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]PayoutBank)[0].ID, "b-1") },
		},
		{
			name:   "ListPayoutBankBranches",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListPayoutBankBranches(ctx, "u-1", "b-1") },
			method: "GET", path: "/v1/users/u-1/payouts/bank-branches", query: url.Values{"bankId": {"b-1"}},
			resp:  `{"data":[]}`,
			check: func(t *testing.T, got any) { wantEq(t, len(got.([]PayoutBankBranch)), 0) },
		},
		{
			name: "ValidatePayoutAccount",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ValidatePayoutAccount(ctx, "u-1", ValidatePayoutAccountRequest{Country: "KEN", Currency: "KES", BankID: "b-1", AccountNumber: "42"})
			},
			method: "POST", path: "/v1/users/u-1/payouts/validate-account",
			body:  `{"country":"KEN","currency":"KES","bankId":"b-1","accountNumber":"42"}`,
			resp:  `{"data":{"valid":true,"accountHolderName":"A N OTHER"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*PayoutAccountValidation).Valid, true) },
		},
		{
			name: "CreatePayout sends minor units as a string",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreatePayout(ctx, "u-1", PayoutRequest{SourceSmartWalletID: "w-1", Amount: NewMinorUnits(12345), Country: "KEN", Currency: "KES",
					BankDetails: PayoutBankDetails{BankID: "b-1", AccountNumber: "42", AccountHolderName: "A N OTHER"}, Note: "rent"})
			},
			method: "POST", path: "/v1/users/u-1/payouts",
			body: `{"sourceSmartWalletId":"w-1","amount":"12345","country":"KEN","currency":"KES","bankDetails":{"bankId":"b-1","accountNumber":"42","accountHolderName":"A N OTHER"},"note":"rent"}`,
			resp: `{"data":{"signatureRequest":{"workflowId":"wf-p","hashToSign":"` + testHash + `","deadline":"2026-01-01T00:10:00Z","walletIndex":0},"quote":{"sourceAmount":"123.45"}}}`,
			check: func(t *testing.T, got any) {
				p := got.(*Payout)
				if p.SignatureRequest == nil || p.SignatureRequest.WorkflowID != "wf-p" || !p.Quote.SourceAmount.Equal(dec("123.45")) {
					t.Errorf("payout = %+v", p)
				}
			},
		},
		// Crypto in and out
		{
			name:   "ListDepositAssets",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListDepositAssets(ctx) },
			method: "GET", path: "/v1/deposit/supported-assets",
			resp:  `{"data":[{"chain":"base","currency":"USDC"}]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]CryptoRoute), []CryptoRoute{{"base", "USDC"}}) },
		},
		{
			name: "CreateDepositWallet",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateDepositWallet(ctx, "u-1", DepositWalletRequest{Chain: "base", Currency: "USDC"})
			},
			method: "POST", path: "/v1/users/u-1/deposit/wallet",
			body:  `{"chain":"base","currency":"USDC"}`,
			resp:  `{"address":"` + testAddr + `","chain":"base","currency":"USDC"}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*DepositWallet).Address, testAddr) },
		},
		{
			name: "GetCryptoWithdrawalSupport",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetCryptoWithdrawalSupport(ctx, "u-1", "USDB")
			},
			method: "GET", path: "/v1/users/u-1/withdrawal/smart-wallet/crypto/supported/USDB",
			resp:  `{"data":{"currency":"USDB","routes":[{"chain":"base","currency":"USDC"}]}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*CryptoWithdrawalSupport).Supports("base", "USDC"), true) },
		},
		{
			name: "CreateCryptoWithdrawal",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateCryptoWithdrawal(ctx, "u-1", CryptoWithdrawalRequest{SourceSmartWalletID: "w-1", DestinationChain: "base", DestinationCurrency: "USDC", DestinationAddress: testAddr})
			},
			method: "POST", path: "/v1/users/u-1/withdrawal/smart-wallet/crypto",
			body:  `{"sourceSmartWalletId":"w-1","destinationChain":"base","destinationCurrency":"USDC","destinationAddress":"` + testAddr + `"}`,
			resp:  `{"data":{"signatureRequest":{"workflowId":"wf-c","hashToSign":"` + testHash + `","deadline":"2026-01-01T00:10:00Z","walletIndex":1}}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*CryptoWithdrawal).SignatureRequest.WalletIndex, 1) },
		},
		{
			name: "GetCryptoOfframpSupport",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetCryptoOfframpSupport(ctx, "u-1", "USDB")
			},
			method: "GET", path: "/v1/users/u-1/wallets/crypto-offramp/supported/USDB",
			resp:  `{"data":{"currency":"USDB","routes":[]}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*CryptoWithdrawalSupport).Supports("base", "USDC"), false) },
		},
		{
			name: "CreateCryptoOfframp",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateCryptoOfframp(ctx, "u-1", CryptoWithdrawalRequest{SourceSmartWalletID: "w-1", DestinationChain: "base", DestinationCurrency: "USDC", DestinationAddress: testAddr})
			},
			method: "POST", path: "/v1/users/u-1/wallets/crypto-offramp",
			body:  `{"sourceSmartWalletId":"w-1","destinationChain":"base","destinationCurrency":"USDC","destinationAddress":"` + testAddr + `"}`,
			resp:  `{"data":{"signatureRequest":{"workflowId":"wf-o"}}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*CryptoWithdrawal).SignatureRequest.WorkflowID, "wf-o") },
		},
		// EUR SEPA
		{
			name: "PrepareEUROrder",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PrepareEUROrder(ctx, "u-1", EUROrderRequest{SmartWalletID: "w-e", Amount: dec("25"), IBAN: "de89 3704 0044 0532 0130 00", BeneficiaryName: "Ada Obi"})
			},
			method: "POST", path: "/v1/users/u-1/eu/orders/prepare",
			body:  `{"smartWalletId":"w-e","amount":"25","iban":"DE89370400440532013000","beneficiaryName":"Ada Obi"}`,
			resp:  `{"data":{"orderId":"eo-1","status":"prepared","signatureRequest":{"workflowId":"wf-e"}}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*EUROrder).OrderID, "eo-1") },
		},
		{
			name: "CompleteEUROrder",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CompleteEUROrder(ctx, "u-1", "eo-1", CompleteEUROrderRequest{Signature: testSig})
			},
			method: "POST", path: "/v1/users/u-1/eu/orders/eo-1/complete",
			body:  `{"signature":"` + testSig + `"}`,
			resp:  `{"data":{"orderId":"eo-1","status":"completed"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*EUROrder).Status, "completed") },
		},
		{
			name:   "GetEUROrder",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetEUROrder(ctx, "u-1", "eo-1") },
			method: "GET", path: "/v1/users/u-1/eu/orders/eo-1",
			resp:  `{"data":{"orderId":"eo-1","status":"processing","amount":"25"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*EUROrder).Status, "processing") },
		},
		// Mexico
		{
			name:   "ActivateMexicoKYC",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ActivateMexicoKYC(ctx, "u-1") },
			method: "POST", path: "/v1/users/u-1/latam/mx/kyc/activate",
			resp: `{"status":"proposed","uploaded":{"selfie":false,"document":true}}`,
			check: func(t *testing.T, got any) {
				a := got.(*MexicoKYCActivation)
				if a.Status != MexicoKYCProposed || a.Uploaded.Selfie || !a.Uploaded.Document {
					t.Errorf("activation = %+v", a)
				}
			},
		},
		{
			name:   "GetMexicoAgreementsLaunch",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetMexicoAgreementsLaunch(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/latam/mx/kyc/launch/agreements",
			resp:  `{"url":"https://provider.example/launch","method":"POST","fields":{"grant_type":"jwt","assertion":"a.b.c","target":"agreements"},"html":"<form></form>","expiresAt":"2026-01-01T00:05:00Z"}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*LaunchPayload).Fields.Assertion, "a.b.c") },
		},
		{
			name:   "GetMexicoIDVLaunch",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetMexicoIDVLaunch(ctx, "u-1") }, //nolint:staticcheck // the deprecated alias is still an endpoint
			method: "GET", path: "/v1/users/u-1/latam/mx/kyc/launch/idv",
			resp:  `{"url":"https://provider.example/launch"}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*LaunchPayload).URL, "https://provider.example/launch") },
		},
		{
			name:   "GetMexicoKYCStatus",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetMexicoKYCStatus(ctx, "u-1") },
			method: "GET", path: "/v1/users/u-1/latam/mx/kyc/status",
			resp:  `{"status":"approved_chain_deploying"}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*MexicoKYCStatus).Status, MexicoKYCApprovedChainDeploying) },
		},
		{
			name: "CreateMexicoQuote fills the type",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateMexicoQuote(ctx, "u-1", MexicoQuoteRequest{SourceAmount: dec("100.5")})
			},
			method: "POST", path: "/v1/users/u-1/latam/mx/quote",
			body: `{"type":"offramp","sourceAmount":"100.5"}`,
			resp: `{"data":{"quoteId":"mq-1","orderId":"mo-1","quoteAssets":{"type":"offramp","sourceAsset":"MEXe","targetAsset":"MXN"},"sourceAmount":"100.5","destinationAmount":"99.9","feeBps":"50","feeAmount":"0.6","exchangeRate":"1","expiresAt":"2026-01-01T00:01:00Z"}}`,
			check: func(t *testing.T, got any) {
				q := got.(*MexicoQuote)
				if q.OrderID != "mo-1" || q.SignatureRequest != nil || !q.DestinationAmount.Equal(dec("99.9")) {
					t.Errorf("quote = %+v", q)
				}
			},
		},
		{
			name:   "GetMexicoOrder",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetMexicoOrder(ctx, "u-1", "mo-1") },
			method: "GET", path: "/v1/users/u-1/latam/mx/orders/mo-1",
			resp:  `{"status":"funded","orderType":"offramp","amountInFiat":"99.9","amountInTokens":"100.5","burnSignatureRequest":{"workflowId":"wf-burn"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*MexicoOrder).BurnSignatureRequest.WorkflowID, "wf-burn") },
		},
		// LATAM cash
		{
			name: "CreateCashFundOrder",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateCashFundOrder(ctx, "u-1", CashOrderRequest{SmartWalletID: "w-m", Country: "MX", Price: dec("200"), PriceCurrency: MXN, Description: "top up"})
			},
			method: "POST", path: "/v1/users/u-1/latam/cash/orders/fund",
			body: `{"smartWalletId":"w-m","country":"MX","price":"200","priceCurrency":"MXN","description":"top up"}`,
			resp: `{"data":{"id":"co-1","price":"200","price_currency":"MXN","redirect_url":"https://pay.example/co-1","status":"CREATED"}}`,
			check: func(t *testing.T, got any) {
				wantEq(t, got.(*CashProviderOrder).RedirectURL, "https://pay.example/co-1")
			},
		},
		{
			name: "CreateCashSendOrder",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateCashSendOrder(ctx, "u-1", CashOrderRequest{SmartWalletID: "w-m", Country: "MX", Price: dec("50"), PriceCurrency: MXN, Description: "cash out"})
			},
			method: "POST", path: "/v1/users/u-1/latam/cash/orders/send",
			body:  `{"smartWalletId":"w-m","country":"MX","price":"50","priceCurrency":"MXN","description":"cash out"}`,
			resp:  `{"data":{"orderId":"co-2","signatureRequest":{"workflowId":"wf-cash"}}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*CashSendOrder).SignatureRequest.WorkflowID, "wf-cash") },
		},
		{
			name:   "ListCashOrders",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListCashOrders(ctx, "u-1", CashSend) },
			method: "GET", path: "/v1/users/u-1/latam/cash/orders", query: url.Values{"type": {"SEND"}},
			resp:  `{"data":[{"id":"co-2","orderId":"o-2","type":"SEND","status":"PAYMENT_STARTED","price":"50"}]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]CashOrder)[0].Status, "PAYMENT_STARTED") },
		},
		{
			name:   "GetCashOrder",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetCashOrder(ctx, "u-1", "co-1") },
			method: "GET", path: "/v1/users/u-1/latam/cash/orders/co-1",
			resp:  `{"id":"co-1","merchant_order_id":"m-1","status":"READY"}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*CashProviderOrder).MerchantOrderID, "m-1") },
		},
		// Cards
		{
			name: "CreateCard",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateCard(ctx, "u-1", CreateCardRequest{CardName: "Travel", CardColor: "#0af", Currency: NGN, Type: "virtual", SmartWalletID: "w-1", NIN: "12345678901"})
			},
			method: "POST", path: "/v1/users/u-1/cards",
			body: `{"cardName":"Travel","cardColor":"#0af","currency":"NGN","type":"virtual","smartWalletId":"w-1","nin":"12345678901"}`,
			resp: `{"data":{"flow":"group","feeAmount":"1000","feeCurrency":"CNGN","proposalId":"p-c","proposalStatus":"PENDING_SIGNATURES","signPayloadPending":true,"signPayloadHint":"poll"}}`,
			check: func(t *testing.T, got any) {
				ci := got.(*CardIssuance)
				if ci.ProposalID != "p-c" || !ci.SignPayloadPending || ci.SignPayload != nil || !ci.FeeAmount.Equal(dec("1000")) {
					t.Errorf("issuance = %+v", ci)
				}
			},
		},
		{
			name:   "GetCardSignPayload",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetCardSignPayload(ctx, "u-1", "p-c") },
			method: "GET", path: "/v1/users/u-1/cards/p-c/sign-payload",
			resp:  `{"success":true,"data":{"method":"evm","walletIndex":0,"workflowId":"wf-c","hashToSign":"` + testHash + `","deadline":"2026-01-01T00:10:00Z","proposalId":"p-c","userOpHash":null,"safeTxHash":"` + testHash + `"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*SignPayload).ProposalID, "p-c") },
		},
		{
			name:   "ListCards",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListCards(ctx, "u-1", "w-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/w-1/cards",
			resp: `{"data":[{"id":"p-c","status":"RESERVED","isReserved":true,"proposalId":"p-c","cardName":"Travel"},{"id":"c-1","status":"Active","currency":"USD","type":"virtual","fundedAt":null}]}`,
			check: func(t *testing.T, got any) {
				cs := got.([]Card)
				if len(cs) != 2 || !cs[0].IsReserved || !cs[1].Status.Is(CardActive) || cs[1].FundedAt != nil {
					t.Errorf("cards = %+v", cs)
				}
			},
		},
		{
			name:   "GetWalletCard",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetWalletCard(ctx, "u-1", "w-1", "c-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/w-1/cards/c-1",
			resp: `{"data":{"id":"c-1","status":"active","balanceMinor":"150075","ledger":[{"id":"l-2","amount":"-500"},{"id":"l-1","amount":"150575"}]}}`,
			check: func(t *testing.T, got any) {
				d := got.(*CardDetail)
				if d.ID != "c-1" || d.BalanceMinor.Int64() != 150075 || len(d.Ledger) != 2 || d.Ledger[0].Amount.Int64() != -500 || !d.BalanceMinor.Major(2).Equal(dec("1500.75")) {
					t.Errorf("detail = %+v", d)
				}
			},
		},
		{
			name:   "GetCardIdentity",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetCardIdentity(ctx, "u-1", "w-1", "c-1") },
			method: "GET", path: "/v1/users/u-1/smart-wallets/w-1/cards/c-1/sensitive",
			resp:  `{"data":{"identityId":"id-1","cardId":"pc-1"}}`,
			check: func(t *testing.T, got any) { wantEq(t, *got.(*CardIdentity), CardIdentity{"id-1", "pc-1"}) },
		},
		{
			name: "GetCardSensitiveData",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetCardSensitiveData(ctx, "u-1", CardSensitiveDataRequest{IdentityID: "id-1", CardID: "pc-1"})
			},
			method: "POST", path: "/v1/users/u-1/cards/sensitive-data",
			body: `{"identityId":"id-1","cardId":"pc-1"}`,
			resp: `{"data":{"pan":"4111111111111111","cvv":"123","expiry":"12/30"}}`,
			check: func(t *testing.T, got any) {
				d := got.(*CardSensitiveData)
				wantEq(t, d.PAN, "4111111111111111")
				for _, s := range []string{d.String(), fmtV(d), fmtV(*d), fmtPlusV(*d)} {
					if strings.Contains(s, "4111") || strings.Contains(s, "123") {
						t.Errorf("sensitive data leaked in %q", s)
					}
				}
			},
		},
		{
			name:   "GetCard",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetCard(ctx, "u-1", "c-1") },
			method: "GET", path: "/v1/users/u-1/cards/c-1",
			resp:  `{"data":{"id":"c-1","status":"frozen"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*Card).Status.Is(CardFrozen), true) },
		},
		{
			name: "RequestCardActivation",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.RequestCardActivation(ctx, "u-1", "c-1", CardActivationRequest{Channel: "sms"})
			},
			method: "POST", path: "/v1/users/u-1/cards/c-1/activate/request",
			body: `{"channel":"sms"}`,
			resp: `{"data":{"otpId":"otp-1","expiresInMinutes":10}}`,
			check: func(t *testing.T, got any) {
				wantEq(t, *got.(*CardActivationChallenge), CardActivationChallenge{"otp-1", 10})
			},
		},
		{
			name: "ConfirmCardActivation",
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.ConfirmCardActivation(ctx, "u-1", "c-1", ConfirmCardActivationRequest{OTPID: "otp-1", Code: "123456"})
			},
			method: "POST", path: "/v1/users/u-1/cards/c-1/activate/confirm",
			body: `{"otpId":"otp-1","code":"123456"}`,
			resp: `{"success":true}`,
		},
		{
			name: "SetCardStatus",
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SetCardStatus(ctx, "u-1", "c-1", SetCardStatusRequest{Status: CardBlocked})
			},
			method: "PUT", path: "/v1/users/u-1/cards/c-1/status",
			body: `{"status":"BLOCKED"}`,
			resp: `{"success":true}`,
		},
		{
			name: "SetCardPIN",
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SetCardPIN(ctx, "u-1", "c-1", CardPINRequest{PIN: "0420"})
			},
			method: "PUT", path: "/v1/users/u-1/cards/c-1/pin",
			body: `{"pin":"0420"}`,
			resp: `{}`,
		},
		{
			name: "ResetCardPIN",
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.ResetCardPIN(ctx, "u-1", "c-1", CardPINRequest{PIN: "9999"})
			},
			method: "POST", path: "/v1/users/u-1/cards/c-1/reset",
			body: `{"pin":"9999"}`,
			resp: `{}`,
		},
		{
			name: "SetCardLimits sends numbers",
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SetCardLimits(ctx, "u-1", "c-1", SetCardLimitsRequest{TotalDailyLimit: NewDecimalNumber(dec("500000")), MaxSingleTransactionAmount: NewDecimalNumber(dec("100000.50"))})
			},
			method: "PUT", path: "/v1/users/u-1/cards/c-1/set-limit",
			body: `{"totalDailyLimit":500000,"maxSingleTransactionAmount":100000.5}`,
			resp: `{}`,
		},
		{
			name:   "GetCardLimits",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetCardLimits(ctx, "u-1", "c-1") },
			method: "GET", path: "/v1/users/u-1/cards/c-1/limits",
			resp: `{"data":{"totalDailyLimit":500000,"maxSingleTransactionAmount":100000,"availableDailyLimit":499999.99,"maxTotalDailyLimit":1000000,"maxSingleTransactionLimitCap":250000}}`,
			check: func(t *testing.T, got any) {
				l := got.(*CardLimits)
				wantDec(t, l.AvailableDailyLimit.Decimal, "499999.99")
				wantDec(t, l.MaxSingleTransactionLimitCap.Decimal, "250000")
			},
		},
		{
			name: "ListCardTransactions",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListCardTransactions(ctx, "u-1", "c-1", CardTransactionQuery{Size: 20, Status: "COMPLETED", From: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)})
			},
			method: "GET", path: "/v1/users/u-1/cards/c-1/transactions",
			query: url.Values{"size": {"20"}, "status": {"COMPLETED"}, "from": {"2026-01-01"}, "to": {"2026-01-31"}},
			resp:  `{"data":[{"id":"t-1","amount":12.30,"currency":"USD","status":"COMPLETED","merchantName":"Shop","createdAt":"2026-01-05T10:00:00Z"},{"id":"t-2","amount":0.1,"currency":"USD"}],"size":2}`,
			check: func(t *testing.T, got any) {
				tx := got.(*CardTransactions)
				if tx.Size != 2 || len(tx.Transactions) != 2 || tx.Transactions[0].Amount.String() != "12.3" || tx.Transactions[1].Amount.String() != "0.1" {
					t.Errorf("transactions = %+v", tx)
				}
			},
		},
		{
			name: "ListCardTransactions bare list",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListCardTransactions(ctx, "u-1", "c-1", CardTransactionQuery{})
			},
			method: "GET", path: "/v1/users/u-1/cards/c-1/transactions", query: url.Values{},
			resp: `[{"id":"t-1","amount":1,"fee":0.05}]`,
			check: func(t *testing.T, got any) {
				tx := got.(*CardTransactions)
				if tx.Size != 1 || !tx.Transactions[0].Fee.Equal(dec("0.05")) {
					t.Errorf("transactions = %+v", tx)
				}
			},
		},
		{
			name:   "DeactivateCard",
			call:   func(ctx context.Context, c *Client) (any, error) { return nil, c.DeactivateCard(ctx, "u-1", "c-1") },
			method: "PUT", path: "/v1/users/u-1/cards/c-1/deactivate",
			resp: `{"success":true}`,
		},
		// Webhooks management
		{
			name: "CreateWebhookConfig",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateWebhookConfig(ctx, CreateWebhookConfigRequest{CallbackURL: "https://partner.example/webhooks", Events: []string{EventEmployeeLinked}, PartnerID: "pa-1"})
			},
			method: "POST", path: "/v1/webhooks/config",
			body:  `{"callbackUrl":"https://partner.example/webhooks","events":["employee.linked"],"partnerId":"pa-1"}`,
			resp:  `{"data":{"id":"wh-1","partnerId":"pa-1","callbackUrl":"https://partner.example/webhooks","secretKey":"` + strings.Repeat("a1", 32) + `","active":true,"events":["employee.linked"]}}`,
			check: func(t *testing.T, got any) { wantEq(t, len(got.(*WebhookConfig).SecretKey), 64) },
		},
		{
			name:   "GetWebhookConfig",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetWebhookConfig(ctx) },
			method: "GET", path: "/v1/webhooks/config",
			resp:  `{"id":"wh-1","active":true,"events":["employee.linked"]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*WebhookConfig).ID, "wh-1") },
		},
		{
			name: "UpdateWebhookConfig sends only what was set",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateWebhookConfig(ctx, UpdateWebhookConfigRequest{Active: &active})
			},
			method: "PATCH", path: "/v1/webhooks/config",
			body:  `{"active":false}`,
			resp:  `{"id":"wh-1","active":false}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*WebhookConfig).Active, false) },
		},
		{
			name:   "DeleteWebhookConfig",
			call:   func(ctx context.Context, c *Client) (any, error) { return nil, c.DeleteWebhookConfig(ctx) },
			method: "DELETE", path: "/v1/webhooks/config",
			resp: `{"success":true}`,
		},
		{
			name:   "RotateWebhookSecret",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.RotateWebhookSecret(ctx) },
			method: "POST", path: "/v1/webhooks/config/rotate-secret",
			resp:  `{"data":{"id":"wh-1","secretKey":"` + strings.Repeat("b2", 32) + `"}}`,
			check: func(t *testing.T, got any) { wantEq(t, got.(*WebhookConfig).SecretKey, strings.Repeat("b2", 32)) },
		},
		{
			name:   "ListWebhookDeliveries",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListWebhookDeliveries(ctx) },
			method: "GET", path: "/v1/webhooks/deliveries",
			resp:  `{"data":[{"id":"ev-1","eventType":"employee.linked","status":"failed","attempts":3,"errorMessage":"HTTP 404","createdAt":"2026-01-01T00:00:00Z","lastAttemptAt":"2026-01-01T00:01:00Z"}]}`,
			check: func(t *testing.T, got any) { wantEq(t, got.([]WebhookDelivery)[0].ErrorMessage, "HTTP 404") },
		},
		// Employer invite flow
		{
			name: "InviteEmployee",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.InviteEmployee(ctx, InviteEmployeeRequest{Name: "Ada Obi", Email: "ada@corp.example", KYC: &InviteKYC{Profile: KYCProfile{
					Profile: &KYCPersonalProfile{PersonalInfo: &PersonalInfo{FirstName: "Ada", Nationality: "NG"}},
					Address: &KYCAddress{City: "Lagos", PostalCode: "100001", CountryCode: "NGA"},
				}}})
			},
			method: "POST", path: "/v1/partners/employees/invite",
			body: `{"name":"Ada Obi","email":"ada@corp.example","kyc":{"profile":{"profile":{"personalInfo":{"firstName":"Ada","nationality":"NG"}},"address":{"city":"Lagos","postalCode":"100001","countryCode":"NGA"}}}}`,
			resp: `{"sent":true,"inviteUrl":"https://app.example/invite/abc"}`,
			check: func(t *testing.T, got any) {
				wantEq(t, *got.(*InviteResult), InviteResult{Sent: true, InviteURL: "https://app.example/invite/abc"})
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t, http.StatusOK, tc.resp)
			got, err := tc.call(context.Background(), f.client(t))
			if err != nil {
				t.Fatalf("call failed: %v", err)
			}
			r := f.only(t)
			if r.method != tc.method || r.path != tc.path {
				t.Errorf("request = %s %s, want %s %s", r.method, r.path, tc.method, tc.path)
			}
			if tc.rawPath != "" && r.rawPath != tc.rawPath {
				t.Errorf("escaped path = %s, want %s", r.rawPath, tc.rawPath)
			}
			if k := r.header.Get("x-api-key"); k != testKey {
				t.Errorf("x-api-key = %q", k)
			}
			if ua := r.header.Get("User-Agent"); ua != DefaultUserAgent {
				t.Errorf("User-Agent = %q", ua)
			}
			if tc.query == nil {
				if len(r.query) != 0 {
					t.Errorf("unexpected query %v", r.query)
				}
			} else if !reflect.DeepEqual(r.query, tc.query) {
				t.Errorf("query = %v, want %v", r.query, tc.query)
			}
			if tc.body == "" {
				if len(r.body) != 0 {
					t.Errorf("unexpected body %s", r.body)
				}
			} else {
				if ct := r.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
				jsonEqual(t, r.body, tc.body)
			}
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

func wantEq[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func wantDec(t *testing.T, got decimal.Decimal, want string) {
	t.Helper()
	if !got.Equal(dec(want)) {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestUploads(t *testing.T) {
	t.Parallel()
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 32)...)
	jpeg := append([]byte{0xff, 0xd8, 0xff, 0xe0}, bytes.Repeat([]byte{0}, 32)...)
	tests := []struct {
		name       string
		call       func(ctx context.Context, c *Client) error
		path       string
		wantFields map[string]string
		wantFiles  map[string]string // part name → content type
	}{
		{
			name: "identification",
			call: func(ctx context.Context, c *Client) error {
				return c.UploadIdentification(ctx, "u-1", IdentificationUpload{Type: DocumentPassport, DocumentNumber: "A123", IssuingCountry: "NGA", ExpirationDate: "2030-01-01",
					Front: &File{Name: "front.png", Data: png}, Back: &File{Name: "back.jpg", ContentType: "image/jpeg", Data: jpeg}})
			},
			path:       "/v1/users/u-1/kyc/documents/identification",
			wantFields: map[string]string{"type": "passport", "documentNumber": "A123", "issuingCountry": "NGA", "expirationDate": "2030-01-01"},
			wantFiles:  map[string]string{"front": "image/png", "back": "image/jpeg"},
		},
		{
			name: "proof of address",
			call: func(ctx context.Context, c *Client) error {
				return c.UploadProofOfAddress(ctx, "u-1", ProofOfAddressUpload{Type: "utility_bill", File: &File{Data: jpeg}})
			},
			path:       "/v1/users/u-1/kyc/documents/proof-of-address",
			wantFields: map[string]string{"type": "utility_bill"},
			wantFiles:  map[string]string{"file": "image/jpeg"},
		},
		{
			name: "biometric",
			call: func(ctx context.Context, c *Client) error {
				return c.UploadBiometric(ctx, "u-1", BiometricUpload{Selfie: &File{Name: "me.png", Data: png}})
			},
			path:       "/v1/users/u-1/kyc/documents/biometric",
			wantFields: map[string]string{},
			wantFiles:  map[string]string{"selfie": "image/png"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t, http.StatusCreated, `{"success":true}`)
			if err := tc.call(context.Background(), f.client(t)); err != nil {
				t.Fatal(err)
			}
			r := f.only(t)
			if r.method != http.MethodPost || r.path != tc.path {
				t.Errorf("request = %s %s", r.method, r.path)
			}
			mt, params, err := mime.ParseMediaType(r.header.Get("Content-Type"))
			if err != nil || mt != "multipart/form-data" {
				t.Fatalf("Content-Type = %q", r.header.Get("Content-Type"))
			}
			mr := multipart.NewReader(bytes.NewReader(r.body), params["boundary"])
			fields, files := map[string]string{}, map[string]string{}
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				data, _ := io.ReadAll(p)
				if p.FileName() != "" {
					files[p.FormName()] = p.Header.Get("Content-Type")
					if len(data) == 0 {
						t.Errorf("file %s is empty", p.FormName())
					}
					continue
				}
				fields[p.FormName()] = string(data)
			}
			wantEq(t, fields, tc.wantFields)
			wantEq(t, files, tc.wantFiles)
		})
	}
}

func fmtV(v any) string     { return fmt.Sprintf("%v", v) }
func fmtPlusV(v any) string { return fmt.Sprintf("%+v %#v %s", v, v, v) }
