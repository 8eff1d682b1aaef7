package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Spend is what a value-moving request takes from a treasury wallet, as
// the policy check sees it.
type Spend struct {
	WalletID string
	Currency string // the wallet's stablecoin
	Amount   decimal.Decimal
	// Destination is a DestinationKey, an EmployeeDestination, or "" for
	// value that stays in the treasury.
	Destination string
	// ByOwner: an owner makes the request (an owner's request may go
	// outside the book when the settings allow it, and may take more than
	// the share of the balance).
	ByOwner bool
	At      time.Time
}

// PolicyRefusal is a request the money controls refuse: which rule, in
// words, and who can change it.
type PolicyRefusal struct {
	Rule    string // the rule's name, e.g. "Daily limit"
	Message string // what is wrong, in words
	Who     string // who can change the rule
	// OnDestination: the refusal is about where the money goes (else
	// about the amount).
	OnDestination bool
}

func (e *PolicyRefusal) Error() string {
	return "store: refused by the money controls: " + e.Rule + ": " + e.Message
}

// Words is the refusal as shown to a person.
func (e *PolicyRefusal) Words() string { return e.Rule + ": " + e.Message + " " + e.Who }

// Velocity is what left a wallet over the last 24 hours and 7 days.
type Velocity struct {
	Day, Week decimal.Decimal
}

// whoChangesLimits says who can change a wallet's spending policy.
const whoChangesLimits = "An owner can propose a change on the Money controls page; a second owner approves it."

// whoChangesBook says how a destination becomes trusted.
const whoChangesBook = "Add it to the address book on the Money controls page; another person confirms it, and it is usable after the cooling-off period."

// VelocityUsed sums what left the wallet in the 24 hours and the 7 days
// before now: every request begun whose action was not refused, whose
// proposal did not fail, was not rejected and did not expire, whose bank
// payout did not fail (the rail refunds it), and whose SEPA or Mexican
// order did not fail, expire, get refunded or get cancelled.
func (s *Store) VelocityUsed(ctx context.Context, walletID string, now time.Time) (Velocity, error) {
	return s.velocityExcept(ctx, walletID, now, "")
}

// velocityExcept is VelocityUsed without the spend of one action.
func (s *Store) velocityExcept(ctx context.Context, walletID string, now time.Time, exceptKey string) (Velocity, error) {
	var v Velocity
	err := s.db.QueryRow(ctx, `
		SELECT COALESCE(sum(s.amount) FILTER (WHERE s.at > $2), 0)::text, COALESCE(sum(s.amount), 0)::text
		FROM policy_spends s
		JOIN actions a ON a.key = s.action_key
		LEFT JOIN proposals p ON a.target LIKE 'proposal:%' AND p.id = substr(a.target, 10)
		LEFT JOIN payouts po ON po.action_key = s.action_key
		LEFT JOIN sepa_mxn_orders o ON o.action_key = s.action_key
		WHERE s.wallet_id = $1 AND s.at > $3 AND a.state <> 'refused' AND s.action_key <> $4
			AND (p.status IS NULL OR p.status NOT IN ('FAILED', 'REJECTED', 'EXPIRED'))
			AND (po.state IS NULL OR po.state <> 'failed')
			AND (o.status IS NULL OR o.status NOT IN ('failed', 'expired', 'refunded', 'canceled'))`,
		walletID, now.Add(-24*time.Hour), now.Add(-7*24*time.Hour), exceptKey).Scan(&v.Day, &v.Week)
	if err != nil {
		return Velocity{}, fmt.Errorf("store: velocity of wallet %s: %w", walletID, err)
	}
	return v, nil
}

// CheckSpend decides whether the money controls allow a request and, when
// they do, records its spend under the action's key. It must run in the
// transaction that begins the action: it locks the wallet's controls, so a
// request begun at the same time waits and then sees this one's spend in
// its sums. A refusal is a *PolicyRefusal.
func (s *Store) CheckSpend(ctx context.Context, actionKey string, sp Spend) error {
	if sp.Amount.IsNegative() {
		return fmt.Errorf("store: check spend: amount %s is negative", sp.Amount)
	}
	if _, err := s.db.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('policy_wallet:' || $1, 0))`, sp.WalletID); err != nil {
		return fmt.Errorf("store: lock wallet %s controls: %w", sp.WalletID, err)
	}
	if err := s.checkDestination(ctx, sp); err != nil {
		return err
	}
	limits, _, ok, err := s.LimitsInForce(ctx, sp.WalletID, sp.At)
	if err != nil {
		return err
	}
	if ok {
		if err := s.checkLimits(ctx, sp, limits); err != nil {
			return err
		}
	}
	if sp.Amount.IsZero() {
		return nil // nothing to count: an amount not known is refused above when a limit applies
	}
	if _, err := s.db.Exec(ctx, `INSERT INTO policy_spends (action_key, wallet_id, currency, amount, destination, at)
		VALUES ($1, $2, $3, $4, $5, $6)`, actionKey, sp.WalletID, sp.Currency, sp.Amount, sp.Destination, sp.At); err != nil {
		return fmt.Errorf("store: record spend of %s: %w", actionKey, err)
	}
	return nil
}

// checkDestination refuses a destination that is not trusted: outside the
// book (unless an owner sends it and the settings allow that), not yet
// confirmed by a second person, or still cooling off.
func (s *Store) checkDestination(ctx context.Context, sp Spend) error {
	if sp.Destination == "" || !outsideCompany(sp.Destination) {
		return nil // stays in the treasury, goes to an employee, or a rail that names no payee
	}
	d, err := s.DestinationByKey(ctx, sp.Destination)
	if errors.Is(err, ErrNotFound) {
		settings, err := s.SettingsInForce(ctx, sp.At)
		if err != nil {
			return err
		}
		if settings.OutsideBook == OutsideBookOwnerAsked && sp.ByOwner {
			return nil
		}
		msg := "This destination is not in the address book, and sending outside the book is refused."
		if settings.OutsideBook == OutsideBookOwnerAsked {
			msg = "This destination is not in the address book: only an owner may send outside it."
		}
		return &PolicyRefusal{Rule: "Trusted destinations", Message: msg, Who: whoChangesBook, OnDestination: true}
	}
	if err != nil {
		return err
	}
	switch {
	case d.ConfirmedAt == nil:
		return &PolicyRefusal{Rule: "Trusted destinations", Message: fmt.Sprintf("%q is in the address book but nobody else has confirmed it yet.", d.Name),
			Who: "Another person with the approver role confirms it on the Money controls page.", OnDestination: true}
	case !d.Usable(sp.At):
		return &PolicyRefusal{Rule: "Cooling-off period", Message: fmt.Sprintf("%q becomes usable on %s (UTC).", d.Name, d.UsableFrom.UTC().Format("2 Jan 2006 at 15:04")),
			Who: "Nobody can shorten it for one destination; two owners can change the cooling-off period for future confirmations.", OnDestination: true}
	}
	return nil
}

// CheckDestination says whether money may go to a destination now, before
// a form goes on: nil when it may, a *PolicyRefusal when the book refuses
// it. It changes nothing; the spend check decides again when the request
// begins.
func (s *Store) CheckDestination(ctx context.Context, destination string, byOwner bool, now time.Time) error {
	return s.checkDestination(ctx, Spend{Destination: destination, ByOwner: byOwner, At: now})
}

// checkLimits refuses a request over the wallet's velocity limits or share
// of its balance.
func (s *Store) checkLimits(ctx context.Context, sp Spend, l WalletLimits) error {
	if l.Currency != sp.Currency {
		return &PolicyRefusal{Rule: "Spending policy", Message: fmt.Sprintf("The wallet's policy is in %s, not in the request's %s.", l.Currency, sp.Currency),
			Who: whoChangesLimits}
	}
	if sp.Amount.IsZero() {
		return &PolicyRefusal{Rule: "Spending policy", Message: "The amount is not known (the wallet's balance has not been read), so the wallet's limits cannot be checked.",
			Who: "Refresh the balances on the Treasury page and try again."}
	}
	// Screens show the wallet's fiat code (USD for USDB).
	cur := sp.Currency
	if err := s.db.QueryRow(ctx, `SELECT COALESCE(NULLIF(display_currency, ''), currency) FROM wallets WHERE id = $1`, sp.WalletID).Scan(&cur); err != nil {
		return fmt.Errorf("store: currency of wallet %s: %w", sp.WalletID, notFound(err))
	}
	if l.Day.Valid || l.Week.Valid {
		used, err := s.VelocityUsed(ctx, sp.WalletID, sp.At)
		if err != nil {
			return err
		}
		for _, c := range []struct {
			rule  string
			limit decimal.NullDecimal
			used  decimal.Decimal
			when  string
		}{{"Daily limit", l.Day, used.Day, "in the last 24 hours"}, {"Weekly limit", l.Week, used.Week, "in the last 7 days"}} {
			if c.limit.Valid && c.used.Add(sp.Amount).GreaterThan(c.limit.Decimal) {
				left := decimal.Max(c.limit.Decimal.Sub(c.used), decimal.Zero)
				return &PolicyRefusal{Rule: c.rule, Message: fmt.Sprintf("%s of %s %s left %s; this request is for %s %s.",
					left.StringFixed(2), c.limit.Decimal.StringFixed(2), cur, c.when, sp.Amount.StringFixed(2), cur), Who: whoChangesLimits}
			}
		}
	}
	if l.MaxSharePercent.Valid && !sp.ByOwner {
		var balance decimal.NullDecimal
		if err := s.db.QueryRow(ctx, `SELECT balance::text FROM wallets WHERE id = $1`, sp.WalletID).Scan(&balance); err != nil {
			return fmt.Errorf("store: balance of wallet %s: %w", sp.WalletID, notFound(err))
		}
		if !balance.Valid {
			return &PolicyRefusal{Rule: "Share of the balance", Message: "The wallet's balance has not been read yet, so the share cannot be checked.",
				Who: "Refresh the balances on the Treasury page and try again."}
		}
		most := balance.Decimal.Mul(l.MaxSharePercent.Decimal).Div(decimal.NewFromInt(100))
		if sp.Amount.GreaterThan(most) {
			return &PolicyRefusal{Rule: "Share of the balance", Message: fmt.Sprintf("One request may take at most %s%% of the balance (%s %s); this one is for %s %s.",
				l.MaxSharePercent.Decimal.String(), most.StringFixed(2), cur, sp.Amount.StringFixed(2), cur),
				Who: "An owner may make this request; " + whoChangesLimits}
		}
	}
	return nil
}
