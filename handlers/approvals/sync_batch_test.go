package approvals_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers/approvals"
	"partneradmin/store"
)

// scriptedAPI answers ListProposals from a map the test edits.
type scriptedAPI struct {
	mu    sync.Mutex
	lists map[string][]apiclient.Proposal
	fail  map[string]bool
	calls map[string]int // reads per wallet
}

func (s *scriptedAPI) ListProposals(_ context.Context, _, walletID string) ([]apiclient.Proposal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[walletID]++
	if s.fail[walletID] {
		return nil, fmt.Errorf("scripted failure for %s", walletID)
	}
	return append([]apiclient.Proposal(nil), s.lists[walletID]...), nil
}

// TestSyncComparesInBatches syncs 120 wallets with three proposals each
// (more than one batch of the mirror's reads): every proposal is written
// once, a second sync finds nothing changed, and the few changed upstream
// (spread over several batches) are written and counted, whatever batch
// they fall in, while a wallet whose read fails is counted and left alone.
func TestSyncComparesInBatches(t *testing.T) {
	st, _, _ := mirrorOf(t, 20) // 120 wallets
	ctx := context.Background()
	owners, err := st.WalletOwners(ctx)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	api := &scriptedAPI{lists: map[string][]apiclient.Proposal{}, fail: map[string]bool{}}
	var all []string
	n := 0
	for w := range owners {
		for j := range 3 {
			n++
			id := fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
			all = append(all, id)
			api.lists[w] = append(api.lists[w], apiclient.Proposal{ID: id, WalletID: w, Type: "TRANSFER", Status: "PENDING",
				Currency: "USDB", Amount: decimal.NewFromInt(int64(10 + j)), ToAddress: "0x00000000000000000000000000000000000000aa",
				RequiredSignatures: 1, RequiredApprovals: 1, CreatedAt: created, UpdatedAt: created})
		}
	}
	s := &approvals.Syncer{API: api, Store: st, Concurrency: 8, Clock: time.Now}
	res, err := s.SyncAll(ctx)
	if err != nil || res.Wallets != len(owners) || res.Proposals != len(all) || res.Changed != len(all) || res.Failed != 0 {
		t.Fatalf("first sync: %+v %v (want %d wallets, %d proposals all changed)", res, err, len(owners), len(all))
	}
	res, err = s.SyncAll(ctx)
	if err != nil || res.Proposals != len(all) || res.Changed != 0 {
		t.Fatalf("second sync: %+v %v (want nothing changed)", res, err)
	}

	// Approve every 37th proposal upstream (they fall in several batches);
	// make a wallet with none of them fail.
	changed := map[string]bool{}
	for i := 0; i < len(all); i += 37 {
		changed[all[i]] = true
	}
	later := created.Add(time.Hour)
	var failing string
	api.mu.Lock()
	for w, ps := range api.lists {
		for i := range ps {
			if changed[ps[i].ID] {
				ps[i].Status, ps[i].Approvals, ps[i].UpdatedAt = "APPROVED", []string{"approver"}, later
			}
		}
		if failing == "" && !changed[ps[0].ID] && !changed[ps[1].ID] && !changed[ps[2].ID] {
			failing = w
		}
	}
	api.fail[failing] = true
	api.mu.Unlock()
	res, err = s.SyncAll(ctx)
	if err == nil || res.Failed != 1 || res.Changed != len(changed) || res.Proposals != len(all)-3 {
		t.Fatalf("third sync: %+v %v (want %d changed, 1 failed)", res, err, len(changed))
	}
	held, err := st.ProposalsByIDs(ctx, all)
	if err != nil || len(held) != len(all) {
		t.Fatalf("mirror: %d rows %v", len(held), err)
	}
	for _, p := range held {
		want := store.ProposalStatus("PENDING")
		if changed[p.ID] {
			want = "APPROVED"
		}
		if p.Status != want {
			t.Errorf("proposal %s: %s in the mirror, want %s", p.ID, p.Status, want)
		}
	}
}

// TestPeriodicSyncIsPaced: the periodic job's sync starts one read at most
// every 5 ms, so 30 wallets (never read before, so all in the first
// sweep) take at least 28 of those gaps (a lower bound only: a busy
// machine makes it longer, never shorter), and still reads every wallet.
func TestPeriodicSyncIsPaced(t *testing.T) {
	st, _, _ := mirrorOf(t, 5) // 30 wallets
	api := &scriptedAPI{lists: map[string][]apiclient.Proposal{}, fail: map[string]bool{}}
	s := &approvals.Syncer{API: api, Store: st, Concurrency: 8, Clock: time.Now}
	start := time.Now()
	res, err := s.SyncPeriod(context.Background(), approvals.SyncInterval/2)
	took := time.Since(start)
	if err != nil || res.Wallets != 30 || res.Failed != 0 {
		t.Fatalf("paced sync: %+v %v", res, err)
	}
	if took < 28*5*time.Millisecond {
		t.Fatalf("30 wallets read in %s: not paced", took)
	}
}

// TestPeriodicSyncFollowsTheWork: each period reads the busy wallets (here
// one with an open proposal) and SweepPerPeriod of the others, the least
// recently read first, so that every wallet is read within a few periods
// and no quiet wallet is read twice before all were read once.
func TestPeriodicSyncFollowsTheWork(t *testing.T) {
	st, _, _ := mirrorOf(t, 25) // 150 wallets
	ctx := context.Background()
	owners, err := st.WalletOwners(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var busy string
	for w := range owners {
		busy = w
		break
	}
	created := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	api := &scriptedAPI{lists: map[string][]apiclient.Proposal{busy: {{ID: "00000000-0000-4000-8000-000000000001", WalletID: busy,
		Type: "TRANSFER", Status: "PENDING_APPROVALS", Currency: "USDB", Amount: decimal.NewFromInt(10),
		ToAddress: "0x00000000000000000000000000000000000000aa", RequiredSignatures: 1, RequiredApprovals: 2,
		CreatedAt: created, UpdatedAt: created}}}, fail: map[string]bool{}}
	// The clock moves a minute a period, so the sweep's order is the order
	// of the periods, not of ties.
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	s := &approvals.Syncer{API: api, Store: st, Concurrency: 8, Clock: func() time.Time { return now }}
	// An action on the busy wallet read it (SyncWallet): its proposal is
	// open in the mirror from then on.
	if err := s.SyncWallet(ctx, busy, owners[busy]); err != nil {
		t.Fatal(err)
	}
	// Money events in the last hour: a card payment and a deposit make no
	// proposal, so they leave their wallets quiet; a withdrawal follows a
	// proposal, so its wallet is busy.
	// Money events are the person's (every wallet of an owner follows
	// them): each kind goes to a wallet of a different owner.
	kinds := map[string]string{}
	usedOwner := map[string]bool{owners[busy]: true}
	for w := range owners {
		if usedOwner[owners[w]] {
			continue
		}
		usedOwner[owners[w]] = true
		switch len(kinds) {
		case 0:
			kinds[w] = "card_transaction"
		case 1:
			kinds[w] = "deposit"
		case 2:
			kinds[w] = "withdrawal"
		}
	}
	for w, kind := range kinds {
		var id int64
		if err := st.Pool().QueryRow(ctx, `INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
			VALUES ($1, 'x', '{}', 'processed', $2) RETURNING id`, "wh-"+kind, now).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Pool().Exec(ctx, `INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
			VALUES ($1, $2, $3, 'x', 'completed', 5, 'USDB', $4)`, id, owners[w], kind, now.Add(-10*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	targets, err := st.ApprovalSyncTargets(ctx, now.Add(-time.Hour), 0)
	if err != nil {
		t.Fatal(err)
	}
	busyNow := map[string]bool{}
	for _, tg := range targets {
		busyNow[tg.WalletID] = tg.Busy
	}
	for w, kind := range kinds {
		if want := kind == "withdrawal"; busyNow[w] != want {
			t.Errorf("a %s in the last hour: wallet busy %v, want %v", kind, busyNow[w], want)
		}
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM activity`); err != nil {
		t.Fatal(err)
	}

	periods := (len(owners) + approvals.SweepPerPeriod - 1) / approvals.SweepPerPeriod
	for p := range periods + 1 {
		res, err := s.SyncPeriod(ctx, 0)
		if err != nil {
			t.Fatalf("period %d: %v", p, err)
		}
		if res.Wallets != approvals.SweepPerPeriod+1 {
			t.Errorf("period %d read %d wallets, want the busy one and %d others", p, res.Wallets, approvals.SweepPerPeriod)
		}
		now = now.Add(time.Minute)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if got := api.calls[busy]; got != periods+2 {
		t.Errorf("busy wallet read %d times in %d periods", got, periods+1)
	}
	for w := range owners {
		if w != busy && (api.calls[w] < 1 || api.calls[w] > 2) {
			t.Errorf("quiet wallet %s read %d times in %d periods", w, api.calls[w], periods+1)
		}
	}
}
