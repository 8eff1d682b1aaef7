package store_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

func seedProposal(t *testing.T, st *store.Store, id string) {
	t.Helper()
	now := time.Now()
	_, err := st.UpsertProposal(context.Background(), store.Proposal{ID: id, WalletID: "w-1", OwnerUserID: "u-1", Type: "TRANSFER",
		Status: store.ProposalPendingSignatures, Currency: "USDB", Amount: decimal.RequireFromString("1.50"),
		RequiredSignatures: 1, RequiredApprovals: 1, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
}

func newSignRequest(t *testing.T, st *store.Store, proposal, token string, expires time.Time) store.SignRequest {
	t.Helper()
	h := sha256.Sum256([]byte(token))
	sr, err := st.CreateSignRequest(context.Background(), store.SignRequest{Kind: store.SignKindProposal, ProposalID: proposal,
		UserID: "u-1", WalletID: "w-1", OwnerAddress: "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", ExpiresAt: expires},
		h[:], store.Actor{Email: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return sr
}

func TestClaimSignRequestGivesTheTokenToOneCaller(t *testing.T) {
	ctx := context.Background()
	st := migratedStore(t)
	seedProposal(t, st, "p-1")
	now := time.Now()
	newSignRequest(t, st, "p-1", "tok", now.Add(time.Minute))
	h := sha256.Sum256([]byte("tok"))

	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.ClaimSignRequest(ctx, h[:], now)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	won, gone := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			won++
		case errors.Is(err, store.ErrSignRequestGone):
			gone++
		default:
			t.Fatal(err)
		}
	}
	if won != 1 || gone != n-1 {
		t.Fatalf("%d claims won, %d gone", won, gone)
	}
	other := sha256.Sum256([]byte("other"))
	if _, err := st.ClaimSignRequest(ctx, other[:], now); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
}

func TestSignRequestsExpireAndAreReplaced(t *testing.T) {
	ctx := context.Background()
	st := migratedStore(t)
	seedProposal(t, st, "p-1")
	now := time.Now()
	first := newSignRequest(t, st, "p-1", "first", now.Add(time.Minute))
	second := newSignRequest(t, st, "p-1", "second", now.Add(time.Minute))
	if got, _ := st.SignRequestByID(ctx, first.ID); got.State != store.SignSuperseded {
		t.Fatalf("first after reissue: %s", got.State)
	}
	h := sha256.Sum256([]byte("second"))
	sr, err := st.ClaimSignRequest(ctx, h[:], now.Add(2*time.Minute))
	if !errors.Is(err, store.ErrSignRequestGone) || sr.State != store.SignExpired {
		t.Fatalf("claim after expiry: %s %v", sr.State, err)
	}
	if got, _ := st.SignRequestByID(ctx, second.ID); got.State != store.SignExpired {
		t.Fatalf("second: %s", got.State)
	}
	// An unsure relay keeps its signature until the deadline, then forgets it.
	third := newSignRequest(t, st, "p-1", "third", now.Add(time.Minute))
	h = sha256.Sum256([]byte("third"))
	if _, err := st.ClaimSignRequest(ctx, h[:], now); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkSignRelaying(ctx, third.ID, "0xsig", 0); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkSignRelayUnsure(ctx, third.ID, "no answer"); err != nil {
		t.Fatal(err)
	}
	if ids, _ := st.RelayPendingIDs(ctx, now); len(ids) != 1 || ids[0] != third.ID {
		t.Fatalf("pending %v", ids)
	}
	if n, err := st.ExpireStaleSignRequests(ctx, now.Add(2*time.Minute)); err != nil || n != 1 {
		t.Fatalf("expired %d %v", n, err)
	}
	if got, _ := st.SignRequestByID(ctx, third.ID); got.State != store.SignExpired || got.Signature != "" {
		t.Fatalf("third: %s %q", got.State, got.Signature)
	}
	events, _ := st.ProposalEvents(ctx, "p-1")
	if len(events) < 4 {
		t.Fatalf("timeline %+v", events)
	}
}
