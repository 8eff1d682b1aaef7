package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults used by New when no option overrides them.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultUserAgent = "partneradmin-apiclient/1"
	// maxResponseBytes caps what is read from any response, so a misbehaving
	// upstream cannot exhaust memory.
	maxResponseBytes = 10 << 20
)

// ErrConfig marks a configuration mistake found by New.
var ErrConfig = errors.New("apiclient: invalid configuration")

// Client calls the Partner API. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	apiKey  string
	http    *http.Client
	timeout time.Duration
	logger  *slog.Logger
	retry   RetryPolicy
	observe func(ctx context.Context, e Exchange)
}

// RetryPolicy controls how idempotent calls (GETs and start-usa) are retried
// after network errors, 5xx, 408 and 429.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts, the first included.
	// 1 disables retries.
	MaxAttempts int
	// BaseDelay is the delay before the second attempt; it doubles per
	// attempt, and each delay is drawn uniformly between half of it and all
	// of it (jitter), so clients that failed together do not retry together.
	BaseDelay time.Duration
	// MaxDelay caps each backoff delay (0: the default, 5s).
	MaxDelay time.Duration
	// MaxRetryAfter caps how long a Retry-After header may make the client
	// wait (0: the default, 30s). A longer Retry-After ends the retries and
	// returns the error, since waiting less than the server asked would only
	// be refused again.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is the policy New uses: 4 attempts, 200ms doubling to at
// most 5s, Retry-After honoured up to 30s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, BaseDelay: 200 * time.Millisecond, MaxDelay: 5 * time.Second, MaxRetryAfter: 30 * time.Second}
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the underlying HTTP client (for transports, proxies or
// tests). Its own Timeout, if any, still applies on top of WithTimeout. Give
// it a CheckRedirect that refuses redirects, as the default client does, or
// a redirect to another host would receive the API key.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithTimeout sets the time limit of each attempt (default DefaultTimeout;
// 0 removes it).
// A retried call gets a fresh limit per attempt; the caller's context bounds
// the whole call.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) { c.timeout = d }
}

// WithLogger sets the logger. Requests are logged at debug level, retries
// and failures at warn level, with method, path, status and duration only:
// never the API key, bodies or personal identifiers.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithRetryPolicy replaces DefaultRetryPolicy (tests use tiny delays).
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p }
}

// New returns a client for the API at baseURL, authenticated by apiKey.
//
// spec: "{base_url} is an origin only and has no trailing /v1. Every path
// already begins with /v1/." A base URL with a path of /v1 (or ending in
// /v1) would produce /v1/v1/... and 404 on every call, so New refuses it.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return nil, fmt.Errorf("%w: base URL: %w", ErrConfig, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: base URL %q must start with https:// (or http:// for a local sandbox)", ErrConfig, baseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: base URL %q has no host", ErrConfig, baseURL)
	}
	p := strings.TrimRight(u.Path, "/")
	if p == "/v1" || strings.HasSuffix(p, "/v1") {
		return nil, fmt.Errorf("%w: base URL %q ends in /v1, but the base address is an origin only: every API path already begins with /v1/, so this would call /v1/v1/... and get 404 (spec, Base address rule); use %q", ErrConfig, baseURL, u.Scheme+"://"+u.Host)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%w: base URL %q must be a plain origin without credentials, query or fragment", ErrConfig, redactURL(u))
	}
	u.Path = p
	if strings.TrimSpace(apiKey) == "" {
		return nil, fmt.Errorf("%w: API key is empty", ErrConfig)
	}
	c := &Client{
		base:    u,
		apiKey:  apiKey,
		http:    &http.Client{CheckRedirect: refuseRedirect, Transport: newTransport()},
		timeout: DefaultTimeout,
		logger:  slog.New(slog.DiscardHandler),
		retry:   DefaultRetryPolicy(),
	}
	for _, o := range opts {
		o(c)
	}
	def := DefaultRetryPolicy()
	if c.retry.MaxAttempts < 1 {
		c.retry.MaxAttempts = 1
	}
	if c.retry.MaxDelay <= 0 {
		c.retry.MaxDelay = def.MaxDelay
	}
	if c.retry.MaxRetryAfter <= 0 {
		c.retry.MaxRetryAfter = def.MaxRetryAfter
	}
	return c, nil
}

// maxIdleConnsPerHost is how many idle connections to the API the default
// client keeps: about as many as the app has calls in flight at once (a
// busy page calls it from every request). net/http's default of two closed
// nearly every connection after use under load, and each call then dialled
// (and, over TLS, shook hands) again.
const maxIdleConnsPerHost = 64

// newTransport is net/http's default transport (proxy from the
// environment, dial and handshake timeouts, HTTP/2) keeping
// maxIdleConnsPerHost idle connections, a transport of the client's own.
func newTransport() *http.Transport {
	t := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	if d, ok := http.DefaultTransport.(*http.Transport); ok {
		t = d.Clone()
	}
	t.MaxIdleConns = max(t.MaxIdleConns, maxIdleConnsPerHost)
	t.MaxIdleConnsPerHost = maxIdleConnsPerHost
	return t
}

// refuseRedirect stops the default client from following redirects: the API
// never redirects, and following one to another host would carry the
// x-api-key header there (Go strips only its own sensitive headers). The 3xx
// is returned as an *Error instead.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func redactURL(u *url.URL) string {
	cp := *u
	cp.User = nil
	cp.RawQuery = ""
	cp.Fragment = ""
	return cp.String()
}

// BaseURL returns the origin the client calls.
func (c *Client) BaseURL() string { return c.base.String() }

// String never shows the API key, so a Client can be logged safely.
func (c *Client) String() string { return "apiclient.Client{" + c.base.String() + "}" }

// HeaderActingUser names the user on whose behalf the partner acts, e.g. the
// admin approving a proposal. The spec requires the caller to be "an active
// admin of the wallet" but does not show how an admin is named; this is the
// sandbox's header (README).
const HeaderActingUser = "x-acting-user-id"

type actingUserKey struct{}

// WithActingUser returns a context whose calls carry HeaderActingUser with
// serviceUserID. Without it the partner itself acts.
func WithActingUser(ctx context.Context, serviceUserID string) context.Context {
	return context.WithValue(ctx, actingUserKey{}, serviceUserID)
}

type readDeadlineKey struct{}

// WithReadDeadline bounds every read (GET) made with ctx, retries included,
// by one deadline: a page that reads the API several times answers by then
// with what it has, instead of waiting out each read's own timeout and
// retries. Writes are not affected: they have their own timeout and are
// never cut short by a page's budget.
func WithReadDeadline(ctx context.Context, deadline time.Time) context.Context {
	return context.WithValue(ctx, readDeadlineKey{}, deadline)
}

// apiPath is a request path and the form of it that may be logged.
type apiPath struct {
	url    string // escaped path sent upstream
	logged string // the same with sensitive segments redacted
	bad    bool   // a segment was empty, "." or ".."
}

// badSegment reports an identifier that would change which endpoint is
// called: empty ("/users//kyc") or a dot segment that proxies resolve
// ("/users/../webhooks/config"). url.PathEscape leaves dots alone.
func badSegment(s string) bool { return s == "" || s == "." || s == ".." }

// pathOf joins segments under /v1, escaping each one.
func pathOf(segs ...string) apiPath {
	var b strings.Builder
	b.WriteString("/v1")
	bad := false
	for _, s := range segs {
		bad = bad || badSegment(s)
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return apiPath{url: b.String(), logged: b.String(), bad: bad}
}

// userPath is pathOf("users", userID, segs...).
func userPath(userID string, segs ...string) apiPath {
	return pathOf(append([]string{"users", userID}, segs...)...)
}

// withSecret appends a segment (a BVN or NIN) that must never appear in logs
// or error strings (DESIGN decision 8).
func (p apiPath) withSecret(seg string) apiPath {
	return apiPath{url: p.url + "/" + url.PathEscape(seg), logged: p.logged + "/[redacted]", bad: p.bad || badSegment(seg)}
}

// request describes one API call.
type request struct {
	op          string // client method name, carried into *Error
	method      string
	path        apiPath
	query       url.Values
	body        any    // JSON-encoded when non-nil
	rawBody     []byte // pre-encoded body (multipart)
	contentType string // for rawBody
	idempotent  bool   // retried like a GET
}

// do runs req and decodes the response into out (unwrapping { data }).
func (c *Client) do(ctx context.Context, req request, out any) error {
	raw, err := c.send(ctx, req)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := decodeData(raw, out); err != nil {
		return fmt.Errorf("apiclient: %s %s: decode response: %w", req.method, req.path.logged, err)
	}
	return nil
}

// send runs req with retries and returns the successful response body.
func (c *Client) send(ctx context.Context, req request) ([]byte, error) {
	if req.path.bad {
		return nil, fmt.Errorf("apiclient: %s %s: %w: an identifier in the path is empty, \".\" or \"..\"", req.method, req.path.logged, ErrValidation)
	}
	body := req.rawBody
	contentType := req.contentType
	if req.body != nil {
		b, err := json.Marshal(req.body)
		if err != nil {
			return nil, fmt.Errorf("apiclient: %s %s: encode request: %w", req.method, req.path.logged, err)
		}
		body, contentType = b, "application/json"
	}
	if req.method == http.MethodGet {
		if d, ok := ctx.Value(readDeadlineKey{}).(time.Time); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, d)
			defer cancel()
		}
	}
	retryable := req.method == http.MethodGet || req.idempotent
	attempts := 1
	if retryable {
		attempts = c.retry.MaxAttempts
	}
	for attempt := 1; ; attempt++ {
		raw, retryAfter, err := c.attempt(ctx, req, body, contentType)
		if err == nil {
			return raw, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("apiclient: %s %s: %w", req.method, req.path.logged, context.Cause(ctx))
		}
		if attempt >= attempts || !isTransient(err) {
			return nil, err
		}
		delay := c.backoff(attempt)
		if retryAfter > 0 {
			if retryAfter > c.retry.MaxRetryAfter {
				return nil, err
			}
			delay = max(delay, retryAfter)
		}
		c.logger.WarnContext(ctx, "apiclient: retrying", "op", req.op, "method", req.method, "path", req.path.logged, "attempt", attempt, "delay", delay, "error", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("apiclient: %s %s: %w (last error: %w)", req.method, req.path.logged, context.Cause(ctx), err)
		case <-t.C:
		}
	}
}

// backoff is capped exponential backoff with jitter: a random delay in
// [d/2, d] where d = BaseDelay·2^(attempt-1) capped at MaxDelay.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.retry.BaseDelay
	for i := 1; i < attempt && d < c.retry.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, c.retry.MaxDelay)
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// transportError is a failure before any HTTP status was received.
type transportError struct {
	method, path string
	err          error
}

func (e *transportError) Error() string {
	return fmt.Sprintf("apiclient: %s %s: %v", e.method, e.path, e.err)
}
func (e *transportError) Unwrap() error { return e.err }

// isTransient reports whether a failed attempt may succeed if repeated:
// network errors, 5xx, 408 and 429 (DESIGN decision 4).
func isTransient(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae.StatusCode >= 500 || ae.StatusCode == http.StatusRequestTimeout || ae.StatusCode == http.StatusTooManyRequests
	}
	return false
}

// attempt makes one HTTP exchange. It returns the body of a 2xx response, or
// an error together with the Retry-After delay the server asked for.
func (c *Client) attempt(ctx context.Context, req request, body []byte, contentType string) ([]byte, time.Duration, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	target := c.base.String() + req.path.url
	if len(req.query) > 0 {
		target += "?" + req.query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, target, rd)
	if err != nil {
		return nil, 0, fmt.Errorf("apiclient: %s %s: %w", req.method, req.path.logged, err)
	}
	// spec: "Every request to the API carries the header x-api-key".
	hr.Header.Set("x-api-key", c.apiKey)
	hr.Header.Set("Accept", "application/json")
	if acting, _ := ctx.Value(actingUserKey{}).(string); acting != "" {
		hr.Header.Set(HeaderActingUser, acting)
	}
	hr.Header.Set("User-Agent", DefaultUserAgent)
	if body != nil {
		hr.Header.Set("Content-Type", contentType)
	}
	start := time.Now()
	resp, err := c.http.Do(hr)
	if err != nil {
		// http.Client errors embed the URL; it has no credentials (the key is
		// a header), but it may carry a sensitive path segment or an email in
		// the query, so only the underlying cause is kept, in logs too.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		c.logger.WarnContext(ctx, "apiclient: request failed", "op", req.op, "method", req.method, "path", req.path.logged, "duration", time.Since(start), "error", err)
		c.observed(ctx, req, 0, start)
		return nil, 0, &transportError{method: req.method, path: req.path.logged, err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	c.observed(ctx, req, resp.StatusCode, start)
	if err != nil {
		return nil, 0, &transportError{method: req.method, path: req.path.logged, err: fmt.Errorf("read response: %w", err)}
	}
	c.logger.DebugContext(ctx, "apiclient: request", "op", req.op, "method", req.method, "path", req.path.logged, "status", resp.StatusCode, "duration", time.Since(start))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return raw, 0, nil
	}
	apiErr := decodeError(resp.StatusCode, raw)
	apiErr.Op, apiErr.Method, apiErr.Path = req.op, req.method, req.path.logged
	return nil, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), apiErr
}

// parseRetryAfter reads delta-seconds or an HTTP date; 0 when absent or bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		const ceiling = 24 * 60 * 60 // beyond any cap; avoids Duration overflow
		if s < 0 {
			return 0
		}
		return time.Duration(min(s, ceiling)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// decodeData decodes raw into out. spec: "signing and proposal responses are
// wrapped in { success?, data }". Other responses may or may not be wrapped,
// so a top-level object with a "data" member is unwrapped wherever it occurs.
func decodeData(raw []byte, out any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '{' {
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &env); err == nil && len(env.Data) > 0 && !bytes.Equal(env.Data, []byte("null")) {
			raw = env.Data
		}
	}
	return json.Unmarshal(raw, out)
}

// StatusMessage is the { success, message } body of delete, reactivate and
// routing calls.
type StatusMessage struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}
