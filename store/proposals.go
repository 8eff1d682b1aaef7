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

// ProposalStatus is a proposal's state as the API spells it
// (apiclient.ProposalStatus), kept here so the store needs no API types.
type ProposalStatus string

// Proposal states.
const (
	ProposalPendingApprovals  ProposalStatus = "PENDING_APPROVALS"
	ProposalPendingSignatures ProposalStatus = "PENDING_SIGNATURES"
	ProposalSubmitted         ProposalStatus = "SUBMITTED"
	ProposalReadyToExecute    ProposalStatus = "READY_TO_EXECUTE"
	ProposalExecuting         ProposalStatus = "EXECUTING"
	ProposalCompleted         ProposalStatus = "COMPLETED"
	ProposalFailed            ProposalStatus = "FAILED"
	ProposalRejected          ProposalStatus = "REJECTED"
	ProposalExpired           ProposalStatus = "EXPIRED"
)

// Open reports whether the proposal can still be approved, signed or
// rejected (spec: "any open state | POST .../reject"; a FAILED one may be
// approved again, which restarts its workflow).
func (s ProposalStatus) Open() bool {
	switch s {
	case ProposalPendingApprovals, ProposalPendingSignatures, ProposalFailed:
		return true
	}
	return false
}

// Final reports whether the proposal has reached a state it does not leave
// (a FAILED one may still be approved again).
func (s ProposalStatus) Final() bool {
	switch s {
	case ProposalCompleted, ProposalRejected, ProposalExpired:
		return true
	}
	return false
}

// QueueStatuses are the states the approval queue shows: open ones and
// FAILED (which may be approved again).
var QueueStatuses = []ProposalStatus{ProposalPendingApprovals, ProposalPendingSignatures, ProposalSubmitted,
	ProposalReadyToExecute, ProposalExecuting, ProposalFailed}

// queueStatusTexts is QueueStatuses as plain strings, for SQL.
func queueStatusTexts() []string {
	out := make([]string, len(QueueStatuses))
	for i, s := range QueueStatuses {
		out[i] = string(s)
	}
	return out
}

// Proposal is a proposal of a wallet the partner administers, as last read
// from the API, with what the app adds: the round of approvals and who
// created it here.
type Proposal struct {
	ID                  string
	WalletID            string
	OwnerUserID         string // serviceUserId of the wallet's user
	Type                string
	Status              ProposalStatus
	Currency            string // token code
	Amount              decimal.Decimal
	ToUserID            string
	ToAddress           string
	ToStablecoin        string
	SlippageBps         int
	Description         string
	RequiredSignatures  int
	CollectedSignatures int
	Approvals           []string // serviceUserIds
	RequiredApprovals   int
	ApprovalMode        string
	RejectionReason     string
	FailureReason       string
	Round               int
	CreatedByStaffID    int64 // 0 when not created in the app
	CreatedAt           time.Time
	UpdatedAt           time.Time
	SyncedAt            time.Time
	// SignDeadline is the expiry of the open sign request, if any.
	SignDeadline *time.Time
}

// InQueue reports whether the queue shows the proposal.
func (p Proposal) InQueue() bool { return slices.Contains(QueueStatuses, p.Status) }

// openSignRequest is the condition "the sign request sr is open": unused, or
// its signature is on its way (its relay action is not refused).
const openSignRequest = `sr.state IN ('waiting', 'opened')
	AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.key = 'sign:' || sr.id AND a.state = 'refused')`

const proposalColumns = `id, wallet_id, owner_user_id, type, status, currency, amount::text, to_user_id, to_address,
	to_stablecoin, slippage_bps, description, required_signatures, collected_signatures, approvals, required_approvals,
	approval_mode, rejection_reason, failure_reason, round, coalesce(created_by_staff_id, 0), upstream_created_at,
	upstream_updated_at, synced_at,
	(SELECT max(sr.expires_at) FROM sign_requests sr WHERE sr.proposal_id = proposals.id AND ` + openSignRequest + `)`

func scanProposal(row pgx.Row) (Proposal, error) {
	var p Proposal
	var amount string
	err := row.Scan(&p.ID, &p.WalletID, &p.OwnerUserID, &p.Type, &p.Status, &p.Currency, &amount, &p.ToUserID, &p.ToAddress,
		&p.ToStablecoin, &p.SlippageBps, &p.Description, &p.RequiredSignatures, &p.CollectedSignatures, &p.Approvals,
		&p.RequiredApprovals, &p.ApprovalMode, &p.RejectionReason, &p.FailureReason, &p.Round, &p.CreatedByStaffID,
		&p.CreatedAt, &p.UpdatedAt, &p.SyncedAt, &p.SignDeadline)
	if err != nil {
		return p, err
	}
	if p.Amount, err = decimal.NewFromString(amount); err != nil {
		return p, fmt.Errorf("amount %q: %w", amount, err)
	}
	return p, nil
}

// ProposalChange is what an upsert learned: the row before (nil when new)
// and after.
type ProposalChange struct {
	Before *Proposal
	After  Proposal
}

// Changed reports whether the upsert changed the status or the counts.
func (c ProposalChange) Changed() bool {
	b := c.Before
	return b == nil || b.Status != c.After.Status || len(b.Approvals) != len(c.After.Approvals) ||
		b.CollectedSignatures != c.After.CollectedSignatures
}

// UpsertProposal records a proposal as read from the API, and adds the
// timeline entries the change implies (created, status changes) in the same
// transaction. Staff-made events (approvals, rejections) are written by the
// actions themselves.
func (s *Store) UpsertProposal(ctx context.Context, p Proposal) (ProposalChange, error) {
	var ch ProposalChange
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		ch, err = upsertProposalTx(ctx, tx, p)
		return err
	})
	return ch, err
}

func upsertProposalTx(ctx context.Context, tx pgx.Tx, p Proposal) (ProposalChange, error) {
	var ch ProposalChange
	before, err := scanProposal(tx.QueryRow(ctx, `SELECT `+proposalColumns+` FROM proposals WHERE id = $1 FOR UPDATE`, p.ID))
	switch {
	case err == nil:
		ch.Before = &before
	case errors.Is(err, pgx.ErrNoRows):
	default:
		return ch, fmt.Errorf("store: load proposal %s: %w", p.ID, err)
	}
	if p.Approvals == nil {
		p.Approvals = []string{}
	}
	if ch.Before != nil && olderThan(p, *ch.Before) {
		// Two answers raced (two approvals landing together): the older
		// one must not set the mirror back. Only what the older one adds
		// is kept: the creator, when the mirror did not know it yet.
		after := *ch.Before
		if p.CreatedByStaffID != 0 && after.CreatedByStaffID == 0 {
			if _, err := tx.Exec(ctx, `UPDATE proposals SET created_by_staff_id = $2 WHERE id = $1 AND created_by_staff_id IS NULL`,
				p.ID, p.CreatedByStaffID); err != nil {
				return ch, fmt.Errorf("store: upsert proposal %s: %w", p.ID, err)
			}
			after.CreatedByStaffID = p.CreatedByStaffID
		}
		ch.After = after
		return ch, nil
	}
	var createdBy *int64
	if p.CreatedByStaffID != 0 {
		createdBy = &p.CreatedByStaffID
	}
	after, err := scanProposal(tx.QueryRow(ctx, `
		INSERT INTO proposals (id, wallet_id, owner_user_id, type, status, currency, amount, to_user_id, to_address,
			to_stablecoin, slippage_bps, description, required_signatures, collected_signatures, approvals,
			required_approvals, approval_mode, rejection_reason, failure_reason, created_by_staff_id,
			upstream_created_at, upstream_updated_at, synced_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, now())
		ON CONFLICT (id) DO UPDATE SET
			status = EXCLUDED.status, currency = EXCLUDED.currency, amount = EXCLUDED.amount,
			to_user_id = EXCLUDED.to_user_id, to_address = EXCLUDED.to_address, to_stablecoin = EXCLUDED.to_stablecoin,
			slippage_bps = EXCLUDED.slippage_bps, description = EXCLUDED.description,
			required_signatures = EXCLUDED.required_signatures, collected_signatures = EXCLUDED.collected_signatures,
			approvals = EXCLUDED.approvals, required_approvals = EXCLUDED.required_approvals,
			approval_mode = EXCLUDED.approval_mode, rejection_reason = EXCLUDED.rejection_reason,
			failure_reason = EXCLUDED.failure_reason,
			created_by_staff_id = coalesce(proposals.created_by_staff_id, EXCLUDED.created_by_staff_id),
			upstream_updated_at = EXCLUDED.upstream_updated_at, synced_at = now()
		RETURNING `+proposalColumns,
		p.ID, p.WalletID, p.OwnerUserID, p.Type, p.Status, p.Currency, p.Amount.String(), p.ToUserID, p.ToAddress,
		p.ToStablecoin, p.SlippageBps, p.Description, p.RequiredSignatures, p.CollectedSignatures, p.Approvals,
		p.RequiredApprovals, p.ApprovalMode, p.RejectionReason, p.FailureReason, createdBy, p.CreatedAt, p.UpdatedAt))
	if err != nil {
		return ch, fmt.Errorf("store: upsert proposal %s: %w", p.ID, err)
	}
	ch.After = after
	switch {
	case ch.Before == nil:
		if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: p.ID, At: p.CreatedAt, Kind: EventCreated,
			StaffID: p.CreatedByStaffID, Detail: "status " + string(p.Status)}); err != nil {
			return ch, err
		}
	case ch.Before.Status != after.Status:
		detail := string(ch.Before.Status) + " → " + string(after.Status)
		switch {
		case after.FailureReason != "" && after.Status == ProposalFailed:
			detail += ": " + after.FailureReason
		case after.RejectionReason != "" && after.Status == ProposalRejected:
			detail += ": " + after.RejectionReason
		}
		if err := addProposalEvent(ctx, tx, ProposalEvent{ProposalID: p.ID, Kind: EventStatus, Detail: detail}); err != nil {
			return ch, err
		}
	}
	return ch, nil
}

// SameUpstream reports whether recording p, as read from the API, would
// change nothing of held, the mirror's row, but the time it was synced:
// every field the upsert writes is equal, and p names no creator held lacks.
func (p Proposal) SameUpstream(held Proposal) bool {
	approvals := p.Approvals
	if approvals == nil {
		approvals = []string{}
	}
	d := p.UpdatedAt.Sub(held.UpdatedAt)
	return p.ID == held.ID && p.Status == held.Status && p.Currency == held.Currency && p.Amount.Equal(held.Amount) &&
		p.ToUserID == held.ToUserID && p.ToAddress == held.ToAddress && p.ToStablecoin == held.ToStablecoin &&
		p.SlippageBps == held.SlippageBps && p.Description == held.Description &&
		p.RequiredSignatures == held.RequiredSignatures && p.CollectedSignatures == held.CollectedSignatures &&
		slices.Equal(approvals, held.Approvals) && p.RequiredApprovals == held.RequiredApprovals &&
		p.ApprovalMode == held.ApprovalMode && p.RejectionReason == held.RejectionReason && p.FailureReason == held.FailureReason &&
		(p.CreatedByStaffID == 0 || held.CreatedByStaffID != 0) &&
		// PostgreSQL keeps microseconds.
		d < time.Microsecond && d > -time.Microsecond
}

// StampProposalsSynced records that a sync read the proposals ids and
// found them as the mirror holds them: one statement for all of them,
// instead of a transaction each. synced_at is in no index, so each row's
// update is heap-only.
func (s *Store) StampProposalsSynced(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.db.Exec(ctx, `UPDATE proposals SET synced_at = now() WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("store: stamp synced proposals: %w", err)
	}
	return nil
}

// olderThan reports whether p, as read from the API, is older than what the
// mirror holds: updated earlier upstream, or at the same instant with less
// progress (fewer approvals or signatures).
func olderThan(p, held Proposal) bool {
	switch {
	case p.UpdatedAt.IsZero() || held.UpdatedAt.IsZero():
		return false
	case p.UpdatedAt.Before(held.UpdatedAt):
		return true
	case p.UpdatedAt.Equal(held.UpdatedAt):
		return len(p.Approvals) < len(held.Approvals) || p.CollectedSignatures < held.CollectedSignatures
	}
	return false
}

// ProposalByID loads one proposal.
func (s *Store) ProposalByID(ctx context.Context, id string) (Proposal, error) {
	p, err := scanProposal(s.db.QueryRow(ctx, `SELECT `+proposalColumns+` FROM proposals WHERE id = $1`, id))
	if err != nil {
		return Proposal{}, fmt.Errorf("store: load proposal %s: %w", id, notFound(err))
	}
	return p, nil
}

// QueueFilter selects rows of the approval queue.
type QueueFilter struct {
	// NeedsApprovalBy keeps PENDING_APPROVALS proposals that serviceUserId
	// has not approved yet and that were not created by ExcludeCreator.
	NeedsApprovalBy string
	ExcludeCreator  int64
	Status          ProposalStatus // one state, e.g. PENDING_SIGNATURES or FAILED
	Type            string
	// UserID keeps proposals from or to that serviceUserId.
	UserID string
	// Before continues after the last row of the previous page (keyset).
	BeforeAt time.Time
	BeforeID string
	Limit    int
	// ExactTotal has ListQueuePage count a filter that the kept counts do
	// not answer to the end, not up to QueueCountCap.
	ExactTotal bool
	// Person keeps proposals whose owner or recipient matches this as the
	// employee list's search does (words starting words of the name, email
	// or serviceUserId).
	Person string
}

// ListQueue returns the open (and FAILED) proposals, newest first.
func (s *Store) ListQueue(ctx context.Context, f QueueFilter) ([]Proposal, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	where, args := queueWhere(f)
	args = append(args, f.Limit)
	sql := `SELECT ` + proposalColumns + ` FROM proposals WHERE ` + strings.Join(where, " AND ") +
		fmt.Sprintf(` ORDER BY upstream_created_at DESC, id DESC LIMIT $%d`, len(args))
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list queue: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Proposal, error) { return scanProposal(r) })
	if err != nil {
		return nil, fmt.Errorf("store: list queue: %w", err)
	}
	return list, nil
}

// queueStatusCondition selects open proposals; the states are constants in
// the text so that the planner can use the partial queue index.
func queueStatusCondition() string {
	return "status IN ('" + strings.Join(queueStatusTexts(), "', '") + "')"
}

func queueWhere(f QueueFilter) ([]string, []any) {
	// The states are inlined (constants) so the planner can use the
	// partial queue index.
	where := []string{queueStatusCondition()}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.NeedsApprovalBy != "" {
		where = append(where, "status = 'PENDING_APPROVALS' AND NOT ("+arg(f.NeedsApprovalBy)+" = ANY(approvals))")
	}
	if f.ExcludeCreator != 0 {
		where = append(where, "coalesce(created_by_staff_id, 0) <> "+arg(f.ExcludeCreator))
	}
	if f.Status != "" {
		where = append(where, "status = "+arg(f.Status))
	}
	if f.Type != "" {
		where = append(where, "type = "+arg(f.Type))
	}
	if f.UserID != "" {
		a := arg(f.UserID)
		where = append(where, "(owner_user_id = "+a+" OR to_user_id = "+a+")")
	}
	if q := strings.TrimSpace(f.Person); q != "" {
		people := "(SELECT service_user_id FROM employees WHERE " + employeeSearchCond(q, arg) +
			" AND service_user_id IS NOT NULL)"
		where = append(where, "(owner_user_id IN "+people+" OR to_user_id IN "+people+")")
	}
	if !f.BeforeAt.IsZero() {
		where = append(where, "(upstream_created_at, id) < ("+arg(f.BeforeAt)+", "+arg(f.BeforeID)+")")
	}
	return where, args
}

// Timeline event kinds.
const (
	EventCreated       = "created"
	EventStatus        = "status"
	EventApproved      = "approved"
	EventApproveAgain  = "approved_again"
	EventRejected      = "rejected"
	EventSignRequest   = "sign_request"
	EventSignOpened    = "sign_opened"
	EventSignSubmitted = "signature_submitted"
)

// ProposalEvent is one entry of a proposal's timeline.
type ProposalEvent struct {
	ID         int64
	ProposalID string
	At         time.Time
	Kind       string
	StaffID    int64
	Actor      string // staff email, "device" or "" for the sync
	Detail     string
}

// addProposalEvent appends a timeline entry. It first locks the proposal's
// row: the entry's foreign key takes a key-share lock on it, and two
// transactions that each held that lock and then updated the proposal (an
// approval finishing beside another) deadlocked. Taking the row lock first
// makes writers of one proposal's timeline queue instead.
func addProposalEvent(ctx context.Context, tx pgx.Tx, e ProposalEvent) error {
	if _, err := tx.Exec(ctx, `SELECT 1 FROM proposals WHERE id = $1 FOR UPDATE`, e.ProposalID); err != nil {
		return fmt.Errorf("store: lock proposal %s: %w", e.ProposalID, err)
	}
	var staffID *int64
	if e.StaffID != 0 {
		staffID = &e.StaffID
	}
	at := e.At
	if at.IsZero() {
		at = time.Now()
	}
	_, err := tx.Exec(ctx, `INSERT INTO proposal_events (proposal_id, at, kind, staff_id, actor, detail) VALUES ($1, $2, $3, $4, $5, $6)`,
		e.ProposalID, at, e.Kind, staffID, e.Actor, e.Detail)
	if err != nil {
		return fmt.Errorf("store: add proposal event %s: %w", e.Kind, err)
	}
	return nil
}

// AddProposalEvent records a timeline entry on its own.
func (s *Store) AddProposalEvent(ctx context.Context, e ProposalEvent) error {
	return s.InTx(ctx, func(tx pgx.Tx) error { return addProposalEvent(ctx, tx, e) })
}

// proposalEventsSQL is proposal $1's timeline, oldest first.
const proposalEventsSQL = `SELECT e.id, e.proposal_id, e.at, e.kind, coalesce(e.staff_id, 0),
	coalesce(nullif(e.actor, ''), st.email, ''), e.detail
	FROM proposal_events e LEFT JOIN staff st ON st.id = e.staff_id WHERE e.proposal_id = $1 ORDER BY e.at, e.id`

func scanProposalEvent(r pgx.CollectableRow) (ProposalEvent, error) {
	var e ProposalEvent
	err := r.Scan(&e.ID, &e.ProposalID, &e.At, &e.Kind, &e.StaffID, &e.Actor, &e.Detail)
	return e, err
}

// ProposalEvents returns a proposal's timeline, oldest first.
func (s *Store) ProposalEvents(ctx context.Context, proposalID string) ([]ProposalEvent, error) {
	rows, err := s.db.Query(ctx, proposalEventsSQL, proposalID)
	if err != nil {
		return nil, fmt.Errorf("store: proposal events: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanProposalEvent)
	if err != nil {
		return nil, fmt.Errorf("store: proposal events: %w", err)
	}
	return list, nil
}

// WalletOwners maps each wallet id to its user's serviceUserId, for the
// sync job.
func (s *Store) WalletOwners(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.Query(ctx, `SELECT w.id, e.service_user_id FROM wallets w JOIN employees e ON e.id = w.employee_id
		WHERE e.service_user_id IS NOT NULL AND e.deleted_at IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("store: wallet owners: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var id, user string
		if err := rows.Scan(&id, &user); err != nil {
			return nil, fmt.Errorf("store: wallet owners: %w", err)
		}
		m[id] = user
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: wallet owners: %w", err)
	}
	return m, nil
}

// QueueUser is a user that appears in the queue, for the employee filter.
type QueueUser struct {
	ServiceUserID string
	Name          string
}

// QueueUsers lists the users named by queued proposals (owner or
// recipient), by name.
func (s *Store) QueueUsers(ctx context.Context) ([]QueueUser, error) {
	rows, err := s.db.Query(ctx, `SELECT e.service_user_id, e.first_name, e.last_name, e.email FROM employees e
		WHERE e.service_user_id IN (SELECT owner_user_id FROM proposals WHERE status = ANY($1)
			UNION SELECT to_user_id FROM proposals WHERE status = ANY($1))
		ORDER BY lower(e.first_name || ' ' || e.last_name), e.id`, queueStatusTexts())
	if err != nil {
		return nil, fmt.Errorf("store: queue users: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (QueueUser, error) {
		var e Employee
		err := r.Scan(&e.ServiceUserID, &e.FirstName, &e.LastName, &e.Email)
		return QueueUser{ServiceUserID: e.ServiceUserID, Name: e.Name()}, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: queue users: %w", err)
	}
	return list, nil
}

// LastProposalSync returns when the mirror last read a proposal (zero when
// never).
func (s *Store) LastProposalSync(ctx context.Context) (time.Time, error) {
	var t *time.Time
	if err := s.db.QueryRow(ctx, `SELECT max(synced_at) FROM proposals`).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("store: last proposal sync: %w", err)
	}
	if t == nil {
		return time.Time{}, nil
	}
	return *t, nil
}

// queueOuterColumns is proposalColumns over the paged subquery q.
const queueOuterColumns = `q.id, q.wallet_id, q.owner_user_id, q.type, q.status, q.currency, q.amount::text, q.to_user_id, q.to_address,
	q.to_stablecoin, q.slippage_bps, q.description, q.required_signatures, q.collected_signatures, q.approvals, q.required_approvals,
	q.approval_mode, q.rejection_reason, q.failure_reason, q.round, coalesce(q.created_by_staff_id, 0), q.upstream_created_at,
	q.upstream_updated_at, q.synced_at,
	(SELECT max(sr.expires_at) FROM sign_requests sr WHERE sr.proposal_id = q.id AND ` + openSignRequest + `)`

// QueuePage is one page of the queue with the names it mentions and the
// total of all pages, read in one round trip.
type QueuePage struct {
	Rows  []Proposal
	Names map[string]Employee // by serviceUserId
	// Total is how many proposals match the filter on every page; when
	// TotalOver is set, more than Total match (a filter on a person or on
	// whose approval is needed is counted up to QueueCountCap only).
	Total     int
	TotalOver bool
}

// QueueCountCap is how far ListQueuePage counts the proposals of a filter
// that queue_counts does not keep (a person, "needs my approval").
const QueueCountCap = 500

// queueTotalSQL is the filter's total from the counts kept by migration
// 0054 (a few rows), for a filter on the state and the type only.
const queueTotalSQL = `SELECT coalesce(sum(n), 0) FROM queue_counts WHERE ($1 = '' OR status = $1) AND ($2 = '' OR type = $2)`

// keptTotal reports whether queue_counts holds f's total: a filter on the
// state and the type only.
func (f QueueFilter) keptTotal() bool {
	return f.NeedsApprovalBy == "" && f.ExcludeCreator == 0 && f.UserID == "" && strings.TrimSpace(f.Person) == ""
}

// ListQueuePage is ListQueue with the names of owners and recipients and the
// total of every page (the filter without the keyset), in one round trip:
// the page and the total are two statements sent as one pipelined batch.
// The total of a filter on the state and the type is read from the counts
// the proposals' trigger keeps (migration 0054); any other filter's is
// counted, up to QueueCountCap.

func (s *Store) ListQueuePage(ctx context.Context, f QueueFilter) (QueuePage, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	where, args := queueWhere(f)
	// The inner query pages plain rows (the queue index serves the order);
	// the sign deadline and the names are looked up for that page only,
	// one index read per row: the LIMIT 1 keeps each lookup a subquery of
	// its own: as plain joins, PostgreSQL may merge-join the page with the
	// employees' service_user_id index, reading it from the start up to
	// the page's last owner.
	sql := `SELECT ` + queueOuterColumns + `,
			coalesce(o.first_name, ''), coalesce(o.last_name, ''), coalesce(o.email, ''),
			coalesce(t.first_name, ''), coalesce(t.last_name, ''), coalesce(t.email, '')
		FROM (SELECT * FROM proposals WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY upstream_created_at DESC, id DESC LIMIT ` + strconv.Itoa(f.Limit) + `) q
		LEFT JOIN LATERAL (SELECT first_name, last_name, email FROM employees
			WHERE service_user_id = q.owner_user_id LIMIT 1) o ON true
		LEFT JOIN LATERAL (SELECT first_name, last_name, email FROM employees
			WHERE service_user_id = q.to_user_id AND q.to_user_id <> '' LIMIT 1) t ON true
		ORDER BY q.upstream_created_at DESC, q.id DESC`
	batch := &pgx.Batch{}
	// Sized for the page: appending Proposals (some 400 bytes each) to a
	// growing slice copied the page six times over.
	page := QueuePage{Rows: make([]Proposal, 0, f.Limit), Names: make(map[string]Employee, f.Limit)}
	batch.Queue(sql, args...).Query(page.readRows)
	queueTotal(batch, f, &page)
	if err := s.db.SendBatch(ctx, batch).Close(); err != nil {
		return QueuePage{}, fmt.Errorf("store: queue page: %w", err)
	}
	return page, nil
}

// readRows appends the page's rows and the names of their employees.
func (page *QueuePage) readRows(rows pgx.Rows) error {
	for rows.Next() {
		var p Proposal
		var amount string
		var owner, to Employee
		err := rows.Scan(&p.ID, &p.WalletID, &p.OwnerUserID, &p.Type, &p.Status, &p.Currency, &amount, &p.ToUserID, &p.ToAddress,
			&p.ToStablecoin, &p.SlippageBps, &p.Description, &p.RequiredSignatures, &p.CollectedSignatures, &p.Approvals,
			&p.RequiredApprovals, &p.ApprovalMode, &p.RejectionReason, &p.FailureReason, &p.Round, &p.CreatedByStaffID,
			&p.CreatedAt, &p.UpdatedAt, &p.SyncedAt, &p.SignDeadline,
			&owner.FirstName, &owner.LastName, &owner.Email, &to.FirstName, &to.LastName, &to.Email)
		if err != nil {
			return err
		}
		if p.Amount, err = decimal.NewFromString(amount); err != nil {
			return fmt.Errorf("amount %q: %w", amount, err)
		}
		if owner.Email != "" {
			owner.ServiceUserID = p.OwnerUserID
			page.Names[p.OwnerUserID] = owner
		}
		if to.Email != "" {
			to.ServiceUserID = p.ToUserID
			page.Names[p.ToUserID] = to
		}
		page.Rows = append(page.Rows, p)
	}
	return rows.Err()
}

// queueTotal queues the count of the filter's proposals on batch, into
// page: the kept total where there is one, else a count capped at
// QueueCountCap unless the filter asks for the exact figure.
func queueTotal(batch *pgx.Batch, f QueueFilter, page *QueuePage) {
	if f.keptTotal() {
		batch.Queue(queueTotalSQL, string(f.Status), f.Type).QueryRow(func(row pgx.Row) error {
			return row.Scan(&page.Total)
		})
	} else {
		all := f
		all.BeforeAt, all.BeforeID = time.Time{}, ""
		countWhere, countArgs := queueWhere(all)
		limit := ""
		if !f.ExactTotal {
			limit = ` LIMIT ` + strconv.Itoa(QueueCountCap+1)
		}
		batch.Queue(`SELECT count(*) FROM (SELECT FROM proposals WHERE `+strings.Join(countWhere, " AND ")+limit+`) c`,
			countArgs...).QueryRow(func(row pgx.Row) error {
			if err := row.Scan(&page.Total); err != nil {
				return err
			}
			if !f.ExactTotal && page.Total > QueueCountCap {
				page.Total, page.TotalOver = QueueCountCap, true
			}
			return nil
		})
	}
}
