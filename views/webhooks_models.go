package views

import "time"

// WebhookSettingsView is the owner's webhook subscription page.
type WebhookSettingsView struct {
	// APIConnected is false when no Partner API is wired in.
	APIConnected bool
	// Exists is true once a subscription exists (the edit form is shown).
	Exists bool
	// HasSecret is false when this app cannot verify deliveries (the
	// subscription was made elsewhere): rotate to get a secret.
	HasSecret bool
	Form      WebhookForm
	// Secret is shown once, right after creation or rotation.
	Secret       string
	SecretReason string // "created" or "rotated"
	UpstreamID   string
	ReceiverURL  string
	UpdatedAt    time.Time
	RotatedAt    time.Time
	// Signature failures since the secret last changed.
	SignatureFailures    int64
	LastSignatureFailure time.Time
	RecentFailures       []SignatureFailureRow
	// Problem is a message about the API (unreachable, refused).
	Problem string
	// RotateToken is the rotation form's one-time token.
	RotateToken string
	// RotateError is shown next to the rotation's confirmation box.
	RotateError     string
	Reconciliations []ReconciliationRow
}

// WebhookForm is the create and edit form.
type WebhookForm struct {
	// Token is the form's one-time token.
	Token       string
	CallbackURL string
	Events      []EventChoice
	Active      bool
	Fields      FieldErrors
}

// EventChoice is one event name the subscription may list.
type EventChoice struct {
	Name        string
	Description string
	Checked     bool
}

// SignatureFailureRow is one refused delivery.
type SignatureFailureRow struct {
	At        time.Time
	WebhookID string
	Reason    string
}

// ReconciliationRow is one run of the reconciliation job.
type ReconciliationRow struct {
	StartedAt time.Time
	Checked   int
	Corrected int
	Notes     []string
}

// EventLogView is the event log page.
type EventLogView struct {
	Filter     EventFilterForm
	Types      []string
	States     []string
	Rows       []EventRow
	NextBefore int64
	// Query is the filter as a query string (for CSV, paging and replay).
	Query    string
	Preview  *ReplayPreview
	Failures []SignatureFailureRow
	// Retention says how long bodies are kept; empty when for ever.
	Retention string
}

// EventFilterForm is the event log's filter, as typed.
type EventFilterForm struct {
	Type   string
	State  string
	From   string // YYYY-MM-DDTHH:MM, UTC
	To     string
	Fields FieldErrors
}

// EventRow is one delivery in the log.
type EventRow struct {
	ID            int64
	ReceivedAt    time.Time
	EventType     string
	WebhookID     string
	SourceEventID string
	Signature     string
	Duplicates    int
	State         string
	Outcome       string
	Error         string
	Attempts      int
}

// EventDetailView is one delivery with its payload.
type EventDetailView struct {
	// BackURL is the event log as the viewer left it (with its filters).
	BackURL        string
	Row            EventRow
	EventTimestamp time.Time
	ProcessedAt    time.Time
	ServiceUserID  string
	// EmployeeName and EmployeeHref are set when the mirror knows the user.
	EmployeeName string
	EmployeeHref string
	// Payload is the body, pretty-printed when it is JSON.
	Payload   string
	CanReplay bool
	// BodyRemoved says why there is no payload ("Body removed after 30
	// days …"); empty while the body is kept.
	BodyRemoved string
}

// ReplayPreview says what replaying a filtered set would do.
type ReplayPreview struct {
	Matching    int
	WouldChange int // not processed yet: replay may change their state
	Unchanged   int // processed or kept: replay is idempotent
	Unparseable int // never replayed
	TooMany     bool
	Limit       int
}
