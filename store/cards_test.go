package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

func TestCardIndexSearchPagingAndGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	e, err := st.UpsertEmployee(ctx, store.Employee{Email: "ada.okafor@partner.example", FirstName: "Ada", LastName: "Okafor", ServiceUserID: "u-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertWallet(ctx, store.Wallet{ID: "w-1", EmployeeID: e.ID, Currency: "CNGN", DisplayCurrency: "NGN"}); err != nil {
		t.Fatal(err)
	}
	var cards []store.CardEntry
	for i := 0; i < 7; i++ {
		cards = append(cards, store.CardEntry{ID: fmt.Sprintf("c-%d", i), CardName: fmt.Sprintf("Card %d", i), Currency: "NGN",
			Type: "virtual", Last4: fmt.Sprintf("%04d", 1000+i), Status: "active"})
	}
	now := time.Now()
	if err := st.ReplaceWalletCards(ctx, "w-1", cards, now); err != nil {
		t.Fatal(err)
	}
	// Keyset pages of 3 walk every card once, in order.
	var seen []string
	f := store.CardSearch{Query: "okafor", Limit: 3}
	for {
		hits, next, err := st.SearchCards(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			seen = append(seen, h.ID)
			if h.ServiceUserID != "u-1" || h.EmployeeName != "Ada Okafor" || h.WalletCurrency != "CNGN" {
				t.Fatalf("hit %+v", h)
			}
		}
		if next == "" {
			break
		}
		f.AfterKey, f.AfterID = next, hits[len(hits)-1].ID
	}
	if len(seen) != 7 || seen[0] != "c-0" || seen[6] != "c-6" {
		t.Fatalf("pages %v", seen)
	}
	// Typed words match the start of words (migration 0061): "%" is
	// punctuation between words, no wildcard, and "100" starts every last
	// four; text inside a word ("kafor") is not a match.
	for q, want := range map[string]int{"1003": 1, "CARD 5": 1, "ada.okafor@": 7, "100%": 7, "10%3": 1, "kafor": 0, "%": 0,
		"nobody": 0, "": 7} {
		hits, _, err := st.SearchCards(ctx, store.CardSearch{Query: q})
		if err != nil || len(hits) != want {
			t.Errorf("%q: %d hits, want %d (%v)", q, len(hits), want, err)
		}
	}
	// A card no longer listed is gone from search, and back when listed.
	if err := st.ReplaceWalletCards(ctx, "w-1", cards[:6], now); err != nil {
		t.Fatal(err)
	}
	if hits, _, _ := st.SearchCards(ctx, store.CardSearch{Query: "card 6"}); len(hits) != 0 {
		t.Fatal("an unlisted card is still found")
	}
	if hits, _, _ := st.SearchCards(ctx, store.CardSearch{Query: "card 6", IncludeGone: true}); len(hits) != 1 || !hits[0].Gone {
		t.Fatal("gone entries are lost")
	}
	// A newer status read wins; an older one does not overwrite it.
	if err := st.RecordCardStatus(ctx, "c-1", "frozen", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordCardStatus(ctx, "c-1", "active", now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	h, err := st.CardByID(ctx, "c-1")
	if err != nil || h.Status != "frozen" {
		t.Fatalf("status %+v %v", h, err)
	}
	// The same status read again soon after is not written again (the card
	// page reads it on every view); a minute on, or a new status, is.
	seenAt := h.StatusReadAt
	if !h.StatusFresh("frozen", seenAt.Add(30*time.Second)) || h.StatusFresh("active", seenAt.Add(time.Second)) ||
		h.StatusFresh("frozen", seenAt.Add(store.CardStatusRestamp)) {
		t.Fatal("StatusFresh is wrong")
	}
	if err := st.RecordCardStatus(ctx, "c-1", "frozen", seenAt.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if h, _ := st.CardByID(ctx, "c-1"); !h.StatusReadAt.Equal(seenAt) {
		t.Fatalf("the same status 30 s on was written again: %v, was %v", h.StatusReadAt, seenAt)
	}
	if err := st.RecordCardStatus(ctx, "c-1", "frozen", seenAt.Add(store.CardStatusRestamp)); err != nil {
		t.Fatal(err)
	}
	if h, _ := st.CardByID(ctx, "c-1"); !h.StatusReadAt.Equal(seenAt.Add(store.CardStatusRestamp)) {
		t.Fatalf("the same status a minute on was not recorded: %v", h.StatusReadAt)
	}
	if err := st.RecordCardStatus(ctx, "c-1", "active", seenAt.Add(store.CardStatusRestamp+time.Second)); err != nil {
		t.Fatal(err)
	}
	if h, _ := st.CardByID(ctx, "c-1"); h.Status != "active" {
		t.Fatalf("a new status was not recorded: %s", h.Status)
	}
	if had, err := st.EmployeeHasHadCard(ctx, e.ID); err != nil || !had {
		t.Fatalf("had a card: %v %v", had, err)
	}
}

func TestCardActivity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	amount, fee := decimal.RequireFromString("1234.56"), decimal.RequireFromString("0.10")
	a := store.CardActivity{EventKey: "wh-1", CardID: "c-1", Kind: store.CardActivityTransaction, Amount: &amount, Fee: &fee, Currency: "NGN"}
	for i, want := range []bool{true, false} {
		added, err := st.RecordCardActivity(ctx, a)
		if err != nil || added != want {
			t.Fatalf("record %d: %v %v", i, added, err)
		}
	}
	if _, err := st.RecordCardActivity(ctx, store.CardActivity{EventKey: "wh-2", CardID: "c-1", Kind: "payout"}); err == nil {
		t.Fatal("unknown kind accepted")
	}
	feed, err := st.CardActivityFeed(ctx, "c-1", 10)
	if err != nil || len(feed) != 1 || !feed[0].Amount.Equal(amount) || !feed[0].Fee.Equal(fee) {
		t.Fatalf("feed %+v %v", feed, err)
	}
}
