package store_test

import (
	"context"
	"crypto/sha256"
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

// A request's state while its relay is an open action, or after it was
// refused, is the action's; a link whose signature is on its way is neither
// superseded nor expired under it.
func TestSignRequestStateFollowsItsRelayAction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	seedProposal(t, st, "p-1")
	now := time.Now()
	sr := newSignRequest(t, st, "p-1", "tok", now.Add(time.Minute))
	if got, _ := st.SignRequestByID(ctx, sr.ID); got.State != store.SignWaiting || !got.Open(now) {
		t.Fatalf("new request: %s", got.State)
	}
	if _, _, err := st.BeginAction(ctx, store.NewAction{Key: store.SignActionKey(sr.ID), Kind: "sign_request.submit",
		Target: "proposal:p-1", Actor: store.Actor{Email: "device"}}); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("tok"))
	if got, _ := st.SignRequestByTokenHash(ctx, h[:]); got.State != store.SignRelaying || got.Open(now) || got.UsedAt == nil {
		t.Fatalf("relay begun: %s open %v used %v", got.State, got.Open(now), got.UsedAt)
	}
	if p, _ := st.ProposalByID(ctx, "p-1"); p.SignDeadline == nil {
		t.Fatal("a signature on its way shows no deadline")
	}
	// Neither a new link nor the expiry job takes a request whose relay is
	// open.
	newSignRequest(t, st, "p-1", "other", now.Add(time.Minute))
	if n, err := st.ExpireStaleSignRequests(ctx, now.Add(2*time.Minute)); err != nil || n != 1 {
		t.Fatalf("expired %d %v (only the new link)", n, err)
	}
	if got, _ := st.SignRequestByID(ctx, sr.ID); got.State != store.SignRelaying {
		t.Fatalf("relaying request after a new link and expiry: %s", got.State)
	}
	if _, err := st.FinishAction(ctx, store.SignActionKey(sr.ID), store.Finish{State: store.ActionUnknown, Message: "no answer"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.SignRequestByID(ctx, sr.ID); got.State != store.SignRelayPending || got.Error != "no answer" {
		t.Fatalf("unknown: %s %q", got.State, got.Error)
	}
	if _, err := st.FinishAction(ctx, store.SignActionKey(sr.ID), store.Finish{State: store.ActionRefused, Message: "bad signature"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.SignRequestByID(ctx, sr.ID); got.State != store.SignRefused || !got.Final() || got.Error != "bad signature" {
		t.Fatalf("refused: %s %q", got.State, got.Error)
	}
	if p, _ := st.ProposalByID(ctx, "p-1"); p.SignDeadline != nil {
		t.Fatalf("no open request, deadline %v", p.SignDeadline)
	}
}

func TestSignRequestsExpireAndAreReplaced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	seedProposal(t, st, "p-1")
	now := time.Now()
	first := newSignRequest(t, st, "p-1", "first", now.Add(time.Minute))
	second := newSignRequest(t, st, "p-1", "second", now.Add(time.Minute))
	if got, _ := st.SignRequestByID(ctx, first.ID); got.State != store.SignSuperseded {
		t.Fatalf("first after reissue: %s", got.State)
	}
	if got, _ := st.SignRequestByID(ctx, second.ID); got.Open(now.Add(2 * time.Minute)) {
		t.Fatal("open after its deadline")
	}
	if n, err := st.ExpireStaleSignRequests(ctx, now.Add(2*time.Minute)); err != nil || n != 1 {
		t.Fatalf("expired %d %v", n, err)
	}
	if got, _ := st.SignRequestByID(ctx, second.ID); got.State != store.SignExpired {
		t.Fatalf("second: %s", got.State)
	}
	// The API took a signature: submitted, with the proposal as returned
	// and the timeline entry.
	third := newSignRequest(t, st, "p-1", "third", now.Add(time.Minute))
	after := store.Proposal{ID: "p-1", WalletID: "w-1", OwnerUserID: "u-1", Type: "TRANSFER", Status: store.ProposalSubmitted,
		Currency: "USDB", Amount: decimal.RequireFromString("1.50"), RequiredSignatures: 1, CollectedSignatures: 1,
		RequiredApprovals: 1, CreatedAt: now, UpdatedAt: now}
	if err := st.RecordSignRelayed(ctx, third.ID, store.SignSubmitted, &after); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.SignRequestByID(ctx, third.ID); got.State != store.SignSubmitted || got.UsedAt == nil {
		t.Fatalf("third: %s", got.State)
	}
	if p, _ := st.ProposalByID(ctx, "p-1"); p.Status != store.ProposalSubmitted || p.CollectedSignatures != 1 {
		t.Fatalf("proposal: %s %d", p.Status, p.CollectedSignatures)
	}
	events, _ := st.ProposalEvents(ctx, "p-1")
	kinds := map[string]int{}
	for _, e := range events {
		kinds[e.Kind]++
	}
	if kinds[store.EventSignRequest] != 3 || kinds[store.EventSignSubmitted] != 1 || kinds[store.EventStatus] != 1 {
		t.Fatalf("timeline %v", kinds)
	}
}
