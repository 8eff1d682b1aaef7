package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/apiclient/sandbox"
)

// TestApiclientDrivesAFullTransfer is the part 1 "done when": the apiclient
// creates users, proves owner keys, creates wallets, the control API credits
// a deposit, a transfer is proposed, approved, signed with the owner key and
// settled, balances move in decimals, and the deposit webhook arrives with a
// valid HMAC.
func TestApiclientDrivesAFullTransfer(t *testing.T) {
	ctx := context.Background()
	const key = "sk_test_transfer_e2e"
	sb, err := sandbox.New(sandbox.Options{APIKeys: []string{key}, Control: true, Local: true, SettleDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	srv := httptest.NewServer(sb)
	defer srv.Close()
	api, err := apiclient.New(srv.URL, key)
	if err != nil {
		t.Fatal(err)
	}

	// A receiver that records verified deliveries.
	var mu sync.Mutex
	var secret string
	var received []*apiclient.Event
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if apiclient.VerifySignature(secret, body, r.Header.Get(apiclient.HeaderWebhookSignature)) != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		ev, err := apiclient.ParseEvent(body)
		if err != nil || r.Header.Get("X-Webhook-Id") != ev.ID {
			http.Error(w, "bad event", http.StatusBadRequest)
			return
		}
		received = append(received, ev)
	}))
	defer receiver.Close()
	partners := sb.Partners()
	cfg, err := api.CreateWebhookConfig(ctx, apiclient.CreateWebhookConfigRequest{
		CallbackURL: receiver.URL + "/hook", PartnerID: partners[0].ID,
		Events: []string{apiclient.EventEmployeeDepositCompleted},
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	secret = cfg.SecretKey
	mu.Unlock()

	type person struct {
		id     string
		key    string
		wallet *apiclient.Wallet
	}
	newPerson := func(email string) person {
		u, err := api.CreateUser(ctx, apiclient.CreateUserRequest{Email: email, FirstName: "F", LastName: "L"})
		if err != nil {
			t.Fatal(err)
		}
		k, _ := ethsig.GenerateKey()
		owner := ethsig.KeyAddress(k).Hex()
		ch, err := api.CreateOwnerProofChallenge(ctx, u.ServiceUserID, apiclient.OwnerProofChallengeRequest{Currency: apiclient.USDB, UserOwnerAddress: owner})
		if err != nil {
			t.Fatal(err)
		}
		sig := ethsig.SignMessage(k, []byte(ch.Message))
		w, err := api.CreateManagedWallet(ctx, u.ServiceUserID, apiclient.CreateManagedWalletRequest{
			Currency: apiclient.USDB, UserOwnerAddress: owner, OwnerProofChallengeID: ch.ChallengeID, OwnerProofSignature: sig.Hex(),
		})
		if err != nil {
			t.Fatal(err)
		}
		return person{id: u.ServiceUserID, key: ethsig.PrivateKeyHex(k), wallet: w}
	}
	alice, bob := newPerson("alice@e2e.example"), newPerson("bob@e2e.example")

	// Credit a deposit through the control API.
	body, _ := json.Marshal(map[string]string{"smartWalletId": alice.wallet.ID, "amount": "100.50"})
	resp, err := http.Post(srv.URL+"/_sandbox/deposits", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("deposit: %d", resp.StatusCode)
	}

	p, err := api.CreateTransferProposal(ctx, alice.id, alice.wallet.ID, apiclient.TransferProposal{
		ToUserID: bob.id, Amount: decimal.RequireFromString("40.25"), Currency: apiclient.USDB, Description: "e2e",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.GetSignPayload(ctx, alice.id, p.ID); !apiclient.IsNotReady(err) {
		t.Fatalf("sign payload before approval: %v, want not ready", err)
	}
	if p, err = api.ApproveProposal(ctx, alice.id, p.ID); err != nil {
		t.Fatal(err)
	}
	if p.Status != apiclient.ProposalPendingSignatures {
		t.Fatalf("after approve: %s", p.Status)
	}
	payload, err := api.GetSignPayload(ctx, alice.id, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := ethsig.ParseHash(payload.HashToSign)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := ethsig.ParsePrivateKey(alice.key)
	if _, err = api.SignProposal(ctx, alice.id, p.ID, apiclient.SignProposalRequest{Signature: ethsig.Sign(k, hash).Hex()}); err != nil {
		t.Fatal(err)
	}
	resp, err = http.Post(srv.URL+"/_sandbox/settle", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if p, err = api.GetProposal(ctx, alice.id, p.ID); err != nil || p.Status != apiclient.ProposalCompleted {
		t.Fatalf("after settle: %+v %v", p, err)
	}
	balance := func(userID string) decimal.Decimal {
		bs, err := api.ListBalances(ctx, userID)
		if err != nil || len(bs) != 1 {
			t.Fatalf("balances: %+v %v", bs, err)
		}
		return bs[0].Balance
	}
	if got := balance(alice.id); !got.Equal(decimal.RequireFromString("60.25")) {
		t.Errorf("alice balance %s, want 60.25", got)
	}
	if got := balance(bob.id); !got.Equal(decimal.RequireFromString("40.25")) {
		t.Errorf("bob balance %s, want 40.25", got)
	}

	// The credited deposit arrives, verified; the transfer may add others.
	want := decimal.RequireFromString("100.50")
	found := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range received {
			if ev.EventType != apiclient.EventEmployeeDepositCompleted {
				t.Fatalf("event type %s", ev.EventType)
			}
			decoded, err := ev.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if mm, ok := decoded.(*apiclient.MoneyMovementPayload); ok && mm.UserID == alice.id && mm.Amount.Equal(want) {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(10 * time.Second)
	for !found() {
		if time.Now().After(deadline) {
			t.Fatal("no verified webhook for the 100.50 deposit to alice arrived")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestApiclientInviteNamesReachTheLinkedUser: the invite's kyc.profile is a
// KYC profile in the PATCH /kyc shape (names under profile.personalInfo);
// when the employee links, the user is created with those names.
func TestApiclientInviteNamesReachTheLinkedUser(t *testing.T) {
	ctx := context.Background()
	const key = "sk_test_invite_names"
	sb, err := sandbox.New(sandbox.Options{APIKeys: []string{key}, Control: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	srv := httptest.NewServer(sb)
	defer srv.Close()
	api, err := apiclient.New(srv.URL, key)
	if err != nil {
		t.Fatal(err)
	}
	_, err = api.InviteEmployee(ctx, apiclient.InviteEmployeeRequest{
		Name: "Amazing Grace", Email: "grace@invite.example",
		KYC: &apiclient.InviteKYC{Profile: apiclient.KYCProfile{Profile: &apiclient.KYCPersonalProfile{
			PersonalInfo: &apiclient.PersonalInfo{FirstName: "Grace", LastName: "Hopper"},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/_sandbox/invites")
	if err != nil {
		t.Fatal(err)
	}
	var outbox struct {
		Data []struct {
			Email         string `json:"email"`
			WorkEmailCode string `json:"workEmailCode"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&outbox)
	resp.Body.Close()
	if err != nil || len(outbox.Data) != 1 {
		t.Fatalf("outbox: %+v %v", outbox, err)
	}
	body, _ := json.Marshal(map[string]string{"email": "grace@invite.example", "code": outbox.Data[0].WorkEmailCode})
	resp, err = http.Post(srv.URL+"/_sandbox/invites/link", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("link: %d", resp.StatusCode)
	}
	u, err := api.LookupUserByEmail(ctx, "grace@invite.example")
	if err != nil {
		t.Fatal(err)
	}
	if u.FirstName != "Grace" || u.LastName != "Hopper" {
		t.Fatalf("linked user named %q %q", u.FirstName, u.LastName)
	}
}
