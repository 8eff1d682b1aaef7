package approvals

import (
	"testing"
	"time"

	"partneradmin/store"
)

func TestQueueTotalsExpireAndKeyOnTheFilterOnly(t *testing.T) {
	var c queueTotals
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	f := store.QueueFilter{Status: store.ProposalFailed, Limit: 50}
	if _, ok := c.get(f, now); ok {
		t.Fatal("an empty cache answered")
	}
	c.put(f, 7, now)
	// Another page of the same filter shares the total.
	page2 := f
	page2.BeforeAt, page2.BeforeID, page2.SkipCount = now, "p-9", true
	if n, ok := c.get(page2, now.Add(totalTTL-time.Millisecond)); !ok || n != 7 {
		t.Fatalf("same filter, next page: %d %v", n, ok)
	}
	if _, ok := c.get(store.QueueFilter{Status: store.ProposalPendingSignatures}, now); ok {
		t.Fatal("another filter shared the total")
	}
	if _, ok := c.get(f, now.Add(totalTTL)); ok {
		t.Fatal("a total older than the TTL was used")
	}
	if _, ok := c.get(f, now.Add(-time.Second)); ok {
		t.Fatal("a total from the future (clock stepped back) was used")
	}
	c.forget()
	if _, ok := c.get(f, now); ok {
		t.Fatal("forget kept a total")
	}
	for i := range maxTotalsKept + 1 {
		c.put(store.QueueFilter{UserID: string(rune('a' + i%26)), ExcludeCreator: int64(i)}, i, now)
	}
	if len(c.m) > maxTotalsKept {
		t.Fatalf("%d totals kept, bound %d", len(c.m), maxTotalsKept)
	}
}
