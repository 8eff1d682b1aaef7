package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/apiclient/sandbox"
)

// journey drives the sandbox through apiclient as a partner would, with a
// webhook receiver that keeps only HMAC-verified deliveries.
type journey struct {
	t   *testing.T
	ctx context.Context
	sb  *sandbox.Server
	srv *httptest.Server
	api *apiclient.Client

	mu     sync.Mutex
	secret string
	events []*apiclient.Event
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func newJourney(t *testing.T) *journey {
	t.Helper()
	const key = "sk_test_part2_journeys"
	base := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	sb, err := sandbox.New(sandbox.Options{
		APIKeys: []string{key}, Control: true, Local: true, SettleDelay: -1,
		Clock:            func() time.Time { return base },
		WebhookRetryBase: 10 * time.Millisecond, WebhookRetryMax: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	j := &journey{t: t, ctx: context.Background(), sb: sb}
	j.srv = httptest.NewServer(sb)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		j.mu.Lock()
		defer j.mu.Unlock()
		if apiclient.VerifySignature(j.secret, body, r.Header.Get(apiclient.HeaderWebhookSignature)) != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		ev, err := apiclient.ParseEvent(body)
		if err != nil || r.Header.Get(apiclient.HeaderWebhookID) != ev.ID {
			http.Error(w, "bad event", http.StatusBadRequest)
			return
		}
		j.events = append(j.events, ev)
	}))
	t.Cleanup(func() {
		j.srv.Close()
		sb.Close()
		receiver.Close()
	})
	j.api, err = apiclient.New(j.srv.URL, key, apiclient.WithRetryPolicy(apiclient.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := j.api.CreateWebhookConfig(j.ctx, apiclient.CreateWebhookConfigRequest{
		CallbackURL: receiver.URL + "/hook", PartnerID: sb.Partners()[0].ID,
		Events: []string{
			apiclient.EventEmployeeDepositCompleted, apiclient.EventEmployeeDepositFailed,
			apiclient.EventEmployeeWithdrawalProcessing, apiclient.EventEmployeeWithdrawalCompleted, apiclient.EventEmployeeWithdrawalFailed,
			apiclient.EventOnboardingCompleted, apiclient.EventOnboardingFailed, apiclient.EventKYCActionRequired,
			apiclient.EventEmployeeVBARegistered,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	j.secret = cfg.SecretKey
	j.mu.Unlock()
	return j
}

func (j *journey) must(err error) {
	j.t.Helper()
	if err != nil {
		j.t.Fatal(err)
	}
}

// ctl calls the control API and decodes data.
func (j *journey) ctl(method, path string, body any) map[string]any {
	j.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, j.srv.URL+path, rd)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	j.must(err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		j.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	var out struct {
		Data map[string]any `json:"data"`
	}
	_ = json.Unmarshal(raw, &out)
	return out.Data
}

func (j *journey) advance(d time.Duration) {
	j.t.Helper()
	j.ctl("POST", "/_sandbox/clock/advance", map[string]any{"seconds": int64(d / time.Second)})
}

func (j *journey) settle() {
	j.t.Helper()
	j.ctl("POST", "/_sandbox/settle", nil)
}

type owned struct {
	wallet *apiclient.Wallet
	key    *secp256k1.PrivateKey
}

func (j *journey) user(email, first, last string) string {
	j.t.Helper()
	u, err := j.api.CreateUser(j.ctx, apiclient.CreateUserRequest{Email: email, FirstName: first, LastName: last})
	j.must(err)
	return u.ServiceUserID
}

func (j *journey) wallet(userID string, coin apiclient.Stablecoin, k *secp256k1.PrivateKey) owned {
	j.t.Helper()
	if k == nil {
		var err error
		k, err = ethsig.GenerateKey()
		j.must(err)
	}
	owner := ethsig.KeyAddress(k).Hex()
	ch, err := j.api.CreateOwnerProofChallenge(j.ctx, userID, apiclient.OwnerProofChallengeRequest{Currency: coin, UserOwnerAddress: owner})
	j.must(err)
	w, err := j.api.CreateManagedWallet(j.ctx, userID, apiclient.CreateManagedWalletRequest{
		Currency: coin, UserOwnerAddress: owner, OwnerProofChallengeID: ch.ChallengeID, OwnerProofSignature: ethsig.SignMessage(k, []byte(ch.Message)).Hex(),
	})
	j.must(err)
	return owned{wallet: w, key: k}
}

func (j *journey) balance(userID, walletID string) decimal.Decimal {
	j.t.Helper()
	w, err := j.api.GetWallet(j.ctx, userID, walletID)
	j.must(err)
	return w.Balance
}

func (j *journey) wantBalance(userID, walletID, want string) {
	j.t.Helper()
	if got := j.balance(userID, walletID); !got.Equal(dec(want)) {
		j.t.Fatalf("balance %s, want %s", got, want)
	}
}

// sign signs a signature request's hash raw with the owner key and submits
// it through POST /wallets/submit-signature.
func (j *journey) sign(userID string, sr *apiclient.SignatureRequest, k *secp256k1.PrivateKey) *apiclient.SubmitSignatureResult {
	j.t.Helper()
	if sr == nil {
		j.t.Fatal("no signature request")
	}
	h, err := sr.Hash()
	j.must(err)
	res, err := j.api.SubmitSignature(j.ctx, userID, apiclient.SubmitSignatureRequest{WorkflowID: sr.WorkflowID, Signature: ethsig.Sign(k, h).Hex()})
	j.must(err)
	return res
}

// event waits for a verified delivery of eventType about userID whose
// payload has every key=value of want.
func (j *journey) event(eventType, userID string, want map[string]string) map[string]any {
	j.t.Helper()
	return j.eventWhere(eventType, userID, fmt.Sprint(want), func(p map[string]any) bool {
		for k, v := range want {
			if fmt.Sprint(p[k]) != v {
				return false
			}
		}
		return true
	})
}

func (j *journey) eventWhere(eventType, userID, what string, match func(map[string]any) bool) map[string]any {
	j.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		j.mu.Lock()
		for _, ev := range j.events {
			if ev.EventType != eventType {
				continue
			}
			var p map[string]any
			_ = json.Unmarshal(ev.Payload, &p)
			if p["userId"] == userID && match(p) {
				j.mu.Unlock()
				return p
			}
		}
		j.mu.Unlock()
		if time.Now().After(deadline) {
			j.t.Fatalf("no verified %s for %s with %s", eventType, userID, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wantMoneyEvent waits for a deposit or withdrawal event of that amount,
// compared in decimals.
func (j *journey) wantMoneyEvent(eventType, userID, amount string) {
	j.t.Helper()
	j.eventWhere(eventType, userID, "amount "+amount, func(p map[string]any) bool {
		got, err := decimal.NewFromString(fmt.Sprint(p["amount"]))
		return err == nil && got.Equal(dec(amount))
	})
}

func pngImage() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

func jpegImage() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(2, 2, color.RGBA{10, 200, 10, 255})
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, nil)
	return b.Bytes()
}

// globalKYC runs the fixed submit order up to readiness: lookups, the
// three uploads, PATCH, GET /kyc and readiness.
func (j *journey) globalKYC(userID, issuing string, p apiclient.KYCProfile) {
	j.t.Helper()
	opts, err := j.api.GetKYCOptions(j.ctx, userID)
	j.must(err)
	if len(opts.Employment["employmentStatus"]) == 0 || len(opts.Address["countryCode"]) == 0 {
		j.t.Fatalf("options lack employment or address lists: %+v", opts)
	}
	occ, err := j.api.SearchOccupations(j.ctx, userID, "software engineer")
	j.must(err)
	if len(occ) != 1 || occ[0].Code == "" {
		j.t.Fatalf("occupations: %+v", occ)
	}
	j.must(j.api.UploadIdentification(j.ctx, userID, apiclient.IdentificationUpload{Type: apiclient.DocumentPassport,
		DocumentNumber: "P" + strings.ToUpper(userID[:8]), IssuingCountry: issuing, ExpirationDate: "2031-01-01",
		Front: &apiclient.File{Name: "passport.jpg", Data: jpegImage()}}))
	j.must(j.api.UploadProofOfAddress(j.ctx, userID, apiclient.ProofOfAddressUpload{Type: "utility_bill", File: &apiclient.File{Name: "bill.png", Data: pngImage()}}))
	j.must(j.api.UploadBiometric(j.ctx, userID, apiclient.BiometricUpload{Selfie: &apiclient.File{Name: "selfie.jpg", Data: jpegImage()}}))
	if p.Employment == nil {
		p.Employment = &apiclient.KYCEmployment{EmploymentStatus: "employed", OccupationCode: occ[0].Code, EmployerName: "Acme"}
	}
	j.must(j.api.UpdateKYC(j.ctx, userID, p))
	got, err := j.api.GetKYC(j.ctx, userID)
	j.must(err)
	if got.Employment == nil || got.Employment.OccupationCode != p.Employment.OccupationCode {
		j.t.Fatalf("GET /kyc employment %+v", got.Employment)
	}
	r, err := j.api.GetKYCReadiness(j.ctx, userID)
	j.must(err)
	if !r.CanActivate || len(r.Missing) != 0 {
		j.t.Fatalf("readiness %+v", r)
	}
}

func personal(first, last string) *apiclient.KYCPersonalProfile {
	return &apiclient.KYCPersonalProfile{PersonalInfo: &apiclient.PersonalInfo{FirstName: first, LastName: last, DateOfBirth: "1990-05-17"}}
}

// TestJourneyUSD: KYC in order → readiness → activate → start-usa →
// provisioning → pending → active → bank deposit → crypto offramp signed
// through submit-signature.
func TestJourneyUSD(t *testing.T) {
	j := newJourney(t)
	id := j.user("emily@usd.example", "Emily", "Carter")
	usd := j.wallet(id, apiclient.USDB, nil)
	j.globalKYC(id, "USA", apiclient.KYCProfile{
		Profile:               personal("Emily", "Carter"),
		Address:               &apiclient.KYCAddress{StreetLine1: "1 Main St", City: "Austin", State: "TX", PostalCode: "73301", CountryCode: "USA"},
		SourceOfFunds:         "salary",
		IdentificationNumbers: []apiclient.IdentificationNumber{{Type: "ssn", Number: "123-45-6789", IssuingCountryCode: "USA"}},
	})
	_, err := j.api.ActivateKYC(j.ctx, id, apiclient.ActivateKYCRequest{Currency: apiclient.USD, IdentityLevelName: apiclient.IdentityLevelIDAndLiveness})
	j.must(err)
	ur, err := j.api.GetUSDReadiness(j.ctx, id)
	j.must(err)
	if !ur.Ready {
		t.Fatalf("usd readiness %+v", ur)
	}
	st, err := j.api.StartUSA(j.ctx, id, apiclient.StartUSARequest{SmartWalletID: usd.wallet.ID})
	j.must(err)
	again, err := j.api.StartUSA(j.ctx, id, apiclient.StartUSARequest{SmartWalletID: usd.wallet.ID})
	j.must(err)
	if st.WorkflowID == "" || again.WorkflowID != st.WorkflowID {
		t.Fatalf("start-usa not idempotent: %+v then %+v", st, again)
	}
	vba := func(want apiclient.VirtualAccountStatus) *apiclient.VirtualAccount {
		t.Helper()
		a, err := j.api.GetUSDVirtualAccount(j.ctx, id)
		j.must(err)
		if a.Status != want || (a.Account != nil) != (want == apiclient.VirtualAccountActive) {
			t.Fatalf("vba %+v, want %s", a, want)
		}
		return a
	}
	vba(apiclient.VirtualAccountProvisioning)
	j.advance(2 * time.Minute)
	vba(apiclient.VirtualAccountPending)
	j.advance(10 * time.Minute)
	acct := vba(apiclient.VirtualAccountActive).Account
	j.event(apiclient.EventEmployeeVBARegistered, id, map[string]string{"currency": "USD"})
	j.event(apiclient.EventOnboardingCompleted, id, map[string]string{"currency": "USD"})
	status, err := j.api.GetOnboardingStatus(j.ctx, id)
	j.must(err)
	if rs := status.Currencies[apiclient.USD]; !rs.Active || rs.Status != "active" {
		t.Fatalf("onboarding status %+v", status)
	}

	ref := ""
	if acct.DepositMessage != nil {
		ref = *acct.DepositMessage
	}
	j.ctl("POST", "/_sandbox/users/"+id+"/bank-deposits", map[string]any{"currency": "USD", "amount": "250.75", "reference": ref})
	j.wantBalance(id, usd.wallet.ID, "250.75")
	j.wantMoneyEvent(apiclient.EventEmployeeDepositCompleted, id, "250.75")

	// spec: "USD has no bank payout rail. Value leaves by swap, Nigerian
	// bank withdrawal or crypto offramp."
	sup, err := j.api.GetCryptoOfframpSupport(j.ctx, id, "USDB")
	j.must(err)
	if !sup.Supports("base", "USDC") {
		t.Fatalf("offramp support %+v", sup)
	}
	dest := ethsig.KeyAddress(mustKey(t)).Hex()
	out, err := j.api.CreateCryptoOfframp(j.ctx, id, apiclient.CryptoWithdrawalRequest{SourceSmartWalletID: usd.wallet.ID,
		DestinationChain: "base", DestinationCurrency: "USDC", DestinationAddress: dest})
	j.must(err)
	j.wantBalance(id, usd.wallet.ID, "250.75") // nothing moves before the signature
	j.sign(id, out.SignatureRequest, usd.key)
	j.wantBalance(id, usd.wallet.ID, "0")
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalProcessing, id, "250.75")
	j.settle()
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalCompleted, id, "250.75")
}

func mustKey(t *testing.T) *secp256k1.PrivateKey {
	k, err := ethsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestJourneyEUR: Global KYC → activate → start-eur-provider → EU provider
// authorization → IBAN → SEPA deposit → SEPA payout prepared, signed and
// completed.
func TestJourneyEUR(t *testing.T) {
	j := newJourney(t)
	id := j.user("lena@eur.example", "Lena", "Schmidt")
	eur := j.wallet(id, apiclient.EURe, nil)
	j.globalKYC(id, "DEU", apiclient.KYCProfile{
		Profile:       personal("Lena", "Schmidt"),
		Address:       &apiclient.KYCAddress{StreetLine1: "Unter den Linden 1", City: "Berlin", State: "Berlin", PostalCode: "10117", CountryCode: "DEU"},
		SourceOfFunds: "salary",
	})
	_, err := j.api.ActivateKYC(j.ctx, id, apiclient.ActivateKYCRequest{Currency: apiclient.EUR, IdentityLevelName: apiclient.IdentityLevelIDOnly})
	j.must(err)
	_, err = j.api.StartEURProvider(j.ctx, id, apiclient.StartEURProviderRequest{EURWalletAddress: eur.wallet.Address, EURWalletIndex: 0})
	j.must(err)
	status, err := j.api.GetOnboardingStatus(j.ctx, id)
	j.must(err)
	if status.EURProviderStatus != "pending" {
		t.Fatalf("eurProviderStatus %q, want pending", status.EURProviderStatus)
	}
	code := "auth-code-123"
	j.must(j.api.SubmitEUKYC(j.ctx, id, apiclient.EUKYCRequest{Code: code,
		Signature: ethsig.SignMessage(eur.key, []byte("EUR provider authorization: "+code)).Hex()}))
	status, err = j.api.GetOnboardingStatus(j.ctx, id)
	j.must(err)
	if status.EURProviderStatus != "active" || !status.Currencies[apiclient.EUR].Active {
		t.Fatalf("onboarding status %+v", status)
	}
	j.event(apiclient.EventOnboardingCompleted, id, map[string]string{"currency": "EUR"})
	va, err := j.api.ProvisionEURVirtualAccount(j.ctx, id)
	j.must(err)
	if va.Status != apiclient.VirtualAccountActive || va.Account == nil || !apiclient.IsIBAN(va.Account.AccountNumber) {
		t.Fatalf("EUR account %+v", va)
	}
	j.event(apiclient.EventEmployeeVBARegistered, id, map[string]string{"currency": "EUR"})

	j.ctl("POST", "/_sandbox/users/"+id+"/bank-deposits", map[string]any{"currency": "EUR", "amount": "500.00"})
	j.wantBalance(id, eur.wallet.ID, "500")
	j.wantMoneyEvent(apiclient.EventEmployeeDepositCompleted, id, "500.00")

	ord, err := j.api.PrepareEUROrder(j.ctx, id, apiclient.EUROrderRequest{SmartWalletID: eur.wallet.ID, Amount: dec("120.50"),
		IBAN: "DE89 3704 0044 0532 0130 00", BeneficiaryName: "Max Mustermann", Reference: "Rent November"})
	j.must(err)
	if ord.SignatureRequest == nil || ord.Status != "prepared" {
		t.Fatalf("prepared order %+v", ord)
	}
	h, err := ord.SignatureRequest.Hash()
	j.must(err)
	done, err := j.api.CompleteEUROrder(j.ctx, id, ord.OrderID, apiclient.CompleteEUROrderRequest{Signature: ethsig.Sign(eur.key, h).Hex()})
	j.must(err)
	if done.Status != "processing" {
		t.Fatalf("completed order %+v", done)
	}
	j.wantBalance(id, eur.wallet.ID, "379.50")
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalProcessing, id, "120.5")
	j.settle()
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalCompleted, id, "120.5")
}

// TestJourneyNGN: NGN stage 1 KYC → BVN lookup → activate (no body) →
// start-nigeria (NGN account issued, wallet mirrored) → NGN deposit →
// Nigerian withdrawal through the proposal flow, COMPLETED only after the
// payout.
func TestJourneyNGN(t *testing.T) {
	j := newJourney(t)
	id := j.user("adaeze@ngn.example", "Adaeze", "Okafor")
	ngn := j.wallet(id, apiclient.CNGN, nil)
	_, err := j.api.GetKYCOptions(j.ctx, id)
	j.must(err)
	_, err = j.api.SearchOccupations(j.ctx, id, "accountant")
	j.must(err)
	holder, err := j.api.LookupBVN(j.ctx, id, "22222222222")
	j.must(err)
	if holder.FirstName == "" || holder.LastName == "" {
		t.Fatalf("BVN holder %+v", holder)
	}
	j.must(j.api.UpdateKYC(j.ctx, id, apiclient.KYCProfile{
		Profile: &apiclient.KYCPersonalProfile{PersonalInfo: &apiclient.PersonalInfo{FirstName: "Adaeze", LastName: "Okafor",
			DateOfBirth: "1992-03-04", PhoneNumber: "08031234567"}},
		Address: &apiclient.KYCAddress{StreetLine1: "12 Admiralty Way", City: "Lekki", State: "Lagos", PostalCode: "106104", CountryCode: "NGA"},
		BVN:     "22222222222",
	}))
	r, err := j.api.GetKYCReadiness(j.ctx, id)
	j.must(err)
	if !r.CanActivate {
		t.Fatalf("NGN readiness %+v", r)
	}
	_, err = j.api.ActivateKYC(j.ctx, id, apiclient.ActivateKYCRequest{Currency: apiclient.NGN})
	j.must(err)
	_, err = j.api.StartNigeria(j.ctx, id, apiclient.StartNigeriaRequest{BVN: "22222222222", NGNWalletAddress: ngn.wallet.Address, NGNWalletIndex: 0})
	j.must(err)
	j.event(apiclient.EventEmployeeVBARegistered, id, map[string]string{"currency": "NGN"})
	j.event(apiclient.EventOnboardingCompleted, id, map[string]string{"currency": "NGN"})
	va, err := j.api.ProvisionNGNVirtualAccount(j.ctx, id)
	j.must(err)
	if va.Status != apiclient.VirtualAccountActive || va.Account == nil || len(va.Account.AccountNumber) != 10 {
		t.Fatalf("NGN account %+v", va)
	}
	accts, err := j.api.GetDepositAccounts(j.ctx, id, apiclient.NGN)
	j.must(err)
	if len(accts) != 1 || accts[0].AccountNumber != va.Account.AccountNumber {
		t.Fatalf("NGN deposit accounts %+v", accts)
	}

	j.ctl("POST", "/_sandbox/users/"+id+"/bank-deposits", map[string]any{"currency": "NGN", "amount": "500000"})
	j.wantBalance(id, ngn.wallet.ID, "500000")
	j.wantMoneyEvent(apiclient.EventEmployeeDepositCompleted, id, "500000")

	banks, err := j.api.ListNigerianBanks(j.ctx, id)
	j.must(err)
	var gtb apiclient.NigerianBank
	for _, b := range banks {
		if b.Code == "058" {
			gtb = b
		}
	}
	acc, err := j.api.VerifyNigerianAccount(j.ctx, id, apiclient.VerifyNigerianAccountRequest{AccountNumber: "0123456789", BankCode: gtb.Code})
	j.must(err)
	wa, err := j.api.CreateNigerianWithdrawalAccount(j.ctx, id, apiclient.NigerianWithdrawalAccountRequest{AccountNumber: "0123456789",
		BankCode: gtb.Code, BankName: gtb.Name, AccountHolderName: acc.AccountHolderName})
	j.must(err)
	off, err := j.api.CreateNigerianOfframp(j.ctx, id, ngn.wallet.ID, apiclient.NigerianOfframpRequest{BankAccountID: wa.ID, FromAmount: dec("100000")})
	j.must(err)
	if off.Status != apiclient.ProposalPendingApprovals || off.Quote == nil || !off.Quote.ToAmount.Equal(dec("99950")) {
		t.Fatalf("offramp %+v %+v", off, off.Quote)
	}
	_, err = j.api.ApproveProposal(j.ctx, id, off.ProposalID)
	j.must(err)
	sp, err := j.api.GetSignPayload(j.ctx, id, off.ProposalID)
	j.must(err)
	h, err := ethsig.ParseHash(sp.HashToSign)
	j.must(err)
	_, err = j.api.SignProposal(j.ctx, id, off.ProposalID, apiclient.SignProposalRequest{Signature: ethsig.Sign(ngn.key, h).Hex()})
	j.must(err)
	j.settle()
	p, err := j.api.GetProposal(j.ctx, id, off.ProposalID)
	j.must(err)
	if p.Status != apiclient.ProposalCompleted {
		t.Fatalf("offramp proposal %s, want COMPLETED", p.Status)
	}
	j.wantBalance(id, ngn.wallet.ID, "400000")
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalProcessing, id, "100000")
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalCompleted, id, "100000")
}

// TestJourneyMXN: Global KYC with an RFC → activate → start-mexico → MX KYC
// activation → hosted launch → approved → CLABE → SPEI onramp order →
// offramp quote with allowance and burn signatures.
func TestJourneyMXN(t *testing.T) {
	j := newJourney(t)
	id := j.user("lucia@mxn.example", "Lucía", "Hernández")
	mx := j.wallet(id, apiclient.MEXe, nil)
	j.globalKYC(id, "MEX", apiclient.KYCProfile{
		Profile:               personal("Lucía", "Hernández"),
		Address:               &apiclient.KYCAddress{StreetLine1: "Av. Reforma 100", City: "Ciudad de México", State: "CDMX", PostalCode: "06600", CountryCode: "MEX"},
		SourceOfFunds:         "salary",
		IdentificationNumbers: []apiclient.IdentificationNumber{{Type: "rfc", Number: "HELU900517AB1", IssuingCountryCode: "MEX"}},
	})
	_, err := j.api.ActivateKYC(j.ctx, id, apiclient.ActivateKYCRequest{Currency: apiclient.MXN, IdentityLevelName: apiclient.IdentityLevelIDVAndPhone})
	j.must(err)
	if st, err := j.api.GetOnboardingStatus(j.ctx, id); err != nil || st.Currencies[apiclient.MXN].Status != "none" {
		t.Fatalf("MXN before start-mexico: %+v %v", st, err)
	}
	_, err = j.api.StartMexico(j.ctx, id, apiclient.StartMexicoRequest{MXNWalletAddress: mx.wallet.Address, MXNWalletIndex: 0})
	j.must(err)
	// README decision: the MXN rail reports what start-mexico answered
	// (kyc_required) until the Mexican KYC is activated.
	if st, err := j.api.GetOnboardingStatus(j.ctx, id); err != nil || st.Currencies[apiclient.MXN].Status != "kyc_required" {
		t.Fatalf("MXN after start-mexico: %+v %v", st, err)
	}
	act, err := j.api.ActivateMexicoKYC(j.ctx, id)
	j.must(err)
	if act.Status != apiclient.MexicoKYCProposed || !act.Uploaded.Selfie || !act.Uploaded.Document {
		t.Fatalf("mx activation %+v", act)
	}
	if accts, err := j.api.GetDepositAccounts(j.ctx, id, apiclient.MXN); err != nil || len(accts) != 0 {
		t.Fatalf("MXN accounts before approval: %+v %v", accts, err)
	}
	launch, err := j.api.GetMexicoAgreementsLaunch(j.ctx, id)
	j.must(err)
	if launch.Fields.Assertion == "" || !strings.Contains(launch.HTML, "submit()") || launch.ExpiresAt.Sub(j.sb.Now()) != 5*time.Minute {
		t.Fatalf("launch %+v", launch)
	}
	j.advance(3 * time.Minute)
	s, err := j.api.GetMexicoKYCStatus(j.ctx, id)
	j.must(err)
	if s.Status != apiclient.MexicoKYCApprovedChainDeploying {
		t.Fatalf("mx status %s", s.Status)
	}
	j.advance(3 * time.Minute)
	if s, _ = j.api.GetMexicoKYCStatus(j.ctx, id); s.Status != apiclient.MexicoKYCApproved {
		t.Fatalf("mx status %s", s.Status)
	}
	j.event(apiclient.EventOnboardingCompleted, id, map[string]string{"currency": "MXN"})
	accts, err := j.api.GetDepositAccounts(j.ctx, id, apiclient.MXN)
	j.must(err)
	if len(accts) != 1 || len(accts[0].Clabe) != 18 || accts[0].TargetCurrency != apiclient.MEXe || !accts[0].IsActive() {
		t.Fatalf("MXN accounts %+v", accts)
	}

	dep := j.ctl("POST", "/_sandbox/users/"+id+"/bank-deposits", map[string]any{"currency": "MXN", "amount": "1000"})
	onramp, err := j.api.GetMexicoOrder(j.ctx, id, dep["orderId"].(string))
	j.must(err)
	if onramp.OrderType != "onramp" || onramp.Status != apiclient.MexicoOrderFunded || onramp.DepositClabe != accts[0].Clabe {
		t.Fatalf("onramp order %+v", onramp)
	}
	j.settle()
	j.wantBalance(id, mx.wallet.ID, "1000")
	j.wantMoneyEvent(apiclient.EventEmployeeDepositCompleted, id, "1000")

	q, err := j.api.CreateMexicoQuote(j.ctx, id, apiclient.MexicoQuoteRequest{SourceAmount: dec("400")})
	j.must(err)
	if q.SignatureRequest == nil || !q.DestinationAmount.Equal(dec("398")) || !q.FeeBps.Equal(dec("50")) {
		t.Fatalf("quote %+v", q)
	}
	j.sign(id, q.SignatureRequest, mx.key)
	o, err := j.api.GetMexicoOrder(j.ctx, id, q.OrderID)
	j.must(err)
	if o.Status != apiclient.MexicoOrderCreated || o.BurnSignatureRequest == nil {
		t.Fatalf("order before burn %+v", o)
	}
	j.sign(id, o.BurnSignatureRequest, mx.key)
	if o, _ = j.api.GetMexicoOrder(j.ctx, id, q.OrderID); o.Status != apiclient.MexicoOrderFunded {
		t.Fatalf("order after burn %+v", o)
	}
	j.wantBalance(id, mx.wallet.ID, "600")
	j.settle()
	if o, _ = j.api.GetMexicoOrder(j.ctx, id, q.OrderID); o.Status != apiclient.MexicoOrderCompleted {
		t.Fatalf("order after settle %+v", o)
	}
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalCompleted, id, "400")
	// The allowance now suffices: spec "signatureRequest (absent when the
	// wallet already has enough allowance)".
	q2, err := j.api.CreateMexicoQuote(j.ctx, id, apiclient.MexicoQuoteRequest{SourceAmount: dec("100")})
	j.must(err)
	if q2.SignatureRequest != nil {
		t.Fatalf("second quote has a signature request: %+v", q2)
	}
}

// TestJourneyCAD: KYC without the Global extras → activate (no body) →
// start-canada → pending → active → CAD deposit → exchange to USDB with a
// firm quote → bank payout to Canada signed through submit-signature.
func TestJourneyCAD(t *testing.T) {
	j := newJourney(t)
	id := j.user("noah@cad.example", "Noah", "Tremblay")
	cad := j.wallet(id, apiclient.CADC, nil)
	usd := j.wallet(id, apiclient.USDB, cad.key)
	_, err := j.api.GetKYCOptions(j.ctx, id)
	j.must(err)
	_, err = j.api.SearchOccupations(j.ctx, id, "nurse")
	j.must(err)
	j.must(j.api.UploadIdentification(j.ctx, id, apiclient.IdentificationUpload{Type: apiclient.DocumentDriversLicense,
		DocumentNumber: "T1234-56789-01234", IssuingCountry: "CAN", Front: &apiclient.File{Data: pngImage()}, Back: &apiclient.File{Data: pngImage()}}))
	j.must(j.api.UpdateKYC(j.ctx, id, apiclient.KYCProfile{
		Profile: personal("Noah", "Tremblay"),
		Address: &apiclient.KYCAddress{StreetLine1: "100 Rue Sainte-Catherine", City: "Montréal", State: "QC", PostalCode: "H2X 1Z6", CountryCode: "CAN"},
	}))
	r, err := j.api.GetKYCReadiness(j.ctx, id)
	j.must(err)
	if !r.CanActivate {
		t.Fatalf("CAD readiness %+v", r)
	}
	_, err = j.api.ActivateKYC(j.ctx, id, apiclient.ActivateKYCRequest{Currency: apiclient.CAD})
	j.must(err)
	_, err = j.api.StartCanada(j.ctx, id, apiclient.StartCanadaRequest{CADWalletAddress: cad.wallet.Address, CADWalletIndex: 0})
	j.must(err)
	status, err := j.api.GetOnboardingStatus(j.ctx, id)
	j.must(err)
	if rs := status.Currencies[apiclient.CAD]; rs.Status != "pending" || rs.Active {
		t.Fatalf("CAD onboarding %+v", rs)
	}
	j.advance(5 * time.Minute)
	status, err = j.api.GetOnboardingStatus(j.ctx, id)
	j.must(err)
	if rs := status.Currencies[apiclient.CAD]; !rs.Active {
		t.Fatalf("CAD onboarding %+v", rs)
	}
	j.event(apiclient.EventOnboardingCompleted, id, map[string]string{"currency": "CAD"})
	j.event(apiclient.EventEmployeeVBARegistered, id, map[string]string{"currency": "CAD"})

	j.ctl("POST", "/_sandbox/users/"+id+"/bank-deposits", map[string]any{"currency": "CAD", "amount": "1000"})
	j.wantBalance(id, cad.wallet.ID, "1000")
	j.wantMoneyEvent(apiclient.EventEmployeeDepositCompleted, id, "1000")

	q, err := j.api.CreateExchangeQuote(j.ctx, id, apiclient.ExchangeQuoteRequest{FromCurrency: apiclient.CADC, ToCurrency: apiclient.USDB, Amount: dec("500")})
	j.must(err)
	conv, err := j.api.Convert(j.ctx, id, apiclient.ConvertRequest{FromCurrency: apiclient.CADC, ToCurrency: apiclient.USDB, Amount: dec("500"), QuoteID: q.QuoteID})
	j.must(err)
	if !conv.ToAmount.Equal(q.ToAmount) || conv.SignatureRequest == nil {
		t.Fatalf("conversion %+v for quote %+v", conv, q)
	}
	j.sign(id, conv.SignatureRequest, cad.key)
	j.wantBalance(id, cad.wallet.ID, "500")
	j.wantBalance(id, usd.wallet.ID, q.ToAmount.String())

	branches, err := j.api.ListPayoutBankBranches(j.ctx, id, "can-rbc")
	j.must(err)
	v, err := j.api.ValidatePayoutAccount(j.ctx, id, apiclient.ValidatePayoutAccountRequest{Country: "CAN", Currency: "CAD", BankID: "can-rbc", AccountNumber: "1234567"})
	j.must(err)
	if !v.Valid || len(branches) == 0 {
		t.Fatalf("validation %+v branches %+v", v, branches)
	}
	po, err := j.api.CreatePayout(j.ctx, id, apiclient.PayoutRequest{SourceSmartWalletID: usd.wallet.ID, Amount: apiclient.NewMinorUnits(20000),
		Country: "CAN", Currency: "CAD", BankDetails: apiclient.PayoutBankDetails{BankID: "can-rbc", BranchID: branches[0].ID,
			AccountNumber: "1234567", AccountHolderName: v.AccountHolderName, AccountType: "checking"}, Note: "Rent"})
	j.must(err)
	if po.Quote == nil || !po.Quote.SourceAmount.Equal(dec("200")) || !po.Quote.FeeAmount.Equal(dec("1")) {
		t.Fatalf("payout quote %+v", po.Quote)
	}
	before := j.balance(id, usd.wallet.ID)
	j.sign(id, po.SignatureRequest, cad.key)
	j.wantBalance(id, usd.wallet.ID, before.Sub(dec("200")).String())
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalProcessing, id, "200")
	j.settle()
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalCompleted, id, "200")
}

// TestApiclientRailMethods exercises, through apiclient, the methods of the
// rails that the five journeys do not: the wire shapes must decode.
func TestApiclientRailMethods(t *testing.T) {
	j := newJourney(t)
	id := j.user("kemi@rails.example", "Kemi", "Alabi")
	usd := j.wallet(id, apiclient.USDB, nil)
	ngn := j.wallet(id, apiclient.CNGN, usd.key)
	mx := j.wallet(id, apiclient.MEXe, usd.key)

	holder, err := j.api.LookupNIN(j.ctx, id, "22222222222")
	j.must(err)
	if holder.FirstName == "" {
		t.Fatalf("NIN holder %+v", holder)
	}
	if _, err := j.api.LookupBVN(j.ctx, id, "12345678901"); !apiclient.IsNotFound(err) {
		t.Fatalf("unknown BVN: %v", err)
	}

	// Crypto in and out.
	assets, err := j.api.ListDepositAssets(j.ctx)
	j.must(err)
	if len(assets) == 0 {
		t.Fatal("no deposit assets")
	}
	dw, err := j.api.CreateDepositWallet(j.ctx, id, apiclient.DepositWalletRequest{Chain: "ethereum", Currency: "USDT"})
	j.must(err)
	j.ctl("POST", "/_sandbox/crypto/deposits", map[string]any{"address": dw.Address, "currency": "USDT", "amount": "75.5"})
	j.wantBalance(id, usd.wallet.ID, "75.5")
	sup, err := j.api.GetCryptoWithdrawalSupport(j.ctx, id, "USDB")
	j.must(err)
	if !sup.Supports("ethereum", "USDT") {
		t.Fatalf("support %+v", sup)
	}
	cw, err := j.api.CreateCryptoWithdrawal(j.ctx, id, apiclient.CryptoWithdrawalRequest{SourceSmartWalletID: usd.wallet.ID,
		DestinationChain: "ethereum", DestinationCurrency: "USDT", DestinationAddress: ethsig.KeyAddress(mustKey(t)).Hex()})
	j.must(err)
	if cw.SignatureRequest == nil || cw.SignatureRequest.Deadline.IsZero() {
		t.Fatalf("crypto withdrawal %+v", cw)
	}
	j.sign(id, cw.SignatureRequest, usd.key)
	j.wantBalance(id, usd.wallet.ID, "0")

	// Payout reference data.
	countries, err := j.api.ListPayoutCountries(j.ctx, id)
	j.must(err)
	banks, err := j.api.ListPayoutBanks(j.ctx, id, "MEX")
	j.must(err)
	if len(countries) == 0 || len(banks) == 0 {
		t.Fatalf("countries %+v banks %+v", countries, banks)
	}

	// LATAM cash.
	j.ctl("POST", "/_sandbox/deposits", map[string]any{"smartWalletId": mx.wallet.ID, "amount": "500"})
	fund, err := j.api.CreateCashFundOrder(j.ctx, id, apiclient.CashOrderRequest{SmartWalletID: mx.wallet.ID, Country: "MX", Price: dec("200"), PriceCurrency: apiclient.MXN, Description: "Top up"})
	j.must(err)
	if fund.RedirectURL == "" || !fund.Price.Equal(dec("200")) {
		t.Fatalf("fund order %+v", fund)
	}
	send, err := j.api.CreateCashSendOrder(j.ctx, id, apiclient.CashOrderRequest{SmartWalletID: mx.wallet.ID, Country: "MX", Price: dec("120"), PriceCurrency: apiclient.MXN, Description: "Rent"})
	j.must(err)
	funds, err := j.api.ListCashOrders(j.ctx, id, apiclient.CashFund)
	j.must(err)
	if len(funds) != 1 || funds[0].Type != apiclient.CashFund || funds[0].Expiry.IsZero() {
		t.Fatalf("fund list %+v", funds)
	}
	got, err := j.api.GetCashOrder(j.ctx, id, fund.ID)
	j.must(err)
	if got.MerchantOrderID == "" || got.Status != "CREATED" {
		t.Fatalf("cash order %+v", got)
	}
	j.sign(id, send.SignatureRequest, usd.key)
	j.wantBalance(id, mx.wallet.ID, "380")
	j.wantMoneyEvent(apiclient.EventEmployeeWithdrawalProcessing, id, "120")

	// NGN onboarding, routing and the deprecated launch alias.
	_, err = j.api.GetKYCOptions(j.ctx, id)
	j.must(err)
	_, err = j.api.SearchOccupations(j.ctx, id, "")
	j.must(err)
	j.must(j.api.UpdateKYC(j.ctx, id, apiclient.KYCProfile{
		Profile: &apiclient.KYCPersonalProfile{PersonalInfo: &apiclient.PersonalInfo{FirstName: "Kemi", LastName: "Alabi", DateOfBirth: "1994-02-20", PhoneNumber: "08039876543"}},
		Address: &apiclient.KYCAddress{StreetLine1: "9 Ring Road", City: "Ibadan", State: "Oyo", PostalCode: "200221", CountryCode: "NGA"},
		BVN:     "22222222222",
	}))
	_, err = j.api.GetKYCReadiness(j.ctx, id)
	j.must(err)
	_, err = j.api.ActivateKYC(j.ctx, id, apiclient.ActivateKYCRequest{Currency: apiclient.NGN})
	j.must(err)
	_, err = j.api.StartNigeria(j.ctx, id, apiclient.StartNigeriaRequest{BVN: "22222222222", NGNWalletAddress: ngn.wallet.Address, NGNWalletIndex: 0})
	j.must(err)
	msg, err := j.api.RouteNGNDeposits(j.ctx, id, ngn.wallet.ID)
	j.must(err)
	if !msg.Success {
		t.Fatalf("route %+v", msg)
	}
	_, err = j.api.UnrouteNGNDeposits(j.ctx, id, ngn.wallet.ID)
	j.must(err)
	if _, err := j.api.RouteUSDDeposits(j.ctx, id, usd.wallet.ID); !apiclient.IsNotFound(err) {
		t.Fatalf("route without a USD account: %v", err)
	}
	if _, err := j.api.UnrouteUSDDeposits(j.ctx, id, usd.wallet.ID); !apiclient.IsNotFound(err) {
		t.Fatalf("unroute without a USD account: %v", err)
	}
	all, err := j.api.ListDepositAccounts(j.ctx, id)
	j.must(err)
	if len(all.Accounts) != 1 || all.Accounts[0].Currency != "NGN" || len(all.MexicanAccounts) != 0 {
		t.Fatalf("deposit accounts %+v", all)
	}
	if _, err := j.api.GetMexicoIDVLaunch(j.ctx, id); err == nil {
		t.Fatal("launch before MX activation succeeded")
	}
}
