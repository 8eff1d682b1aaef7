package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// StaleMarks are the staleness generations of a user's wallets, read before
// their balances are read from the API: ClearStaleBalances clears only the
// marks that did not move meanwhile.
type StaleMarks map[string]int64

// BalanceStaleMarks returns the generations of the wallets of the employee
// with serviceUserID.
func (s *Store) BalanceStaleMarks(ctx context.Context, serviceUserID string) (StaleMarks, error) {
	rows, err := s.db.Query(ctx, `SELECT w.id, w.balance_stale_gen FROM wallets w
		JOIN employees e ON e.id = w.employee_id WHERE e.service_user_id = $1`, serviceUserID)
	if err != nil {
		return nil, fmt.Errorf("store: stale marks: %w", err)
	}
	marks := StaleMarks{}
	var id string
	var gen int64
	_, err = pgx.ForEachRow(rows, []any{&id, &gen}, func() error {
		marks[id] = gen
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: stale marks: %w", err)
	}
	return marks, nil
}

// ClearStaleBalances clears the stale mark of each wallet whose generation
// is still the one in marks: its balance was read after the last completion
// that marked it.
func (s *Store) ClearStaleBalances(ctx context.Context, marks StaleMarks) error {
	if len(marks) == 0 {
		return nil
	}
	ids := make([]string, 0, len(marks))
	gens := make([]int64, 0, len(marks))
	for id, gen := range marks {
		ids = append(ids, id)
		gens = append(gens, gen)
	}
	_, err := s.db.Exec(ctx, `UPDATE wallets w SET balance_stale_since = NULL
		FROM unnest($1::text[], $2::bigint[]) AS m(id, gen)
		WHERE w.id = m.id AND w.balance_stale_gen = m.gen AND w.balance_stale_since IS NOT NULL`, ids, gens)
	if err != nil {
		return fmt.Errorf("store: clear stale balances: %w", err)
	}
	return nil
}

// StaleBalanceUsers lists up to limit serviceUserIds whose wallets hold a
// stale balance, the longest stale first.
func (s *Store) StaleBalanceUsers(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT e.service_user_id FROM wallets w JOIN employees e ON e.id = w.employee_id
		WHERE w.balance_stale_since IS NOT NULL AND e.service_user_id IS NOT NULL AND e.deleted_at IS NULL
		GROUP BY e.service_user_id ORDER BY min(w.balance_stale_since) LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: stale balance users: %w", err)
	}
	users, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: stale balance users: %w", err)
	}
	return users, nil
}

// Outflow is the value leaving a wallet in proposals not yet completed.
type Outflow struct {
	Amount decimal.Decimal
	Count  int
}

// queueOpenOutflows sums, per wallet of the treasury (Treasury), the
// amounts of its proposals that may still move value out: waiting for
// approvals or signatures, submitted, ready or executing.
func queueOpenOutflows(b *pgx.Batch, out *map[string]Outflow) {
	b.Queue(`SELECT wallet_id, coalesce(sum(amount), 0)::text, count(*) FROM proposals
		WHERE wallet_id IN (SELECT id FROM wallets WHERE employee_id = (` + treasuryUserIDSQL + `)) AND amount > 0
		  AND status IN ('PENDING_APPROVALS', 'PENDING_SIGNATURES', 'SUBMITTED', 'READY_TO_EXECUTE', 'EXECUTING')
		GROUP BY wallet_id`).Query(func(rows pgx.Rows) error {
		m := map[string]Outflow{}
		var id, sum string
		var n int
		_, err := pgx.ForEachRow(rows, []any{&id, &sum, &n}, func() error {
			d, err := decimal.NewFromString(sum)
			if err != nil {
				return err
			}
			m[id] = Outflow{Amount: d, Count: n}
			return nil
		})
		*out = m
		return err
	})
}
