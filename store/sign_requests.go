package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Sign request kinds (DESIGN.md decision 5).
const (
	SignKindProposal   = "proposal"
	SignKindOwnerProof = "owner_proof"
	SignKindWorkflow   = "workflow"
	// SignKindEURAuthorization carries the EUR provider's authorization
	// code: the device signs apiclient.EURProviderAuthorizationMessage of
	// it, and the signature goes to POST /eu/kyc (the code is kept as the
	// request's challenge id).
	SignKindEURAuthorization = "eur_authorization"
)

// SignState is where a sign request stands. A request is waiting, then
// opened by a device; the device's signature is relayed upstream through
// the action ledger (key SignActionKey), and while that action is open or
// after it was refused the request's state is the action's: relaying,
// relay_pending (the API did not answer; it is read back) or refused. Once
// the API took the signature the request is submitted, then completed.
// It may also expire, or be superseded by a newer link.
type SignState string

// Sign request states. They are untyped so that they compare with the
// states the device contract's JSON and the pages' data-state carry.
const (
	SignWaiting      = "waiting"
	SignOpened       = "opened"
	SignRelaying     = "relaying"
	SignRelayPending = "relay_pending"
	SignSubmitted    = "submitted"
	SignCompleted    = "completed"
	SignExpired      = "expired"
	SignRefused      = "refused"
	SignSuperseded   = "superseded"
	// SignChecking is no longer entered (the ledger's action is the
	// relay's lock); it is kept for readers that still name it.
	SignChecking = "checking"
)

// Final reports whether the state is an end state.
func (s SignState) Final() bool {
	switch s {
	case SignCompleted, SignExpired, SignRefused, SignSuperseded:
		return true
	}
	return false
}

// SignActionKey is the action-ledger key of a sign request's relay: the
// one upstream call its device's signature makes, once.
func SignActionKey(id int64) string { return "sign:" + strconv.FormatInt(id, 10) }

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
	State            SignState
	Error            string
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
func (r SignRequest) Final() bool { return r.State.Final() }

// signRequestSelect reads sign requests (sr) with the state of their relay
// action (a): while the action is open, or once it was refused, it is the
// request's state, with the action's words as the error.
const signRequestSelect = `SELECT sr.id, sr.kind, sr.proposal_id, sr.workflow_id, sr.hash_to_sign, sr.message, sr.challenge_id,
	sr.user_id, sr.wallet_id, sr.owner_address,
	CASE WHEN a.state = 'begun' THEN 'relaying' WHEN a.state = 'unknown' THEN 'relay_pending'
		WHEN a.state = 'refused' THEN 'refused'
		WHEN a.state = 'done' AND sr.state IN ('waiting', 'opened') THEN 'submitted' ELSE sr.state END,
	CASE WHEN a.state IN ('unknown', 'refused') THEN a.message ELSE sr.error END,
	sr.expires_at, coalesce(sr.created_by_staff_id, 0), sr.created_at, sr.opened_at, coalesce(sr.used_at, a.begun_at), sr.updated_at
	FROM sign_requests sr LEFT JOIN actions a ON a.key = 'sign:' || sr.id`

// noRelay is the condition "sr has no relay action".
const noRelay = `NOT EXISTS (SELECT 1 FROM actions a WHERE a.key = 'sign:' || sr.id)`

const signRequestReturning = `id, kind, proposal_id, workflow_id, hash_to_sign, message, challenge_id, user_id, wallet_id,
	owner_address, state, error, expires_at, coalesce(created_by_staff_id, 0), created_at, opened_at, used_at, updated_at`

func scanSignRequest(row pgx.Row) (SignRequest, error) {
	var r SignRequest
	err := row.Scan(&r.ID, &r.Kind, &r.ProposalID, &r.WorkflowID, &r.HashToSign, &r.Message, &r.ChallengeID, &r.UserID,
		&r.WalletID, &r.OwnerAddress, &r.State, &r.Error, &r.ExpiresAt,
		&r.CreatedByStaffID, &r.CreatedAt, &r.OpenedAt, &r.UsedAt, &r.UpdatedAt)
	if cur, id, ok := strings.Cut(r.ChallengeID, "/"); ok {
		r.Currency, r.ChallengeID = cur, id
	}
	return r, err
}

// AddSignRequest stores a new sign request under its token's hash,
// supersedes the earlier open links of the same proposal, workflow or owner
// proof (re-issuing invalidates the previous link), and adds the timeline
// entry. It writes no audit row: it runs in the transaction of the action
// that issues the link, which writes it.
func (s *Store) AddSignRequest(ctx context.Context, r SignRequest, tokenHash []byte, by Actor) (SignRequest, error) {
	var out SignRequest
	if r.ChallengeID != "" {
		r.ChallengeID = r.Currency + "/" + r.ChallengeID
	}
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE sign_requests sr SET state = 'superseded', error = 'a newer link was issued', updated_at = now()
			WHERE state IN ('waiting', 'opened') AND `+noRelay+` AND ((proposal_id <> '' AND proposal_id = $1)
				OR (workflow_id <> '' AND workflow_id = $2) OR (challenge_id <> '' AND challenge_id = $3)
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
			RETURNING `+signRequestReturning,
			tokenHash, r.Kind, r.ProposalID, r.WorkflowID, r.HashToSign, r.Message, r.ChallengeID, r.UserID, r.WalletID,
			r.OwnerAddress, r.ExpiresAt, createdBy))
		if err != nil {
			return fmt.Errorf("store: create sign request: %w", err)
		}
		if r.ProposalID != "" {
			return addProposalEvent(ctx, tx, ProposalEvent{ProposalID: r.ProposalID, Kind: EventSignRequest, StaffID: by.StaffID,
				Actor: by.Email, Detail: SignRequestDetail(out)})
		}
		return nil
	})
	return out, err
}

// CreateSignRequest is AddSignRequest with its audit row, in one
// transaction, for a link issued outside an action.
func (s *Store) CreateSignRequest(ctx context.Context, r SignRequest, tokenHash []byte, by Actor) (SignRequest, error) {
	var out SignRequest
	err := s.Tx(ctx, func(tx *Store) error {
		var err error
		if out, err = tx.AddSignRequest(ctx, r, tokenHash, by); err != nil {
			return err
		}
		return writeAudit(ctx, tx.db, AuditEntry{Actor: by, Action: "sign_request.create", Target: SignTarget(out),
			Outcome: OutcomeOK, Detail: SignRequestDetail(out)})
	})
	return out, err
}

// SignRequestDetail describes a new request for the timeline and the audit
// log.
func SignRequestDetail(r SignRequest) string {
	return fmt.Sprintf("sign request %d for owner %s, expires %s", r.ID, r.OwnerAddress, r.ExpiresAt.UTC().Format(time.RFC3339))
}

// SignTarget is the audit target of a request: what it is for.
func SignTarget(r SignRequest) string {
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
	r, err := scanSignRequest(s.db.QueryRow(ctx, signRequestSelect+` WHERE sr.token_hash = $1`, hash))
	if err != nil {
		return SignRequest{}, fmt.Errorf("store: load sign request: %w", notFound(err))
	}
	return r, nil
}

// SignRequestByID loads one request.
func (s *Store) SignRequestByID(ctx context.Context, id int64) (SignRequest, error) {
	r, err := scanSignRequest(s.db.QueryRow(ctx, signRequestSelect+` WHERE sr.id = $1`, id))
	if err != nil {
		return SignRequest{}, fmt.Errorf("store: load sign request %d: %w", id, notFound(err))
	}
	return r, nil
}

// LatestSignRequest returns the newest request of a proposal.
func (s *Store) LatestSignRequest(ctx context.Context, proposalID string) (SignRequest, error) {
	r, err := scanSignRequest(s.db.QueryRow(ctx, signRequestSelect+` WHERE sr.proposal_id = $1 ORDER BY sr.id DESC LIMIT 1`, proposalID))
	if err != nil {
		return SignRequest{}, fmt.Errorf("store: latest sign request of %s: %w", proposalID, notFound(err))
	}
	return r, nil
}

// ProposalSignRequests lists a proposal's requests, oldest first.
func (s *Store) ProposalSignRequests(ctx context.Context, proposalID string) ([]SignRequest, error) {
	rows, err := s.db.Query(ctx, signRequestSelect+` WHERE sr.proposal_id = $1 ORDER BY sr.id`, proposalID)
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
			WHERE id = $1 AND state = 'waiting' RETURNING `+signRequestReturning, id))
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

// ExpireSignRequest marks an unused request expired.
func (s *Store) ExpireSignRequest(ctx context.Context, id int64) error {
	_, err := s.db.Exec(ctx, `UPDATE sign_requests sr SET state = 'expired', error = 'the link expired before it was used', updated_at = now()
		WHERE id = $1 AND state IN ('waiting', 'opened') AND `+noRelay, id)
	if err != nil {
		return fmt.Errorf("store: expire sign request %d: %w", id, err)
	}
	return nil
}

// RecordSignRelayed records that the API took a request's signature: the
// request becomes submitted or completed, and the proposal (when there is
// one) is stored as the API returned it, with the timeline entry. It writes
// no audit row: it runs in the transaction that finishes the relay's
// action, which writes it.
func (s *Store) RecordSignRelayed(ctx context.Context, id int64, state SignState, after *Proposal) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE sign_requests SET state = $2, signature = '', error = '', used_at = coalesce(used_at, now()),
			updated_at = now() WHERE id = $1`, id, state)
		if err != nil {
			return fmt.Errorf("store: sign request %d relayed: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("store: sign request %d relayed: %w", id, ErrNotFound)
		}
		if after == nil {
			return nil
		}
		if _, err := upsertProposalTx(ctx, tx, *after); err != nil {
			return err
		}
		return addProposalEvent(ctx, tx, ProposalEvent{ProposalID: after.ID, Kind: EventSignSubmitted, Actor: "device",
			Detail: SignRelayedDetail(after)})
	})
}

// SignRelayedDetail says what a relayed signature did to its proposal.
func SignRelayedDetail(after *Proposal) string {
	if after == nil {
		return "signature accepted by the API"
	}
	return fmt.Sprintf("signature accepted by the API; %d of %d signatures; status %s", after.CollectedSignatures,
		after.RequiredSignatures, after.Status)
}

// ExpireStaleSignRequests ends unused requests whose deadline passed. A
// request whose signature is being relayed is left to its action.
func (s *Store) ExpireStaleSignRequests(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.db.Exec(ctx, `UPDATE sign_requests sr SET state = 'expired', error = 'the link expired before it was used',
		updated_at = now() WHERE state IN ('waiting', 'opened') AND expires_at <= $1 AND `+noRelay, now)
	if err != nil {
		return 0, fmt.Errorf("store: expire sign requests: %w", err)
	}
	return tag.RowsAffected(), nil
}

// SetSignState moves a request from one state to another (the proposal
// completed or failed after submission). It reports whether the row was in
// state from.
func (s *Store) SetSignState(ctx context.Context, id int64, from, to SignState, errText string) (bool, error) {
	tag, err := s.db.Exec(ctx, `UPDATE sign_requests SET state = $3, error = $4, updated_at = now() WHERE id = $1 AND state = $2`,
		id, from, to, errText)
	if err != nil {
		return false, fmt.Errorf("store: sign request %d %s → %s: %w", id, from, to, err)
	}
	return tag.RowsAffected() == 1, nil
}

// OwnerProofRequests lists a user's owner-proof requests, newest first.
func (s *Store) OwnerProofRequests(ctx context.Context, userID string, limit int) ([]SignRequest, error) {
	rows, err := s.db.Query(ctx, signRequestSelect+` WHERE sr.kind = 'owner_proof' AND sr.user_id = $1
		ORDER BY sr.id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: owner proofs: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SignRequest, error) { return scanSignRequest(r) })
	if err != nil {
		return nil, fmt.Errorf("store: owner proofs: %w", err)
	}
	return list, nil
}
