package views

// PolicyCheckView is the money controls' check of one proposal, on its
// page: each rule with how it stands, and the approvals in the app its
// step-up tier still needs.
type PolicyCheckView struct {
	ProposalID string
	Lines      []PolicyCheckLine
	// Refusal says which rule stops the signing link and who can change
	// it ("" when nothing does).
	Refusal string
	// StepUp: approvals needed in the app, who gave theirs, and whether
	// the viewer may give theirs now.
	StepUpNeeded int
	StepUpBy     []string
	CanStepUp    bool
	StepUpToken  string
}

// PolicyCheckLine is one rule and how the proposal stands against it.
type PolicyCheckLine struct {
	Rule  string
	Value string
	OK    bool
}
