package views

import (
	"strconv"
	"time"
)

// SignBatchView is the page of a batch sign request: one QR code for many
// proposals of one owner. The QR code and link appear only in the answer
// that created them (the token is never stored); the table polls.
type SignBatchView struct {
	ID           int64
	Link         string
	QRDataURL    string
	ReturnTo     string
	Owner        string // the owner's name
	OwnerAddress string
	Table        SignBatchTable
}

// SignBatchTable is the live part of a batch's page: each item's state.
type SignBatchTable struct {
	PollURL string
	// Final: every item reached an end state; polling stops.
	Final bool
	// ExpiresAt is when the link stops working; Deadline is the earliest
	// deadline of the items still to sign (the countdown).
	ExpiresAt time.Time
	Deadline  time.Time
	Relayed   int
	Refused   int
	Expired   int
	Waiting   int
	// Sending: relayed but the API's answer is not known yet.
	Sending int
	Items   []SignBatchRow
}

// SignBatchRow is one proposal of a batch.
type SignBatchRow struct {
	ProposalID  string
	Amount      Amount
	To          string
	Description string
	Deadline    time.Time
	// State is the item's sign state (store.SignState); it chooses the
	// badge. Label says it in people's words; Error says why it was
	// refused or expired.
	State string
	Label string
	Error string
}

// SignBatchProblemsView is the answer to a batch that cannot be made:
// what is wrong with which proposal. Nothing was stored.
type SignBatchProblemsView struct {
	ReturnTo string
	Problems []string
}

// SignBatchDeviceView is the human page of a batch link opened in a
// browser.
type SignBatchDeviceView struct {
	OwnerAddress string
	Deadline     time.Time
	Items        []DeviceSummary
}

// Counts says how many items stand where, in words.
func (t SignBatchTable) Counts() string {
	s := strconv.Itoa(t.Relayed) + " relayed, " + strconv.Itoa(t.Refused) + " refused, " + strconv.Itoa(t.Expired) +
		" expired, " + strconv.Itoa(t.Waiting) + " waiting"
	if t.Sending > 0 {
		s += ", " + strconv.Itoa(t.Sending) + " sent without an answer from the API yet"
	}
	return s + "."
}
