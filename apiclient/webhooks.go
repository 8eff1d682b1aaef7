package apiclient

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// WebhookConfig is the partner's webhook subscription. SecretKey is 64
// lowercase hex characters; it keys the HMAC of every delivery
// (VerifySignature). LogValue leaves it out.
type WebhookConfig struct {
	ID string `json:"id"`
	// PartnerID is empty for a legacy global subscription.
	PartnerID   string    `json:"partnerId,omitempty"`
	CallbackURL string    `json:"callbackUrl"`
	SecretKey   string    `json:"secretKey,omitempty"`
	Active      bool      `json:"active"`
	Events      []string  `json:"events"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// LogValue logs the config without its secret.
func (w WebhookConfig) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", w.ID), slog.String("partnerId", w.PartnerID),
		slog.String("callbackUrl", w.CallbackURL), slog.Bool("active", w.Active), slog.Any("events", w.Events))
}

// CreateWebhookConfigRequest subscribes to events.
type CreateWebhookConfigRequest struct {
	// CallbackURL must be https.
	CallbackURL string `json:"callbackUrl"`
	// Events has at least one event name.
	Events    []string `json:"events"`
	PartnerID string   `json:"partnerId,omitempty"`
	// Active defaults to true upstream.
	Active *bool `json:"active,omitempty"`
}

// Validate checks the URL and events.
func (r CreateWebhookConfigRequest) Validate() error {
	c := newChecker()
	c.httpsURL("callbackUrl", r.CallbackURL)
	if len(r.Events) == 0 {
		c.fail("events", "at least one event is required")
	}
	checkEvents(c, r.Events, r.PartnerID != "")
	return c.err()
}

// checkEvents refuses blank names and, for a partner-scoped subscription,
// wallet.* names. spec: "Subscribing a partner-scoped config to a wallet.*
// name is accepted but never fires."
func checkEvents(c *checker, events []string, partnerScoped bool) {
	for _, e := range events {
		switch {
		case strings.TrimSpace(e) == "":
			c.fail("events", "event names must not be blank")
		case partnerScoped && strings.HasPrefix(e, "wallet."):
			c.fail("events", "%s never fires for a partner-scoped subscription; use the employee.* name", e)
		}
	}
}

// CreateWebhookConfig creates the subscription (POST /v1/webhooks/config).
// spec: a second POST for the same partner scope returns 409; use
// UpdateWebhookConfig.
func (c *Client) CreateWebhookConfig(ctx context.Context, req CreateWebhookConfigRequest) (*WebhookConfig, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out WebhookConfig
	if err := c.do(ctx, request{op: "CreateWebhookConfig", method: http.MethodPost, path: pathOf("webhooks", "config"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetWebhookConfig returns the subscription (GET /v1/webhooks/config);
// IsNotFound when there is none ("No webhook config found").
func (c *Client) GetWebhookConfig(ctx context.Context) (*WebhookConfig, error) {
	var out WebhookConfig
	if err := c.do(ctx, request{op: "GetWebhookConfig", method: http.MethodGet, path: pathOf("webhooks", "config")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateWebhookConfigRequest changes the subscription; unset fields are not
// sent. spec: "partnerId cannot change".
type UpdateWebhookConfigRequest struct {
	CallbackURL string   `json:"callbackUrl,omitempty"`
	Events      []string `json:"events,omitempty"`
	Active      *bool    `json:"active,omitempty"`
	// PartnerScoped, when true, makes Validate refuse wallet.* events. Not
	// sent.
	PartnerScoped bool `json:"-"`
}

// Validate checks what is set.
func (r UpdateWebhookConfigRequest) Validate() error {
	c := newChecker()
	if r.CallbackURL != "" {
		c.httpsURL("callbackUrl", r.CallbackURL)
	}
	if r.Events != nil && len(r.Events) == 0 {
		c.fail("events", "at least one event is required")
	}
	checkEvents(c, r.Events, r.PartnerScoped)
	if r.CallbackURL == "" && r.Events == nil && r.Active == nil {
		c.fail("", "nothing to update")
	}
	return c.err()
}

// UpdateWebhookConfig changes the subscription (PATCH /v1/webhooks/config).
func (c *Client) UpdateWebhookConfig(ctx context.Context, req UpdateWebhookConfigRequest) (*WebhookConfig, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out WebhookConfig
	if err := c.do(ctx, request{op: "UpdateWebhookConfig", method: http.MethodPatch, path: pathOf("webhooks", "config"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteWebhookConfig removes the subscription (DELETE /v1/webhooks/config).
func (c *Client) DeleteWebhookConfig(ctx context.Context) error {
	return c.do(ctx, request{op: "DeleteWebhookConfig", method: http.MethodDelete, path: pathOf("webhooks", "config")}, nil)
}

// RotateWebhookSecret issues a new secret
// (POST /v1/webhooks/config/rotate-secret). spec: "old secret stops
// verifying at once": store the new one before acknowledging anything else.
func (c *Client) RotateWebhookSecret(ctx context.Context) (*WebhookConfig, error) {
	var out WebhookConfig
	if err := c.do(ctx, request{op: "RotateWebhookSecret", method: http.MethodPost, path: pathOf("webhooks", "config", "rotate-secret")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Webhook delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is an entry of the delivery history.
type WebhookDelivery struct {
	ID        string `json:"id"`
	EventType string `json:"eventType"`
	// Status is pending, delivered or failed.
	Status       string    `json:"status"`
	Attempts     int       `json:"attempts"`
	ErrorMessage string    `json:"errorMessage,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	// LastAttemptAt is nil before the first attempt.
	LastAttemptAt *time.Time `json:"lastAttemptAt"`
	// SourceEventID and ResponseStatus are reported by the sandbox.
	SourceEventID  string `json:"sourceEventId,omitempty"`
	ResponseStatus int    `json:"responseStatus,omitempty"`
}

// ListWebhookDeliveries returns the delivery history
// (GET /v1/webhooks/deliveries; the path is not shown in the spec: README).
func (c *Client) ListWebhookDeliveries(ctx context.Context) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	if err := c.do(ctx, request{op: "ListWebhookDeliveries", method: http.MethodGet, path: pathOf("webhooks", "deliveries")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}
