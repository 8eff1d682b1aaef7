package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// PolicyKind is what a policy change changes.
type PolicyKind string

// Policy kinds.
const (
	PolicyLimits       PolicyKind = "limits"        // one treasury wallet's spending policy
	PolicySettings     PolicyKind = "settings"      // cooling-off period and sending outside the book
	PolicyApprovalMode PolicyKind = "approval_mode" // the account's approval mode at the Partner API
)

// Label is the kind in people's words.
func (k PolicyKind) Label() string {
	switch k {
	case PolicyLimits:
		return "Spending policy"
	case PolicySettings:
		return "Controls settings"
	case PolicyApprovalMode:
		return "Approval mode"
	}
	return string(k)
}

// OutsideBook is what happens to money sent to a destination outside the
// address book.
type OutsideBook string

// The choices; refused is the default.
const (
	OutsideBookRefused    OutsideBook = "refused"
	OutsideBookOwnerAsked OutsideBook = "owner" // an owner may send it; others are refused
)

// ControlSettings are the settings of the money controls.
type ControlSettings struct {
	CoolingOffHours int         `json:"coolingOffHours"`
	OutsideBook     OutsideBook `json:"outsideBook"`
}

// DefaultControlSettings are in force until two owners change them.
func DefaultControlSettings() ControlSettings {
	return ControlSettings{CoolingOffHours: 24, OutsideBook: OutsideBookRefused}
}

// CoolingOff is the cooling-off period.
func (c ControlSettings) CoolingOff() time.Duration {
	return time.Duration(c.CoolingOffHours) * time.Hour
}

// WalletLimits is one treasury wallet's spending policy. An invalid
// NullDecimal is no limit.
type WalletLimits struct {
	// Currency is the wallet's stablecoin: a limit is in the wallet's own
	// currency.
	Currency string              `json:"currency"`
	Day      decimal.NullDecimal `json:"day"`
	Week     decimal.NullDecimal `json:"week"`
	// MaxSharePercent bounds one request as a share of the wallet's
	// balance.
	MaxSharePercent decimal.NullDecimal `json:"maxSharePercent"`
	// Above StepUpAbove, StepUpApprovals approvals in the app by distinct
	// staff come before the owner's signature is asked for.
	StepUpAbove     decimal.NullDecimal `json:"stepUpAbove"`
	StepUpApprovals int                 `json:"stepUpApprovals"`
	// StepUpBy names the staff whose approvals count above the tier (empty:
	// anyone who may approve, other than the request's creator).
	StepUpBy []int64 `json:"stepUpBy,omitempty"`
}

// Any reports whether the policy limits anything.
func (l WalletLimits) Any() bool {
	return l.Day.Valid || l.Week.Valid || l.MaxSharePercent.Valid || l.StepUpAbove.Valid
}

// ApprovalModeBody is a proposed approval mode of the account.
type ApprovalModeBody struct {
	Mode      string   `json:"mode"`
	Admins    []string `json:"admins"`
	Threshold int      `json:"threshold,omitempty"`
}

// PolicyState is where a policy change stands.
type PolicyState string

// Policy change states.
const (
	PolicyProposed PolicyState = "proposed"
	PolicyApproved PolicyState = "approved"
	PolicyRejected PolicyState = "rejected"
	PolicyFailed   PolicyState = "failed" // the Partner API refused it
)

// PolicyChange is one proposed change of a policy.
type PolicyChange struct {
	ID          int64
	Kind        PolicyKind
	Target      string
	Body        json.RawMessage
	Summary     string
	ProposedBy  StaffRef
	ProposedAt  time.Time
	State       PolicyState
	DecidedBy   StaffRef
	DecidedAt   *time.Time
	EffectiveAt *time.Time
}

// InForce reports whether the change is approved and its time has come.
func (c PolicyChange) InForce(now time.Time) bool {
	return c.State == PolicyApproved && c.EffectiveAt != nil && !now.Before(*c.EffectiveAt)
}

// Decode reads the change's body into v.
func (c PolicyChange) Decode(v any) error {
	if err := json.Unmarshal(c.Body, v); err != nil {
		return fmt.Errorf("store: policy change %d body: %w", c.ID, err)
	}
	return nil
}

const policyChangeColumns = `c.id, c.kind, c.target, c.body, c.summary, c.proposed_by, COALESCE(p.name, ''), c.proposed_at,
	c.state, COALESCE(c.decided_by, 0), COALESCE(d.name, ''), c.decided_at, c.effective_at`

const policyChangeFrom = ` FROM policy_changes c JOIN staff p ON p.id = c.proposed_by LEFT JOIN staff d ON d.id = c.decided_by `

func scanPolicyChange(row pgx.Row) (PolicyChange, error) {
	var c PolicyChange
	err := row.Scan(&c.ID, &c.Kind, &c.Target, &c.Body, &c.Summary, &c.ProposedBy.ID, &c.ProposedBy.Name, &c.ProposedAt,
		&c.State, &c.DecidedBy.ID, &c.DecidedBy.Name, &c.DecidedAt, &c.EffectiveAt)
	return c, err
}

func policyTarget(id int64) string { return "policy_change:" + strconv.FormatInt(id, 10) }

// NewPolicyChange is a change about to be proposed.
type NewPolicyChange struct {
	Kind    PolicyKind
	Target  string
	Body    any
	Summary string // the change in words, for the page, the audit log and the announcement
	By      Actor
	At      time.Time
}

// ProposePolicyChange records a proposed change with its audit row.
func (s *Store) ProposePolicyChange(ctx context.Context, n NewPolicyChange) (PolicyChange, error) {
	body, err := json.Marshal(n.Body)
	if err != nil {
		return PolicyChange{}, fmt.Errorf("store: propose policy change: encode: %w", err)
	}
	var out PolicyChange
	err = s.Tx(ctx, func(tx *Store) error {
		var id int64
		if err := tx.db.QueryRow(ctx, `INSERT INTO policy_changes (kind, target, body, summary, proposed_by, proposed_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, n.Kind, n.Target, body, n.Summary, n.By.StaffID, n.At).Scan(&id); err != nil {
			return fmt.Errorf("store: propose policy change: %w", err)
		}
		if out, err = tx.PolicyChange(ctx, id); err != nil {
			return err
		}
		return writeAudit(ctx, tx.db, AuditEntry{Actor: n.By, Action: "policy.propose", Target: policyTarget(id), Outcome: OutcomeOK,
			Detail: n.Kind.Label() + " change proposed: " + n.Summary})
	})
	return out, err
}

// PolicyChange returns one change.
func (s *Store) PolicyChange(ctx context.Context, id int64) (PolicyChange, error) {
	c, err := scanPolicyChange(s.db.QueryRow(ctx, `SELECT `+policyChangeColumns+policyChangeFrom+`WHERE c.id = $1`, id))
	if err != nil {
		return PolicyChange{}, fmt.Errorf("store: policy change %d: %w", id, notFound(err))
	}
	return c, nil
}

// PolicyChanges returns changes newest first, before beforeID when it is
// not 0.
func (s *Store) PolicyChanges(ctx context.Context, beforeID int64, limit int) ([]PolicyChange, error) {
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	rows, err := s.db.Query(ctx, `SELECT `+policyChangeColumns+policyChangeFrom+
		`WHERE ($1::bigint = 0 OR c.id < $1::bigint) ORDER BY c.id DESC LIMIT $2`, beforeID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: policy changes: %w", err)
	}
	defer rows.Close()
	var out []PolicyChange
	for rows.Next() {
		c, err := scanPolicyChange(rows)
		if err != nil {
			return nil, fmt.Errorf("store: policy changes: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// lockPolicyChange reads an open change for a decision by another person
// than its proposer, locking it: two owners racing to decide the same
// change make one decision.
func (s *Store) lockPolicyChange(ctx context.Context, id int64, by Actor) (PolicyChange, error) {
	c, err := scanPolicyChange(s.db.QueryRow(ctx, `SELECT `+policyChangeColumns+policyChangeFrom+`WHERE c.id = $1 FOR UPDATE OF c`, id))
	if err != nil {
		return PolicyChange{}, fmt.Errorf("store: policy change %d: %w", id, notFound(err))
	}
	if c.State != PolicyProposed {
		return c, ErrAlreadyDecided
	}
	if c.ProposedBy.ID == by.StaffID {
		return c, ErrSamePerson
	}
	return c, nil
}

// CheckPolicyDecision reports whether by may decide the change now: nil,
// ErrSamePerson or ErrAlreadyDecided.
func (s *Store) CheckPolicyDecision(ctx context.Context, id int64, by Actor) (PolicyChange, error) {
	c, err := s.PolicyChange(ctx, id)
	if err != nil {
		return c, err
	}
	switch {
	case c.State != PolicyProposed:
		return c, ErrAlreadyDecided
	case c.ProposedBy.ID == by.StaffID:
		return c, ErrSamePerson
	}
	return c, nil
}

// ApprovePolicyChange records a second owner's approval: the change is in
// force from effectiveAt. Its proposer gets ErrSamePerson, a change already
// decided ErrAlreadyDecided.
func (s *Store) ApprovePolicyChange(ctx context.Context, id int64, by Actor, now, effectiveAt time.Time) (PolicyChange, error) {
	var out PolicyChange
	err := s.Tx(ctx, func(tx *Store) error {
		c, err := tx.lockPolicyChange(ctx, id, by)
		if err != nil {
			return err
		}
		if _, err := tx.db.Exec(ctx, `UPDATE policy_changes SET state = 'approved', decided_by = $2, decided_at = $3, effective_at = $4
			WHERE id = $1`, id, by.StaffID, now, effectiveAt); err != nil {
			return fmt.Errorf("store: approve policy change %d: %w", id, err)
		}
		if out, err = tx.PolicyChange(ctx, id); err != nil {
			return err
		}
		return writeAudit(ctx, tx.db, AuditEntry{Actor: by, Action: "policy.approve", Target: policyTarget(id), Outcome: OutcomeOK,
			Detail: c.Kind.Label() + " change approved: " + c.Summary})
	})
	return out, err
}

// RejectPolicyChange records that an owner (the proposer too: withdrawing
// it) turned the change down.
func (s *Store) RejectPolicyChange(ctx context.Context, id int64, by Actor, now time.Time) (PolicyChange, error) {
	var out PolicyChange
	err := s.Tx(ctx, func(tx *Store) error {
		c, err := tx.lockPolicyChange(ctx, id, by)
		if err != nil && !errors.Is(err, ErrSamePerson) {
			return err
		}
		if _, err := tx.db.Exec(ctx, `UPDATE policy_changes SET state = 'rejected', decided_by = $2, decided_at = $3 WHERE id = $1`,
			id, by.StaffID, now); err != nil {
			return fmt.Errorf("store: reject policy change %d: %w", id, err)
		}
		if out, err = tx.PolicyChange(ctx, id); err != nil {
			return err
		}
		return writeAudit(ctx, tx.db, AuditEntry{Actor: by, Action: "policy.reject", Target: policyTarget(id), Outcome: OutcomeOK,
			Detail: c.Kind.Label() + " change turned down: " + c.Summary})
	})
	return out, err
}

// SettlePolicyChange records the Partner API's outcome of an approval-mode
// change a second owner approved, inside the ledger's finishing
// transaction: approved and in force now, or failed.
func (s *Store) SettlePolicyChange(ctx context.Context, id int64, by Actor, now time.Time, applied bool) error {
	state := PolicyFailed
	var effective *time.Time
	if applied {
		state, effective = PolicyApproved, &now
	}
	tag, err := s.db.Exec(ctx, `UPDATE policy_changes SET state = $2, decided_by = $3, decided_at = $4, effective_at = $5
		WHERE id = $1 AND state = 'proposed'`, id, state, by.StaffID, now, effective)
	if err != nil {
		return fmt.Errorf("store: settle policy change %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrAlreadyDecided
	}
	return nil
}

// inForce returns the last approved change of a kind and target in force
// at now.
func (s *Store) inForce(ctx context.Context, kind PolicyKind, target string, now time.Time) (PolicyChange, bool, error) {
	c, err := scanPolicyChange(s.db.QueryRow(ctx, `SELECT `+policyChangeColumns+policyChangeFrom+
		`WHERE c.state = 'approved' AND c.kind = $1 AND c.target = $2 AND c.effective_at <= $3
		ORDER BY c.effective_at DESC, c.id DESC LIMIT 1`, kind, target, now))
	if errors.Is(err, pgx.ErrNoRows) {
		return PolicyChange{}, false, nil
	}
	if err != nil {
		return PolicyChange{}, false, fmt.Errorf("store: %s in force: %w", kind, err)
	}
	return c, true, nil
}

// SettingsInForce returns the controls' settings at now.
func (s *Store) SettingsInForce(ctx context.Context, now time.Time) (ControlSettings, error) {
	c, ok, err := s.inForce(ctx, PolicySettings, "", now)
	if err != nil || !ok {
		return DefaultControlSettings(), err
	}
	out := DefaultControlSettings()
	return out, c.Decode(&out)
}

// LimitsInForce returns a wallet's spending policy at now, with the change
// that set it (ok false: none).
func (s *Store) LimitsInForce(ctx context.Context, walletID string, now time.Time) (WalletLimits, PolicyChange, bool, error) {
	c, ok, err := s.inForce(ctx, PolicyLimits, walletID, now)
	if err != nil || !ok {
		return WalletLimits{}, c, false, err
	}
	var l WalletLimits
	return l, c, true, c.Decode(&l)
}

// PolicyAnnouncement is a policy change to announce: proposed, or in force
// from now on.
type PolicyAnnouncement struct {
	ID      int64
	Kind    PolicyKind
	Summary string
	// Effective: it took effect at At; else it was proposed at At.
	Effective bool
	At        time.Time
}

// PolicyChangesToAnnounce lists the changes proposed since since, and the
// approved ones that took effect between since and now, oldest first.
func (s *Store) PolicyChangesToAnnounce(ctx context.Context, since, now time.Time) ([]PolicyAnnouncement, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, kind, summary, false, proposed_at FROM policy_changes WHERE proposed_at > $1
		UNION ALL
		SELECT id, kind, summary, true, effective_at FROM policy_changes
			WHERE state = 'approved' AND effective_at > $1 AND effective_at <= $2
		ORDER BY 5, 1`, since, now)
	if err != nil {
		return nil, fmt.Errorf("store: policy changes to announce: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (PolicyAnnouncement, error) {
		var a PolicyAnnouncement
		err := row.Scan(&a.ID, &a.Kind, &a.Summary, &a.Effective, &a.At)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: policy changes to announce: %w", err)
	}
	return out, nil
}
