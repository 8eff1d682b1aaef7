package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// RecipientSearchLimit is how many people one recipient search returns.
const RecipientSearchLimit = 20

// Recipient is an employee value can be sent to: known upstream, not
// deleted.
type Recipient struct {
	ServiceUserID string
	Name          string
	Email         string
}

// recipientWhere selects the employees value can be sent to.
const recipientWhere = `kind = 'employee' AND service_user_id IS NOT NULL AND deleted_at IS NULL`

const recipientColumns = `service_user_id, first_name, last_name, email`

func scanRecipient(r pgx.Row) (Recipient, error) {
	var e Employee
	err := r.Scan(&e.ServiceUserID, &e.FirstName, &e.LastName, &e.Email)
	return Recipient{ServiceUserID: e.ServiceUserID, Name: e.Name(), Email: e.Email}, err
}

// SearchTreasuryRecipients finds the recipients whose name, email or
// serviceUserId has words starting with the words of q, as the employee
// list's search does (employeeSearchCond), by name; at most limit of them
// (RecipientSearchLimit when limit is not positive).
func (s *Store) SearchTreasuryRecipients(ctx context.Context, q string, limit int) ([]Recipient, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = RecipientSearchLimit
	}
	args := []any{}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	cond := employeeSearchCond(q, arg)
	rows, err := s.db.Query(ctx, `SELECT `+recipientColumns+` FROM employees
		WHERE `+recipientWhere+` AND `+cond+`
		ORDER BY `+nameExpr+`, id LIMIT `+arg(limit), args...)
	if err != nil {
		return nil, fmt.Errorf("store: search treasury recipients: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Recipient, error) { return scanRecipient(r) })
	if err != nil {
		return nil, fmt.Errorf("store: search treasury recipients: %w", err)
	}
	return list, nil
}

// TreasuryRecipient is the recipient with this serviceUserId; ok is false
// when no linked, not deleted employee has it.
func (s *Store) TreasuryRecipient(ctx context.Context, serviceUserID string) (r Recipient, ok bool, err error) {
	if serviceUserID == "" {
		return Recipient{}, false, nil
	}
	r, err = scanRecipient(s.db.QueryRow(ctx, `SELECT `+recipientColumns+` FROM employees
		WHERE `+recipientWhere+` AND service_user_id = $1`, serviceUserID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Recipient{}, false, nil
	}
	if err != nil {
		return Recipient{}, false, fmt.Errorf("store: treasury recipient: %w", err)
	}
	return r, true, nil
}
