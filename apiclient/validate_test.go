package apiclient

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestValidate checks each rule of the spec's Limits table, and that every
// invalid field is reported at once.
func TestValidate(t *testing.T) {
	t.Parallel()
	card := func(mut func(*CreateCardRequest)) CreateCardRequest {
		r := CreateCardRequest{CardName: "Travel", CardColor: "#112233", Currency: NGN, Type: "physical", SmartWalletID: "w-1"}
		mut(&r)
		return r
	}
	slip := func(n int) *int { return &n }
	long := strings.Repeat("é", 501)
	tests := []struct {
		name string
		v    interface{ Validate() error }
		want []string // invalid fields; nil means valid
	}{
		{"card ok", card(func(*CreateCardRequest) {}), nil},
		{"card name 50 multibyte chars ok", card(func(r *CreateCardRequest) { r.CardName = strings.Repeat("ñ", 50) }), nil},
		{"card name 51 chars", card(func(r *CreateCardRequest) { r.CardName = strings.Repeat("a", 51) }), []string{"cardName"}},
		{"card name empty", card(func(r *CreateCardRequest) { r.CardName = " " }), []string{"cardName"}},
		{"colour #RGB ok", card(func(r *CreateCardRequest) { r.CardColor = "#aBc" }), nil},
		{"colour #RGBA", card(func(r *CreateCardRequest) { r.CardColor = "#abcd" }), []string{"cardColor"}},
		{"colour without #", card(func(r *CreateCardRequest) { r.CardColor = "112233" }), []string{"cardColor"}},
		{"colour not hex", card(func(r *CreateCardRequest) { r.CardColor = "#GGG" }), []string{"cardColor"}},
		{"NIN trimmed ok", card(func(r *CreateCardRequest) { r.NIN = " 12345678901 " }), nil},
		{"NIN 10 digits", card(func(r *CreateCardRequest) { r.NIN = "1234567890" }), []string{"nin"}},
		{"PAN 13 ok", card(func(r *CreateCardRequest) { r.PAN = "1234567890123" }), nil},
		{"PAN 19 ok", card(func(r *CreateCardRequest) { r.PAN = "1234567890123456789" }), nil},
		{"PAN 12", card(func(r *CreateCardRequest) { r.PAN = "123456789012" }), []string{"pan"}},
		{"PAN 20", card(func(r *CreateCardRequest) { r.PAN = "12345678901234567890" }), []string{"pan"}},
		{"delivery phone 0 prefix ok", card(func(r *CreateCardRequest) { r.DeliveryPhoneNumber = "08012345678" }), nil},
		{"delivery phone bad", card(func(r *CreateCardRequest) { r.DeliveryPhoneNumber = "+14155550100" }), []string{"deliveryPhoneNumber"}},
		{
			"card: all invalid fields at once",
			CreateCardRequest{CardName: "", CardColor: "red", Currency: "EUR", Type: "plastic", NIN: "1", PAN: "12", OTPChannel: "fax", FundingPolicy: "ALL", FundLifecycle: "ONCE"},
			[]string{"cardColor", "cardName", "currency", "fundLifecycle", "fundingPolicy", "nin", "otpChannel", "pan", "smartWalletId", "type"},
		},
		{"PIN ok", CardPINRequest{PIN: "0000"}, nil},
		{"PIN 3 digits", CardPINRequest{PIN: "123"}, []string{"pin"}},
		{"PIN letters", CardPINRequest{PIN: "12a4"}, []string{"pin"}},
		{"activation code ok", ConfirmCardActivationRequest{OTPID: "o", Code: "123456"}, nil},
		{"activation code 5 digits and no otp", ConfirmCardActivationRequest{Code: "12345"}, []string{"code", "otpId"}},
		{"card status BLOCKED", SetCardStatusRequest{Status: CardBlocked}, nil},
		{"card status lower case", SetCardStatusRequest{Status: "blocked"}, []string{"status"}},
		{"card status FROZEN", SetCardStatusRequest{Status: "FROZEN"}, []string{"status"}},
		{"BVN trimmed ok", StartNigeriaRequest{BVN: " 22222222222\t", NGNWalletAddress: testAddr}, nil},
		{"BVN 12 digits, bad address, negative index", StartNigeriaRequest{BVN: "222222222222", NGNWalletAddress: "0x12", NGNWalletIndex: -1}, []string{"bvn", "ngnWalletAddress", "ngnWalletIndex"}},
		{"NUBAN ok", VerifyNigerianAccountRequest{AccountNumber: "0123456789", BankCode: "058"}, nil},
		{"NUBAN 11 digits", VerifyNigerianAccountRequest{AccountNumber: "01234567890", BankCode: "058"}, []string{"accountNumber"}},
		{"transfer ok", TransferProposal{ToAddress: testAddrLow, Amount: dec("1")}, nil},
		{"transfer without recipient", TransferProposal{Amount: dec("1")}, []string{"toUserId"}},
		{"transfer with both recipients", TransferProposal{ToUserID: "u", ToAddress: testAddr, Amount: dec("1")}, []string{"toAddress"}},
		{"transfer 500 chars ok", TransferProposal{ToUserID: "u", Amount: dec("1"), Description: long[:len(long)-2]}, nil},
		{"transfer description 501, zero amount, bad currency", TransferProposal{ToUserID: "u", Description: long, Currency: "USD"}, []string{"amount", "currency", "description"}},
		{"transfer bad address", TransferProposal{ToAddress: "0x" + strings.Repeat("z", 40), Amount: dec("1")}, []string{"toAddress"}},
		{"swap slippage 1 ok", SwapProposal{FromStablecoin: USDB, ToStablecoin: EURe, FromAmount: dec("1"), SlippageBps: slip(1)}, nil},
		{"swap slippage 500 ok", SwapProposal{FromStablecoin: USDB, ToStablecoin: EURe, FromAmount: dec("1"), SlippageBps: slip(500)}, nil},
		{"swap slippage 0", SwapProposal{FromStablecoin: USDB, ToStablecoin: EURe, FromAmount: dec("1"), SlippageBps: slip(0)}, []string{"slippageBps"}},
		{"swap slippage 501, same coin, legacy MXNe", SwapProposal{FromStablecoin: MXNe, ToStablecoin: MXNe, FromAmount: dec("1"), SlippageBps: slip(501)}, []string{"fromStablecoin", "slippageBps", "toStablecoin"}},
		{"payout note 501", PayoutRequest{SourceSmartWalletID: "w", Amount: NewMinorUnits(1), Country: "KEN", Currency: "KES", BankDetails: PayoutBankDetails{BankID: "b", AccountNumber: "1", AccountHolderName: "n"}, Note: long}, []string{"note"}},
		{"payout empty", PayoutRequest{}, []string{"amount", "bankDetails.accountHolderName", "bankDetails.accountNumber", "bankDetails.bankId", "country", "currency", "sourceSmartWalletId"}},
		{"sign ok (v 0 accepted, normalised later)", SignProposalRequest{Signature: testSigV0}, nil},
		{"signature 129 hex", SignProposalRequest{Signature: testSig[:131]}, []string{"signature"}},
		{"signature v 5", SignProposalRequest{Signature: "0x" + strings.Repeat("ab", 64) + "05"}, []string{"signature"}},
		{"signature base64", SignProposalRequest{Signature: "q6urq6urq6s="}, []string{"signature"}},
		{"owner proof challenge", OwnerProofChallengeRequest{Currency: "usdb", UserOwnerAddress: testAddr[:41]}, []string{"currency", "userOwnerAddress"}},
		{"webhook https ok", CreateWebhookConfigRequest{CallbackURL: "https://x.example/h", Events: []string{EventEmployeeLinked}}, nil},
		{"webhook http and no events", CreateWebhookConfigRequest{CallbackURL: "http://x.example/h"}, []string{"callbackUrl", "events"}},
		{"webhook http to loopback (local sandbox)", CreateWebhookConfigRequest{CallbackURL: "http://127.0.0.1:8080/webhooks/partner-api", Events: []string{EventEmployeeLinked}}, nil},
		{"webhook http to localhost", CreateWebhookConfigRequest{CallbackURL: "http://localhost/h", Events: []string{EventEmployeeLinked}}, nil},
		{"webhook http to a private address", CreateWebhookConfigRequest{CallbackURL: "http://10.0.0.1/h", Events: []string{EventEmployeeLinked}}, []string{"callbackUrl"}},
		{"partner-scoped wallet.* event", CreateWebhookConfigRequest{CallbackURL: "https://x.example/h", PartnerID: "p", Events: []string{EventWalletDepositCompleted}}, []string{"events"}},
		{"webhook update nothing", UpdateWebhookConfigRequest{}, []string{""}},
		{"KYC Nigerian postal code 6 ok", KYCProfile{Address: &KYCAddress{PostalCode: "100001", CountryCode: "NGA"}}, nil},
		{"KYC Nigerian postal code 5", KYCProfile{Address: &KYCAddress{PostalCode: "10001", CountryCode: "NGA"}}, []string{"address.postalCode"}},
		{"KYC US postal code not checked", KYCProfile{Address: &KYCAddress{PostalCode: "10001", CountryCode: "USA"}}, nil},
		{
			"KYC several invalid",
			KYCProfile{
				Profile: &KYCPersonalProfile{PersonalInfo: &PersonalInfo{DateOfBirth: "01/02/1990", PhoneNumber: "080123"}},
				Address: &KYCAddress{CountryCode: "NGA"}, BVN: "123",
				IdentificationNumbers: []IdentificationNumber{{Type: "passport", Number: "", IssuingCountryCode: "US"}},
			},
			[]string{"bvn", "identificationNumbers[0].issuingCountryCode", "identificationNumbers[0].number", "identificationNumbers[0].type", "profile.personalInfo.dateOfBirth", "profile.personalInfo.phoneNumber"},
		},
		{"empty KYC patch is valid", KYCProfile{}, nil},
		{"activate USD without level", ActivateKYCRequest{Currency: USD}, []string{"identityLevelName"}},
		{"activate CAD with level", ActivateKYCRequest{Currency: CAD, IdentityLevelName: IdentityLevelIDOnly}, []string{"identityLevelName"}},
		{"activate unknown level", ActivateKYCRequest{IdentityLevelName: "full"}, []string{"identityLevelName"}},
		{"invite with bad KYC", InviteEmployeeRequest{Name: "A", Email: "a@b", KYC: &InviteKYC{Profile: KYCProfile{BVN: "1"}}}, []string{"kyc.profile.bvn"}},
		{"cash order", CashOrderRequest{SmartWalletID: "w", Country: "MEX", Price: dec("1"), PriceCurrency: "KES", Description: "d"}, []string{"country", "priceCurrency"}},
		{"limits above caps", SetCardLimitsRequest{TotalDailyLimit: NewDecimalNumber(dec("2000")), MaxSingleTransactionAmount: NewDecimalNumber(dec("3000")),
			Caps: &CardLimits{MaxTotalDailyLimit: NewDecimalNumber(dec("1000")), MaxSingleTransactionLimitCap: NewDecimalNumber(dec("500"))}}, []string{"maxSingleTransactionAmount", "totalDailyLimit"}},
		{"EUR order bad IBAN", EUROrderRequest{SmartWalletID: "w", Amount: dec("1"), IBAN: "DE89370400440532013001", BeneficiaryName: "n"}, []string{"iban"}},
		{"EUR order good IBAN", EUROrderRequest{SmartWalletID: "w", Amount: dec("1"), IBAN: "GB82WEST12345698765432", BeneficiaryName: "n"}, nil},
		{"approval threshold without count", ApprovalPolicy{Mode: ApprovalAdminThreshold}, []string{"threshold"}},
		{"approval any admin with threshold and blank admin", ApprovalPolicy{Mode: ApprovalAnyAdmin, Admins: []string{" "}, Threshold: 2}, []string{"admins[0]", "threshold"}},
		{"approval bad mode", ApprovalPolicy{Mode: "ANYONE"}, []string{"mode"}},
		{"identification needs front or additional", IdentificationUpload{Type: DocumentPassport, DocumentNumber: "1", IssuingCountry: "NGA", Back: &File{Data: []byte{1}}}, []string{"front"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.v.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want valid", err)
				}
				return
			}
			if !errors.Is(err, ErrValidation) {
				t.Fatalf("Validate() = %v, want a validation error", err)
			}
			fields := ValidationFields(err)
			got := make([]string, 0, len(fields))
			for k := range fields {
				got = append(got, k)
				if fields[k] == "" {
					t.Errorf("field %q has no message", k)
				}
			}
			sort.Strings(got)
			wantEq(t, got, tc.want)
		})
	}
}

// TestInvalidRequestIsNotSent checks validation happens before any I/O.
func TestInvalidRequestIsNotSent(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, http.StatusOK, `{}`)
	c := f.client(t)
	ctx := context.Background()
	errs := []error{
		c.SetCardPIN(ctx, "u", "c", CardPINRequest{PIN: "12"}),
		c.SetCardStatus(ctx, "u", "c", SetCardStatusRequest{Status: "FROZEN"}),
		func() error { _, err := c.LookupBVN(ctx, "u", "123"); return err }(),
		func() error { _, err := c.ListPayoutBanks(ctx, "u", "KE"); return err }(),
		func() error { _, err := c.ListCashOrders(ctx, "u", "ALL"); return err }(),
		func() error { _, err := c.CreateUser(ctx, CreateUserRequest{Email: "nope"}); return err }(),
	}
	for i, err := range errs {
		if !errors.Is(err, ErrValidation) {
			t.Errorf("call %d: err = %v, want validation error", i, err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) != 0 {
		t.Errorf("server saw %d requests, want 0", len(f.requests))
	}
}

func TestFileIsJPEGOrPNG(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    *File
		want bool
	}{
		{"png", &File{Data: []byte("\x89PNG\r\n\x1a\n0000")}, true},
		{"jpeg", &File{Data: []byte{0xff, 0xd8, 0xff, 0xe0, 0, 0}}, true},
		{"pdf named .png", &File{Name: "id.png", ContentType: "image/png", Data: []byte("%PDF-1.7\n")}, false},
		{"gif", &File{Data: []byte("GIF89a....")}, false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		if got := tc.f.IsJPEGOrPNG(); got != tc.want {
			t.Errorf("%s: IsJPEGOrPNG() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFundRecipient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    FundRequest
		want []string
	}{
		{FundRequest{FromWalletID: "w", ToUserID: "u", Amount: dec("1")}, nil},
		{FundRequest{FromWalletID: "w", ToWalletID: "w2", Amount: dec("1")}, nil},
		{FundRequest{Amount: dec("1")}, []string{"fromWalletId", "toUserId"}},
		{FundRequest{FromWalletID: "w", ToUserID: "u", ToWalletID: "w2"}, []string{"amount", "toWalletId"}},
	}
	for i, tc := range tests {
		f := ValidationFields(tc.r.Validate())
		got := make([]string, 0, len(f))
		for k := range f {
			got = append(got, k)
		}
		sort.Strings(got)
		if len(tc.want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("case %d: fields %v, want %v", i, got, tc.want)
		}
	}
}
