package apiclient

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// syncWriter lets concurrent log lines share one builder.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func TestNewBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, key string
		wantErr   string // substring; "" means success
	}{
		{"https://api.example.com", "k", ""},
		{"https://api.example.com/", "k", ""},
		{"http://127.0.0.1:8080", "k", ""},
		{"https://api.example.com/v1", "k", "origin only"},
		{"https://api.example.com/v1/", "k", "/v1/v1/"},
		{"https://api.example.com/partner/v1", "k", "Base address rule"},
		{"api.example.com", "k", "https://"},
		{"ftp://api.example.com", "k", "https://"},
		{"https://", "k", "no host"},
		{"https://user:pw@api.example.com", "k", "credentials"},
		{"https://api.example.com?x=1", "k", "query"},
		{"https://api.example.com", " ", "API key is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.base, func(t *testing.T) {
			t.Parallel()
			c, err := New(tc.base, tc.key)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if strings.HasSuffix(c.BaseURL(), "/") {
					t.Errorf("BaseURL %q keeps a trailing slash, paths would start with //", c.BaseURL())
				}
				return
			}
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want ErrConfig containing %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "pw@") {
				t.Errorf("error shows credentials: %v", err)
			}
		})
	}
}

func TestBaseWithPathPrefix(t *testing.T) {
	t.Parallel()
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Path
		_, _ = io.WriteString(w, `{"data":[]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/gateway/", "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListWallets(context.Background(), "u-1"); err != nil {
		t.Fatal(err)
	}
	if got != "/gateway/v1/users/u-1/smart-wallets/account/wallets" {
		t.Errorf("path = %s", got)
	}
}

// scriptedServer answers attempt i with script[i] (the last entry repeats)
// and counts attempts.
type scriptedReply struct {
	status     int
	body       string
	retryAfter string
	delay      time.Duration
	hangUp     bool // close the connection without answering
}

func scriptedServer(t *testing.T, script ...scriptedReply) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		rep := script[min(i, len(script)-1)]
		if rep.delay > 0 {
			select {
			case <-time.After(rep.delay):
			case <-r.Context().Done():
				return
			}
		}
		if rep.hangUp {
			hj, ok := w.(http.Hijacker)
			if !ok {
				t.Error("cannot hijack")
				return
			}
			conn, _, err := hj.Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		if rep.retryAfter != "" {
			w.Header().Set("Retry-After", rep.retryAfter)
		}
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func fastRetry() Option {
	return WithRetryPolicy(RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond, MaxRetryAfter: 2 * time.Second})
}

func TestRetries(t *testing.T) {
	t.Parallel()
	ok := scriptedReply{status: 200, body: `{"data":{"id":"c-1","status":"active"}}`}
	e503 := scriptedReply{status: 503, body: `{"statusCode":503,"message":"busy"}`}
	getCard := func(ctx context.Context, c *Client) error { _, err := c.GetCard(ctx, "u-1", "c-1"); return err }
	startUSA := func(ctx context.Context, c *Client) error {
		_, err := c.StartUSA(ctx, "u-1", StartUSARequest{SmartWalletID: "w-1"})
		return err
	}
	postCard := func(ctx context.Context, c *Client) error {
		_, err := c.CreateCard(ctx, "u-1", CreateCardRequest{CardName: "A", CardColor: "#fff", Currency: USD, Type: "virtual", SmartWalletID: "w-1"})
		return err
	}
	tests := []struct {
		name         string
		call         func(context.Context, *Client) error
		script       []scriptedReply
		wantAttempts int32
		wantStatus   int // 0: success
		wantMinTime  time.Duration
	}{
		{"GET retried after 503", getCard, []scriptedReply{e503, e503, ok}, 3, 0, 0},
		{"GET retried after 408", getCard, []scriptedReply{{status: 408}, ok}, 2, 0, 0},
		{"GET retried after 429 honouring Retry-After", getCard, []scriptedReply{{status: 429, retryAfter: "1"}, ok}, 2, 0, time.Second},
		{"GET gives up when Retry-After is above the cap", getCard, []scriptedReply{{status: 429, retryAfter: "3600"}, ok}, 1, 429, 0},
		{"GET retried after a dropped connection", getCard, []scriptedReply{{hangUp: true}, ok}, 2, 0, 0},
		{"GET gives up after MaxAttempts", getCard, []scriptedReply{e503}, 4, 503, 0},
		{"GET 404 not retried", getCard, []scriptedReply{{status: 404, body: `{"message":"User not found"}`}, ok}, 1, 404, 0},
		{"GET 400 not retried", getCard, []scriptedReply{{status: 400}, ok}, 1, 400, 0},
		{"POST not retried after 503", postCard, []scriptedReply{e503, ok}, 1, 503, 0},
		{"POST not retried after a dropped connection", postCard, []scriptedReply{{hangUp: true}, ok}, 1, -1, 0},
		{"start-usa retried after 503 (idempotent)", startUSA, []scriptedReply{e503, {status: 200, body: `{"workflowId":"wf"}`}}, 2, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, n := scriptedServer(t, tc.script...)
			c, err := New(srv.URL, "k", fastRetry())
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = tc.call(context.Background(), c)
			switch {
			case tc.wantStatus == 0 && err != nil:
				t.Fatalf("err = %v", err)
			case tc.wantStatus > 0 && StatusCode(err) != tc.wantStatus:
				t.Fatalf("err = %v, want status %d", err, tc.wantStatus)
			case tc.wantStatus < 0 && (err == nil || StatusCode(err) != 0):
				t.Fatalf("err = %v, want a transport error", err)
			}
			if got := n.Load(); got != tc.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tc.wantAttempts)
			}
			if el := time.Since(start); el < tc.wantMinTime {
				t.Errorf("took %v, want at least %v (Retry-After)", el, tc.wantMinTime)
			}
		})
	}
}

func TestRetryHonoursCancellation(t *testing.T) {
	t.Parallel()
	srv, n := scriptedServer(t, scriptedReply{status: 503})
	c, err := New(srv.URL, "k", WithRetryPolicy(RetryPolicy{MaxAttempts: 5, BaseDelay: time.Minute, MaxDelay: time.Minute, MaxRetryAfter: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.GetCard(ctx, "u-1", "c-1")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("cancellation took %v", el)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("attempts = %d, want 1 (cancelled during backoff)", got)
	}
}

func TestCancelledBeforeSending(t *testing.T) {
	t.Parallel()
	srv, n := scriptedServer(t, scriptedReply{status: 200, body: `{}`})
	c, _ := New(srv.URL, "k", fastRetry())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.GetCard(ctx, "u-1", "c-1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if n.Load() != 0 {
		t.Errorf("attempts = %d, want 0", n.Load())
	}
}

func TestPerAttemptTimeout(t *testing.T) {
	t.Parallel()
	srv, n := scriptedServer(t, scriptedReply{delay: 2 * time.Second, status: 200}, scriptedReply{status: 200, body: `{"data":{"id":"c-1"}}`})
	c, _ := New(srv.URL, "k", fastRetry(), WithTimeout(50*time.Millisecond))
	card, err := c.GetCard(context.Background(), "u-1", "c-1")
	if err != nil || card.ID != "c-1" {
		t.Fatalf("card, err = %+v, %v", card, err)
	}
	if n.Load() != 2 {
		t.Errorf("attempts = %d, want 2", n.Load())
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"-1":                            0,
		"soon":                          0,
		"99999999999999999":             24 * time.Hour,
		"Thu, 01 Jan 2026 00:00:10 GMT": 10 * time.Second,
		"Wed, 31 Dec 2025 23:59:00 GMT": 0,
	}
	for v, want := range tests {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestBackoffIsCappedWithJitter(t *testing.T) {
	t.Parallel()
	c, _ := New("https://api.example.com", "k", WithRetryPolicy(RetryPolicy{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}))
	for attempt := 1; attempt <= 8; attempt++ {
		want := min(100*time.Millisecond<<(attempt-1), time.Second)
		for range 20 {
			d := c.backoff(attempt)
			if d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
}

func TestAPIKeyNeverLogged(t *testing.T) {
	t.Parallel()
	const key = "sk_live_SECRET_abc123"
	var logs syncWriter
	srv, _ := scriptedServer(t, scriptedReply{status: 503, body: `{"message":"down"}`}, scriptedReply{hangUp: true}, scriptedReply{status: 401, body: `{"statusCode":401,"message":"Unauthorized"}`})
	c, _ := New(srv.URL, key, fastRetry(), WithLogger(newTestLogger(&logs)))
	_, err := c.GetCard(context.Background(), "u-1", "c-1")
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), key) || strings.Contains(logs.String(), key) || strings.Contains(c.String(), key) {
		t.Errorf("API key leaked:\nerr: %v\nlogs: %s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("retries were not logged: %s", logs.String())
	}
}

// userServer fakes POST /v1/users and GET /v1/users/lookup.
func userServer(t *testing.T, create []scriptedReply, lookupStatus int, lookupBody string) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	t.Helper()
	var posts, lookups atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/users":
			rep := create[min(int(posts.Add(1))-1, len(create)-1)]
			if rep.delay > 0 {
				select {
				case <-time.After(rep.delay):
				case <-r.Context().Done():
					return
				}
			}
			w.WriteHeader(rep.status)
			_, _ = io.WriteString(w, rep.body)
		case r.Method == http.MethodGet && r.URL.Path == "/v1/users/lookup":
			lookups.Add(1)
			if r.URL.Query().Get("email") != "ada@example.com" {
				t.Errorf("lookup email = %q", r.URL.Query().Get("email"))
			}
			w.WriteHeader(lookupStatus)
			_, _ = io.WriteString(w, lookupBody)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
			w.WriteHeader(500)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &posts, &lookups
}

func TestCreateUserRecovery(t *testing.T) {
	t.Parallel()
	req := CreateUserRequest{Email: "ada@example.com", FirstName: "Ada", LastName: "Obi", PhoneNumber: "+2348012345678"}
	existing := `{"serviceUserId":"u-ada","email":"ADA@example.com","firstName":"Ada","lastName":"Obi","phoneNumber":"+2348012345678","employeeId":"","createdAt":"2026-01-01T00:00:00Z"}`
	other := `{"serviceUserId":"u-other","email":"ada@example.com","firstName":"Adaeze","lastName":"Obi","phoneNumber":"+2348012345678","employeeId":"E-7","createdAt":"2026-01-01T00:00:00Z"}`
	conflict := scriptedReply{status: 409, body: `{"statusCode":409,"message":"User already exists with this email and phoneNumber","error":"Conflict"}`}
	created := scriptedReply{status: 201, body: `{"serviceUserId":"u-new","email":"ada@example.com"}`}
	tests := []struct {
		name           string
		create         []scriptedReply
		lookupStatus   int
		lookupBody     string
		timeout        time.Duration
		wantUser       string
		wantFields     []string
		wantMismatched []string
		wantPosts      int32
		wantLookups    int32
	}{
		{name: "created", create: []scriptedReply{created}, wantUser: "u-new", wantPosts: 1},
		{name: "409 from own earlier attempt is success", create: []scriptedReply{conflict}, lookupStatus: 200, lookupBody: existing, wantUser: "u-ada", wantPosts: 1, wantLookups: 1},
		{
			name: "409 from someone else is a typed conflict", create: []scriptedReply{conflict}, lookupStatus: 200, lookupBody: other,
			wantFields: []string{"email", "phoneNumber"}, wantMismatched: []string{"firstName", "employeeId"}, wantPosts: 1, wantLookups: 1,
		},
		{
			name: "409 on phone only, no user with the email", create: []scriptedReply{{status: 409, body: `{"statusCode":409,"message":"User already exists with this phoneNumber"}`}},
			lookupStatus: 404, lookupBody: `{"statusCode":404,"message":"User not found"}`,
			wantFields: []string{"phoneNumber"}, wantPosts: 1, wantLookups: 1,
		},
		{
			name: "timed-out attempt that landed is recovered", create: []scriptedReply{{delay: 2 * time.Second, status: 201, body: `{}`}, conflict},
			lookupStatus: 200, lookupBody: existing, timeout: 50 * time.Millisecond, wantUser: "u-ada", wantPosts: 2, wantLookups: 1,
		},
		{
			name: "502 then created", create: []scriptedReply{{status: 502, body: "<html><title>Bad Gateway</title></html>"}, created},
			wantUser: "u-new", wantPosts: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, posts, lookups := userServer(t, tc.create, tc.lookupStatus, tc.lookupBody)
			opts := []Option{fastRetry()}
			if tc.timeout > 0 {
				opts = append(opts, WithTimeout(tc.timeout))
			}
			c, _ := New(srv.URL, "k", opts...)
			u, err := c.CreateUser(context.Background(), req)
			if tc.wantUser != "" {
				if err != nil || u.ServiceUserID != tc.wantUser {
					t.Fatalf("user, err = %+v, %v; want %s", u, err, tc.wantUser)
				}
			} else {
				var ce *UserConflictError
				if !errors.As(err, &ce) || !IsConflict(err) {
					t.Fatalf("err = %v (%T), want *UserConflictError", err, err)
				}
				wantEq(t, ce.Fields, tc.wantFields)
				wantEq(t, ce.Mismatched, tc.wantMismatched)
				if ce.Err == nil || ce.Err.StatusCode != 409 {
					t.Errorf("conflict does not carry the 409: %+v", ce.Err)
				}
				if strings.Contains(err.Error(), "+234") || strings.Contains(err.Error(), "Adaeze") {
					t.Errorf("conflict message shows personal data: %v", err)
				}
			}
			if posts.Load() != tc.wantPosts || lookups.Load() != tc.wantLookups {
				t.Errorf("posts, lookups = %d, %d; want %d, %d", posts.Load(), lookups.Load(), tc.wantPosts, tc.wantLookups)
			}
		})
	}
}

func TestCollidingFields(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"User already exists with this email":                             {"email"},
		"User already exists with this email and phoneNumber":             {"email", "phoneNumber"},
		"User already exists with this email, phoneNumber and employeeId": {"email", "phoneNumber", "employeeId"},
		"Conflict": nil,
	}
	for msg, want := range tests {
		wantEq(t, collidingFields(msg), want)
	}
}

func TestBadPathIdentifiersAreNotSent(t *testing.T) {
	t.Parallel()
	srv, n := scriptedServer(t, scriptedReply{status: 200, body: `{}`})
	c, _ := New(srv.URL, "k", fastRetry())
	ctx := context.Background()
	tests := map[string]func() error{
		"empty user":   func() error { _, err := c.GetKYC(ctx, ""); return err },
		"dot-dot user": func() error { _, err := c.GetKYC(ctx, ".."); return err },
		"dot card":     func() error { _, err := c.GetCard(ctx, "u-1", "."); return err },
		"empty wallet": func() error { _, err := c.GetWallet(ctx, "u-1", ""); return err },
		"dot-dot card": func() error { return c.DeactivateCard(ctx, "u-1", "..") },
	}
	for name, call := range tests {
		if err := call(); !errors.Is(err, ErrValidation) {
			t.Errorf("%s: err = %v, want a validation error", name, err)
		}
	}
	if n.Load() != 0 {
		t.Errorf("server saw %d requests, want 0", n.Load())
	}
}

func TestActingUserHeader(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, http.StatusOK, `{"data":{"id":"p-1","status":"PENDING_SIGNATURES"}}`)
	c := f.client(t)
	if _, err := c.ApproveProposal(WithActingUser(context.Background(), "u-admin"), "u-1", "p-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ApproveProposal(context.Background(), "u-1", "p-1"); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if got := f.requests[0].header.Get(HeaderActingUser); got != "u-admin" {
		t.Errorf("first call %s = %q, want u-admin", HeaderActingUser, got)
	}
	if got := f.requests[1].header.Values(HeaderActingUser); len(got) != 0 {
		t.Errorf("second call sent %s = %q", HeaderActingUser, got)
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-api-key") != "" {
			leaked.Store(true)
		}
		_, _ = io.WriteString(w, `{"data":{"id":"c-1"}}`)
	}))
	t.Cleanup(other.Close)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(api.Close)
	c, _ := New(api.URL, "secret-key", fastRetry())
	_, err := c.GetCard(context.Background(), "u-1", "c-1")
	if StatusCode(err) != http.StatusFound {
		t.Fatalf("err = %v, want the 302 as an error", err)
	}
	if leaked.Load() {
		t.Error("the API key reached the redirect target")
	}
}

func TestRetryPolicyDefaultsFillZeroFields(t *testing.T) {
	t.Parallel()
	c, _ := New("https://api.example.com", "k", WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}))
	if c.retry.MaxDelay != 5*time.Second || c.retry.MaxRetryAfter != 30*time.Second {
		t.Errorf("retry policy = %+v", c.retry)
	}
}

// TestConcurrentCallsReuseConnections: calls made 16 at a time, round
// after round, keep reusing their connections rather than dialling (and,
// over TLS, shaking hands) again for most calls, as a client keeping
// net/http's default two idle connections per host does.
func TestConcurrentCallsReuseConnections(t *testing.T) {
	t.Parallel()
	var dialled atomic.Int32
	release := make(chan struct{})
	var inFlight atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Each round's 16 calls are all in flight together, so the round
		// needs 16 connections at once.
		if inFlight.Add(1) == 16 {
			close(release)
		}
		<-release
		_, _ = io.WriteString(w, `{"data":[]}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialled.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, "k")
	if err != nil {
		t.Fatal(err)
	}
	const rounds, width = 5, 16
	for round := range rounds {
		if round > 0 {
			release = make(chan struct{})
			inFlight.Store(0)
		}
		var wg sync.WaitGroup
		for range width {
			wg.Go(func() {
				if _, err := c.ListWallets(context.Background(), "u-1"); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	if n := dialled.Load(); n > width {
		t.Fatalf("%d calls in rounds of %d dialled %d connections; want at most %d (reused between rounds)", rounds*width, width, n, width)
	}
}
