// The demo treasury's wallets.

package webtest

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
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

// WithdrawalAddressTail is what a person retypes to confirm a withdrawal to address:
// its last six characters (any case).
func WithdrawalAddressTail(address string) string { return address[len(address)-6:] }

// QuotedSwapForm is a swap form with a fresh token and the quote the page gave
// for it (a swap is proposed only at a quote).
func QuotedSwapForm(t testing.TB, env *Env, c *http.Client, v url.Values) url.Values {
	t.Helper()
	form := WithTreasuryFormToken(t, env, c, "swap", v)
	resp := env.PostForm(c, "/treasury/swap/quote", form)
	doc := Doc(t, resp)
	id, _ := doc.Find(`[data-testid="swap-quote"] input[name="quote_id"]`).Attr("value")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("quote: %d %q", resp.StatusCode, TestID(doc, "swap-quote-error"))
	}
	form.Set("quote_id", id)
	return form
}

// TreasuryFormToken opens the treasury page and returns the one-time token of
// one of its forms ("transfer", "swap", "send", "wallet").
func TreasuryFormToken(t testing.TB, env *Env, c *http.Client, form string) string {
	t.Helper()
	doc := Doc(t, env.Get(c, "/treasury"))
	tok, _ := doc.Find(`[data-testid="` + form + `-form"] input[name="form_token"]`).Attr("value")
	if tok == "" {
		t.Fatalf("no token in the %s form", form)
	}
	return tok
}

// WithdrawalForm opens the form for a wallet and returns its fields as a
// browser would post them. WithdrawalDestination is made a trusted
// destination first, as a company that withdraws there has it in its
// address book (the money controls refuse any other by default).
func WithdrawalForm(t testing.TB, env *Env, c *http.Client, walletID string) (url.Values, *goquery.Document) {
	t.Helper()
	TrustDestination(t, env, store.DestCrypto, WithdrawalDestination, "")
	resp := env.Get(c, "/treasury/withdrawal?wallet_id="+url.QueryEscape(walletID))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("withdrawal form: %d", resp.StatusCode)
	}
	doc := Doc(t, resp)
	tok, _ := doc.Find(`[data-testid="withdrawal-form"] input[name="form_token"]`).Attr("value")
	if tok == "" {
		t.Fatal("no form token")
	}
	return url.Values{"form_token": {tok}, "wallet_id": {walletID}}, doc
}

// WithdrawalRows counts the crypto withdrawals the app recorded.
func WithdrawalRows(t testing.TB, env *Env) int {
	t.Helper()
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM crypto_withdrawals`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// WithTreasuryFormToken is a copy of v with a fresh token of one of the
// treasury page's forms.
func WithTreasuryFormToken(t testing.TB, env *Env, c *http.Client, form string, v url.Values) url.Values {
	t.Helper()
	out := WithFormToken(v)
	out.Set(handlers.FormTokenField, TreasuryFormToken(t, env, c, form))
	return out
}
