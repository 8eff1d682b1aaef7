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
