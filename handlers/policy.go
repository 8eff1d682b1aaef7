package handlers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/views"
)

// PolicyField is the form field a refusal of the money controls is shown
// next to: the destination's field, or the amount's.
func PolicyField(r *store.PolicyRefusal, destination, amount string) string {
	if r.OnDestination {
		return destination
	}
	return amount
}

// MovesValue says whether a proposal of the API's type takes value out of
// its wallet, so that the money controls apply to it: a transfer and a
// Nigerian bank withdrawal do; a swap stays in the wallet.
func MovesValue(proposalType string) bool {
	return proposalType == "TRANSFER" || proposalType == "NIGERIAN_OFFRAMP"
}

// PolicyCheck is the money controls' check of a proposal as its page shows
// it: the velocity used and left, the step-up tier, the destination's
// trust and the balance after it. Nil for a proposal that moves no value
// out of a wallet (a swap).
func PolicyCheck(ctx context.Context, st *store.Store, p store.Proposal, viewer *Viewer, now time.Time) (*views.PolicyCheckView, error) {
	if !MovesValue(p.Type) {
		return nil, nil
	}
	c, err := st.ProposalPolicyCheck(ctx, p.ID, now)
	if err != nil {
		return nil, err
	}
	v := &views.PolicyCheckView{ProposalID: p.ID, StepUpNeeded: c.StepUpNeeded, StepUpBy: c.StepUpBy, StepUpToken: NewFormToken()}
	amount := views.FormatDecimal(c.Amount, 2) + " " + c.Currency
	if !c.HasLimits {
		v.Lines = append(v.Lines, views.PolicyCheckLine{Rule: "Limits", Value: "The wallet has no spending policy.", OK: true})
	}
	for _, l := range []struct {
		rule, when string
		limit      decimal.Decimal
		valid      bool
		used       decimal.Decimal
	}{{"Today", "in the last 24 hours", c.Limits.Day.Decimal, c.Limits.Day.Valid, c.Used.Day},
		{"This week", "in the last 7 days", c.Limits.Week.Decimal, c.Limits.Week.Valid, c.Used.Week}} {
		if c.HasLimits && l.valid {
			v.Lines = append(v.Lines, views.PolicyCheckLine{Rule: l.rule, OK: true,
				Value: views.FormatDecimal(l.used, 2) + " of " + views.FormatDecimal(l.limit, 2) + " " + c.Currency + " " + l.when})
		}
	}
	if c.StepUpNeeded > 0 {
		v.Lines = append(v.Lines, views.PolicyCheckLine{Rule: "Tier", OK: len(c.StepUpBy) >= c.StepUpNeeded,
			Value: fmt.Sprintf("Above %s %s: %d more approvals in the app", views.FormatDecimal(c.Limits.StepUpAbove.Decimal, 2), c.Currency,
				max(c.StepUpNeeded-len(c.StepUpBy), 0))})
		v.CanStepUp = viewer.Can(store.PermApprovalsAct) && viewer.Staff.ID != p.CreatedByStaffID &&
			!containsName(c.StepUpBy, viewer.Staff.Name) && len(c.StepUpBy) < c.StepUpNeeded &&
			(len(c.Limits.StepUpBy) == 0 || slices.Contains(c.Limits.StepUpBy, viewer.Staff.ID))
	}
	switch {
	case strings.HasPrefix(c.Destination, "employee:") || p.ToUserID != "" && c.Destination == "":
		v.Lines = append(v.Lines, views.PolicyCheckLine{Rule: "Destination", Value: "An employee of the company: a trusted recipient.", OK: true})
	case c.Trusted != nil && c.Trusted.Usable(now):
		v.Lines = append(v.Lines, views.PolicyCheckLine{Rule: "Destination", OK: true,
			Value: "“" + c.Trusted.Name + "”, trusted since " + views.DateTime(ctx, *c.Trusted.UsableFrom)})
	case c.Trusted != nil:
		v.Lines = append(v.Lines, views.PolicyCheckLine{Rule: "Destination", Value: "“" + c.Trusted.Name + "”, not usable yet"})
	default:
		v.Lines = append(v.Lines, views.PolicyCheckLine{Rule: "Destination", Value: "Not in the address book"})
	}
	if c.Balance.Valid {
		after := c.Balance.Decimal.Sub(c.Amount)
		v.Lines = append(v.Lines, views.PolicyCheckLine{Rule: "Balance after", OK: !after.IsNegative(),
			Value: views.FormatDecimal(after, 2) + " " + c.Currency + " (of " + views.FormatDecimal(c.Balance.Decimal, 2) + " " + c.Currency + " last read, less " + amount + ")"})
	}
	if c.Refusal != nil {
		v.Refusal = "No signing link can be issued now. " + c.Refusal.Words()
	}
	return v, nil
}

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
