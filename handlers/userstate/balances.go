package userstate

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// BalanceAPI reads balances.
type BalanceAPI interface {
	ListBalances(ctx context.Context, userID string) ([]apiclient.WalletBalance, error)
}

// BalanceStore keeps balances and their staleness.
type BalanceStore interface {
	BalanceStaleMarks(ctx context.Context, serviceUserID string) (store.StaleMarks, error)
	SaveBalances(ctx context.Context, balances []store.WalletBalance, readAt time.Time) ([]store.BalanceChange, error)
	ClearStaleBalances(ctx context.Context, marks store.StaleMarks) error
}

// RefreshBalances is the one way a user's balances are read into the
// mirror: it notes the wallets' stale marks, reads every balance (one GET),
// stores them dated now, and clears the marks no completion moved
// meanwhile. It returns what changed and how many wallets the API reported.
func RefreshBalances(ctx context.Context, st BalanceStore, api BalanceAPI, user string, now time.Time) ([]store.BalanceChange, int, error) {
	marks, err := st.BalanceStaleMarks(ctx, user)
	if err != nil {
		return nil, 0, err
	}
	bals, err := api.ListBalances(ctx, user)
	if err != nil {
		return nil, 0, err
	}
	rows := make([]store.WalletBalance, 0, len(bals))
	for _, b := range bals {
		rows = append(rows, store.WalletBalance{SmartWalletID: b.SmartWalletID, Currency: string(b.Currency),
			DisplayCurrency: string(b.DisplayCurrency), Balance: b.Balance})
	}
	changes, err := st.SaveBalances(ctx, rows, now)
	if err != nil {
		return nil, 0, err
	}
	// Only the wallets the API reported were read.
	read := store.StaleMarks{}
	for _, b := range rows {
		if gen, ok := marks[b.SmartWalletID]; ok {
			read[b.SmartWalletID] = gen
		}
	}
	if err := st.ClearStaleBalances(ctx, read); err != nil {
		return nil, 0, err
	}
	return changes, len(rows), nil
}

// StaleBalancesArgs is the periodic job that reads again the balances a
// completed proposal made stale.
type StaleBalancesArgs struct{}

// Kind names the job.
func (StaleBalancesArgs) Kind() string { return "mirror_stale_balances" }

// StaleBalancesInterval is how often stale balances are looked for: a
// completed transfer shows its new balances within about this long.
const StaleBalancesInterval = 5 * time.Second

// staleBatch bounds one run: the users with the oldest stale balances
// first, a few reads at a time.
const (
	staleBatch       = 50
	staleConcurrency = 4
)

// StaleBalancesWorker reads the stale balances.
type StaleBalancesWorker struct {
	river.WorkerDefaults[StaleBalancesArgs]
	Store interface {
		BalanceStore
		StaleBalanceUsers(ctx context.Context, limit int) ([]string, error)
	}
	// API is nil when no Partner API is wired in: nothing is read.
	API    BalanceAPI
	Clock  func() time.Time
	Logger *slog.Logger
}

// Timeout bounds one run.
func (w *StaleBalancesWorker) Timeout(*river.Job[StaleBalancesArgs]) time.Duration {
	return time.Minute
}

// Work reads every user's balances that a completion made stale; a user
// whose read fails stays stale (the pages say so) and is tried next run.
func (w *StaleBalancesWorker) Work(ctx context.Context, _ *river.Job[StaleBalancesArgs]) error {
	if w.API == nil {
		return nil
	}
	users, err := w.Store.StaleBalanceUsers(ctx, staleBatch)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, staleConcurrency)
	for _, u := range users {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			w.refresh(ctx, u)
		}()
	}
	wg.Wait()
	return nil
}

// refresh reads one user's balances. A failed read is tried again next run;
// a user the API no longer knows is not: their marks are cleared.
func (w *StaleBalancesWorker) refresh(ctx context.Context, user string) {
	_, _, err := RefreshBalances(ctx, w.Store, w.API, user, w.Clock())
	if err == nil {
		return
	}
	w.Logger.WarnContext(ctx, "stale balances not read", "service_user_id", user, "status", apiclient.StatusCode(err), "err", err)
	if apiclient.IsNotFound(err) || apiclient.IsForbidden(err) {
		marks, err := w.Store.BalanceStaleMarks(ctx, user)
		if err == nil {
			err = w.Store.ClearStaleBalances(ctx, marks)
		}
		if err != nil {
			w.Logger.WarnContext(ctx, "stale marks not cleared", "service_user_id", user, "err", err)
		}
	}
}
