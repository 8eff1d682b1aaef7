package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// DestinationKind is what sort of place a trusted destination is.
type DestinationKind string

// Destination kinds: the rails money leaves the treasury by.
const (
	DestNigerianBank DestinationKind = "ng_bank" // NUBAN account at a Nigerian bank
	DestBankAccount  DestinationKind = "bank"    // a payout rail's bank account: its bank code is the rail's bank id
	DestIBAN         DestinationKind = "iban"
	DestCLABE        DestinationKind = "clabe"
	DestCrypto       DestinationKind = "crypto" // an EVM address
)

// DestinationKinds lists the kinds in the order forms offer them.
func DestinationKinds() []DestinationKind {
	return []DestinationKind{DestNigerianBank, DestBankAccount, DestIBAN, DestCLABE, DestCrypto}
}

// Label is the kind in people's words.
func (k DestinationKind) Label() string {
	switch k {
	case DestNigerianBank:
		return "Nigerian bank account"
	case DestBankAccount:
		return "Payout bank account"
	case DestIBAN:
		return "IBAN"
	case DestCLABE:
		return "CLABE"
	case DestCrypto:
		return "Crypto address"
	}
	return string(k)
}

// Valid reports whether k is one of the kinds.
func (k DestinationKind) Valid() bool {
	for _, x := range DestinationKinds() {
		if k == x {
			return true
		}
	}
	return false
}

// Destination is one entry of the address book.
type Destination struct {
	ID       int64
	Kind     DestinationKind
	Value    string
	BankCode string
	Name     string
	AddedBy  StaffRef
	AddedAt  time.Time
	// ConfirmedBy is zero until another person confirms it.
	ConfirmedBy StaffRef
	ConfirmedAt *time.Time
	UsableFrom  *time.Time
	// RemovalAskedBy is zero until someone asks to take it out of the
	// book; another person confirms that.
	RemovalAskedBy StaffRef
}

// Masked is the entry's value as the audit log and the queue name it: a
// bank account, IBAN or CLABE by its last four characters (the book itself
// keeps it whole: the rails need it), an address whole (it is public).
func (d Destination) Masked() string { return maskValue(d.Kind, d.Value) }

func maskValue(kind DestinationKind, value string) string {
	if kind == DestCrypto || len(value) <= 4 {
		return value
	}
	return "…" + value[len(value)-4:]
}

// StaffRef names a staff member on a record.
type StaffRef struct {
	ID   int64
	Name string
}

// Usable reports whether money may go to the destination at now.
func (d Destination) Usable(now time.Time) bool {
	return d.UsableFrom != nil && !now.Before(*d.UsableFrom)
}

// DestinationKey is how a spend names its destination: kind, bank code and
// value.
func DestinationKey(kind DestinationKind, bankCode, value string) string {
	return string(kind) + ":" + bankCode + ":" + value
}

// EmployeeDestination is a spend's destination when it goes to an employee
// of the company: trusted without the book.
func EmployeeDestination(serviceUserID string) string { return "employee:" + serviceUserID }

// RailDestination is a spend's destination on a rail whose request names
// no payee: the Mexican offramp pays the bank account registered with the
// provider at KYC (spec: "MXN is paid to the registered bank account"), and
// a cash order is paid out in cash. The book has nothing to check there;
// the wallet's limits still hold.
func RailDestination(rail string) string { return "rail:" + rail }

// NewDestination is an entry about to be added.
type NewDestination struct {
	Kind     DestinationKind
	Value    string
	BankCode string
	Name     string
	By       Actor
	At       time.Time
}

// ErrSamePerson is returned when the person who proposed something tries to
// confirm or approve it themselves.
var ErrSamePerson = errors.New("store: the same person cannot propose and confirm")

// ErrAlreadyDecided is returned when a confirmation or approval comes for
// something another person already decided.
var ErrAlreadyDecided = errors.New("store: already decided")

const destinationColumns = `d.id, d.kind, d.value, d.bank_code, d.name, d.added_by, COALESCE(a.name, ''), d.added_at,
	COALESCE(d.confirmed_by, 0), COALESCE(c.name, ''), d.confirmed_at, d.usable_from, COALESCE(d.removal_asked_by, 0), COALESCE(r.name, '')`

const destinationFrom = ` FROM trusted_destinations d JOIN staff a ON a.id = d.added_by LEFT JOIN staff c ON c.id = d.confirmed_by
	LEFT JOIN staff r ON r.id = d.removal_asked_by `

func scanDestination(row pgx.Row) (Destination, error) {
	var d Destination
	err := row.Scan(&d.ID, &d.Kind, &d.Value, &d.BankCode, &d.Name, &d.AddedBy.ID, &d.AddedBy.Name, &d.AddedAt,
		&d.ConfirmedBy.ID, &d.ConfirmedBy.Name, &d.ConfirmedAt, &d.UsableFrom, &d.RemovalAskedBy.ID, &d.RemovalAskedBy.Name)
	return d, err
}

// AddDestination adds an entry, waiting for another person's confirmation,
// with its audit row. An entry with the same kind, bank code and value
// answers ErrConflict.
func (s *Store) AddDestination(ctx context.Context, n NewDestination) (Destination, error) {
	var out Destination
	err := s.Tx(ctx, func(tx *Store) error {
		var id int64
		err := tx.db.QueryRow(ctx, `INSERT INTO trusted_destinations (kind, value, bank_code, name, added_by, added_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, n.Kind, n.Value, n.BankCode, n.Name, n.By.StaffID, n.At).Scan(&id)
		if isUniqueViolation(err) {
			return ErrConflict
		}
		if err != nil {
			return fmt.Errorf("store: add destination: %w", err)
		}
		if out, err = tx.Destination(ctx, id); err != nil {
			return err
		}
		return writeAudit(ctx, tx.db, AuditEntry{Actor: n.By, Action: "destination.add", Target: destinationTarget(id),
			Outcome: OutcomeOK, Detail: fmt.Sprintf("%s %q (%s) added; waits for another person to confirm it", n.Kind.Label(), n.Name, maskValue(n.Kind, n.Value))})
	})
	return out, err
}

func destinationTarget(id int64) string { return "destination:" + strconv.FormatInt(id, 10) }

// Destination returns one entry of the book (removed ones are not found).
func (s *Store) Destination(ctx context.Context, id int64) (Destination, error) {
	d, err := scanDestination(s.db.QueryRow(ctx, `SELECT `+destinationColumns+destinationFrom+
		`WHERE d.id = $1 AND d.removed_at IS NULL`, id))
	if err != nil {
		return Destination{}, fmt.Errorf("store: destination %d: %w", id, notFound(err))
	}
	return d, nil
}

// Destinations returns the book, by name.
func (s *Store) Destinations(ctx context.Context) ([]Destination, error) {
	rows, err := s.db.Query(ctx, `SELECT `+destinationColumns+destinationFrom+
		`WHERE d.removed_at IS NULL ORDER BY lower(d.name), d.id`)
	if err != nil {
		return nil, fmt.Errorf("store: destinations: %w", err)
	}
	defer rows.Close()
	var out []Destination
	for rows.Next() {
		d, err := scanDestination(rows)
		if err != nil {
			return nil, fmt.Errorf("store: destinations: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// DestinationByKey returns the entry a spend's destination key names.
func (s *Store) DestinationByKey(ctx context.Context, key string) (Destination, error) {
	d, err := scanDestination(s.db.QueryRow(ctx, `SELECT `+destinationColumns+destinationFrom+
		`WHERE d.kind || ':' || d.bank_code || ':' || d.value = $1 AND d.removed_at IS NULL`, key))
	if err != nil {
		return Destination{}, fmt.Errorf("store: destination %q: %w", key, notFound(err))
	}
	return d, nil
}

// ConfirmDestination records another person's confirmation: the entry is
// usable after coolingOff from now. The one who added it gets
// ErrSamePerson; a second confirmation ErrAlreadyDecided.
func (s *Store) ConfirmDestination(ctx context.Context, id int64, by Actor, now time.Time, coolingOff time.Duration) (Destination, error) {
	var out Destination
	err := s.Tx(ctx, func(tx *Store) error {
		var addedBy int64
		var confirmed bool
		err := tx.db.QueryRow(ctx, `SELECT added_by, confirmed_by IS NOT NULL FROM trusted_destinations
			WHERE id = $1 AND removed_at IS NULL FOR UPDATE`, id).Scan(&addedBy, &confirmed)
		if err != nil {
			return fmt.Errorf("store: confirm destination %d: %w", id, notFound(err))
		}
		switch {
		case confirmed:
			return ErrAlreadyDecided
		case addedBy == by.StaffID:
			return ErrSamePerson
		}
		usable := now.Add(coolingOff)
		if _, err := tx.db.Exec(ctx, `UPDATE trusted_destinations SET confirmed_by = $2, confirmed_at = $3, usable_from = $4
			WHERE id = $1`, id, by.StaffID, now, usable); err != nil {
			return fmt.Errorf("store: confirm destination %d: %w", id, err)
		}
		if out, err = tx.Destination(ctx, id); err != nil {
			return err
		}
		return writeAudit(ctx, tx.db, AuditEntry{Actor: by, Action: "destination.confirm", Target: destinationTarget(id),
			Outcome: OutcomeOK, Detail: fmt.Sprintf("%s %q (%s) confirmed; usable after a cooling-off of %s", out.Kind.Label(), out.Name, out.Masked(), coolingOff)})
	})
	return out, err
}

// RemoveDestination takes an entry out of the book, or asks to. An entry
// nobody confirmed yet (never usable) is withdrawn at once; a confirmed
// one is only asked for (removed false), and another person's second call
// removes it. The one who asked gets ErrSamePerson on a second call. Each
// step has its audit row.
func (s *Store) RemoveDestination(ctx context.Context, id int64, by Actor, now time.Time) (removed bool, err error) {
	err = s.Tx(ctx, func(tx *Store) error {
		var lock int64
		if err := tx.db.QueryRow(ctx, `SELECT id FROM trusted_destinations WHERE id = $1 AND removed_at IS NULL FOR UPDATE`, id).Scan(&lock); err != nil {
			return fmt.Errorf("store: remove destination %d: %w", id, notFound(err))
		}
		d, err := tx.Destination(ctx, id)
		if err != nil {
			return err
		}
		what := fmt.Sprintf("%s %q (%s)", d.Kind.Label(), d.Name, d.Masked())
		switch {
		case d.ConfirmedAt != nil && d.RemovalAskedBy.ID == 0:
			if _, err := tx.db.Exec(ctx, `UPDATE trusted_destinations SET removal_asked_by = $2, removal_asked_at = $3 WHERE id = $1`,
				id, by.StaffID, now); err != nil {
				return fmt.Errorf("store: ask to remove destination %d: %w", id, err)
			}
			return writeAudit(ctx, tx.db, AuditEntry{Actor: by, Action: "destination.remove_ask", Target: destinationTarget(id),
				Outcome: OutcomeOK, Detail: what + ": removal asked; it stays usable until another person confirms the removal"})
		case d.ConfirmedAt != nil && d.RemovalAskedBy.ID == by.StaffID:
			return ErrSamePerson
		}
		detail := what + " withdrawn from the book before anyone confirmed it"
		if d.ConfirmedAt != nil {
			detail = what + " removed from the book, as " + d.RemovalAskedBy.Name + " asked"
		}
		if _, err := tx.db.Exec(ctx, `UPDATE trusted_destinations SET removed_by = $2, removed_at = $3 WHERE id = $1`,
			id, by.StaffID, now); err != nil {
			return fmt.Errorf("store: remove destination %d: %w", id, err)
		}
		removed = true
		return writeAudit(ctx, tx.db, AuditEntry{Actor: by, Action: "destination.remove", Target: destinationTarget(id),
			Outcome: OutcomeOK, Detail: detail})
	})
	return removed, err
}
