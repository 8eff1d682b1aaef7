// Package userstate keeps the store's copy of the partner's users fresh
// from the API (DESIGN.md decision 7, the local mirror): the API has no
// list of users, so the store remembers them, and their wallets, balances
// and onboarding are re-read here. It serves no route; the areas and the
// jobs use it.
package userstate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// API is what the mirror reads (GETs only).
type API interface {
	OnboardingAPI
}

// Store is what the mirror writes.
type Store interface {
	UpsertEmployee(ctx context.Context, e store.Employee) (store.Employee, error)
	OnboardingStore
}

// Syncer re-reads users' wallets and onboarding from the API into the store.
type Syncer struct {
	API   API
	Store Store
	Now   func() time.Time
	// ImportConcurrency bounds how many employees Import reads at once
	// (each read is eight GETs in parallel); 0 means 4.
	ImportConcurrency int
}

// SyncWallets reads an employee's wallets and balances and records them
// with the time they were read.
func (s *Syncer) SyncWallets(ctx context.Context, e store.Employee) error {
	if e.ServiceUserID == "" {
		return nil // only invited: no wallets yet
	}
	wallets, err := s.API.ListWallets(ctx, e.ServiceUserID)
	if err != nil {
		return fmt.Errorf("userstate: wallets of employee %d: %w", e.ID, err)
	}
	now := s.Now()
	for _, w := range wallets {
		err := s.Store.UpsertWallet(ctx, store.Wallet{
			ID: w.ID, EmployeeID: e.ID, Currency: string(w.Currency), DisplayCurrency: string(w.DisplayCurrency),
			Address: w.Address, Chain: w.Chain, Status: w.Status, OwnerAddress: w.UserOwnerAddress, Legacy: w.Legacy,
			Balance: decimal.NullDecimal{Decimal: w.Balance, Valid: true}, BalanceReadAt: &now,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Import records users the partner already has upstream (the sandbox's demo
// company on a fresh database), reads the treasury users' wallets, and reads
// every linked employee's onboarding (wallets, snapshots, readiness), a few
// employees at a time, so the lists show what the API says from the start.
// It is idempotent: running it again refreshes the same rows. An employee
// whose reads fail keeps the failure in its snapshots (the page says so);
// only a failure to store is an error.
func (s *Syncer) Import(ctx context.Context, people []store.Employee) (int, error) {
	var linked []store.Employee
	n := 0
	for _, p := range people {
		e, err := s.Store.UpsertEmployee(ctx, p)
		if err != nil {
			return n, err
		}
		n++
		switch {
		case e.ServiceUserID == "" || e.InviteState == store.InviteDeleted:
		case e.Kind == store.KindEmployee:
			linked = append(linked, e)
		default:
			if err := s.SyncWallets(ctx, e); err != nil {
				return n, err
			}
		}
	}
	return n, s.readOnboarding(ctx, linked)
}

// readOnboarding reads and records the onboarding of employees with at most
// ImportConcurrency in flight; it returns the first store error.
func (s *Syncer) readOnboarding(ctx context.Context, list []store.Employee) error {
	limit := s.ImportConcurrency
	if limit <= 0 {
		limit = 4
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, limit)
	)
	for _, e := range list {
		slots <- struct{}{}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			rd := ReadOnboarding(ctx, s.API, e.ServiceUserID, s.Now())
			if _, err := RecordOnboarding(ctx, s.Store, e.ID, rd); err != nil {
				mu.Lock()
				if first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// ensure the client satisfies what the mirror reads.
var _ API = (*apiclient.Client)(nil)
