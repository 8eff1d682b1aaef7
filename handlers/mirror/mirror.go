// Package mirror keeps the local mirror of the partner's users and wallets
// fresh from the API (DESIGN.md decision 7): the API has no list of users,
// so the store remembers them, and wallets and balances are re-read here.
package mirror

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// API is what the mirror reads.
type API interface {
	ListWallets(ctx context.Context, userID string) ([]apiclient.Wallet, error)
}

// Store is what the mirror writes.
type Store interface {
	UpsertEmployee(ctx context.Context, e store.Employee) (store.Employee, error)
	UpsertWallet(ctx context.Context, w store.Wallet) error
}

// Syncer re-reads users' wallets from the API into the store.
type Syncer struct {
	API   API
	Store Store
	Now   func() time.Time
}

// SyncWallets reads an employee's wallets and balances and records them
// with the time they were read.
func (s *Syncer) SyncWallets(ctx context.Context, e store.Employee) error {
	if e.ServiceUserID == "" {
		return nil // only invited: no wallets yet
	}
	wallets, err := s.API.ListWallets(ctx, e.ServiceUserID)
	if err != nil {
		return fmt.Errorf("mirror: wallets of employee %d: %w", e.ID, err)
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
// company on a fresh database) and reads their wallets. It is idempotent:
// running it again refreshes the same rows.
func (s *Syncer) Import(ctx context.Context, people []store.Employee) (int, error) {
	n := 0
	for _, p := range people {
		e, err := s.Store.UpsertEmployee(ctx, p)
		if err != nil {
			return n, err
		}
		if err := s.SyncWallets(ctx, e); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
