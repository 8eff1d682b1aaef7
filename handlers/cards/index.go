package cards

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// cardWallet reports whether a wallet can hold cards: spec: cards are "NGN
// or USD", and "Legacy wallets cannot hold cards".
func cardWallet(w store.Wallet) bool {
	if w.Legacy {
		return false
	}
	switch w.DisplayCurrency {
	case "NGN", "USD":
		return true
	case "":
		return w.Currency == string(apiclient.CNGN) || w.Currency == string(apiclient.USDB)
	}
	return false
}

// entryFrom turns a listed card into an index entry. Only a four-digit
// last4 is kept: nothing longer ever reaches the store.
func entryFrom(c apiclient.Card) store.CardEntry {
	e := store.CardEntry{
		ID: c.ID, CardName: c.CardName, CardColor: c.CardColor, Currency: string(c.Currency), Type: c.Type,
		Status: string(c.Status), FundedAt: c.FundedAt, Reserved: c.IsReserved || c.Status.Is(apiclient.CardReserved),
		ProposalID: c.ProposalID, ProposalStatus: string(c.ProposalStatus),
	}
	if len(c.Last4) == 4 && isDigits(c.Last4) {
		e.Last4 = c.Last4
	}
	if !colorPattern.MatchString(e.CardColor) {
		e.CardColor = ""
	}
	return e
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// IndexStore is what the indexer needs from the store.
type IndexStore interface {
	AllWallets(ctx context.Context) ([]store.Wallet, error)
	EmployeeByID(ctx context.Context, id int64) (store.Employee, error)
	ReplaceWalletCards(ctx context.Context, walletID string, cards []store.CardEntry, readAt time.Time) error
}

// IndexAPI is what the indexer reads upstream.
type IndexAPI interface {
	ListCards(ctx context.Context, userID, walletID string) ([]apiclient.Card, error)
}

// Indexer keeps the local card index: it reads each wallet's card list
// (GET .../smart-wallets/{id}/cards) into the store.
type Indexer struct {
	Store  IndexStore
	API    IndexAPI
	Logger *slog.Logger
	Now    func() time.Time
}

// NewIndexer returns an indexer over the store and the Partner API (nil when
// the app runs without one).
func NewIndexer(st IndexStore, api *apiclient.Client, logger *slog.Logger, now func() time.Time) *Indexer {
	ix := &Indexer{Store: st, Logger: logger, Now: now}
	if api != nil {
		ix.API = api
	}
	return ix
}

// RefreshWallet reads one wallet's card list and records it in the index.
func (h *Indexer) RefreshWallet(ctx context.Context, w store.Wallet, serviceUserID string) (int, error) {
	readAt := h.Now()
	list, err := h.API.ListCards(ctx, serviceUserID, w.ID)
	if err != nil {
		return 0, fmt.Errorf("cards: list cards of wallet %s: %w", w.ID, err)
	}
	entries := make([]store.CardEntry, 0, len(list))
	for _, c := range list {
		if c.ID == "" {
			continue
		}
		entries = append(entries, entryFrom(c))
	}
	if err := h.Store.ReplaceWalletCards(ctx, w.ID, entries, readAt); err != nil {
		return 0, err
	}
	return len(entries), nil
}

// IndexRun is what a refresh of the whole index read.
type IndexRun struct {
	Wallets int
	Cards   int
	Failed  int
}

// CardWallets counts the wallets a refresh reads.
func (h *Indexer) CardWallets(ctx context.Context) (int, error) {
	wallets, err := h.Store.AllWallets(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, w := range wallets {
		if cardWallet(w) {
			n++
		}
	}
	return n, nil
}

// indexConcurrency bounds the wallets read at once during a refresh.
const indexConcurrency = 8

// RefreshAll reads the card list of every card-capable wallet, a few at a
// time. A wallet that fails is counted and skipped; the others are still
// recorded.
func (h *Indexer) RefreshAll(ctx context.Context) (IndexRun, error) {
	var run IndexRun
	if h.API == nil {
		return run, fmt.Errorf("cards: refresh index: no Partner API configured")
	}
	wallets, err := h.Store.AllWallets(ctx)
	if err != nil {
		return run, err
	}
	type job struct {
		wallet store.Wallet
		user   string
	}
	var jobs []job
	owners := map[int64]string{}
	for _, w := range wallets {
		if !cardWallet(w) {
			continue
		}
		uid, ok := owners[w.EmployeeID]
		if !ok {
			e, err := h.Store.EmployeeByID(ctx, w.EmployeeID)
			if err != nil {
				return run, err
			}
			uid = e.ServiceUserID
			owners[w.EmployeeID] = uid
		}
		if uid != "" {
			jobs = append(jobs, job{w, uid})
		}
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, indexConcurrency)
	)
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			n, err := h.RefreshWallet(ctx, j.wallet, j.user)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				run.Failed++
				h.Logger.WarnContext(ctx, "card index: wallet skipped", "wallet", j.wallet.ID, "err", err)
				return
			}
			run.Wallets++
			run.Cards += n
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return run, fmt.Errorf("cards: refresh index: %w", err)
	}
	return run, nil
}

// RefreshIndexArgs is the periodic job that re-reads every wallet's card
// list into the index.
type RefreshIndexArgs struct{}

// Kind names the job.
func (RefreshIndexArgs) Kind() string { return "cards.refresh_index" }

// InsertOpts keeps one refresh queued at a time across replicas.
func (RefreshIndexArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: 5 * time.Minute}}
}

// RefreshIndexWorker runs RefreshIndexArgs.
type RefreshIndexWorker struct {
	river.WorkerDefaults[RefreshIndexArgs]
	Indexer *Indexer
}

// Work refreshes the index.
func (w *RefreshIndexWorker) Work(ctx context.Context, _ *river.Job[RefreshIndexArgs]) error {
	run, err := w.Indexer.RefreshAll(ctx)
	if err != nil {
		return err
	}
	w.Indexer.Logger.InfoContext(ctx, "card index refreshed", "wallets", run.Wallets, "cards", run.Cards, "failed", run.Failed)
	return nil
}

// PeriodicJobs are the card area's periodic jobs.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(15*time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return RefreshIndexArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
