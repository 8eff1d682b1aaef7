package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// RunSpend is one row of a payroll run as the spend check sees it.
type RunSpend struct {
	Line  int
	Spend Spend
}

// CheckRunSpend decides a payroll run's rows together, in one transaction:
// per wallet (in id order, so two runs never wait on each other's locks),
// under the wallet's lock, each row alone against the share of the balance,
// then the wallet's rows together against the 24-hour and 7-day limits.
// When record is set and every wallet allows it, the run's spend is
// recorded under its action's key, one row per wallet, so a request begun
// after it sees it in its sums; it must then run in the transaction that
// starts the run. A refusal is a *PolicyRefusal naming the rows and the
// rules.
func (s *Store) CheckRunSpend(ctx context.Context, actionKey string, rows []RunSpend, record bool) error {
	byWallet := map[string][]RunSpend{}
	for _, r := range rows {
		if r.Spend.Amount.IsNegative() {
			return fmt.Errorf("store: check run spend: row %d amount %s is negative", r.Line, r.Spend.Amount)
		}
		byWallet[r.Spend.WalletID] = append(byWallet[r.Spend.WalletID], r)
	}
	wallets := make([]string, 0, len(byWallet))
	for id := range byWallet {
		wallets = append(wallets, id)
	}
	slices.Sort(wallets)
	var refusals []*PolicyRefusal
	totals := map[string]Spend{}
	for _, id := range wallets {
		total, refused, err := s.checkRunWallet(ctx, id, byWallet[id])
		if err != nil {
			return err
		}
		totals[id] = total
		refusals = append(refusals, refused...)
	}
	switch len(refusals) {
	case 0:
	case 1:
		return refusals[0]
	default:
		msgs := make([]string, len(refusals))
		for i, r := range refusals {
			msgs[i] = r.Rule + ": " + r.Message
		}
		return &PolicyRefusal{Rule: "Spending policy", Message: strings.Join(msgs, " "), Who: refusals[0].Who}
	}
	if !record {
		return nil
	}
	for _, id := range wallets {
		t := totals[id]
		if t.Amount.IsZero() {
			continue
		}
		if _, err := s.db.Exec(ctx, `INSERT INTO policy_spends (action_key, wallet_id, currency, amount, destination, at)
			VALUES ($1, $2, $3, $4, 'payroll', $5)`, actionKey, id, t.Currency, t.Amount, t.At); err != nil {
			return fmt.Errorf("store: record run spend of %s: %w", actionKey, err)
		}
	}
	return nil
}

// checkRunWallet checks a run's rows from one wallet, under the wallet's
// lock: each row against the share of the balance, the rows together
// against the velocity limits. It returns what they take together.
func (s *Store) checkRunWallet(ctx context.Context, id string, rs []RunSpend) (Spend, []*PolicyRefusal, error) {
	var refusals []*PolicyRefusal
	if _, err := s.db.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('policy_wallet:' || $1, 0))`, id); err != nil {
		return Spend{}, nil, fmt.Errorf("store: lock wallet %s controls: %w", id, err)
	}
	total := rs[0].Spend
	total.Amount, total.Destination = decimal.Zero, ""
	for _, r := range rs {
		total.Amount = total.Amount.Add(r.Spend.Amount)
	}
	l, _, ok, err := s.LimitsInForce(ctx, id, total.At)
	if err != nil {
		return Spend{}, nil, err
	}
	if !ok {
		return total, nil, nil
	}
	// Each row is one request: the share of the balance holds per row.
	share := l
	share.Day, share.Week = decimal.NullDecimal{}, decimal.NullDecimal{}
	failed := map[string][]int{}
	first := map[string]*PolicyRefusal{}
	for _, r := range rs {
		err := s.checkLimits(ctx, r.Spend, share)
		if refused, ok := asRefusal(err); ok {
			failed[refused.Rule] = append(failed[refused.Rule], r.Line)
			if first[refused.Rule] == nil {
				first[refused.Rule] = refused
			}
			continue
		}
		if err != nil {
			return Spend{}, nil, err
		}
	}
	rules := make([]string, 0, len(failed))
	for rule := range failed {
		rules = append(rules, rule)
	}
	slices.Sort(rules)
	for _, rule := range rules {
		lines, f := failed[rule], first[rule]
		refusals = append(refusals, &PolicyRefusal{Rule: rule, Message: rowsWords(lines) + ": " + f.Message, Who: f.Who})
	}
	// The rows of the wallet together: the velocity limits.
	velocity := l
	velocity.MaxSharePercent = decimal.NullDecimal{}
	err = s.checkLimits(ctx, total, velocity)
	if refused, ok := asRefusal(err); ok {
		lines := make([]int, 0, len(rs))
		for _, r := range rs {
			lines = append(lines, r.Line)
		}
		refusals = append(refusals, &PolicyRefusal{Rule: refused.Rule,
			Message: "The run's " + rowsWords(lines) + " from this wallet together: " + refused.Message, Who: refused.Who})
		return total, refusals, nil
	}
	if err != nil {
		return Spend{}, nil, err
	}
	return total, refusals, nil
}

func asRefusal(err error) (*PolicyRefusal, bool) {
	var r *PolicyRefusal
	ok := errors.As(err, &r)
	return r, ok
}

// rowsWords names rows of a run: "row 3", "rows 3, 7 and 9", at most ten
// then how many more.
func rowsWords(lines []int) string {
	slices.Sort(lines)
	if len(lines) == 1 {
		return "row " + strconv.Itoa(lines[0])
	}
	shown := lines
	if len(shown) > 10 {
		shown = shown[:10]
	}
	words := make([]string, len(shown))
	for i, l := range shown {
		words[i] = strconv.Itoa(l)
	}
	if len(lines) > len(shown) {
		return "rows " + strings.Join(words, ", ") + " and " + strconv.Itoa(len(lines)-len(shown)) + " more"
	}
	return "rows " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
