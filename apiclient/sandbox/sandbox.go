// Package sandbox is a stateful, spec-faithful simulator of the Partner API
// (../shared/spec/partner-api.md) served as an http.Handler.
//
// It keeps its state in memory behind one lock, implements the spec's rules,
// state machines, limits and error bodies, sends webhooks for real (HMAC,
// retries, delivery history) and offers a control API under /_sandbox/ to
// advance its clock, credit deposits, settle workflows and inject faults.
// Decisions taken where the spec says "not shown" are listed in README.md.
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Partner is a partner known to the sandbox: its API key authenticates it.
type Partner struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	APIKey string `json:"apiKey"`
}

// Options configure a Server. The zero value is usable: no partners (add them
// with Partners, APIKeys or SeedDemo), no control API, the system clock.
type Options struct {
	// Partners are the configured partners. APIKeys is a shorthand that adds
	// one partner per key (named "Partner N", id derived from the key).
	Partners []Partner
	APIKeys  []string
	// Control enables the control API under /_sandbox/.
	Control bool
	// Local allows http:// webhook callbacks to loopback hosts, so an app on
	// a developer machine can receive deliveries.
	Local bool
	// Clock is the base clock; the control API adds an offset to it.
	Clock func() time.Time
	// Rand is the source of randomness (ids, secrets, codes, fault rates).
	Rand   io.Reader
	Logger *slog.Logger
	// StatePath, if set, is loaded at start when present and rewritten
	// atomically (write then rename) after each change.
	StatePath string
	// LoadOnly keeps StatePath's state from being rewritten: it is only
	// loaded. Rewriting a large state after every change made each write
	// wait for the whole state's encoding and fsync (a load generator
	// starting from a large company does not need it kept).
	LoadOnly bool
	// WebhookTimeout is the per-attempt delivery timeout (spec: 10 seconds).
	WebhookTimeout time.Duration
	// WebhookRetryBase is the first retry delay; it doubles per attempt up to
	// WebhookRetryMax. WebhookMaxAttempts bounds the attempts of a transient
	// failure before the delivery is marked failed.
	WebhookRetryBase   time.Duration
	WebhookRetryMax    time.Duration
	WebhookMaxAttempts int
	HTTPClient         *http.Client
	// SettleDelay is the sandbox time after which a submitted workflow
	// settles by itself. Zero means 30 seconds; negative means only the
	// control API settles.
	SettleDelay time.Duration
	// CardSweepDelay is the sandbox time during which a new card's fee sweep
	// is "confirming" and the card sign payload is not ready (409).
	CardSweepDelay time.Duration
	// InviteBaseURL is the origin of invite links.
	InviteBaseURL string
}

// Server is the sandbox. It is safe for concurrent use.
type Server struct {
	opts   Options
	log    *slog.Logger
	client *http.Client
	routes []*route

	mu      sync.Mutex
	st      *state
	running map[string]bool // deliveries with a live sender

	requests requestCounts // API requests per route, under their own lock

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New builds a Server. When opts.StatePath names an existing file its state
// is restored.
func New(opts Options) (*Server, error) {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.WebhookTimeout <= 0 {
		opts.WebhookTimeout = 10 * time.Second // spec: "delivery times out after 10 seconds"
	}
	if opts.WebhookRetryBase <= 0 {
		opts.WebhookRetryBase = 2 * time.Second
	}
	if opts.WebhookRetryMax <= 0 {
		opts.WebhookRetryMax = 5 * time.Minute
	}
	if opts.WebhookMaxAttempts <= 0 {
		opts.WebhookMaxAttempts = 8
	}
	if opts.SettleDelay == 0 {
		opts.SettleDelay = 30 * time.Second
	}
	if opts.InviteBaseURL == "" {
		opts.InviteBaseURL = "https://app.sandbox.invalid"
	}
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, log: opts.Logger, client: client, ctx: ctx, cancel: cancel, running: map[string]bool{}}
	s.st = newState()
	if err := s.addConfiguredPartners(s.st); err != nil {
		cancel()
		return nil, err
	}
	if opts.StatePath != "" {
		b, err := os.ReadFile(opts.StatePath)
		switch {
		case err == nil:
			st, err := decodeState(b)
			if err != nil {
				cancel()
				return nil, fmt.Errorf("sandbox: restore %s: %w", opts.StatePath, err)
			}
			if err := s.addConfiguredPartners(st); err != nil {
				cancel()
				return nil, err
			}
			s.st = st
		case errors.Is(err, os.ErrNotExist):
		default:
			cancel()
			return nil, fmt.Errorf("sandbox: read state: %w", err)
		}
	}
	s.routes = s.buildRoutes()
	s.mu.Lock()
	s.resumeDeliveries()
	s.mu.Unlock()
	return s, nil
}

func (s *Server) addConfiguredPartners(st *state) error {
	ps := append([]Partner(nil), s.opts.Partners...)
	for i, k := range s.opts.APIKeys {
		ps = append(ps, Partner{
			ID:     uuid.NewSHA1(uuid.NameSpaceURL, []byte("sandbox-partner:"+k)).String(),
			Name:   fmt.Sprintf("Partner %d", i+1),
			APIKey: k,
		})
	}
	for _, p := range ps {
		if p.APIKey == "" {
			return errors.New("sandbox: partner without an API key")
		}
		if p.ID == "" {
			p.ID = uuid.NewSHA1(uuid.NameSpaceURL, []byte("sandbox-partner:"+p.APIKey)).String()
		}
		if p.Name == "" {
			p.Name = "Partner " + p.ID[:8]
		}
		if old, ok := st.Partners[p.ID]; ok && old.APIKey != p.APIKey {
			return fmt.Errorf("sandbox: partner %s configured with two keys", p.ID)
		}
		st.Partners[p.ID] = &partner{ID: p.ID, Name: p.Name, APIKey: p.APIKey}
	}
	return nil
}

// Close stops the webhook senders and waits for them.
func (s *Server) Close() {
	s.cancel()
	// Handlers start senders under mu after checking ctx; taking mu once
	// orders every such start before Wait.
	s.mu.Lock()
	//lint:ignore SA2001 the empty critical section is the barrier
	s.mu.Unlock()
	s.wg.Wait()
}

// Partners lists the partners the sandbox knows, sorted by name.
func (s *Server) Partners() []Partner {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Partner
	for _, p := range sortedPartners(s.st) {
		out = append(out, Partner{ID: p.ID, Name: p.Name, APIKey: p.APIKey})
	}
	return out
}

// Now is the sandbox clock: the base clock plus the control API's offset.
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now()
}

func (s *Server) now() time.Time {
	return s.opts.Clock().Add(s.st.ClockOffset).UTC()
}

func (s *Server) newID() string {
	id, err := uuid.NewRandomFromReader(s.opts.Rand)
	if err != nil {
		// A failing random source is not recoverable for a simulator; fall
		// back to the package default rather than reusing ids.
		return uuid.NewString()
	}
	return id.String()
}

func (s *Server) randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.opts.Rand, b); err != nil {
		return nil, fmt.Errorf("sandbox: random: %w", err)
	}
	return b, nil
}

// randomDigits returns n decimal digits.
func (s *Server) randomDigits(n int) (string, error) {
	b, err := s.randomBytes(n)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, x := range b {
		sb.WriteByte('0' + x%10)
	}
	return sb.String(), nil
}

// randomFloat returns a number in [0, 1).
func (s *Server) randomFloat() float64 {
	b, err := s.randomBytes(7)
	if err != nil {
		return 0
	}
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return float64(v>>3) / float64(uint64(1)<<53)
}

// save writes the state atomically when StatePath is set. Caller holds mu.
func (s *Server) save() {
	if s.opts.StatePath == "" || s.opts.LoadOnly {
		return
	}
	if err := s.writeState(); err != nil {
		s.log.Error("sandbox: save state", "err", err)
	}
}

func (s *Server) writeState() error {
	b, err := json.MarshalIndent(s.st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	dir := filepath.Dir(s.opts.StatePath)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	f, err := os.CreateTemp(dir, ".sandbox-state-*")
	if err != nil {
		return fmt.Errorf("create temp state: %w", err)
	}
	tmp := f.Name()
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write temp state: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("sync temp state: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("close temp state: %w", err)
	}
	if err := os.Rename(tmp, s.opts.StatePath); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename state: %w", err)
	}
	return nil
}
