package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// MaxSignBatchItems is the most proposals one batch sign request covers:
// a payroll of a thousand people is signed from one QR code.
const MaxSignBatchItems = 1000

// SignBatch is one link that asks one owner's device to sign many
// proposals. Its token is kept only as its SHA-256.
type SignBatch struct {
	ID           int64
	OwnerUserID  string
	OwnerAddress string
	// ReturnTo is the local path the batch's page leads back to.
	ReturnTo         string
	ExpiresAt        time.Time
	CreatedByStaffID int64
	CreatedAt        time.Time
	OpenedAt         *time.Time
	Items            []SignBatchItem
}

// SignBatchItem is one proposal of a batch, with the state of its relay
// action (when it has one) and its proposal's state in the mirror.
type SignBatchItem struct {
	Position   int
	ProposalID string
	UserID     string
	WalletID   string
	// Deadline is the sign payload's deadline as last read.
	Deadline time.Time
	// Relayed is the item's own state: waiting, then submitted or
	// completed once the API took its signature.
	Relayed SignState
	// Action is the state of the item's relay action ("" when none).
	Action ActionState
	// Message is the action's words (why it was refused or is unknown).
	Message string
	// ProposalStatus and FailureReason are the mirror's.
	ProposalStatus ProposalStatus
	FailureReason  string
}

// SignBatchActionKey is the action-ledger key of one item's relay: the one
// upstream call its signature makes, once.
func SignBatchActionKey(batchID int64, proposalID string) string {
	return "signbatch:" + strconv.FormatInt(batchID, 10) + ":" + proposalID
}

// Sent reports whether the item's signature was relayed, or refused: it
// has an action, so it is never sent again from this batch.
func (it SignBatchItem) Sent() bool { return it.Action != "" }

// StateAt is the item's state at now, given its batch's expiry: its relay
// action's while that is open or refused; submitted, then completed (or
// refused when the proposal failed after submission) once the API took it;
// expired when the link or the item's deadline passed before a signature
// came; waiting (or opened) otherwise.
func (it SignBatchItem) StateAt(now, batchExpires time.Time, opened bool) (SignState, string) {
	switch it.Action {
	case ActionBegun:
		return SignRelaying, ""
	case ActionUnknown:
		return SignRelayPending, it.Message
	case ActionRefused:
		return SignRefused, it.Message
	case ActionDone:
		switch {
		case it.Relayed == SignCompleted || it.ProposalStatus == ProposalCompleted:
			return SignCompleted, ""
		case it.ProposalStatus == ProposalFailed:
			return SignRefused, "The proposal failed after submission: " + it.FailureReason
		}
		return SignSubmitted, ""
	}
	if !now.Before(batchExpires) || !now.Before(it.Deadline) {
		return SignExpired, "the deadline passed before a signature came"
	}
	if opened {
		return SignOpened, ""
	}
	return SignWaiting, ""
}

// Open reports whether the batch's link may still be used at now.
func (b SignBatch) Open(now time.Time) bool { return now.Before(b.ExpiresAt) }

// Unsent are the items that have no relay action yet.
func (b SignBatch) Unsent() []SignBatchItem {
	var out []SignBatchItem
	for _, it := range b.Items {
		if !it.Sent() {
			out = append(out, it)
		}
	}
	return out
}

// SignBatchTarget is a batch's audit target.
func SignBatchTarget(id int64) string { return "sign_batch:" + strconv.FormatInt(id, 10) }

// NewSignBatchID reserves the id of a batch about to be stored, so the
// action that creates it can name it before its transaction commits.
func (s *Store) NewSignBatchID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('sign_batches', 'id'))`).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: new sign batch id: %w", err)
	}
	return id, nil
}

// AddSignBatch stores a batch and its items under the token's hash, with a
// timeline entry on each proposal, and supersedes the proposals' open
// single links; b.ID is the id NewSignBatchID reserved
// (0: a new one). It writes no audit row: it runs in the
// transaction of the action that creates the batch, which writes it.
func (s *Store) AddSignBatch(ctx context.Context, b SignBatch, tokenHash []byte, by Actor) (SignBatch, error) {
	if len(b.Items) == 0 || len(b.Items) > MaxSignBatchItems {
		return SignBatch{}, fmt.Errorf("store: sign batch of %d items: want 1 to %d", len(b.Items), MaxSignBatchItems)
	}
	var createdBy, batchID *int64
	if by.StaffID != 0 {
		createdBy = &by.StaffID
	}
	if b.ID != 0 {
		batchID = &b.ID
	}
	n := len(b.Items)
	ids, users, wallets, deadlines := make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
	for i, it := range b.Items {
		ids[i], users[i], wallets[i], deadlines[i] = it.ProposalID, it.UserID, it.WalletID, it.Deadline
	}
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO sign_batches (id, token_hash, owner_user_id, owner_address, return_to, expires_at, created_by_staff_id)
			OVERRIDING SYSTEM VALUE
			VALUES (coalesce($1, nextval(pg_get_serial_sequence('sign_batches', 'id'))), $2, $3, $4, $5, $6, $7) RETURNING id, created_at`,
			batchID, tokenHash, b.OwnerUserID, b.OwnerAddress, b.ReturnTo, b.ExpiresAt, createdBy).Scan(&b.ID, &b.CreatedAt); err != nil {
			return fmt.Errorf("store: create sign batch: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sign_batch_items (batch_id, position, proposal_id, user_id, wallet_id, deadline)
			SELECT $1, t.ord, t.pid, t.uid, t.wid, t.dl
			FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS t(pid, uid, wid, dl, ord)`,
			b.ID, ids, users, wallets, deadlines); err != nil {
			return fmt.Errorf("store: create sign batch %d items: %w", b.ID, err)
		}
		// The batch replaces the proposals' open single links, as a newer
		// single link would.
		if _, err := tx.Exec(ctx, `UPDATE sign_requests sr SET state = 'superseded', error = 'a newer link was issued (batch sign request ' || $2 || ')',
			updated_at = now() WHERE proposal_id = ANY($1) AND state IN ('waiting', 'opened') AND `+noRelay, ids, strconv.FormatInt(b.ID, 10)); err != nil {
			return fmt.Errorf("store: supersede sign requests: %w", err)
		}
		// Lock the proposals in one order before their timelines grow
		// (addProposalEvent explains the deadlock this avoids).
		if _, err := tx.Exec(ctx, `SELECT 1 FROM proposals WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids); err != nil {
			return fmt.Errorf("store: lock sign batch proposals: %w", err)
		}
		detail := fmt.Sprintf("batch sign request %d (%d proposals) for owner %s, expires %s", b.ID, n, b.OwnerAddress,
			b.ExpiresAt.UTC().Format(time.RFC3339))
		if _, err := tx.Exec(ctx, `INSERT INTO proposal_events (proposal_id, at, kind, staff_id, actor, detail)
			SELECT p.id, now(), $2, $3, $4, $5 FROM proposals p WHERE p.id = ANY($1)`,
			ids, EventSignRequest, createdBy, by.Email, detail); err != nil {
			return fmt.Errorf("store: sign batch %d timeline: %w", b.ID, err)
		}
		return nil
	})
	if err != nil {
		return SignBatch{}, err
	}
	return b, nil
}

const signBatchColumns = `id, owner_user_id, owner_address, return_to, expires_at, coalesce(created_by_staff_id, 0), created_at, opened_at`

func (s *Store) loadSignBatch(ctx context.Context, where string, arg any) (SignBatch, error) {
	var b SignBatch
	err := s.db.QueryRow(ctx, `SELECT `+signBatchColumns+` FROM sign_batches WHERE `+where, arg).Scan(
		&b.ID, &b.OwnerUserID, &b.OwnerAddress, &b.ReturnTo, &b.ExpiresAt, &b.CreatedByStaffID, &b.CreatedAt, &b.OpenedAt)
	if err != nil {
		return SignBatch{}, notFound(err)
	}
	rows, err := s.db.Query(ctx, `SELECT i.position, i.proposal_id, i.user_id, i.wallet_id, i.deadline, i.state,
			coalesce(a.state, ''), coalesce(a.message, ''), coalesce(p.status, ''), coalesce(p.failure_reason, '')
		FROM sign_batch_items i
		LEFT JOIN actions a ON a.key = 'signbatch:' || i.batch_id || ':' || i.proposal_id
		LEFT JOIN proposals p ON p.id = i.proposal_id
		WHERE i.batch_id = $1 ORDER BY i.position`, b.ID)
	if err != nil {
		return SignBatch{}, err
	}
	b.Items, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (SignBatchItem, error) {
		var it SignBatchItem
		err := r.Scan(&it.Position, &it.ProposalID, &it.UserID, &it.WalletID, &it.Deadline, &it.Relayed,
			&it.Action, &it.Message, &it.ProposalStatus, &it.FailureReason)
		return it, err
	})
	if err != nil {
		return SignBatch{}, err
	}
	return b, nil
}

// SignBatchByTokenHash loads the batch of a token, with its items.
func (s *Store) SignBatchByTokenHash(ctx context.Context, hash []byte) (SignBatch, error) {
	b, err := s.loadSignBatch(ctx, `token_hash = $1`, hash)
	if err != nil {
		return SignBatch{}, fmt.Errorf("store: load sign batch: %w", err)
	}
	return b, nil
}

// SignBatchByID loads one batch, with its items.
func (s *Store) SignBatchByID(ctx context.Context, id int64) (SignBatch, error) {
	b, err := s.loadSignBatch(ctx, `id = $1`, id)
	if err != nil {
		return SignBatch{}, fmt.Errorf("store: load sign batch %d: %w", id, err)
	}
	return b, nil
}

// MarkSignBatchOpened records that a device fetched the batch, and the
// deadlines of the sign payloads it was given (first opening only for the
// time; deadlines every time).
func (s *Store) MarkSignBatchOpened(ctx context.Context, id int64, deadlines map[string]time.Time) error {
	ids, dls := make([]string, 0, len(deadlines)), make([]time.Time, 0, len(deadlines))
	for pid, d := range deadlines {
		ids, dls = append(ids, pid), append(dls, d)
	}
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE sign_batches SET opened_at = coalesce(opened_at, now()) WHERE id = $1`, id); err != nil {
			return fmt.Errorf("store: mark sign batch %d opened: %w", id, err)
		}
		if len(ids) == 0 {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE sign_batch_items i SET deadline = t.dl
			FROM unnest($2::text[], $3::timestamptz[]) AS t(pid, dl) WHERE i.batch_id = $1 AND i.proposal_id = t.pid`,
			id, ids, dls); err != nil {
			return fmt.Errorf("store: sign batch %d deadlines: %w", id, err)
		}
		return nil
	})
}

// RecordSignBatchItemRelayed records that the API took an item's
// signature: the item becomes submitted or completed and the proposal is
// stored as the API returned it, with its timeline entry. It writes no
// audit row: it runs in the transaction that finishes the item's relay
// action, which writes it.
func (s *Store) RecordSignBatchItemRelayed(ctx context.Context, batchID int64, proposalID string, state SignState, after *Proposal) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE sign_batch_items SET state = $3 WHERE batch_id = $1 AND proposal_id = $2`, batchID, proposalID, state)
		if err != nil {
			return fmt.Errorf("store: sign batch %d item %s relayed: %w", batchID, proposalID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("store: sign batch %d item %s relayed: %w", batchID, proposalID, ErrNotFound)
		}
		if after == nil {
			return nil
		}
		if _, err := upsertProposalTx(ctx, tx, *after); err != nil {
			return err
		}
		return addProposalEvent(ctx, tx, ProposalEvent{ProposalID: after.ID, Kind: EventSignSubmitted, Actor: "device",
			Detail: fmt.Sprintf("%s (batch sign request %d)", SignRelayedDetail(after), batchID)})
	})
}

// proposalsByIDsSQL reads the proposals whose ids are in $1.
const proposalsByIDsSQL = `SELECT ` + proposalColumns + ` FROM proposals WHERE id = ANY($1)`

// ProposalsByIDs loads the mirror's proposals with these ids, in no
// particular order; ids the mirror does not know are left out.
func (s *Store) ProposalsByIDs(ctx context.Context, ids []string) ([]Proposal, error) {
	rows, err := s.db.Query(ctx, proposalsByIDsSQL, ids)
	if err != nil {
		return nil, fmt.Errorf("store: proposals by id: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Proposal, error) { return scanProposal(r) })
	if err != nil {
		return nil, fmt.Errorf("store: proposals by id: %w", err)
	}
	return list, nil
}

// WalletsByIDs loads the mirror's wallets with these ids, keyed by id.
func (s *Store) WalletsByIDs(ctx context.Context, ids []string) (map[string]Wallet, error) {
	rows, err := s.db.Query(ctx, `SELECT `+walletColumns+` FROM wallets WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: wallets by id: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Wallet, error) { return scanWallet(r) })
	if err != nil {
		return nil, fmt.Errorf("store: wallets by id: %w", err)
	}
	out := make(map[string]Wallet, len(list))
	for _, w := range list {
		out[w.ID] = w
	}
	return out, nil
}
