package views

import "strings"

import "time"

// ActivityView is the company's money activity.
type ActivityView struct {
	Filter ActivityFilterForm
	Rows   []ActivityRow
	// CSV downloads the filtered feed; Older is the next page, "" at the
	// end.
	CSV   string
	Older string
	// LiveURL refreshes the first page's lines ("" on older pages).
	LiveURL string
}

// ActivityFilterForm is the feed's filter as typed, with its messages.
type ActivityFilterForm struct {
	Kind, Currency, Employee, From, To string
	Kinds                              []string
	Fields                             FieldErrors
}

// ActivityRow is one line of the feed.
type ActivityRow struct {
	At                      time.Time
	Kind                    string
	Employee, ServiceUserID string
	Amount, Fee             string // decimals, "" when none
	Currency                string
	Reference, Status       string
	Description             string
}

// ActivityKindLabel is a feed kind in words.
func ActivityKindLabel(kind string) string {
	switch kind {
	case "card_transaction":
		return "card spend"
	case "card_fulfillment":
		return "card fulfilment"
	case "nigerian_offramp":
		return "Nigerian bank withdrawal"
	}
	// A completed proposal's line is of its type ("card_issuance").
	if w, ok := KnownStatus(StatusProposalType, strings.ToUpper(kind)); ok {
		return w.Label
	}
	return strings.ReplaceAll(kind, "_", " ")
}
