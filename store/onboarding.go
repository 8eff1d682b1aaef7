package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Readiness states of one employee in one currency, as the list, the
// matrix and the detail page show them.
const (
	ReadyNotStarted = "not_started"
	ReadyMissing    = "missing"    // the API lists fields still missing
	ReadyToActivate = "ready"      // nothing missing: KYC can be activated
	ReadyOnboarding = "onboarding" // the rail is being set up
	ReadyActive     = "active"
	ReadyFailed     = "failed"
	ReadyRejected   = "rejected"
	// ReadyNotRead is a currency no read of the API has answered for yet:
	// the employee has no readiness row for it. It is never stored.
	ReadyNotRead = "not_read"
)

// ReadinessCurrencies are the currencies the HR admin follows, in the order
// shown.
var readinessCurrencies = []string{"USD", "EUR", "NGN", "MXN", "CAD"}

// ReadinessCurrencies returns the currencies the HR admin follows.
func ReadinessCurrencies() []string { return append([]string(nil), readinessCurrencies...) }

// ReadinessCell is one employee's readiness in one currency.
type ReadinessCell struct {
	EmployeeID int64
	Currency   string
	State      string
	Missing    []string // field names as the API reports them
	Detail     string   // e.g. the rejection reason
	ReadAt     time.Time
}

// Snapshot is what the API answered to one read about an employee (Kind:
// onboarding_status, kyc_readiness, usd_readiness, vba_usd, deposit_NGN,
// deposit_MXN, balances, kyc_summary), with when it was read. Error holds the
// upstream error in words when the read failed; Body is then nil.
type Snapshot struct {
	Kind   string
	Body   json.RawMessage
	Error  string
	ReadAt time.Time
}

// SaveOnboarding records an employee's snapshots and readiness cells in one
// transaction (a refresh replaces what the previous refresh read).
func (s *Store) SaveOnboarding(ctx context.Context, employeeID int64, snaps []Snapshot, cells []ReadinessCell) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		for _, sn := range snaps {
			var body any
			if len(sn.Body) > 0 {
				body = string(sn.Body)
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO onboarding_snapshots (employee_id, kind, body, error, read_at) VALUES ($1, $2, $3::jsonb, $4, $5)
				ON CONFLICT (employee_id, kind) DO UPDATE SET body = EXCLUDED.body, error = EXCLUDED.error, read_at = EXCLUDED.read_at`,
				employeeID, sn.Kind, body, sn.Error, sn.ReadAt); err != nil {
				return fmt.Errorf("store: save snapshot %s of %d: %w", sn.Kind, employeeID, err)
			}
		}
		for _, c := range cells {
			missing := c.Missing
			if missing == nil {
				missing = []string{}
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO employee_readiness (employee_id, currency, state, missing, detail, read_at) VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (employee_id, currency) DO UPDATE SET state = EXCLUDED.state, missing = EXCLUDED.missing,
					detail = EXCLUDED.detail, read_at = EXCLUDED.read_at`,
				employeeID, c.Currency, c.State, missing, c.Detail, c.ReadAt); err != nil {
				return fmt.Errorf("store: save readiness %s of %d: %w", c.Currency, employeeID, err)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE employees SET last_activity_at = now() WHERE id = $1`, employeeID); err != nil {
			return fmt.Errorf("store: save onboarding of %d: %w", employeeID, err)
		}
		return nil
	})
}

// SnapshotsOf returns an employee's snapshots by kind.
func (s *Store) SnapshotsOf(ctx context.Context, employeeID int64) (map[string]Snapshot, error) {
	rows, err := s.db.Query(ctx, `SELECT kind, coalesce(body::text, ''), error, read_at FROM onboarding_snapshots WHERE employee_id = $1`, employeeID)
	if err != nil {
		return nil, fmt.Errorf("store: snapshots of %d: %w", employeeID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Snapshot, error) {
		var sn Snapshot
		var body string
		err := r.Scan(&sn.Kind, &body, &sn.Error, &sn.ReadAt)
		if body != "" {
			sn.Body = json.RawMessage(body)
		}
		return sn, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: snapshots of %d: %w", employeeID, err)
	}
	m := make(map[string]Snapshot, len(list))
	for _, sn := range list {
		m[sn.Kind] = sn
	}
	return m, nil
}

// ReadinessOf returns the readiness cells of some employees, keyed by
// employee and currency.
func (s *Store) ReadinessOf(ctx context.Context, employeeIDs []int64) (map[int64]map[string]ReadinessCell, error) {
	out := make(map[int64]map[string]ReadinessCell, len(employeeIDs))
	if len(employeeIDs) == 0 {
		return out, nil
	}
	// Lists show 5 cells a row: the missing fields travel as one text
	// (unit-separated), which decodes far cheaper than an array.
	rows, err := s.db.Query(ctx, `SELECT employee_id, currency, state, array_to_string(missing, chr(31)), detail, read_at
		FROM employee_readiness WHERE employee_id = ANY($1)`, employeeIDs)
	if err != nil {
		return nil, fmt.Errorf("store: readiness: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ReadinessCell, error) {
		var c ReadinessCell
		var missing string
		err := r.Scan(&c.EmployeeID, &c.Currency, &c.State, &missing, &c.Detail, &c.ReadAt)
		if missing != "" {
			c.Missing = strings.Split(missing, "\x1f")
		}
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: readiness: %w", err)
	}
	for _, c := range list {
		if out[c.EmployeeID] == nil {
			out[c.EmployeeID] = map[string]ReadinessCell{}
		}
		out[c.EmployeeID][c.Currency] = c
	}
	return out, nil
}

// StaleOnboarding returns linked employees whose onboarding was last read
// before olderThan (or never), stalest first: what the reconciliation job
// re-reads so a lost onboarding.* or employee.vba.registered event heals.
func (s *Store) StaleOnboarding(ctx context.Context, olderThan time.Time, limit int) ([]Employee, error) {
	rows, err := s.db.Query(ctx, `
		SELECT `+employeeColumns+` FROM employees
		WHERE kind = 'employee' AND service_user_id IS NOT NULL AND invite_state <> 'deleted'
			AND NOT EXISTS (SELECT 1 FROM onboarding_snapshots s WHERE s.employee_id = employees.id AND s.read_at >= $1)
		ORDER BY (SELECT min(s.read_at) FROM onboarding_snapshots s WHERE s.employee_id = employees.id) NULLS FIRST, id
		LIMIT $2`, olderThan, limit)
	if err != nil {
		return nil, fmt.Errorf("store: stale onboarding: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Employee, error) { return scanEmployee(r) })
	if err != nil {
		return nil, fmt.Errorf("store: stale onboarding: %w", err)
	}
	return list, nil
}

// ReadinessCounts counts every employee (not deleted) by currency and
// readiness state; a currency never read counts as "not_read". It is the
// whole workforce, not a page, for the readiness chart, read from counts
// that triggers keep as rows change (migration 0019).
func (s *Store) ReadinessCounts(ctx context.Context, currencies []string) (map[string]map[string]int, error) {
	b := &pgx.Batch{}
	var out map[string]map[string]int
	queueReadinessCounts(b, currencies, &out)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("store: readiness counts: %w", err)
	}
	return out, nil
}

// queueReadinessCounts adds the read of the kept readiness counts to a
// batch; *out is set when the batch is read.
func queueReadinessCounts(b *pgx.Batch, currencies []string, out *map[string]map[string]int) {
	b.Queue(`SELECT currency, state, n FROM readiness_counts WHERE currency = '*' OR currency = ANY($1)`, currencies).
		Query(func(rows pgx.Rows) error {
			counts := make(map[string]map[string]int, len(currencies))
			for _, c := range currencies {
				counts[c] = map[string]int{}
			}
			total := 0
			var cur, state string
			var n int
			_, err := pgx.ForEachRow(rows, []any{&cur, &state, &n}, func() error {
				switch {
				case cur == "*":
					total = n
				case n != 0:
					if m, ok := counts[cur]; ok {
						m[state] = n
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, c := range currencies {
				read := 0
				for _, n := range counts[c] {
					read += n
				}
				if total > read {
					counts[c]["not_read"] = total - read
				}
			}
			*out = counts
			return nil
		})
}
