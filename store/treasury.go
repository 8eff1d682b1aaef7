package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Recipient is an employee value can be sent to: known upstream, not
// deleted.
type Recipient struct {
	ServiceUserID string
	Name          string
}

// TreasuryRecipients lists the employees with a serviceUserId, by name.
func (s *Store) TreasuryRecipients(ctx context.Context) ([]Recipient, error) {
	rows, err := s.pool.Query(ctx, `SELECT service_user_id, first_name, last_name, email FROM employees
		WHERE kind = 'employee' AND service_user_id IS NOT NULL AND deleted_at IS NULL
		ORDER BY lower(first_name || ' ' || last_name), id`)
	if err != nil {
		return nil, fmt.Errorf("store: treasury recipients: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Recipient, error) {
		var e Employee
		err := r.Scan(&e.ServiceUserID, &e.FirstName, &e.LastName, &e.Email)
		return Recipient{ServiceUserID: e.ServiceUserID, Name: e.Name()}, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: treasury recipients: %w", err)
	}
	return list, nil
}
