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
	if err := s.pool.QueryRow(ctx, `SELECT service_user_id FROM staff WHERE id = $1`, staffID).Scan(&id); err != nil {
		return "", fmt.Errorf("store: approver link of staff %d: %w", staffID, notFound(err))
	}
	return id, nil
}

// ApproverLinks maps staff id to linked serviceUserId for every linked staff
// member.
func (s *Store) ApproverLinks(ctx context.Context) (map[int64]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, service_user_id FROM staff WHERE service_user_id <> ''`)
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
	defer s.staffChanged(staffID)
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

// ApprovalClaim is one staff member's approval in flight: the row that
// makes a double click, or two staff acting as the same admin, one call.
type ApprovalClaim struct {
	ProposalID    string
	Round         int
	ServiceUserID string
	StaffID       int64
}

// ClaimApproval records that an approval is being sent. ErrConflict means
// this admin already approved (or is approving) in this round: send nothing.
func (s *Store) ClaimApproval(ctx context.Context, c ApprovalClaim) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO proposal_approvals (proposal_id, round, service_user_id, staff_id) VALUES ($1, $2, $3, $4)`,
		c.ProposalID, c.Round, c.ServiceUserID, c.StaffID)
	if isUniqueViolation(err) {
		return ErrConflict
	}
	if err != nil {
		return fmt.Errorf("store: claim approval of %s: %w", c.ProposalID, err)
	}
	return nil
}

// FinishApproval records an approval the API accepted: the proposal as the
// API returned it, the timeline entry naming the staff member, and the
// audit row, in one transaction.
func (s *Store) FinishApproval(ctx context.Context, c ApprovalClaim, after Proposal, by Actor, again bool) (ProposalChange, error) {
	var ch ProposalChange
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE proposal_approvals SET state = 'approved' WHERE proposal_id = $1 AND round = $2 AND service_user_id = $3`,
			c.ProposalID, c.Round, c.ServiceUserID); err != nil {
			return fmt.Errorf("store: finish approval: %w", err)
		}
		kind, action := EventApproved, "proposal.approve"
		if again {
			kind, action = EventApproveAgain, "proposal.approve_again"
		}
		detail := fmt.Sprintf("as wallet admin %s; %d of %d approvals; status %s", c.ServiceUserID,
			len(after.Approvals), after.RequiredApprovals, after.Status)
		// The approval comes before the state change it causes.
		if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: c.ProposalID, Kind: kind, StaffID: c.StaffID, Actor: by.Email, Detail: detail}); err != nil {
			return err
		}
		var err error
		if ch, err = upsertProposalTx(ctx, tx, after); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE proposals SET round = greatest(round, $2) WHERE id = $1`, c.ProposalID, c.Round); err != nil {
			return fmt.Errorf("store: proposal round: %w", err)
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: action, Target: "proposal:" + c.ProposalID, Outcome: OutcomeOK, Detail: detail})
	})
	return ch, err
}

// ReleaseApproval forgets a claim the API did not record, with the audit row
// (outcome failed or refused) and a timeline entry.
func (s *Store) ReleaseApproval(ctx context.Context, c ApprovalClaim, by Actor, outcome, detail string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM proposal_approvals WHERE proposal_id = $1 AND round = $2 AND service_user_id = $3 AND state = 'sending'`,
			c.ProposalID, c.Round, c.ServiceUserID); err != nil {
			return fmt.Errorf("store: release approval: %w", err)
		}
		if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: c.ProposalID, Kind: EventApproveFailed, StaffID: c.StaffID, Actor: by.Email, Detail: detail}); err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "proposal.approve", Target: "proposal:" + c.ProposalID, Outcome: outcome, Detail: detail})
	})
}

// ApprovalStaff returns, per serviceUserId, the email of the staff member who
// approved in the current round through the app (for the timeline and
// "x of n").
func (s *Store) ApprovalStaff(ctx context.Context, proposalID string) (map[string]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT a.service_user_id, st.email FROM proposal_approvals a JOIN proposals p ON p.id = a.proposal_id AND p.round = a.round
		JOIN staff st ON st.id = a.staff_id WHERE a.proposal_id = $1 AND a.state = 'approved'`, proposalID)
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

// RecordRejection records a rejection the API accepted, with the timeline
// entry and audit row.
func (s *Store) RecordRejection(ctx context.Context, after Proposal, by Actor, reason string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := upsertProposalTx(ctx, tx, after); err != nil {
			return err
		}
		if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: after.ID, Kind: EventRejected, StaffID: by.StaffID, Actor: by.Email, Detail: reason}); err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "proposal.reject", Target: "proposal:" + after.ID, Outcome: OutcomeOK, Detail: "reason: " + reason})
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
