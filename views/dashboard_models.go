package views

import "time"

// DashboardView is the start page: what needs the viewer now. Each part is
// nil unless the viewer's role may see it.
type DashboardView struct {
	Name      string
	RoleLabel string
	// Brief: the owner sees every part, each with a shorter list.
	Brief bool
	// LiveURL is polled for the live part of the page.
	LiveURL string
	Now     time.Time

	HR       *DashboardHR
	Finance  *DashboardFinance
	Support  *DashboardSupport
	Webhooks *DashboardWebhooks
	Upstream *UpstreamStatus // the owner's
	Areas    []AreaLink
}

// DashboardHR is HR's part: the invite funnel, who needs action, and
// readiness per currency.
type DashboardHR struct {
	Funnel     Funnel
	NeedsTotal int
	Needs      []DashboardNeed
	// NeedCounts is how many employees need action per reason, in words.
	NeedCounts []DashboardCount
	Readiness  DashboardReadiness
}

// DashboardCount is a number with what it counts.
type DashboardCount struct {
	Key   string // for data-testid and data attributes
	Label string
	N     int
}

// DashboardNeed is one employee who needs HR's action.
type DashboardNeed struct {
	Href   string
	Name   string
	Email  string
	Reason string // the reason's key (store.Need*)
	Words  string // why, in words
	Since  time.Time
}

// DashboardReadiness counts employees per currency and readiness state.
type DashboardReadiness struct {
	States     []DashboardCount // the columns: state keys and words
	Currencies []DashboardReadinessRow
}

// DashboardReadinessRow is one currency's counts, in the order of States.
type DashboardReadinessRow struct {
	Currency string
	Counts   []int
}

// DashboardFinance is finance's part.
type DashboardFinance struct {
	// Linked: the viewer approves as a wallet admin; without a link
	// nothing waits for their approval.
	Linked         bool
	WaitingTotal   int
	Waiting        []DashboardProposal
	SignLinksTotal int
	SignLinks      []DashboardSignLink
	Balances       []DashboardBalance
	// NoTreasury: the mirror knows no treasury wallet yet.
	NoTreasury  bool
	MoneyCharts []Chart
	Payroll     []DashboardPayroll
}

// DashboardProposal is a proposal waiting for the viewer's approval.
type DashboardProposal struct {
	ID      string
	Href    string
	What    string
	Amount  Amount
	From    string
	To      string
	Created time.Time
}

// DashboardSignLink is a sign link a device may still use.
type DashboardSignLink struct {
	Href      string // "" when no page shows it
	What      string
	State     string // in words
	ExpiresAt time.Time
	CreatedBy string
}

// DashboardBalance is one treasury wallet's balance.
type DashboardBalance struct {
	Amount Amount
	Known  bool // read at least once
	ReadAt time.Time
	// Stale: money moved since it was read.
	Stale bool
}

// DashboardPayroll is a payroll run in progress.
type DashboardPayroll struct {
	Href  string
	Name  string
	State string // in words
	Rows  int
	Open  int
}

// DashboardSupport is support's part.
type DashboardSupport struct {
	StoppedTotal int
	Stopped      []DashboardCard
	SpendChart   Chart
	// Spent sums the week's card spends per currency.
	Spent    []Amount
	Spends   int
	Declines int
}

// DashboardCard is a card frozen or cancelled; SeenAt is when its status
// took that value.
type DashboardCard struct {
	Href     string
	Employee string
	Card     string // name and last four digits
	Status   CardStatus
	SeenAt   time.Time
}

// DashboardWebhooks is the owner's view of webhook health.
type DashboardWebhooks struct {
	Chart             Chart
	Deliveries        int
	Failures          int
	SignatureFailures int
	Waiting           int
	LastReceived      *time.Time
	Reconciliations   []DashboardReconciliation
}

// DashboardReconciliation is one run of the reconciliation job.
type DashboardReconciliation struct {
	At        time.Time
	Checked   int
	Corrected int
	Notes     []string
}
