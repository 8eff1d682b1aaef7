package views

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// PayrollListView is the runs list.
type PayrollListView struct {
	Runs []PayrollRunItem
	Now  time.Time
}

// PayrollRunItem is one run of the list.
type PayrollRunItem struct {
	ID         int64
	Name       string
	Source     string
	State      string
	StateLabel string
	CreatedBy  string
	CreatedAt  time.Time
	Rows       int
	Valid      int
	Totals     string
}

// PayrollNewView is the page that creates a run: from a CSV file, or from
// the employee list with one amount and currency.
type PayrollNewView struct {
	Columns []string
	MaxRows int
	// CSV form.
	CSVName   string
	CSVFields FieldErrors // "name", "file"
	// Employee form.
	Name        string
	Amount      string
	Currency    string
	Description string
	Query       string
	State       string
	// FilterFields says what is wrong with the employee filter ("q",
	// "state"); a refused filter is shown back and not applied.
	FilterFields FieldErrors
	States       []string
	Currencies   []string
	Candidates   []PayrollCandidate
	Selected     map[int64]bool
	Fields       FieldErrors
	Error        string
	Limited      bool
}

// PayrollCandidate is an employee the employee form offers.
type PayrollCandidate struct {
	ID      int64
	Name    string
	Email   string
	State   string
	Wallets string
}

// PayrollRunView is a run's page.
type PayrollRunView struct {
	// Back is the way back to the list of runs.
	Back       string
	ID         int64
	Name       string
	Source     string
	State      string
	StateLabel string
	CreatedBy  string
	CreatedAt  time.Time
	CancelNote string

	Rows []PayrollRowView
	// StateFilter and From are the window of rows shown (all states when
	// StateFilter is ""); NextFrom is the first line of the next page, 0
	// when none.
	StateFilter string
	From        int
	NextFrom    int
	TotalRows   int
	ValidRows   int
	Totals      []PayrollTotal
	Counts      []PayrollCount
	BalanceMsg  string // the live balance could not be read
	// BalanceRead: the treasury's balance was read for this page (the
	// preview); after sending the run is no longer checked against it.
	BalanceRead bool
	SendError   string

	// Send (preview only).
	CanSend   bool
	SendToken string
	// Progress of sending: rows with an outcome of the valid rows.
	Done    int
	Percent int
	Live    bool // poll for changes

	// Approve the run.
	CanApprove   bool
	ApproveN     int
	ApproveToken string
	// The viewer's latest approval of the run: running (with how many
	// rows have their outcome) or done, and each row's outcome.
	ApproveRunning bool
	ApproveDone    int
	ApproveTotal   int
	ApproveResult  []PayrollOutcome

	// Sign the run from one QR code: the proposals awaiting signatures.
	SignIDs []string
	// SignTotal is how many proposals wait for the signature in all (one
	// batch takes SignIDs, at most store.MaxSignBatchItems).
	SignTotal int
	SignToken string

	// Rows the API refused, and the form that makes a new run of them.
	Refused    int
	AgainToken string

	// Cancel the run.
	CanCancel    bool
	CancelOpen   int
	CancelToken  string
	CancelReason string
	// CancelConfirm: the confirmation box was ticked (kept on error).
	CancelConfirm bool
	CancelFields  FieldErrors
	CancelResult  []PayrollOutcome
}

// PayrollTotal is a currency's total against the treasury's live balance.
type PayrollTotal struct {
	Total     Amount
	Balance   Amount
	HasBal    bool
	Short     bool
	Shortfall string
}

// PayrollCount is how many rows are in a state, with their sums.
type PayrollCount struct {
	State string
	Label string
	N     int
	Sums  string
}

// PayrollRowView is one row of a run.
type PayrollRowView struct {
	Line        int
	Recipient   string
	Name        string
	Amount      string
	Description string
	Problems    []string
	State       string
	StateLabel  string
	Detail      string
	ProposalID  string
	Approvals   string
	Signatures  string
}

// PayrollOutcome is what happened to one row in a run-wide action.
type PayrollOutcome struct {
	Line int
	OK   bool
	Text string
}

func payrollPath(id int64, suffix string) string {
	return "/payroll/" + strconv.FormatInt(id, 10) + suffix
}

// windowPath is a run's path (suffix "" for the page, "/progress" for its
// poll) showing the rows of state from line from on.
func windowPath(id int64, suffix, state string, from int) string {
	q := url.Values{}
	if state != "" {
		q.Set("state", state)
	}
	if from > 0 {
		q.Set("from", strconv.Itoa(from))
	}
	p := payrollPath(id, suffix)
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return p
}

// PayrollSourceLabel is where a run's rows came from, in people's words.
func PayrollSourceLabel(source string) string {
	switch source {
	case "csv":
		return "CSV file"
	case "employees":
		return "employee list"
	}
	return strings.ReplaceAll(source, "_", " ")
}
