package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ApproverLink returns the serviceUserId of the wallet admin a staff member
// acts as when approving ("" when not linked).
func (s *Store) ApproverLink(ctx context.Context, staffID int64) (string, error) {
	var id string
	if err := s.db.QueryRow(ctx, `SELECT service_user_id FROM staff WHERE id = $1`, staffID).Scan(&id); err != nil {
		return "", fmt.Errorf("store: approver link of staff %d: %w", staffID, notFound(err))
	}
	return id, nil
}

// ApproverLinks maps staff id to linked serviceUserId for every linked staff
// member.
func (s *Store) ApproverLinks(ctx context.Context) (map[int64]string, error) {
	rows, err := s.db.Query(ctx, `SELECT id, service_user_id FROM staff WHERE service_user_id <> ''`)
	if err != nil {
		return nil, fmt.Errorf("store: approver links: %w", err)
	}
	defer rows.Close()
	m := map[int64]string{}
	for rows.Next() {
		var id int64
		var u string
		if err := rows.Scan(&id, &u); err != nil {
			return nil, fmt.Errorf("store: approver links: %w", err)
		}
		m[id] = u
	}
	return m, rows.Err()
}

// SetApproverLink links a staff member to a wallet admin's serviceUserId
// ("" unlinks), with its audit row.
func (s *Store) SetApproverLink(ctx context.Context, staffID int64, serviceUserID string, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE staff SET service_user_id = $2, updated_at = now() WHERE id = $1`, staffID, strings.TrimSpace(serviceUserID))
		if err != nil {
			return fmt.Errorf("store: set approver link: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("store: set approver link of staff %d: %w", staffID, ErrNotFound)
		}
		detail := "acts as wallet admin " + serviceUserID
		if serviceUserID == "" {
			detail = "unlinked from any wallet admin"
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "approver.link", Target: fmt.Sprintf("staff:%d", staffID),
			Outcome: OutcomeOK, Detail: detail})
	})
}

// Approval is an approval the API recorded: by a staff member acting as a
// wallet admin, in a round of the proposal's workflow.
type Approval struct {
	ProposalID string
	Round      int
	// ServiceUserID is the wallet admin the approval was recorded against
	// ("partner" when the partner itself approved).
	ServiceUserID string
	By            Actor
	// Again: a FAILED proposal approved again, which restarts its workflow.
	Again bool
}

// ApprovalDetail describes an approval for the timeline and the audit log.
func ApprovalDetail(a Approval, after Proposal) string {
	return fmt.Sprintf("as wallet admin %s; %d of %d approvals; status %s", a.ServiceUserID,
		len(after.Approvals), after.RequiredApprovals, after.Status)
}

// RecordApproval records an approval the API accepted: the proposal as the
// API returned it, who approved in this round (for "approved by"), the
// round, and the timeline entry. It writes no audit row: it runs in the
// transaction that finishes the approve action, which writes it.
func (s *Store) RecordApproval(ctx context.Context, a Approval, after Proposal) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		kind := EventApproved
		if a.Again {
			kind = EventApproveAgain
		}
		// The approval comes before the state change it causes.
		if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: a.ProposalID, Kind: kind, StaffID: a.By.StaffID,
			Actor: a.By.Email, Detail: ApprovalDetail(a, after)}); err != nil {
			return err
		}
		if _, err := upsertProposalTx(ctx, tx, after); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE proposals SET round = greatest(round, $2) WHERE id = $1`, a.ProposalID, a.Round); err != nil {
			return fmt.Errorf("store: proposal round: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO proposal_approvals (proposal_id, round, service_user_id, staff_id, state)
			VALUES ($1, $2, $3, $4, 'approved')
			ON CONFLICT (proposal_id, round, service_user_id) DO UPDATE SET staff_id = EXCLUDED.staff_id, state = 'approved'`,
			a.ProposalID, a.Round, a.ServiceUserID, a.By.StaffID); err != nil {
			return fmt.Errorf("store: record approval of %s: %w", a.ProposalID, err)
		}
		return nil
	})
}

// ApprovedByStaff reports whether the staff member has an approval of the
// proposal recorded in its current round, as whichever wallet admin: two
// approvals are two people, whatever admins they act as.
func (s *Store) ApprovedByStaff(ctx context.Context, proposalID string, staffID int64) (bool, error) {
	var ok bool
	err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM proposal_approvals a JOIN proposals p ON p.id = a.proposal_id AND p.round = a.round
		WHERE a.proposal_id = $1 AND a.staff_id = $2 AND a.state = 'approved')`, proposalID, staffID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("store: approved by staff: %w", err)
	}
	return ok, nil
}

// approvalStaffSQL lists who approved proposal $1 in its current round: the
// admin's serviceUserId and the staff member's email.
const approvalStaffSQL = `SELECT a.service_user_id, st.email FROM proposal_approvals a JOIN proposals p ON p.id = a.proposal_id AND p.round = a.round
	JOIN staff st ON st.id = a.staff_id WHERE a.proposal_id = $1 AND a.state = 'approved'`

// ApprovalStaff returns, per serviceUserId, the email of the staff member who
// approved in the current round through the app (for the timeline and
// "x of n").
func (s *Store) ApprovalStaff(ctx context.Context, proposalID string) (map[string]string, error) {
	rows, err := s.db.Query(ctx, approvalStaffSQL, proposalID)
	if err != nil {
		return nil, fmt.Errorf("store: approval staff: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var u, e string
		if err := rows.Scan(&u, &e); err != nil {
			return nil, fmt.Errorf("store: approval staff: %w", err)
		}
		m[u] = e
	}
	return m, rows.Err()
}

// RecordRejection records a rejection the API accepted: the proposal as the
// API returned it and the timeline entry. It writes no audit row: it runs
// in the transaction that finishes the reject action, which writes it.
func (s *Store) RecordRejection(ctx context.Context, after Proposal, by Actor, reason string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := upsertProposalTx(ctx, tx, after); err != nil {
			return err
		}
		return addProposalEvent(ctx, tx, ProposalEvent{ProposalID: after.ID, Kind: EventRejected, StaffID: by.StaffID, Actor: by.Email, Detail: reason})
	})
}

// RecordCreatedProposal records a proposal created in the app, naming its
// creator (who then may not approve it), with the audit row.
func (s *Store) RecordCreatedProposal(ctx context.Context, p Proposal, by Actor, detail string) error {
	p.CreatedByStaffID = by.StaffID
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := upsertProposalTx(ctx, tx, p); err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "proposal.create", Target: "proposal:" + p.ID, Outcome: OutcomeOK, Detail: detail})
	})
}
