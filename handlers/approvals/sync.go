package approvals

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/handlers/mirror"
	"partneradmin/store"
)

// DefaultSyncConcurrency bounds the upstream calls one sync makes at once.
const DefaultSyncConcurrency = 48

// syncDBConcurrency bounds the sync's own use of the database pool (6
// connections on 2 cores), so that pages served while it runs never queue
// behind its dozens of wallets.
const syncDBConcurrency = 2

// SyncInterval is how often the queue is re-read from the API.
const SyncInterval = 20 * time.Second

// SyncAPI is what the sync reads (a test counts the calls in flight).
type SyncAPI interface {
	ListProposals(ctx context.Context, userID, walletID string) ([]apiclient.Proposal, error)
}

// Syncer re-reads the proposals of every known wallet into the mirror,
// never more than Concurrency calls at once.
type Syncer struct {
	API         SyncAPI
	Store       *store.Store
	Concurrency int
	Logger      *slog.Logger
	Clock       func() time.Time
}

// SyncResult is what one sync read.
type SyncResult struct {
	Wallets   int
	Proposals int
	Changed   int
	Failed    int // wallets whose read failed (kept as they were)
}

// SyncAll reads every wallet's proposals. A wallet whose read fails keeps
// its last rows; the error of the first failure is returned with the
// counts.
func (s *Syncer) SyncAll(ctx context.Context) (SyncResult, error) {
	owners, err := s.Store.WalletOwners(ctx)
	if err != nil {
		return SyncResult{}, err
	}
	wallets := make([]string, 0, len(owners))
	for id := range owners {
		wallets = append(wallets, id)
	}
	sort.Strings(wallets)
	return s.syncWallets(ctx, wallets, owners)
}

// SyncWallet re-reads one wallet's proposals (after an action on it).
func (s *Syncer) SyncWallet(ctx context.Context, walletID, ownerUserID string) error {
	_, err := s.syncWallets(ctx, []string{walletID}, map[string]string{walletID: ownerUserID})
	return err
}

func (s *Syncer) syncWallets(ctx context.Context, wallets []string, owners map[string]string) (SyncResult, error) {
	n := s.Concurrency
	if n <= 0 {
		n = DefaultSyncConcurrency
	}
	var (
		mu       sync.Mutex
		res      = SyncResult{Wallets: len(wallets)}
		firstErr error
		wg       sync.WaitGroup
		sem      = make(chan struct{}, n)
		dbSem    = make(chan struct{}, syncDBConcurrency)
		// unchanged are the proposals read as the mirror holds them:
		// stamped synced together at the end, not a transaction each.
		unchanged []string
	)
	db := func(f func() error) error {
		select {
		case dbSem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-dbSem }()
		return f()
	}
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		res.Failed++
		if firstErr == nil {
			firstErr = err
		}
	}
	for _, id := range wallets {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return res, ctx.Err()
		}
		wg.Add(1)
		go func(walletID string) {
			defer wg.Done()
			defer func() { <-sem }()
			owner := owners[walletID]
			ps, err := s.API.ListProposals(ctx, owner, walletID)
			if err != nil {
				fail(fmt.Errorf("approvals: proposals of wallet %s: %w", walletID, err))
				return
			}
			ids := make([]string, len(ps))
			for i, p := range ps {
				ids[i] = p.ID
			}
			var held []store.Proposal
			if err := db(func() (err error) { held, err = s.Store.ProposalsByIDs(ctx, ids); return err }); err != nil {
				fail(err)
				return
			}
			heldBy := make(map[string]store.Proposal, len(held))
			for _, h := range held {
				heldBy[h.ID] = h
			}
			changed := 0
			var same []string
			for _, p := range ps {
				if p.WalletID == "" {
					p.WalletID = walletID
				}
				mp := mirror.FromAPI(p, owner, s.Clock())
				if h, ok := heldBy[mp.ID]; ok && mp.SameUpstream(h) {
					same = append(same, mp.ID)
					continue
				}
				var ch store.ProposalChange
				if err := db(func() (err error) { ch, err = s.Store.UpsertProposal(ctx, mp); return err }); err != nil {
					fail(err)
					return
				}
				if ch.Changed() {
					changed++
				}
			}
			mu.Lock()
			res.Proposals += len(ps)
			res.Changed += changed
			unchanged = append(unchanged, same...)
			mu.Unlock()
		}(id)
	}
	wg.Wait()
	if err := s.Store.StampProposalsSynced(ctx, unchanged); err != nil && firstErr == nil {
		firstErr = err
	}
	return res, firstErr
}

// SyncArgs is the periodic job that keeps the queue fresh.
type SyncArgs struct{}

// Kind names the job.
func (SyncArgs) Kind() string { return "approvals_sync" }

// InsertOpts: one sync at a time across replicas; a missed run is made up
// by the next period.
func (SyncArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByPeriod: SyncInterval}}
}

// SyncWorker runs SyncArgs.
type SyncWorker struct {
	river.WorkerDefaults[SyncArgs]
	Syncer *Syncer
}

// Work syncs every wallet. Partial failures are logged, not retried: the
// next period reads again.
func (w *SyncWorker) Work(ctx context.Context, _ *river.Job[SyncArgs]) error {
	res, err := w.Syncer.SyncAll(ctx)
	if err != nil && !errors.Is(err, context.Canceled) && w.Syncer.Logger != nil {
		w.Syncer.Logger.WarnContext(ctx, "approvals sync: some wallets were not read", "wallets", res.Wallets, "failed", res.Failed, "err", err)
	}
	return nil
}

// Timeout bounds one sync run.
func (w *SyncWorker) Timeout(*river.Job[SyncArgs]) time.Duration { return 2 * time.Minute }
