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
	"partneradmin/handlers/proposal"
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
	return s.syncAll(ctx)
}

// syncPace is the pace of the periodic sync: a read is started at most
// every syncPace, unless that would not finish within half the period.
const syncPace = 5 * time.Millisecond

// busyWindow: a wallet whose proposals changed or whose money moved this
// recently is read every period.
const busyWindow = time.Hour

// SweepPerPeriod is how many of the other wallets each period reads, the
// least recently read first: the sync's reads follow the work, not the
// company's size, and every wallet is still read now and then (a proposal
// made outside the app on a quiet wallet shows up within a sweep).
const SweepPerPeriod = 60

// SyncPeriod is one period of the periodic job: the busy wallets (open
// proposals, recent changes or money, the treasury) and SweepPerPeriod of
// the others, spread over at most within so that the reads are gentle, not
// a burst in the middle of people's page loads. The queue's Refresh button
// reads every wallet at full speed (SyncAll).
func (s *Syncer) SyncPeriod(ctx context.Context, within time.Duration) (SyncResult, error) {
	targets, err := s.Store.ApprovalSyncTargets(ctx, s.Clock().Add(-busyWindow), SweepPerPeriod)
	if err != nil {
		return SyncResult{}, err
	}
	wallets := make([]string, 0, len(targets))
	owners := make(map[string]string, len(targets))
	for _, t := range targets {
		wallets = append(wallets, t.WalletID)
		owners[t.WalletID] = t.Owner
	}
	return s.syncWallets(ctx, wallets, owners, pace(within, len(wallets)))
}

// pace is the gap between two reads that spreads n reads over at most
// within (0: no pacing).
func pace(within time.Duration, n int) time.Duration {
	if within <= 0 || n <= 1 {
		return 0
	}
	return min(syncPace, within/time.Duration(n))
}

func (s *Syncer) syncAll(ctx context.Context) (SyncResult, error) {
	owners, err := s.Store.WalletOwners(ctx)
	if err != nil {
		return SyncResult{}, err
	}
	wallets := make([]string, 0, len(owners))
	for id := range owners {
		wallets = append(wallets, id)
	}
	sort.Strings(wallets)
	return s.syncWallets(ctx, wallets, owners, 0)
}

// SyncWallet re-reads one wallet's proposals (after an action on it).
func (s *Syncer) SyncWallet(ctx context.Context, walletID, ownerUserID string) error {
	_, err := s.syncWallets(ctx, []string{walletID}, map[string]string{walletID: ownerUserID}, 0)
	return err
}

// syncBatchProposals is about how many proposals one read of the mirror
// compares: the mirror is read once per batch of wallets, not once per
// wallet.
const syncBatchProposals = 256

// walletRead is one wallet's proposals as the API listed them.
type walletRead struct {
	walletID, owner string
	proposals       []apiclient.Proposal
}

// syncRun is what one sync gathers from its readers and writers.
type syncRun struct {
	mu       sync.Mutex
	res      SyncResult
	firstErr error
	// unchanged are the proposals read as the mirror holds them:
	// stamped synced together at the end, not a transaction each.
	unchanged []string
	// read are the wallets whose proposals were listed.
	read []string
}

func (run *syncRun) fail(wallets int, err error) {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.res.Failed += wallets
	if run.firstErr == nil {
		run.firstErr = err
	}
}

// syncWallets reads wallets, starting a read at most every every (0: as
// fast as the concurrency allows).
func (s *Syncer) syncWallets(ctx context.Context, wallets []string, owners map[string]string, every time.Duration) (SyncResult, error) {
	n := s.Concurrency
	if n <= 0 {
		n = DefaultSyncConcurrency
	}
	run := &syncRun{res: SyncResult{Wallets: len(wallets)}}
	// Readers call the API, at most n at once; syncDBConcurrency writers
	// compare what they read with the mirror, a batch of wallets at a time.
	reads := make(chan walletRead, n)
	var writers sync.WaitGroup
	for range syncDBConcurrency {
		writers.Add(1)
		go func() {
			defer writers.Done()
			s.writeBatches(ctx, run, reads)
		}()
	}
	s.readWallets(ctx, run, wallets, owners, every, n, reads)
	close(reads)
	writers.Wait()
	if err := ctx.Err(); err != nil {
		return run.res, err
	}
	if err := s.Store.StampProposalsSynced(ctx, run.unchanged); err != nil && run.firstErr == nil {
		run.firstErr = err
	}
	if err := s.Store.StampWalletsRead(ctx, run.read, s.Clock()); err != nil && run.firstErr == nil {
		run.firstErr = err
	}
	return run.res, run.firstErr
}

// writeBatches compares what the readers send with the mirror, a batch of
// about syncBatchProposals proposals at a time, until reads is closed.
func (s *Syncer) writeBatches(ctx context.Context, run *syncRun, reads <-chan walletRead) {
	var batch []walletRead
	size := 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		same, changed, err := s.compare(ctx, batch)
		run.mu.Lock()
		for _, w := range batch {
			run.res.Proposals += len(w.proposals)
		}
		run.res.Changed += changed
		run.unchanged = append(run.unchanged, same...)
		run.mu.Unlock()
		if err != nil {
			run.fail(len(batch), err)
		}
		batch, size = batch[:0], 0
	}
	for w := range reads {
		batch, size = append(batch, w), size+len(w.proposals)
		if size >= syncBatchProposals {
			flush()
		}
	}
	flush()
}

// readWallets lists each wallet's proposals from the API, at most n at
// once and starting one at most every every, and sends them to reads; it
// returns when every read it started has ended.
func (s *Syncer) readWallets(ctx context.Context, run *syncRun, wallets []string, owners map[string]string, every time.Duration, n int, reads chan<- walletRead) {
	sem := make(chan struct{}, n)
	var readers sync.WaitGroup
	defer readers.Wait()
	var pace <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		pace = t.C
	}
	for i, id := range wallets {
		if pace != nil && i > 0 {
			select {
			case <-pace:
			case <-ctx.Done():
			}
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			return
		}
		readers.Add(1)
		go func(walletID string) {
			defer readers.Done()
			defer func() { <-sem }()
			owner := owners[walletID]
			ps, err := s.API.ListProposals(ctx, owner, walletID)
			if err != nil {
				run.fail(1, fmt.Errorf("approvals: proposals of wallet %s: %w", walletID, err))
				return
			}
			run.mu.Lock()
			run.read = append(run.read, walletID)
			run.mu.Unlock()
			reads <- walletRead{walletID: walletID, owner: owner, proposals: ps}
		}(id)
	}
}

// compare reads the mirror's rows of a batch of wallets' proposals in one
// statement and writes those the API shows changed. It returns the ids
// read as the mirror holds them and how many rows changed; a failed read
// or write fails the batch's remaining rows (kept as they were, read again
// next period).
func (s *Syncer) compare(ctx context.Context, batch []walletRead) (same []string, changed int, err error) {
	var ids []string
	for _, w := range batch {
		for _, p := range w.proposals {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) == 0 {
		return nil, 0, nil
	}
	held, err := s.Store.ProposalsByIDs(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	heldBy := make(map[string]store.Proposal, len(held))
	for _, h := range held {
		heldBy[h.ID] = h
	}
	for _, w := range batch {
		for _, p := range w.proposals {
			if p.WalletID == "" {
				p.WalletID = w.walletID
			}
			mp := proposal.FromAPI(p, w.owner, s.Clock())
			if h, ok := heldBy[mp.ID]; ok && mp.SameUpstream(h) {
				same = append(same, mp.ID)
				continue
			}
			ch, err := s.Store.UpsertProposal(ctx, mp)
			if err != nil {
				return same, changed, err
			}
			if ch.Changed() {
				changed++
			}
		}
	}
	return same, changed, nil
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

// Work syncs the busy wallets and a sweep of the others. Partial failures
// are logged, not retried: the next period reads again.
func (w *SyncWorker) Work(ctx context.Context, _ *river.Job[SyncArgs]) error {
	res, err := w.Syncer.SyncPeriod(ctx, SyncInterval/2)
	if err != nil && !errors.Is(err, context.Canceled) && w.Syncer.Logger != nil {
		w.Syncer.Logger.WarnContext(ctx, "approvals sync: some wallets were not read", "wallets", res.Wallets, "failed", res.Failed, "err", err)
	}
	return nil
}

// Timeout bounds one sync run.
func (w *SyncWorker) Timeout(*river.Job[SyncArgs]) time.Duration { return 2 * time.Minute }
