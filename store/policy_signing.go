package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// ProposalPolicy is the money controls' check of one proposal, as its page
// shows it and as the signing link needs it.
type ProposalPolicy struct {
	WalletID string
	Currency string // the wallet's fiat code
	Amount   decimal.Decimal
	// Limits is the wallet's policy in force (HasLimits false: none);
	// Used what left the wallet, this proposal included.
	Limits    WalletLimits
	HasLimits bool
	Used      Velocity
	// Balance is the wallet's last read balance (invalid: never read).
	Balance decimal.NullDecimal
	// Destination: the spend's destination key ("" when the proposal was
	// not made in the app); Trusted the book's entry when there is one.
	Destination string
	Trusted     *Destination
	// StepUpNeeded approvals in the app by distinct staff; StepUpBy who
	// gave theirs.
	StepUpNeeded int
	StepUpBy     []string
	// Refusal says why no signing link may be issued now (nil: one may).
	Refusal *PolicyRefusal
}

// ProposalPolicyCheck checks a proposal before its signing link is issued:
// its destination is still trusted, the wallet's limits in force now still
// hold with the other requests, and its step-up approvals are there.
func (s *Store) ProposalPolicyCheck(ctx context.Context, proposalID string, now time.Time) (ProposalPolicy, error) {
	var out ProposalPolicy
	var key string
	err := s.db.QueryRow(ctx, `
		SELECT p.wallet_id, COALESCE(NULLIF(w.display_currency, ''), p.currency), p.amount::text, w.balance::text,
			COALESCE(s.action_key, ''), COALESCE(s.destination, '')
		FROM proposals p
		LEFT JOIN wallets w ON w.id = p.wallet_id
		LEFT JOIN actions a ON a.target = 'proposal:' || p.id AND a.kind = 'proposal.create'
		LEFT JOIN policy_spends s ON s.action_key = a.key
		WHERE p.id = $1`, proposalID).Scan(&out.WalletID, &out.Currency, &out.Amount, &out.Balance, &key, &out.Destination)
	if err != nil {
		return out, fmt.Errorf("store: policy of proposal %s: %w", proposalID, notFound(err))
	}
	l, _, ok, err := s.LimitsInForce(ctx, out.WalletID, now)
	if err != nil {
		return out, err
	}
	out.Limits, out.HasLimits = l, ok
	if out.Used, err = s.VelocityUsed(ctx, out.WalletID, now); err != nil {
		return out, err
	}
	if outsideCompany(out.Destination) {
		d, err := s.DestinationByKey(ctx, out.Destination)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return out, err
		default:
			out.Trusted = &d
		}
	}
	// Named approvers: only their approvals count.
	rows, err := s.db.Query(ctx, `SELECT st.name FROM step_up_approvals a JOIN staff st ON st.id = a.staff_id
		WHERE a.proposal_id = $1 AND (COALESCE(cardinality($2::bigint[]), 0) = 0 OR a.staff_id = ANY($2)) ORDER BY a.at`, proposalID, l.StepUpBy)
	if err != nil {
		return out, fmt.Errorf("store: step-up approvals of %s: %w", proposalID, err)
	}
	if out.StepUpBy, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return out, fmt.Errorf("store: step-up approvals of %s: %w", proposalID, err)
	}
	if ok && l.StepUpAbove.Valid && out.Amount.GreaterThan(l.StepUpAbove.Decimal) {
		out.StepUpNeeded = l.StepUpApprovals
	}
	out.Refusal, err = s.signingRefusal(ctx, out, key, now)
	return out, err
}

// signingRefusal is why no signing link may be issued for the proposal
// now, nil when one may.
func (s *Store) signingRefusal(ctx context.Context, p ProposalPolicy, key string, now time.Time) (*PolicyRefusal, error) {
	if outsideCompany(p.Destination) {
		switch {
		case p.Trusted == nil:
			return &PolicyRefusal{Rule: "Trusted destinations", Message: "The destination is no longer in the address book.", Who: whoChangesBook, OnDestination: true}, nil
		case !p.Trusted.Usable(now):
			return &PolicyRefusal{Rule: "Cooling-off period", Message: fmt.Sprintf("%q is not usable yet.", p.Trusted.Name), Who: whoChangesBook, OnDestination: true}, nil
		}
	}
	if len(p.StepUpBy) < p.StepUpNeeded {
		return &PolicyRefusal{Rule: "Extra approvals", Message: fmt.Sprintf("Above %s %s, %d people approve in the app before the owner signs; %d have.",
			p.Limits.StepUpAbove.Decimal.StringFixed(2), p.Currency, p.StepUpNeeded, len(p.StepUpBy)),
			Who: "Other finance approvers or owners approve it on this page."}, nil
	}
	if !p.HasLimits || key == "" {
		return nil, nil
	}
	others, err := s.velocityExcept(ctx, p.WalletID, now, key)
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		rule  string
		limit decimal.NullDecimal
		used  decimal.Decimal
	}{{"Daily limit", p.Limits.Day, others.Day}, {"Weekly limit", p.Limits.Week, others.Week}} {
		if c.limit.Valid && c.used.Add(p.Amount).GreaterThan(c.limit.Decimal) {
			return &PolicyRefusal{Rule: c.rule, Message: fmt.Sprintf("With the other requests, this one no longer fits the limit of %s %s in force now.",
				c.limit.Decimal.StringFixed(2), p.Currency), Who: whoChangesLimits}, nil
		}
	}
	return nil, nil
}

// ErrNotNamed is returned when a step-up approval comes from someone the
// wallet's policy does not name.
var ErrNotNamed = errors.New("store: not one of the named approvers")

// StepUpApprove records one person's approval in the app of a proposal
// above a step-up tier, with its audit row. The proposal's creator gets
// ErrSamePerson; a second approval by the same person ErrAlreadyDecided.
func (s *Store) StepUpApprove(ctx context.Context, proposalID string, by Actor, now time.Time) error {
	return s.Tx(ctx, func(tx *Store) error {
		var creator int64
		if err := tx.db.QueryRow(ctx, `SELECT COALESCE(created_by_staff_id, 0) FROM proposals WHERE id = $1`, proposalID).Scan(&creator); err != nil {
			return fmt.Errorf("store: step-up approve %s: %w", proposalID, notFound(err))
		}
		if creator == by.StaffID {
			return ErrSamePerson
		}
		var walletID string
		if err := tx.db.QueryRow(ctx, `SELECT wallet_id FROM proposals WHERE id = $1`, proposalID).Scan(&walletID); err != nil {
			return fmt.Errorf("store: step-up approve %s: %w", proposalID, err)
		}
		l, _, ok, err := tx.LimitsInForce(ctx, walletID, now)
		if err != nil {
			return err
		}
		if ok && len(l.StepUpBy) > 0 && !slices.Contains(l.StepUpBy, by.StaffID) {
			return ErrNotNamed
		}
		tag, err := tx.db.Exec(ctx, `INSERT INTO step_up_approvals (proposal_id, staff_id, at) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, proposalID, by.StaffID, now)
		if err != nil {
			return fmt.Errorf("store: step-up approve %s: %w", proposalID, err)
		}
		if tag.RowsAffected() == 0 {
			return ErrAlreadyDecided
		}
		var n int
		if err := tx.db.QueryRow(ctx, `SELECT count(*) FROM step_up_approvals WHERE proposal_id = $1`, proposalID).Scan(&n); err != nil {
			return fmt.Errorf("store: step-up approve %s: %w", proposalID, err)
		}
		return writeAudit(ctx, tx.db, AuditEntry{Actor: by, Action: "proposal.step_up_approve", Target: "proposal:" + proposalID,
			Outcome: OutcomeOK, Detail: "approved in the app above the spending policy's tier (" + strconv.Itoa(n) + " so far)"})
	})
}

// outsideCompany reports whether a spend's destination is a book entry (not
// an employee, and known).
func outsideCompany(destination string) bool {
	return destination != "" && !strings.HasPrefix(destination, "employee:") && !strings.HasPrefix(destination, "rail:")
}
