package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Invite states of an employee, in the order an employee moves through them.
const (
	InviteInvited        = "invited"
	InviteLinked         = "linked"
	InviteKYCSubmitted   = "kyc_submitted"
	InviteActionRequired = "action_required"
	InviteDeleted        = "deleted"
)

// Kinds of user the partner keeps.
const (
	KindEmployee = "employee"
	KindTreasury = "treasury"
)

// Employee is a person (or the partner's treasury user) the partner keeps
// in its mirror.
type Employee struct {
	ID             int64
	Kind           string
	ServiceUserID  string // "" while only invited
	Email          string
	FirstName      string
	LastName       string
	Country        string // ISO 3166-1 alpha-3
	InviteState    string
	LinkedAt       *time.Time
	KYCSubmitted   bool
	ActionRequired string
	DeletedAt      *time.Time
	LastActivityAt time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Name is the employee's full name, or the email when no name is known.
func (e Employee) Name() string {
	n := strings.TrimSpace(e.FirstName + " " + e.LastName)
	if n == "" {
		return e.Email
	}
	return n
}

const employeeColumns = `id, kind, coalesce(service_user_id, ''), email, first_name, last_name, country, invite_state,
	linked_at, kyc_submitted, action_required, deleted_at, last_activity_at, created_at, updated_at`

func scanEmployee(row pgx.Row) (Employee, error) {
	var e Employee
	err := row.Scan(&e.ID, &e.Kind, &e.ServiceUserID, &e.Email, &e.FirstName, &e.LastName, &e.Country, &e.InviteState,
		&e.LinkedAt, &e.KYCSubmitted, &e.ActionRequired, &e.DeletedAt, &e.LastActivityAt, &e.CreatedAt, &e.UpdatedAt)
	return e, err
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// UpsertEmployee inserts an employee or, when one with the same email
// (case-insensitive) exists, updates what the mirror learned: names, country,
// serviceUserId (never cleared), invite state, linking and KYC flags.
func (s *Store) UpsertEmployee(ctx context.Context, e Employee) (Employee, error) {
	if e.Kind == "" {
		e.Kind = KindEmployee
	}
	if e.InviteState == "" {
		e.InviteState = InviteInvited
	}
	row := s.db.QueryRow(ctx, `
		INSERT INTO employees (kind, service_user_id, email, first_name, last_name, country, invite_state,
			linked_at, kyc_submitted, action_required)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT ((lower(email))) DO UPDATE SET
			kind = EXCLUDED.kind,
			service_user_id = coalesce(EXCLUDED.service_user_id, employees.service_user_id),
			first_name = EXCLUDED.first_name,
			last_name = EXCLUDED.last_name,
			country = EXCLUDED.country,
			invite_state = EXCLUDED.invite_state,
			linked_at = coalesce(EXCLUDED.linked_at, employees.linked_at),
			kyc_submitted = EXCLUDED.kyc_submitted OR employees.kyc_submitted,
			action_required = EXCLUDED.action_required,
			updated_at = now()
		RETURNING `+employeeColumns,
		e.Kind, nullIfEmpty(e.ServiceUserID), strings.TrimSpace(e.Email), e.FirstName, e.LastName, e.Country, e.InviteState,
		e.LinkedAt, e.KYCSubmitted, e.ActionRequired)
	out, err := scanEmployee(row)
	if isUniqueViolation(err) {
		return Employee{}, fmt.Errorf("store: upsert employee %s: serviceUserId already belongs to another employee: %w", e.Email, ErrConflict)
	}
	if err != nil {
		return Employee{}, fmt.Errorf("store: upsert employee %s: %w", e.Email, err)
	}
	return out, nil
}

// EmployeeByID loads one employee.
func (s *Store) EmployeeByID(ctx context.Context, id int64) (Employee, error) {
	e, err := scanEmployee(s.db.QueryRow(ctx, `SELECT `+employeeColumns+` FROM employees WHERE id = $1`, id))
	if err != nil {
		return Employee{}, fmt.Errorf("store: load employee %d: %w", id, notFound(err))
	}
	return e, nil
}

// EmployeeByServiceUserID loads the employee the API knows by that id.
func (s *Store) EmployeeByServiceUserID(ctx context.Context, serviceUserID string) (Employee, error) {
	e, err := scanEmployee(s.db.QueryRow(ctx, `SELECT `+employeeColumns+` FROM employees WHERE service_user_id = $1`, serviceUserID))
	if err != nil {
		return Employee{}, fmt.Errorf("store: load employee by service user id: %w", notFound(err))
	}
	return e, nil
}

// EmployeeByEmail loads an employee by email, ignoring case.
func (s *Store) EmployeeByEmail(ctx context.Context, email string) (Employee, error) {
	e, err := scanEmployee(s.db.QueryRow(ctx, `SELECT `+employeeColumns+` FROM employees WHERE lower(email) = lower($1)`, strings.TrimSpace(email)))
	if err != nil {
		return Employee{}, fmt.Errorf("store: load employee by email: %w", notFound(err))
	}
	return e, nil
}

// EmployeesByServiceUserIDs loads the employees with those ids, keyed by id
// (for showing names instead of ids in lists).
func (s *Store) EmployeesByServiceUserIDs(ctx context.Context, ids []string) (map[string]Employee, error) {
	rows, err := s.db.Query(ctx, `SELECT `+employeeColumns+` FROM employees WHERE service_user_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: load employees by ids: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Employee, error) { return scanEmployee(r) })
	if err != nil {
		return nil, fmt.Errorf("store: load employees by ids: %w", err)
	}
	m := make(map[string]Employee, len(list))
	for _, e := range list {
		m[e.ServiceUserID] = e
	}
	return m, nil
}

// TreasuryUsers returns the partner's own users (kind treasury).
func (s *Store) TreasuryUsers(ctx context.Context) ([]Employee, error) {
	rows, err := s.db.Query(ctx, `SELECT `+employeeColumns+` FROM employees WHERE kind = 'treasury' ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: treasury users: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Employee, error) { return scanEmployee(r) })
	if err != nil {
		return nil, fmt.Errorf("store: treasury users: %w", err)
	}
	return list, nil
}

// ErrNoTreasury: the mirror holds no treasury user known upstream.
var ErrNoTreasury = errors.New("store: the partner has no treasury user in the mirror")

// treasuryUserIDSQL finds the treasury user Treasury reads (no
// parameter: planned once per connection).
const treasuryUserIDSQL = `SELECT id FROM employees WHERE kind = 'treasury' AND coalesce(service_user_id, '') <> '' ORDER BY id LIMIT 1`

// queueTreasuryWalletList reads that user's wallets by currency into ws.
func queueTreasuryWalletList(b *pgx.Batch, ws *[]Wallet) {
	b.Queue(`SELECT ` + walletColumns + ` FROM wallets WHERE employee_id = (` + treasuryUserIDSQL + `) ORDER BY currency`).Query(func(rows pgx.Rows) error {
		list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Wallet, error) { return scanWallet(r) })
		*ws = list
		return err
	})
}

// Treasury is the partner's treasury: its first treasury user known
// upstream, and that user's wallets by currency. ErrNoTreasury when there is
// none. The user and the wallets are two statements of one pgx batch: one
// round trip (the treasury, payroll and start pages read it on every view).
func (s *Store) Treasury(ctx context.Context) (Employee, []Wallet, error) {
	u, ws, _, err := s.treasury(ctx, false)
	return u, ws, err
}

// TreasuryWithOutflows is Treasury with each wallet's open outflows
// (OpenOutflows), read in the same round trip.
func (s *Store) TreasuryWithOutflows(ctx context.Context) (Employee, []Wallet, map[string]Outflow, error) {
	return s.treasury(ctx, true)
}

func (s *Store) treasury(ctx context.Context, withOutflows bool) (Employee, []Wallet, map[string]Outflow, error) {
	var u Employee
	found := false
	var ws []Wallet
	var out map[string]Outflow
	b := &pgx.Batch{}
	b.Queue(`SELECT ` + employeeColumns + ` FROM employees WHERE id = (` + treasuryUserIDSQL + `)`).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			e, err := scanEmployee(rows)
			if err != nil {
				return err
			}
			u, found = e, true
		}
		return rows.Err()
	})
	queueTreasuryWalletList(b, &ws)
	if withOutflows {
		queueOpenOutflows(b, &out)
	}
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return Employee{}, nil, nil, fmt.Errorf("store: treasury: %w", err)
	}
	if !found {
		return Employee{}, nil, nil, ErrNoTreasury
	}
	return u, ws, out, nil
}

// CountEmployees returns how many employees (not treasury users) exist.
func (s *Store) CountEmployees(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM employees WHERE kind = 'employee'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count employees: %w", err)
	}
	return n, nil
}

// Wallet is a smart wallet as last read from the API.
type Wallet struct {
	ID              string // smartWalletId
	EmployeeID      int64
	Currency        string // stablecoin code
	DisplayCurrency string // fiat code
	Address         string
	Chain           string
	Status          string
	OwnerAddress    string
	Legacy          bool
	Balance         decimal.NullDecimal
	BalanceReadAt   *time.Time
	UpdatedAt       time.Time
	// BalanceStaleSince is when value moved in or out of the wallet after
	// Balance was read (a proposal completed); nil when nothing is known
	// to have changed since.
	BalanceStaleSince *time.Time
}

const walletColumns = `id, employee_id, currency, display_currency, address, chain, status, owner_address, legacy,
	balance::text, balance_read_at, updated_at, balance_stale_since`

func scanWallet(row pgx.Row) (Wallet, error) {
	var w Wallet
	var balance *string
	err := row.Scan(&w.ID, &w.EmployeeID, &w.Currency, &w.DisplayCurrency, &w.Address, &w.Chain, &w.Status,
		&w.OwnerAddress, &w.Legacy, &balance, &w.BalanceReadAt, &w.UpdatedAt, &w.BalanceStaleSince)
	if err != nil {
		return w, err
	}
	if balance != nil {
		d, err := decimal.NewFromString(*balance)
		if err != nil {
			return w, fmt.Errorf("balance %q: %w", *balance, err)
		}
		w.Balance = decimal.NullDecimal{Decimal: d, Valid: true}
	}
	return w, nil
}

// UpsertWallet records a wallet as read from the API, with the time of the
// read for its balance.
func (s *Store) UpsertWallet(ctx context.Context, w Wallet) error {
	var balance *string
	if w.Balance.Valid {
		b := w.Balance.Decimal.String()
		balance = &b
	}
	_, err := s.db.Exec(ctx, `
		INSERT INTO wallets (id, employee_id, currency, display_currency, address, chain, status, owner_address, legacy, balance, balance_read_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::numeric, $11)
		ON CONFLICT (id) DO UPDATE SET
			currency = EXCLUDED.currency, display_currency = EXCLUDED.display_currency,
			address = EXCLUDED.address, chain = EXCLUDED.chain, status = EXCLUDED.status,
			owner_address = EXCLUDED.owner_address, legacy = EXCLUDED.legacy,
			balance = coalesce(EXCLUDED.balance, wallets.balance),
			balance_read_at = coalesce(EXCLUDED.balance_read_at, wallets.balance_read_at),
			updated_at = now()`,
		w.ID, w.EmployeeID, w.Currency, w.DisplayCurrency, w.Address, w.Chain, w.Status, w.OwnerAddress, w.Legacy, balance, w.BalanceReadAt)
	if err != nil {
		return fmt.Errorf("store: upsert wallet %s: %w", w.ID, err)
	}
	return nil
}

// WalletByID loads one wallet.
func (s *Store) WalletByID(ctx context.Context, id string) (Wallet, error) {
	w, err := scanWallet(s.db.QueryRow(ctx, `SELECT `+walletColumns+` FROM wallets WHERE id = $1`, id))
	if err != nil {
		return Wallet{}, fmt.Errorf("store: load wallet %s: %w", id, notFound(err))
	}
	return w, nil
}

// WalletsByEmployee lists an employee's wallets by currency.
func (s *Store) WalletsByEmployee(ctx context.Context, employeeID int64) ([]Wallet, error) {
	return s.queryWallets(ctx, `SELECT `+walletColumns+` FROM wallets WHERE employee_id = $1 ORDER BY currency`, employeeID)
}

// AllWallets lists every wallet the partner has, for jobs that poll them.
func (s *Store) AllWallets(ctx context.Context) ([]Wallet, error) {
	return s.queryWallets(ctx, `SELECT `+walletColumns+` FROM wallets ORDER BY id`)
}

func (s *Store) queryWallets(ctx context.Context, sql string, args ...any) ([]Wallet, error) {
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list wallets: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Wallet, error) { return scanWallet(r) })
	if err != nil {
		return nil, fmt.Errorf("store: list wallets: %w", err)
	}
	return list, nil
}
