// The demo treasury's wallets.

package webtest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/store"
)

// TreasuryWallet is the treasury's mirrored wallet of a stablecoin.
func TreasuryWallet(t testing.TB, env *Env, coin string) store.Wallet {
	t.Helper()
	users, err := env.Store.TreasuryUsers(context.Background())
	if err != nil || len(users) == 0 {
		t.Fatalf("treasury: %v", err)
	}
	ws, err := env.Store.WalletsByEmployee(context.Background(), users[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Currency == coin {
			return w
		}
	}
	t.Fatalf("no treasury %s wallet", coin)
	return store.Wallet{}
}

// FundedTreasuryWallet gives the treasury user a wallet in coin, owned by
// the treasury's demo key, funded with balance, and mirrored in the store
// as the app would after creating it.
func FundedTreasuryWallet(t testing.TB, env *Env, coin, balance string) store.Wallet {
	t.Helper()
	ctx := context.Background()
	key := OwnerKey(t, env, "treasury")
	owner := ethsig.KeyAddress(key).Hex()
	uid := env.Demo.TreasuryUserID
	ch, err := env.API.CreateOwnerProofChallenge(ctx, uid, apiclient.OwnerProofChallengeRequest{Currency: apiclient.Stablecoin(coin), UserOwnerAddress: owner})
	if err != nil {
		t.Fatal(err)
	}
	w, err := env.API.CreateManagedWallet(ctx, uid, apiclient.CreateManagedWalletRequest{Currency: apiclient.Stablecoin(coin),
		UserOwnerAddress: owner, OwnerProofChallengeID: ch.ChallengeID, OwnerProofSignature: ethsig.SignMessage(key, []byte(ch.Message)).Hex()})
	if err != nil {
		t.Fatal(err)
	}
	SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]any{"smartWalletId": w.ID, "amount": balance})
	users, err := env.Store.TreasuryUsers(ctx)
	if err != nil || len(users) == 0 {
		t.Fatalf("treasury: %v", err)
	}
	now := time.Now()
	row := store.Wallet{ID: w.ID, EmployeeID: users[0].ID, Currency: coin, DisplayCurrency: string(w.DisplayCurrency), Address: w.Address,
		Chain: w.Chain, Status: w.Status, OwnerAddress: w.UserOwnerAddress,
		Balance: decimal.NullDecimal{Decimal: decimal.RequireFromString(balance), Valid: true}, BalanceReadAt: &now}
	if err := env.Store.UpsertWallet(ctx, row); err != nil {
		t.Fatal(err)
	}
	return row
}

// MexicoReady gives the treasury a MEXe wallet holding 5000 and an approved
// Mexico KYC.
func MexicoReady(t testing.TB, env *Env) {
	t.Helper()
	FundedTreasuryWallet(t, env, "MEXe", "5000.00")
	SandboxControl(t, env, http.MethodPut, "/_sandbox/users/"+env.Demo.TreasuryUserID+"/mx/kyc", map[string]any{"status": "approved"})
}
