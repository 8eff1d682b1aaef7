package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// CashOrder is what the app recorded of a cash order it created: the
// Partner API's order list has no currency.
type CashOrder struct {
	OrderID  string
	WalletID string
	// Token is the wallet's stablecoin (MXNB), Currency its fiat code
	// (MXN), the currency the order's price is in.
	Token, Currency string
}

// RecordCashOrder keeps the wallet and currency of an order the app just
// created (in the transaction that finishes its action). Recording an
// order twice keeps the first record.
func (s *Store) RecordCashOrder(ctx context.Context, o CashOrder) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO cash_orders (order_id, wallet_id, token, currency) VALUES ($1, $2, $3, $4)
		ON CONFLICT (order_id) DO NOTHING`, o.OrderID, o.WalletID, o.Token, o.Currency)
	if err != nil {
		return fmt.Errorf("store: record cash order %s: %w", o.OrderID, err)
	}
	return nil
}

// CashOrdersByID returns the records of those of ids the app created, by
// order id; an order created outside the app has none.
func (s *Store) CashOrdersByID(ctx context.Context, ids []string) (map[string]CashOrder, error) {
	out := make(map[string]CashOrder, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, `SELECT order_id, wallet_id, token, currency FROM cash_orders WHERE order_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: load cash orders: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CashOrder, error) {
		var o CashOrder
		err := r.Scan(&o.OrderID, &o.WalletID, &o.Token, &o.Currency)
		return o, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: load cash orders: %w", err)
	}
	for _, o := range list {
		out[o.OrderID] = o
	}
	return out, nil
}
