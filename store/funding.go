package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// DepositAddress is a crypto deposit address the Partner API issued for a
// user: deposits of Currency on Chain sent to Address are credited to the
// user's wallets.
type DepositAddress struct {
	ServiceUserID string
	Chain         string
	Currency      string
	Address       string
	CreatedAt     time.Time
	CreatedBy     StaffRef
}

// SaveDepositAddress records an issued address; asking again for the same
// chain and token keeps one row, with the address the API gave last.
func (s *Store) SaveDepositAddress(ctx context.Context, a DepositAddress, by Actor) error {
	_, err := s.db.Exec(ctx, `INSERT INTO deposit_addresses (service_user_id, chain, currency, address, created_by)
		VALUES ($1, $2, $3, $4, NULLIF($5, 0))
		ON CONFLICT (service_user_id, chain, currency) DO UPDATE SET address = EXCLUDED.address`,
		a.ServiceUserID, a.Chain, a.Currency, a.Address, by.StaffID)
	if err != nil {
		return fmt.Errorf("store: save deposit address %s %s: %w", a.Chain, a.Currency, err)
	}
	return nil
}

// DepositAddresses are the user's issued deposit addresses, by chain then
// token. A user has at most one per supported asset, a short list.
func (s *Store) DepositAddresses(ctx context.Context, serviceUserID string) ([]DepositAddress, error) {
	rows, err := s.db.Query(ctx, `SELECT a.service_user_id, a.chain, a.currency, a.address, a.created_at,
			COALESCE(a.created_by, 0), COALESCE(st.name, '')
		FROM deposit_addresses a LEFT JOIN staff st ON st.id = a.created_by
		WHERE a.service_user_id = $1 ORDER BY a.chain, a.currency`, serviceUserID)
	if err != nil {
		return nil, fmt.Errorf("store: deposit addresses: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DepositAddress, error) {
		var a DepositAddress
		err := r.Scan(&a.ServiceUserID, &a.Chain, &a.Currency, &a.Address, &a.CreatedAt, &a.CreatedBy.ID, &a.CreatedBy.Name)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: deposit addresses: %w", err)
	}
	return list, nil
}

// DepositRoute is a route in force: deposits to the account holder's
// issued account of Rail (USD or NGN) are credited to WalletID instead of
// the holder's own wallet.
type DepositRoute struct {
	ServiceUserID string
	HolderName    string // the holder's name as the employee list has it; "" when unknown
	Rail          string
	WalletID      string
	RoutedAt      time.Time
	RoutedBy      StaffRef
}

// SetDepositRoute records that the holder's account of rail now routes to
// walletID (one route per account: a new one replaces the old).
func (s *Store) SetDepositRoute(ctx context.Context, serviceUserID, rail, walletID string, by Actor) error {
	_, err := s.db.Exec(ctx, `INSERT INTO deposit_routes (service_user_id, rail, wallet_id, routed_by)
		VALUES ($1, $2, $3, NULLIF($4, 0))
		ON CONFLICT (service_user_id, rail) DO UPDATE SET wallet_id = EXCLUDED.wallet_id, routed_at = now(), routed_by = EXCLUDED.routed_by`,
		serviceUserID, rail, walletID, by.StaffID)
	if err != nil {
		return fmt.Errorf("store: set deposit route %s %s: %w", serviceUserID, rail, err)
	}
	return nil
}

// ClearDepositRoute records that the holder's account of rail routes to no
// other wallet any more.
func (s *Store) ClearDepositRoute(ctx context.Context, serviceUserID, rail string) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM deposit_routes WHERE service_user_id = $1 AND rail = $2`, serviceUserID, rail); err != nil {
		return fmt.Errorf("store: clear deposit route %s %s: %w", serviceUserID, rail, err)
	}
	return nil
}

// DepositRoutes are the routes in force whose wallet is one of walletIDs
// (the treasury's), newest first: a list as long as the accounts routed.
func (s *Store) DepositRoutes(ctx context.Context, walletIDs []string) ([]DepositRoute, error) {
	rows, err := s.db.Query(ctx, `SELECT r.service_user_id, COALESCE(NULLIF(trim(e.first_name || ' ' || e.last_name), ''), e.email, ''),
			r.rail, r.wallet_id, r.routed_at, COALESCE(r.routed_by, 0), COALESCE(st.name, '')
		FROM deposit_routes r
		LEFT JOIN employees e ON e.service_user_id = r.service_user_id
		LEFT JOIN staff st ON st.id = r.routed_by
		WHERE r.wallet_id = ANY($1) ORDER BY r.routed_at DESC, r.service_user_id, r.rail`, walletIDs)
	if err != nil {
		return nil, fmt.Errorf("store: deposit routes: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DepositRoute, error) {
		var d DepositRoute
		err := r.Scan(&d.ServiceUserID, &d.HolderName, &d.Rail, &d.WalletID, &d.RoutedAt, &d.RoutedBy.ID, &d.RoutedBy.Name)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: deposit routes: %w", err)
	}
	return list, nil
}
