package sandbox

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// moneyEvents maps partner-scoped names to their original (global) names
// (spec: Events, Event families).
var moneyEvents = map[string]string{
	"employee.deposit.completed":     "wallet.deposit.completed",
	"employee.deposit.failed":        "wallet.deposit.failed",
	"employee.deposit.refunded":      "wallet.deposit.refunded",
	"employee.withdrawal.completed":  "wallet.withdrawal.completed",
	"employee.withdrawal.failed":     "wallet.withdrawal.failed",
	"employee.withdrawal.processing": "wallet.withdrawal.processing",
}

var otherEvents = []string{
	"onboarding.completed", "onboarding.failed", "kyc.action_required", "employee.linked",
	"employee.vba.registered", "employee.unlinked", "card.fulfillment.updated", "card.transaction.created",
}

func knownEvent(name string) bool {
	if _, ok := moneyEvents[name]; ok {
		return true
	}
	for _, orig := range moneyEvents {
		if orig == name {
			return true
		}
	}
	return slices.Contains(otherEvents, name)
}

func webhookJSON(w *webhookConfig) map[string]any {
	return map[string]any{
		"id":          w.ID,
		"partnerId":   nullable(w.PartnerID),
		"callbackUrl": w.CallbackURL,
		"secretKey":   w.SecretKey,
		"active":      w.Active,
		"events":      append([]string{}, w.Events...),
		"createdAt":   iso(w.CreatedAt),
		"updatedAt":   iso(w.UpdatedAt),
	}
}

// validCallback applies spec: "callbackUrl (required HTTPS)"; in local mode
// http:// to a loopback host is allowed too.
func (s *Server) validCallback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		if !s.opts.Local {
			return false
		}
		host := u.Hostname()
		if host == "localhost" {
			return true
		}
		ip := net.ParseIP(host)
		return ip != nil && ip.IsLoopback()
	}
	return false
}

func (s *Server) newSecret() (string, error) {
	// spec: "secretKey (64 lowercase hex characters, 32 random bytes, no prefix)"
	b, err := s.randomBytes(32)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func (c *call) validateEvents(events []string, msgs *[]string) {
	if len(events) == 0 {
		*msgs = append(*msgs, "events must contain at least 1 elements")
		return
	}
	for i, e := range events {
		if !knownEvent(e) {
			*msgs = append(*msgs, fmt.Sprintf("events.%d must be a known event name", i))
		}
	}
}

// scopeConfig finds the caller's config: its partner scope, or with
// ?scope=global the legacy global config it owns.
func (c *call) scopeConfig() *webhookConfig {
	global := c.r.URL.Query().Get("scope") == "global"
	for _, w := range c.s.st.Webhooks {
		if global && w.PartnerID == "" && w.OwnerID == c.partner.ID {
			return w
		}
		if !global && w.PartnerID == c.partner.ID {
			return w
		}
	}
	return nil
}

type webhookRequest struct {
	CallbackURL *string   `json:"callbackUrl"`
	Events      *[]string `json:"events"`
	PartnerID   *string   `json:"partnerId"`
	Active      *bool     `json:"active"`
	Global      bool      `json:"global"`
}

// createWebhook implements POST /v1/webhooks/config.
func (c *call) createWebhook() (any, error) {
	var in webhookRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if in.CallbackURL == nil || !c.s.validCallback(*in.CallbackURL) {
		msgs = append(msgs, "callbackUrl must be a URL address with the https protocol")
	}
	var events []string
	if in.Events != nil {
		events = *in.Events
	}
	c.validateEvents(events, &msgs)
	scope := c.partner.ID
	if in.Global {
		scope = ""
	}
	if in.PartnerID != nil && *in.PartnerID != "" && *in.PartnerID != c.partner.ID {
		return nil, forbidden("partnerId does not belong to this partner")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	for _, w := range c.s.st.Webhooks {
		// spec: "A second POST for the same partner scope returns 409."
		if w.PartnerID == scope {
			return nil, conflict(msgWebhookExists)
		}
	}
	secret, err := c.s.newSecret()
	if err != nil {
		return nil, err
	}
	now := c.s.now()
	active := true
	if in.Active != nil {
		active = *in.Active
	}
	w := &webhookConfig{
		ID: c.s.newID(), OwnerID: c.partner.ID, PartnerID: scope, CallbackURL: *in.CallbackURL,
		SecretKey: secret, Active: active, Events: dedupe(events), CreatedAt: now, UpdatedAt: now,
	}
	c.s.st.Webhooks[w.ID] = w
	c.status = http.StatusCreated
	return map[string]any{"data": webhookJSON(w)}, nil
}

func dedupe(xs []string) []string {
	out := []string{}
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func (c *call) getWebhook() (any, error) {
	w := c.scopeConfig()
	if w == nil {
		return nil, notFound(msgNoWebhook)
	}
	return map[string]any{"data": webhookJSON(w)}, nil
}

// patchWebhook implements PATCH /v1/webhooks/config (spec: "partnerId
// cannot change").
func (c *call) patchWebhook() (any, error) {
	w := c.scopeConfig()
	if w == nil {
		return nil, notFound(msgNoWebhook)
	}
	var in webhookRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if in.PartnerID != nil && *in.PartnerID != w.PartnerID {
		msgs = append(msgs, "partnerId cannot be changed")
	}
	if in.CallbackURL != nil && !c.s.validCallback(*in.CallbackURL) {
		msgs = append(msgs, "callbackUrl must be a URL address with the https protocol")
	}
	if in.Events != nil {
		c.validateEvents(*in.Events, &msgs)
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	if in.CallbackURL != nil {
		w.CallbackURL = *in.CallbackURL
	}
	if in.Events != nil {
		w.Events = dedupe(*in.Events)
	}
	if in.Active != nil {
		w.Active = *in.Active
	}
	w.UpdatedAt = c.s.now()
	return map[string]any{"data": webhookJSON(w)}, nil
}

func (c *call) deleteWebhook() (any, error) {
	w := c.scopeConfig()
	if w == nil {
		return nil, notFound(msgNoWebhook)
	}
	delete(c.s.st.Webhooks, w.ID)
	return map[string]any{"success": true, "message": "Webhook config deleted"}, nil
}

// rotateWebhook implements POST /v1/webhooks/config/rotate-secret (spec:
// "old secret stops verifying at once": every later attempt, retries
// included, is signed with the new secret).
func (c *call) rotateWebhook() (any, error) {
	w := c.scopeConfig()
	if w == nil {
		return nil, notFound(msgNoWebhook)
	}
	secret, err := c.s.newSecret()
	if err != nil {
		return nil, err
	}
	w.SecretKey = secret
	w.UpdatedAt = c.s.now()
	return map[string]any{"data": webhookJSON(w)}, nil
}

// listDeliveries implements GET /v1/webhooks/deliveries (sandbox path):
// newest first, at most 100, optional ?status=.
func (c *call) listDeliveries() (any, error) {
	status := c.r.URL.Query().Get("status")
	var ds []*delivery
	for _, d := range c.s.st.Deliveries {
		if d.OwnerID == c.partner.ID && (status == "" || d.Status == status) {
			ds = append(ds, d)
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Seq > ds[j].Seq })
	if len(ds) > 100 {
		ds = ds[:100]
	}
	out := []any{}
	for _, d := range ds {
		m := map[string]any{
			"id":            d.ID,
			"eventType":     d.EventType,
			"status":        d.Status,
			"attempts":      d.Attempts,
			"createdAt":     iso(d.CreatedAt),
			"lastAttemptAt": isoPtr(d.LastAttemptAt),
			"sourceEventId": d.SourceEventID,
		}
		if d.ErrorMessage != "" {
			m["errorMessage"] = d.ErrorMessage
		}
		if d.LastStatus != 0 {
			m["responseStatus"] = d.LastStatus
		}
		out = append(out, m)
	}
	return map[string]any{"data": out}, nil
}

// emit records one source event and queues a delivery to each subscription
// that should receive it. name is the partner-scoped name (employee.*,
// card.*, ...). Caller holds mu.
func (s *Server) emit(partnerID, name string, payload map[string]any) {
	sourceID := s.newID()
	now := s.now()
	original := moneyEvents[name]
	var cfgs []*webhookConfig
	for _, w := range s.st.Webhooks {
		cfgs = append(cfgs, w)
	}
	sort.Slice(cfgs, func(i, j int) bool { return cfgs[i].ID < cfgs[j].ID })
	for _, w := range cfgs {
		if !w.Active {
			continue
		}
		eventType := ""
		switch {
		case w.PartnerID != "" && w.PartnerID == partnerID && slices.Contains(w.Events, name):
			// spec: "money-movement events are renamed to employee.* and
			// delivered only for that partner's users"
			eventType = name
		case w.PartnerID == "" && original != "" && slices.Contains(w.Events, original):
			// spec: "Legacy global subscription (no partnerId): receives the
			// original wallet.* names for every user."
			eventType = original
		}
		if eventType == "" {
			continue
		}
		id := s.newID()
		body, err := json.Marshal(map[string]any{"id": id, "eventType": eventType, "payload": payload, "timestamp": iso(now)})
		if err != nil {
			s.log.Error("sandbox: encode webhook", "err", err)
			continue
		}
		d := &delivery{
			ID: id, ConfigID: w.ID, OwnerID: w.OwnerID, EventType: eventType, SourceEventID: sourceID,
			Body: body, Status: deliveryPending, CreatedAt: now, Seq: s.st.next(),
		}
		s.st.Deliveries[id] = d
		s.startDelivery(id)
	}
}

// depositEvent fires employee.deposit.completed (wallet.deposit.completed on
// global subscriptions). Caller holds mu.
func (s *Server) depositEvent(w *wallet, amount decimal.Decimal, source, reference string) {
	u := s.st.Users[w.UserID]
	if u == nil {
		return
	}
	s.cardsFunded(w)
	// spec: "Deposit payloads include userId and amount (decimal string)."
	s.emit(u.PartnerID, "employee.deposit.completed", map[string]any{
		"userId":        u.ID,
		"serviceUserId": u.ID,
		"smartWalletId": w.ID,
		"currency":      w.Currency,
		"amount":        amount.String(),
		"source":        source,
		"reference":     reference,
	})
}

// startDelivery launches the sender of one delivery. Caller holds mu.
func (s *Server) startDelivery(id string) {
	if s.ctx.Err() != nil || s.running[id] {
		return // closed (the delivery stays pending and resumes on restart) or already sending
	}
	s.running[id] = true
	s.wg.Add(1)
	go s.deliver(id)
}

// resumeDeliveries restarts pending deliveries after a restore or import.
func (s *Server) resumeDeliveries() {
	var ids []string
	for id, d := range s.st.Deliveries {
		if d.Status == deliveryPending {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		s.startDelivery(id)
	}
}

func (s *Server) backoff(attempt int) time.Duration {
	d := s.opts.WebhookRetryBase
	for i := 1; i < attempt && d < s.opts.WebhookRetryMax; i++ {
		d *= 2
	}
	return min(d, s.opts.WebhookRetryMax)
}

// deliver runs the attempts of one delivery (spec: Delivery and retry
// rules).
func (s *Server) deliver(id string) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.running, id)
		s.mu.Unlock()
	}()
	for {
		target, secret, body, source, ok := s.nextAttempt(id)
		if !ok {
			return
		}
		code, err := s.post(target, secret, id, source, body)
		if s.ctx.Err() != nil {
			return // closing: leave the delivery pending
		}
		retry, attempts := s.recordAttempt(id, code, err)
		if !retry {
			return
		}
		t := time.NewTimer(s.backoff(attempts))
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			return
		}
	}
}

// nextAttempt reads what the next attempt of a pending delivery posts; ok
// is false when the delivery is no longer pending (a deleted subscription
// fails it).
func (s *Server) nextAttempt(id string) (target, secret string, body []byte, source string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.st.Deliveries[id]
	if d == nil || d.Status != deliveryPending {
		return "", "", nil, "", false
	}
	cfg := s.st.Webhooks[d.ConfigID]
	if cfg == nil {
		d.Status = deliveryFailed
		d.ErrorMessage = "webhook config was deleted"
		s.save()
		return "", "", nil, "", false
	}
	return cfg.CallbackURL, cfg.SecretKey, []byte(d.Body), d.SourceEventID, true
}

// recordAttempt keeps the outcome of one attempt and reports whether to
// retry, and after how many attempts.
func (s *Server) recordAttempt(id string, code int, err error) (retry bool, attempts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.st.Deliveries[id]
	if d == nil {
		return false, 0
	}
	now := s.now()
	d.Attempts++
	d.LastAttemptAt = &now
	d.LastStatus = code
	switch {
	case err != nil:
		// spec: "network failure, timeout | retried (transient)"
		retry = true
		d.ErrorMessage = err.Error()
	case code >= 200 && code < 300:
		// spec: "Response 2xx | delivered, no retry"
		d.Status = deliveryDelivered
		d.ErrorMessage = ""
	case code >= 500 || code == http.StatusRequestTimeout || code == http.StatusTooManyRequests:
		// spec: "Response 5xx ... retried"; "Response 408 or 429 | retried"
		retry = true
		d.ErrorMessage = fmt.Sprintf("callback answered HTTP %d", code)
	default:
		// spec: "Any other 4xx (e.g. 400, 401, 404) | permanent failure,
		// never retried"
		d.Status = deliveryFailed
		d.ErrorMessage = fmt.Sprintf("callback answered HTTP %d: permanent failure, not retried", code)
	}
	if retry && d.Attempts >= s.opts.WebhookMaxAttempts {
		d.Status = deliveryFailed
		d.ErrorMessage = fmt.Sprintf("gave up after %d attempts: %s", d.Attempts, d.ErrorMessage)
		retry = false
	}
	s.log.Info("sandbox: webhook attempt", "delivery", d.ID, "event", d.EventType, "attempt", d.Attempts, "status", d.Status, "response", code, "error", d.ErrorMessage)
	s.save()
	return retry, d.Attempts
}

// sign is the spec's X-Webhook-Signature: "hex HMAC-SHA256 of the raw body
// using secretKey".
func sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Server) post(target, secret, id, source string, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.WebhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "partner-api-sandbox-webhooks/1")
	req.Header.Set("X-Webhook-Signature", sign(secret, body))
	req.Header.Set("X-Webhook-Id", id)
	req.Header.Set("X-Source-Event-Id", source)
	client := *s.client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("timed out after %s", s.opts.WebhookTimeout)
		}
		return 0, fmt.Errorf("post: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}
