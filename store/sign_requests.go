package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Sign request kinds (DESIGN.md decision 5).
const (
	SignKindProposal   = "proposal"
	SignKindOwnerProof = "owner_proof"
	SignKindWorkflow   = "workflow"
)

// Sign request states. waiting → opened → checking → relaying → submitted
// or completed; or expired, refused (with the reason), superseded (a newer
// link was issued), relay_pending (upstream did not answer; the signature is
// kept until the deadline and sent again only once the API shows it did not
// record it).
const (
	SignWaiting      = "waiting"
	SignOpened       = "opened"
	SignChecking     = "checking"
	SignRelaying     = "relaying"
	SignRelayPending = "relay_pending"
	SignSubmitted    = "submitted"
	SignCompleted    = "completed"
	SignExpired      = "expired"
	SignRefused      = "refused"
	SignSuperseded   = "superseded"
)

// ErrSignRequestGone is returned for a token that was used, replaced or has
// expired: answer 410 and send nothing upstream.
var ErrSignRequestGone = errors.New("store: sign request expired or already used")

// SignRequest is one link handed to a device.
type SignRequest struct {
	ID          int64
	Kind        string
	ProposalID  string
	WorkflowID  string
	HashToSign  string // workflow only
	Message     string // owner proof only
	ChallengeID string
	// Currency is the stablecoin of the wallet an owner proof creates. It
	// is kept with the challenge id (stored as "<currency>/<challengeId>",
	// so the 0005 schema needs no new column).
	Currency         string
	UserID           string // serviceUserId the upstream call is made for
	WalletID         string
	OwnerAddress     string
	State            string
	Error            string
	Signature        string
	CollectedBefore  int
	ExpiresAt        time.Time
	CreatedByStaffID int64
	CreatedAt        time.Time
	OpenedAt         *time.Time
	UsedAt           *time.Time
	UpdatedAt        time.Time
}

// Open reports whether the link may still be used at t.
func (r SignRequest) Open(t time.Time) bool {
	return (r.State == SignWaiting || r.State == SignOpened) && t.Before(r.ExpiresAt)
}

// Final reports whether the request reached an end state.
func (r SignRequest) Final() bool {
	switch r.State {
	case SignCompleted, SignExpired, SignRefused, SignSuperseded:
		return true
	}
	return false
}

const signRequestColumns = `id, kind, proposal_id, workflow_id, hash_to_sign, message, challenge_id, user_id, wallet_id,
	owner_address, state, error, signature, collected_before, expires_at, coalesce(created_by_staff_id, 0), created_at,
	opened_at, used_at, updated_at`

func scanSignRequest(row pgx.Row) (SignRequest, error) {
	var r SignRequest
	err := row.Scan(&r.ID, &r.Kind, &r.ProposalID, &r.WorkflowID, &r.HashToSign, &r.Message, &r.ChallengeID, &r.UserID,
		&r.WalletID, &r.OwnerAddress, &r.State, &r.Error, &r.Signature, &r.CollectedBefore, &r.ExpiresAt,
		&r.CreatedByStaffID, &r.CreatedAt, &r.OpenedAt, &r.UsedAt, &r.UpdatedAt)
	if cur, id, ok := strings.Cut(r.ChallengeID, "/"); ok {
		r.Currency, r.ChallengeID = cur, id
	}
	return r, err
}

// CreateSignRequest stores a new sign request under its token's hash,
// supersedes the earlier open links of the same proposal or workflow
// (re-issuing invalidates the previous link), and writes the timeline entry
// and audit row, in one transaction.
func (s *Store) CreateSignRequest(ctx context.Context, r SignRequest, tokenHash []byte, by Actor) (SignRequest, error) {
	var out SignRequest
	if r.ChallengeID != "" {
		r.ChallengeID = r.Currency + "/" + r.ChallengeID
	}
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE sign_requests SET state = 'superseded', error = 'a newer link was issued', updated_at = now()
			WHERE state IN ('waiting', 'opened') AND ((proposal_id <> '' AND proposal_id = $1) OR (workflow_id <> '' AND workflow_id = $2)
				OR (challenge_id <> '' AND challenge_id = $3)
				OR (kind = 'owner_proof' AND $4 <> '' AND user_id = $5 AND challenge_id LIKE $4 || '/%'))`,
			r.ProposalID, r.WorkflowID, r.ChallengeID, r.Currency, r.UserID); err != nil {
			return fmt.Errorf("store: supersede sign requests: %w", err)
		}
		var createdBy *int64
		if by.StaffID != 0 {
			createdBy = &by.StaffID
		}
		var err error
		out, err = scanSignRequest(tx.QueryRow(ctx, `
			INSERT INTO sign_requests (token_hash, kind, proposal_id, workflow_id, hash_to_sign, message, challenge_id, user_id,
				wallet_id, owner_address, expires_at, created_by_staff_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
			RETURNING `+signRequestColumns,
			tokenHash, r.Kind, r.ProposalID, r.WorkflowID, r.HashToSign, r.Message, r.ChallengeID, r.UserID, r.WalletID,
			r.OwnerAddress, r.ExpiresAt, createdBy))
		if err != nil {
			return fmt.Errorf("store: create sign request: %w", err)
		}
		detail := fmt.Sprintf("sign request %d for owner %s, expires %s", out.ID, out.OwnerAddress, out.ExpiresAt.UTC().Format(time.RFC3339))
		if r.ProposalID != "" {
			if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: r.ProposalID, Kind: EventSignRequest, StaffID: by.StaffID, Actor: by.Email, Detail: detail}); err != nil {
				return err
			}
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "sign_request.create", Target: signTarget(out), Outcome: OutcomeOK, Detail: detail})
	})
	return out, err
}

func signTarget(r SignRequest) string {
	switch {
	case r.ProposalID != "":
		return "proposal:" + r.ProposalID
	case r.WorkflowID != "":
		return "workflow:" + r.WorkflowID
	case r.ChallengeID != "":
		return "owner_proof:" + r.UserID
	}
	return fmt.Sprintf("sign_request:%d", r.ID)
}

// SignRequestByTokenHash loads the request of a token.
func (s *Store) SignRequestByTokenHash(ctx context.Context, hash []byte) (SignRequest, error) {
	r, err := scanSignRequest(s.pool.QueryRow(ctx, `SELECT `+signRequestColumns+` FROM sign_requests WHERE token_hash = $1`, hash))
	if err != nil {
		return SignRequest{}, fmt.Errorf("store: load sign request: %w", notFound(err))
	}
	return r, nil
}

// SignRequestByID loads one request.
func (s *Store) SignRequestByID(ctx context.Context, id int64) (SignRequest, error) {
	r, err := scanSignRequest(s.pool.QueryRow(ctx, `SELECT `+signRequestColumns+` FROM sign_requests WHERE id = $1`, id))
	if err != nil {
		return SignRequest{}, fmt.Errorf("store: load sign request %d: %w", id, notFound(err))
	}
	return r, nil
}

// LatestSignRequest returns the newest request of a proposal.
func (s *Store) LatestSignRequest(ctx context.Context, proposalID string) (SignRequest, error) {
	r, err := scanSignRequest(s.pool.QueryRow(ctx, `SELECT `+signRequestColumns+` FROM sign_requests
		WHERE proposal_id = $1 ORDER BY id DESC LIMIT 1`, proposalID))
	if err != nil {
		return SignRequest{}, fmt.Errorf("store: latest sign request of %s: %w", proposalID, notFound(err))
	}
	return r, nil
}

// ProposalSignRequests lists a proposal's requests, oldest first.
func (s *Store) ProposalSignRequests(ctx context.Context, proposalID string) ([]SignRequest, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+signRequestColumns+` FROM sign_requests WHERE proposal_id = $1 ORDER BY id`, proposalID)
	if err != nil {
		return nil, fmt.Errorf("store: sign requests of %s: %w", proposalID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SignRequest, error) { return scanSignRequest(r) })
	if err != nil {
		return nil, fmt.Errorf("store: sign requests of %s: %w", proposalID, err)
	}
	return list, nil
}

// MarkSignOpened records that a device fetched the request (first time only).
func (s *Store) MarkSignOpened(ctx context.Context, id int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		r, err := scanSignRequest(tx.QueryRow(ctx, `UPDATE sign_requests SET state = 'opened', opened_at = now(), updated_at = now()
			WHERE id = $1 AND state = 'waiting' RETURNING `+signRequestColumns, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: mark sign request opened: %w", err)
		}
		if r.ProposalID != "" {
			return addProposalEvent(ctx, tx, ProposalEvent{ProposalID: r.ProposalID, Kind: EventSignOpened, Actor: "device",
				Detail: fmt.Sprintf("sign request %d opened on a device", r.ID)})
		}
		return nil
	})
}

// ClaimSignRequest takes a token for one POST: only one caller ever gets
// the row (the UPDATE ... WHERE state is the lock), so two devices or a
// double submit make at most one upstream call. An unknown token is
// ErrNotFound; a used, replaced or expired one ErrSignRequestGone (an expired
// one is marked so).
func (s *Store) ClaimSignRequest(ctx context.Context, hash []byte, now time.Time) (SignRequest, error) {
	r, err := scanSignRequest(s.pool.QueryRow(ctx, `UPDATE sign_requests SET state = 'checking', used_at = $2, updated_at = now()
		WHERE token_hash = $1 AND state IN ('waiting', 'opened') AND expires_at > $2 RETURNING `+signRequestColumns, hash, now))
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return SignRequest{}, fmt.Errorf("store: claim sign request: %w", err)
	}
	r, err = s.SignRequestByTokenHash(ctx, hash)
	if err != nil {
		return SignRequest{}, err
	}
	if r.Open(time.Time{}) && !now.Before(r.ExpiresAt) {
		if err := s.ExpireSignRequest(ctx, r.ID); err != nil {
			return r, err
		}
		r.State = SignExpired
	}
	return r, ErrSignRequestGone
}

// ExpireSignRequest marks an unused request expired.
func (s *Store) ExpireSignRequest(ctx context.Context, id int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE sign_requests SET state = 'expired', error = 'the link expired before it was used', updated_at = now()
		WHERE id = $1 AND state IN ('waiting', 'opened')`, id)
	if err != nil {
		return fmt.Errorf("store: expire sign request %d: %w", id, err)
	}
	return nil
}

var deviceActor = Actor{Email: "device"}

// RefuseSignRequest ends a request with the reason (a local check or the
// API refused the signature), forgetting any signature, with the timeline
// entry and an audit row with outcome refused.
func (s *Store) RefuseSignRequest(ctx context.Context, id int64, reason string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		r, err := scanSignRequest(tx.QueryRow(ctx, `UPDATE sign_requests SET state = 'refused', error = $2, signature = '', updated_at = now()
			WHERE id = $1 RETURNING `+signRequestColumns, id, reason))
		if err != nil {
			return fmt.Errorf("store: refuse sign request %d: %w", id, notFound(err))
		}
		if r.ProposalID != "" {
			if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: r.ProposalID, Kind: EventSignRefused, Actor: "device", Detail: reason}); err != nil {
				return err
			}
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: deviceActor, Action: "sign_request.submit", Target: signTarget(r), Outcome: OutcomeRefused, Detail: reason})
	})
}

// MarkSignRelaying records a signature that passed the local checks, before
// the one upstream call: the signature is kept so an unanswered call can be
// resolved later, and collectedBefore is the count the API showed before it.
func (s *Store) MarkSignRelaying(ctx context.Context, id int64, signature string, collectedBefore int) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		r, err := scanSignRequest(tx.QueryRow(ctx, `UPDATE sign_requests SET state = 'relaying', signature = $2, collected_before = $3, updated_at = now()
			WHERE id = $1 AND state IN ('checking', 'relay_pending') RETURNING `+signRequestColumns, id, signature, collectedBefore))
		if err != nil {
			return fmt.Errorf("store: mark sign request %d relaying: %w", id, notFound(err))
		}
		if r.ProposalID != "" {
			return addProposalEvent(ctx, tx, ProposalEvent{ProposalID: r.ProposalID, Kind: EventSignChecked, Actor: "device",
				Detail: "signature recovers to the registered owner " + r.OwnerAddress})
		}
		return nil
	})
}

// FinishSignRelay records that the API accepted the signature (state
// submitted or completed), forgets the signature, and stores the proposal as
// returned, with the timeline entry and audit row.
func (s *Store) FinishSignRelay(ctx context.Context, id int64, state string, after *Proposal) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		r, err := scanSignRequest(tx.QueryRow(ctx, `UPDATE sign_requests SET state = $2, signature = '', error = '', updated_at = now()
			WHERE id = $1 RETURNING `+signRequestColumns, id, state))
		if err != nil {
			return fmt.Errorf("store: finish sign request %d: %w", id, notFound(err))
		}
		detail := "signature accepted by the API"
		if after != nil {
			if _, err := upsertProposalTx(ctx, tx, *after); err != nil {
				return err
			}
			detail += fmt.Sprintf("; %d of %d signatures; status %s", after.CollectedSignatures, after.RequiredSignatures, after.Status)
			if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: after.ID, Kind: EventSignSubmitted, Actor: "device", Detail: detail}); err != nil {
				return err
			}
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: deviceActor, Action: "sign_request.submit", Target: signTarget(r), Outcome: OutcomeOK, Detail: detail})
	})
}

// MarkSignRelayUnsure records that the API did not answer: the signature is
// kept until the deadline for the retry job, which first reads whether the
// API recorded it.
func (s *Store) MarkSignRelayUnsure(ctx context.Context, id int64, detail string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		r, err := scanSignRequest(tx.QueryRow(ctx, `UPDATE sign_requests SET state = 'relay_pending', error = $2, updated_at = now()
			WHERE id = $1 RETURNING `+signRequestColumns, id, detail))
		if err != nil {
			return fmt.Errorf("store: sign request %d unsure: %w", id, notFound(err))
		}
		if r.ProposalID != "" {
			if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: r.ProposalID, Kind: EventSignUnsure, Actor: "device", Detail: detail}); err != nil {
				return err
			}
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: deviceActor, Action: "sign_request.submit", Target: signTarget(r), Outcome: OutcomeFailed, Detail: detail})
	})
}

// TakeRelayPending moves one unsure relay back to relaying for a retry, or
// returns ErrSignRequestGone when another worker has it or it expired.
func (s *Store) TakeRelayPending(ctx context.Context, id int64, now time.Time) (SignRequest, error) {
	r, err := scanSignRequest(s.pool.QueryRow(ctx, `UPDATE sign_requests SET state = 'checking', updated_at = now()
		WHERE id = $1 AND state = 'relay_pending' AND expires_at > $2 RETURNING `+signRequestColumns, id, now))
	if errors.Is(err, pgx.ErrNoRows) {
		return SignRequest{}, ErrSignRequestGone
	}
	if err != nil {
		return SignRequest{}, fmt.Errorf("store: take relay %d: %w", id, err)
	}
	return r, nil
}

// RelayPendingIDs lists unsure relays whose deadline has not passed.
func (s *Store) RelayPendingIDs(ctx context.Context, now time.Time) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM sign_requests WHERE state = 'relay_pending' AND expires_at > $1 ORDER BY id`, now)
	if err != nil {
		return nil, fmt.Errorf("store: relay pending: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: relay pending: %w", err)
	}
	return ids, nil
}

// ExpireStaleSignRequests ends open and unsure requests whose deadline
// passed; an unsure relay's kept signature is forgotten.
func (s *Store) ExpireStaleSignRequests(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE sign_requests SET state = 'expired', signature = '',
		error = CASE WHEN state = 'relay_pending' THEN error || '; the deadline passed before the API answered' ELSE 'the link expired before it was used' END,
		updated_at = now() WHERE state IN ('waiting', 'opened', 'relay_pending') AND expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("store: expire sign requests: %w", err)
	}
	return tag.RowsAffected(), nil
}

// ReopenSignRequest gives a claimed token back when the app could not check
// the signature for a reason of its own (the API could not be read): nothing
// was sent upstream, so the device may post again.
func (s *Store) ReopenSignRequest(ctx context.Context, id int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE sign_requests SET state = CASE WHEN opened_at IS NULL THEN 'waiting' ELSE 'opened' END,
		used_at = NULL, updated_at = now() WHERE id = $1 AND state = 'checking'`, id)
	if err != nil {
		return fmt.Errorf("store: reopen sign request %d: %w", id, err)
	}
	return nil
}

// SetSignState moves a request from one state to another (the proposal
// completed or failed after submission; a retry gave the row back). It
// reports whether the row was in state from.
func (s *Store) SetSignState(ctx context.Context, id int64, from, to, errText string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE sign_requests SET state = $3, error = $4, updated_at = now() WHERE id = $1 AND state = $2`,
		id, from, to, errText)
	if err != nil {
		return false, fmt.Errorf("store: sign request %d %s → %s: %w", id, from, to, err)
	}
	return tag.RowsAffected() == 1, nil
}

// OwnerProofRequests lists a user's owner-proof requests, newest first.
func (s *Store) OwnerProofRequests(ctx context.Context, userID string, limit int) ([]SignRequest, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+signRequestColumns+` FROM sign_requests WHERE kind = 'owner_proof' AND user_id = $1
		ORDER BY id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: owner proofs: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SignRequest, error) { return scanSignRequest(r) })
	if err != nil {
		return nil, fmt.Errorf("store: owner proofs: %w", err)
	}
	return list, nil
}
