package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
)

// ParseChatURL checks CHAT_WEBHOOK_URL: an absolute http(s) URL. The
// message does not repeat the URL (a chat webhook's URL is its credential).
func ParseChatURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errors.New("CHAT_WEBHOOK_URL must be an absolute https:// URL (a Slack-compatible incoming webhook)")
	}
	return u, nil
}

// ChatPoster posts {"text": …} to a Slack-compatible incoming webhook: the
// team's channel, one message per event.
type ChatPoster struct {
	url    string
	client *http.Client
}

// NewChatPoster returns a poster for a checked URL.
func NewChatPoster(u *url.URL, client *http.Client) *ChatPoster {
	if client == nil {
		client = &http.Client{Timeout: sendTimeout}
	}
	return &ChatPoster{url: u.String(), client: client}
}

// Post sends one message. A request that was never completely written
// cannot have been posted; one written and not answered may have been.
func (p *ChatPoster) Post(ctx context.Context, text string) result {
	body, err := json.Marshal(struct {
		Text string `json:"text"`
	}{text})
	if err != nil {
		return result{refused, "the message could not be built"}
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { wrote.Store(i.Err == nil) },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return result{refused, "the chat webhook URL cannot be used"}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		if !wrote.Load() {
			return result{notDelivered, "cannot reach the chat webhook: " + netWords(err)}
		}
		return result{uncertain, "the chat webhook did not answer after the message was sent (" + netWords(err) +
			"): it may or may not have been posted"}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return result{outcome: delivered}
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable ||
		resp.StatusCode == http.StatusRequestTimeout:
		// Rate limited, unavailable, or the request never read whole: the
		// webhook posted nothing (Slack answers these without posting), so
		// trying later makes one message.
		return result{notDelivered, fmt.Sprintf("the chat webhook answered %d", resp.StatusCode)}
	case resp.StatusCode >= 500:
		// Any other 5xx may come from a gateway after the message was
		// posted behind it: unknown, as the app treats such answers from
		// the Partner API.
		return result{uncertain, fmt.Sprintf("the chat webhook answered %d: the message may or may not have been posted", resp.StatusCode)}
	}
	return result{refused, fmt.Sprintf("the chat webhook refused the message: %d", resp.StatusCode)}
}
