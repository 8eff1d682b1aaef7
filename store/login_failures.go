package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// LoginLimit is one limit on failed attempts: at most Max under Key within
// the window. A Max of 0 counts the failures under Key without ever
// refusing an attempt (the caller may slow it instead).
type LoginLimit struct {
	Key string
	Max int
}

// LoginAttempt is an attempt counted by BeginLoginAttempt. Limited names the
// key that was at its limit, in which case nothing was counted and the
// password must not be checked. Failures are the failures counted under
// each limit's key within the window before this attempt, in the order the
// limits were given.
type LoginAttempt struct {
	ID       int64
	Limited  string
	Failures []int
}

// loginLockClass is the first half of the advisory locks that serialise
// attempts under one key (the two-key form does not share river's space).
const loginLockClass = 0x6c6f67 // "log"

// BeginLoginAttempt counts an attempt against every limit before its
// password is checked, as a failure until FinishLoginAttempt says
// otherwise. Attempts under the same key take their turn (an advisory lock
// per key, taken in key order so two attempts cannot deadlock), so of any
// number arriving at once no more than a limit's Max are let through. When
// a limit is reached, the first such limit (in the order given) is named in
// Limited and nothing is recorded. The window is measured by the database's
// clock, as the rows' times are.
func (s *Store) BeginLoginAttempt(ctx context.Context, window time.Duration, limits ...LoginLimit) (LoginAttempt, error) {
	keys := make([]string, 0, len(limits))
	for _, l := range limits {
		keys = append(keys, l.Key)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var a LoginAttempt
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, k := range keys {
			b.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, loginLockClass, k)
		}
		b.Queue(`
			SELECT key, count(*) FROM login_failures
			WHERE key = ANY($1) AND at > now() - $2 * interval '1 millisecond'
			GROUP BY key`, keys, window.Milliseconds())
		res := tx.SendBatch(ctx, b)
		for range keys {
			if _, err := res.Exec(); err != nil {
				res.Close()
				return fmt.Errorf("store: begin login attempt: lock: %w", err)
			}
		}
		counts := make(map[string]int, len(keys))
		rows, err := res.Query()
		if err == nil {
			var k string
			var n int
			_, err = pgx.ForEachRow(rows, []any{&k, &n}, func() error { counts[k] = n; return nil })
		}
		if cerr := res.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("store: begin login attempt: count: %w", err)
		}
		a.Failures = make([]int, len(limits))
		for i, l := range limits {
			a.Failures[i] = counts[l.Key]
		}
		for _, l := range limits {
			if l.Max > 0 && counts[l.Key] >= l.Max {
				a.Limited = l.Key
				return nil
			}
		}
		err = tx.QueryRow(ctx, `
			WITH attempt AS (SELECT nextval('login_attempt_seq') AS id),
			rows AS (INSERT INTO login_failures (key, attempt) SELECT k, attempt.id FROM unnest($1::text[]) k, attempt)
			SELECT id FROM attempt`, keys).Scan(&a.ID)
		if err != nil {
			return fmt.Errorf("store: begin login attempt: record: %w", err)
		}
		return nil
	})
	return a, err
}

// LoginOutcome is how a counted attempt ended.
type LoginOutcome int

const (
	// LoginFailed keeps the attempt's rows as failures.
	LoginFailed LoginOutcome = iota
	// LoginSucceeded takes the attempt's rows back and forgets the
	// failures under the keys given to FinishLoginAttempt.
	LoginSucceeded
	// LoginNotChecked takes the attempt's rows back: the password was
	// never checked (the server was too busy).
	LoginNotChecked
)

// FinishLoginAttempt records how an attempt ended, with its audit row (when
// e has an action) in the same transaction.
func (s *Store) FinishLoginAttempt(ctx context.Context, a LoginAttempt, outcome LoginOutcome, e AuditEntry, clear ...string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if outcome != LoginFailed {
			if _, err := tx.Exec(ctx, `DELETE FROM login_failures WHERE attempt = $1`, a.ID); err != nil {
				return fmt.Errorf("store: finish login attempt: %w", err)
			}
		}
		if outcome == LoginSucceeded && len(clear) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM login_failures WHERE key = ANY($1)`, clear); err != nil {
				return fmt.Errorf("store: clear login failures: %w", err)
			}
		}
		if e.Action == "" {
			return nil
		}
		return writeAudit(ctx, tx, e)
	})
}

// ClearLoginFailures forgets the failures counted under keys: an account
// whose owner has just set a new password through a one-time link signs
// in again at once.
func (s *Store) ClearLoginFailures(ctx context.Context, keys ...string) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM login_failures WHERE key = ANY($1)`, keys); err != nil {
		return fmt.Errorf("store: clear login failures: %w", err)
	}
	return nil
}

// PruneLoginFailures deletes failures older than the given time. It returns
// how many rows went.
func (s *Store) PruneLoginFailures(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM login_failures WHERE at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("store: prune login failures: %w", err)
	}
	return tag.RowsAffected(), nil
}
