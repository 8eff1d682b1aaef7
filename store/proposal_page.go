package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ProposalHead reads a proposal and its latest sign request (hasSign false
// when it has none) in one round trip: what the proposal page's poll needs
// to tell whether anything changed. ErrNotFound when there is no such
// proposal.
func (s *Store) ProposalHead(ctx context.Context, id string) (p Proposal, sr SignRequest, hasSign bool, err error) {
	b := &pgx.Batch{}
	found := false
	b.Queue(`SELECT `+proposalColumns+` FROM proposals WHERE id = $1`, id).QueryRow(func(row pgx.Row) error {
		var err error
		p, err = scanProposal(row)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	b.Queue(signRequestSelect+` WHERE sr.proposal_id = $1 ORDER BY sr.id DESC LIMIT 1`, id).QueryRow(func(row pgx.Row) error {
		var err error
		sr, err = scanSignRequest(row)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		hasSign = err == nil
		return err
	})
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return p, sr, false, fmt.Errorf("store: load proposal %s: %w", id, err)
	}
	if !found {
		return p, sr, false, fmt.Errorf("store: load proposal %s: %w", id, ErrNotFound)
	}
	return p, sr, hasSign, nil
}

// ProposalDetail is what the proposal page shows beside the proposal: the
// people it names, who approved through the app, its timeline, the action
// ledger's writes about it and its wallet's owner address.
type ProposalDetail struct {
	// Employees by serviceUserId, of the ids asked for that the mirror
	// knows.
	Employees map[string]Employee
	// ApprovalStaff is, per serviceUserId, the email of the staff member
	// who approved as that admin in the current round.
	ApprovalStaff map[string]string
	Events        []ProposalEvent
	// Actions are the newest 50 writes whose target is the proposal.
	Actions []Action
	// OwnerAddress is the wallet's registered owner, "" when the mirror
	// does not know the wallet.
	OwnerAddress string
}

// ProposalDetailOf reads a proposal page's detail in one round trip (on
// one connection of the pool, instead of one per read): userIDs are the
// serviceUserIds whose names the page shows.
func (s *Store) ProposalDetailOf(ctx context.Context, p Proposal, userIDs []string) (ProposalDetail, error) {
	d := ProposalDetail{Employees: map[string]Employee{}, ApprovalStaff: map[string]string{}}
	b := &pgx.Batch{}
	b.Queue(`SELECT `+employeeColumns+` FROM employees WHERE service_user_id = ANY($1)`, userIDs).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			e, err := scanEmployee(rows)
			if err != nil {
				return err
			}
			d.Employees[e.ServiceUserID] = e
		}
		return rows.Err()
	})
	b.Queue(approvalStaffSQL, p.ID).Query(func(rows pgx.Rows) error {
		var u, e string
		_, err := pgx.ForEachRow(rows, []any{&u, &e}, func() error { d.ApprovalStaff[u] = e; return nil })
		return err
	})
	b.Queue(proposalEventsSQL, p.ID).Query(func(rows pgx.Rows) error {
		var err error
		d.Events, err = pgx.CollectRows(rows, scanProposalEvent)
		return err
	})
	// actions_target_idx serves the target; a proposal has few writes.
	b.Queue(`SELECT `+actionColumns+` FROM actions WHERE target = $1 ORDER BY id DESC LIMIT 50`, "proposal:"+p.ID).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			a, err := scanAction(rows)
			if err != nil {
				return err
			}
			d.Actions = append(d.Actions, a)
		}
		return rows.Err()
	})
	b.Queue(`SELECT owner_address FROM wallets WHERE id = $1`, p.WalletID).QueryRow(func(row pgx.Row) error {
		if err := row.Scan(&d.OwnerAddress); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		return nil
	})
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return d, fmt.Errorf("store: proposal %s detail: %w", p.ID, err)
	}
	return d, nil
}
