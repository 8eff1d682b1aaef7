package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// HistoryStatuses are the states the approval history shows: settled
// (completed, rejected, expired) and failed. FAILED is in the queue too,
// since it may be approved again.
var HistoryStatuses = []ProposalStatus{ProposalCompleted, ProposalRejected, ProposalFailed, ProposalExpired}

// historyStatusCondition selects the history's proposals; the states are
// constants in the text so that the planner can use the partial index of
// migration 0036.
const historyStatusCondition = `status IN ('COMPLETED', 'REJECTED', 'FAILED', 'EXPIRED')`

// HistoryFilter selects rows of the approval history, newest change first.
type HistoryFilter struct {
	Status ProposalStatus // one of HistoryStatuses, or "" for all
	Type   string
	// UserID keeps proposals from or to that serviceUserId.
	UserID string
	// WalletID keeps proposals of one wallet.
	WalletID string
	// Person keeps proposals whose owner or recipient matches it as the
	// employee list's search does.
	Person string
	// From and To keep proposals last changed at or after From and before
	// To (zero: open).
	From, To time.Time
	// Before continues after the last row of the previous page (keyset on
	// the last change, then the id).
	BeforeAt time.Time
	BeforeID string
	Limit    int
}

// HistoryEntry is a settled or failed proposal with who decided it.
type HistoryEntry struct {
	Proposal
	// ApprovedBy maps the serviceUserId of each approval of the last round
	// to the staff member who sent it through the app (name, or email).
	ApprovedBy map[string]string
	// RejectedBy is the staff member who rejected it here ("" when it was
	// rejected elsewhere or not at all).
	RejectedBy string
	// SignDeadline is the deadline of the last signing link sent to the
	// owner's device, alone or in a batch (nil when none was sent).
	SignDeadline *time.Time
	// SentToDeviceBy is the staff member who sent that link.
	SentToDeviceBy string
}

// historyWhere is the filter's condition and arguments.
func historyWhere(f HistoryFilter) ([]string, []any) {
	where := []string{historyStatusCondition}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		where = append(where, "status = "+arg(string(f.Status)))
	}
	if f.Type != "" {
		where = append(where, "type = "+arg(f.Type))
	}
	if f.UserID != "" {
		a := arg(f.UserID)
		where = append(where, "(owner_user_id = "+a+" OR to_user_id = "+a+")")
	}
	if f.WalletID != "" {
		where = append(where, "wallet_id = "+arg(f.WalletID))
	}
	if q := strings.TrimSpace(f.Person); q != "" {
		people := "(SELECT service_user_id FROM employees WHERE " + employeeSearchCond(q, arg) +
			" AND service_user_id IS NOT NULL)"
		where = append(where, "(owner_user_id IN "+people+" OR to_user_id IN "+people+")")
	}
	if !f.From.IsZero() {
		where = append(where, "upstream_updated_at >= "+arg(f.From))
	}
	if !f.To.IsZero() {
		where = append(where, "upstream_updated_at < "+arg(f.To))
	}
	if !f.BeforeAt.IsZero() {
		where = append(where, "(upstream_updated_at, id) < ("+arg(f.BeforeAt)+", "+arg(f.BeforeID)+")")
	}
	return where, args
}

// staffLabel is a staff member's name, or their email when they have none.
const staffLabel = `coalesce(nullif(st.name, ''), st.email)`

// ListHistory returns one page of the approval history: settled and failed
// proposals, the most recently changed first, each with who approved it in
// its last round, who rejected it and its last signing deadline, in one
// query (the lookups run for the page's rows only).
func (s *Store) ListHistory(ctx context.Context, f HistoryFilter) ([]HistoryEntry, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	where, args := historyWhere(f)
	sql := `SELECT ` + queueOuterColumns + `,
			coalesce((SELECT array_agg(pa.service_user_id ORDER BY pa.at, pa.service_user_id) FROM proposal_approvals pa
				WHERE pa.proposal_id = q.id AND pa.round = q.round AND pa.state = 'approved'), '{}'),
			coalesce((SELECT array_agg(` + staffLabel + ` ORDER BY pa.at, pa.service_user_id) FROM proposal_approvals pa JOIN staff st ON st.id = pa.staff_id
				WHERE pa.proposal_id = q.id AND pa.round = q.round AND pa.state = 'approved'), '{}'),
			coalesce((SELECT coalesce(` + staffLabel + `, nullif(e.actor, '')) FROM proposal_events e LEFT JOIN staff st ON st.id = e.staff_id
				WHERE e.proposal_id = q.id AND e.kind = 'rejected' ORDER BY e.at DESC, e.id DESC LIMIT 1), ''),
			link.deadline, coalesce(link.by, '')
		FROM (SELECT * FROM proposals WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY upstream_updated_at DESC, id DESC LIMIT ` + strconv.Itoa(f.Limit) + `) q
		LEFT JOIN LATERAL (
			SELECT l.deadline, l.by FROM (
				SELECT sr.expires_at AS deadline, ` + staffLabel + ` AS by, sr.created_at AS at
				FROM sign_requests sr LEFT JOIN staff st ON st.id = sr.created_by_staff_id WHERE sr.proposal_id = q.id
				UNION ALL
				SELECT i.deadline, ` + staffLabel + `, b.created_at
				FROM sign_batch_items i JOIN sign_batches b ON b.id = i.batch_id LEFT JOIN staff st ON st.id = b.created_by_staff_id
				WHERE i.proposal_id = q.id
			) l ORDER BY l.at DESC LIMIT 1
		) link ON true
		ORDER BY q.upstream_updated_at DESC, q.id DESC`
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list approval history: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (HistoryEntry, error) {
		var h HistoryEntry
		p := &h.Proposal
		var amount string
		var admins, staff []string
		err := row.Scan(&p.ID, &p.WalletID, &p.OwnerUserID, &p.Type, &p.Status, &p.Currency, &amount, &p.ToUserID, &p.ToAddress,
			&p.ToStablecoin, &p.SlippageBps, &p.Description, &p.RequiredSignatures, &p.CollectedSignatures, &p.Approvals,
			&p.RequiredApprovals, &p.ApprovalMode, &p.RejectionReason, &p.FailureReason, &p.Round, &p.CreatedByStaffID,
			&p.CreatedAt, &p.UpdatedAt, &p.SyncedAt, &p.SignDeadline,
			&admins, &staff, &h.RejectedBy, &h.SignDeadline, &h.SentToDeviceBy)
		if err != nil {
			return h, err
		}
		if p.Amount, err = decimal.NewFromString(amount); err != nil {
			return h, fmt.Errorf("amount %q: %w", amount, err)
		}
		h.ApprovedBy = make(map[string]string, len(admins))
		for i, a := range admins {
			if i < len(staff) {
				h.ApprovedBy[a] = staff[i]
			}
		}
		return h, nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list approval history: %w", err)
	}
	return list, nil
}
