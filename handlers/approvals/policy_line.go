package approvals

import (
	"context"
	"strconv"

	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// queueRows are the queue's rows as the viewer sees them at now, each
// waiting value-moving proposal with its money controls in one line.
func (h *Handler) queueRows(ctx context.Context, rows []store.Proposal, names proposal.Names, v *handlers.Viewer, canAct bool) ([]views.ProposalRow, error) {
	now := h.clock()
	out := make([]views.ProposalRow, len(rows))
	for i, p := range rows {
		pr := baseRow(p, names)
		pr.Created, pr.Now, pr.NeedsMe = p.CreatedAt, now, needsMe(p, v.Staff.ServiceUserID, v.Staff.ID)
		pr.Selectable = canAct && p.Status == store.ProposalPendingSignatures
		// Only a proposal still waiting can be stopped by the controls:
		// the others' checks would say nothing a person acts on.
		if handlers.MovesValue(p.Type) && (p.Status == store.ProposalPendingApprovals || p.Status == store.ProposalPendingSignatures) {
			c, err := h.store.ProposalPolicyCheck(ctx, p.ID, now)
			if err != nil {
				return nil, err
			}
			pr.Policy, pr.PolicyOK = policyLine(c)
		}
		out[i] = pr
	}
	return out, nil
}

// policyLine says in a few words what the money controls say of a
// proposal, and whether it passes them.
func policyLine(c store.ProposalPolicy) (string, bool) {
	if c.Refusal == nil {
		if !c.HasLimits {
			return "No spending policy", true
		}
		return "Within limits", true
	}
	switch c.Refusal.Rule {
	case "Extra approvals":
		n := max(c.StepUpNeeded-len(c.StepUpBy), 1)
		if n == 1 {
			return "Needs a second approver", false
		}
		return "Needs " + strconv.Itoa(n) + " more approvers", false
	case "Daily limit":
		return "Over the daily limit", false
	case "Weekly limit":
		return "Over the weekly limit", false
	case "Trusted destinations":
		return "Destination not in the address book", false
	case "Cooling-off period":
		return "Destination not usable yet", false
	}
	return "Stopped: " + c.Refusal.Rule, false
}
