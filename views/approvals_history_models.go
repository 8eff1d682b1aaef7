package views

import "time"

// ApprovalHistoryView is the approval queue's history: proposals that
// completed, were rejected, failed or expired.
type ApprovalHistoryView struct {
	Filter HistoryFilterForm
	Types  []string
	States []Choice
	// EmployeeName names Filter.Employee (a link from an employee's page).
	EmployeeName string
	Rows         []HistoryRow
	CSVURL       string
	OlderURL     string
	NewestURL    string
}

// HistoryFilterForm is the history's filter, as typed.
type HistoryFilterForm struct {
	Status   string
	Type     string
	Employee string // serviceUserId
	Wallet   string // wallet id
	Who      string // the start of an owner's or recipient's name, email or id
	From     string // YYYY-MM-DD, of the last change
	To       string // YYYY-MM-DD, the whole day included
	Fields   FieldErrors
}

// Filtered reports whether any filter is set.
func (f HistoryFilterForm) Filtered() bool {
	return f.Status != "" || f.Type != "" || f.Employee != "" || f.Wallet != "" || f.Who != "" || f.From != "" || f.To != ""
}

// HistoryRow is one settled or failed proposal.
type HistoryRow struct {
	ID          string
	Type        string
	Amount      Amount
	From        string
	To          string
	Description string
	Status      string
	StatusLabel string
	// ApprovedBy names each approval of the last round: the wallet admin
	// and the staff member who sent it through the app.
	ApprovedBy []string
	RejectedBy string
	// Reason is the rejection's or the failure's reason.
	Reason     string
	Signatures string // "1 of 1"
	// SignedBy names whose device signed (the wallet's owner), when a
	// signature was collected; SentBy who sent the signing link.
	SignedBy string
	SentBy   string
	Deadline *time.Time // the last signing link's deadline
	Created  time.Time
	Changed  time.Time // when it reached this state, as the API said
}
