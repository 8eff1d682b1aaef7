package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// Two answers about one proposal race (two approvals landing together): the
// one the API sent earlier, saved last, does not set the mirror back; a
// creator it carries is still recorded.
func TestAnOlderAnswerDoesNotSetAProposalBack(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	p := store.Proposal{ID: "p-race", WalletID: "w1", OwnerUserID: "u1", Type: "TRANSFER", Currency: "USDB",
		Amount: decimal.RequireFromString("5"), RequiredApprovals: 2, RequiredSignatures: 1, CreatedAt: t0}
	newer := p
	newer.Status, newer.Approvals, newer.UpdatedAt = store.ProposalPendingSignatures, []string{"a1", "a2"}, t0.Add(2*time.Millisecond)
	if _, err := st.UpsertProposal(ctx, newer); err != nil {
		t.Fatal(err)
	}
	older := p
	older.Status, older.Approvals, older.UpdatedAt = store.ProposalPendingApprovals, []string{"a1"}, t0.Add(time.Millisecond)
	older.CreatedByStaffID = 0
	ch, err := st.UpsertProposal(ctx, older)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.ProposalByID(ctx, p.ID)
	if err != nil || got.Status != store.ProposalPendingSignatures || len(got.Approvals) != 2 || ch.Changed() {
		t.Fatalf("after an older answer: %s %v (changed %v) %v", got.Status, got.Approvals, ch.Changed(), err)
	}
	// The same instant with less progress is older too.
	same := older
	same.UpdatedAt = newer.UpdatedAt
	if _, err := st.UpsertProposal(ctx, same); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ProposalByID(ctx, p.ID); got.Status != store.ProposalPendingSignatures {
		t.Fatalf("an answer of the same instant with fewer approvals set it back: %s", got.Status)
	}
	// A newer answer moves it on.
	done := newer
	done.Status, done.CollectedSignatures, done.UpdatedAt = store.ProposalCompleted, 1, t0.Add(3*time.Millisecond)
	if _, err := st.UpsertProposal(ctx, done); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ProposalByID(ctx, p.ID); got.Status != store.ProposalCompleted {
		t.Fatalf("a newer answer did not apply: %s", got.Status)
	}
}

// A proposal read again as the mirror holds it is the same upstream: the
// sync stamps it synced in one statement instead of upserting it. Any field
// the upsert writes, a newer upstream time or a creator the mirror lacks
// makes it different.
func TestSameUpstreamAndStampSynced(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	p := store.Proposal{ID: "p-same", WalletID: "w1", OwnerUserID: "u1", Type: "TRANSFER", Status: store.ProposalPendingApprovals,
		Currency: "USDB", Amount: decimal.RequireFromString("5.10"), RequiredApprovals: 2, RequiredSignatures: 1,
		CreatedAt: t0, UpdatedAt: t0}
	if _, err := st.UpsertProposal(ctx, p); err != nil {
		t.Fatal(err)
	}
	held, err := st.ProposalByID(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	again := p
	again.Amount = decimal.RequireFromString("5.1")
	if !again.SameUpstream(held) {
		t.Fatalf("the proposal as it was read is not the same upstream: %+v vs %+v", again, held)
	}
	for name, change := range map[string]func(*store.Proposal){
		"status":    func(x *store.Proposal) { x.Status = store.ProposalPendingSignatures },
		"approvals": func(x *store.Proposal) { x.Approvals = []string{"a1"} },
		"amount":    func(x *store.Proposal) { x.Amount = decimal.RequireFromString("5.11") },
		"updated":   func(x *store.Proposal) { x.UpdatedAt = x.UpdatedAt.Add(time.Millisecond) },
		"creator":   func(x *store.Proposal) { x.CreatedByStaffID = 7 },
		"failure":   func(x *store.Proposal) { x.FailureReason = "gas" },
	} {
		x := p
		change(&x)
		if x.SameUpstream(held) {
			t.Errorf("a different %s is the same upstream", name)
		}
	}
	if err := st.StampProposalsSynced(ctx, []string{p.ID}); err != nil {
		t.Fatal(err)
	}
	after, err := st.ProposalByID(ctx, p.ID)
	if err != nil || !after.SyncedAt.After(held.SyncedAt) || after.Status != held.Status || !after.UpdatedAt.Equal(held.UpdatedAt) {
		t.Fatalf("stamped: synced %v (was %v), %s, %v", after.SyncedAt, held.SyncedAt, after.Status, err)
	}
}
