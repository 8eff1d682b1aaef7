package store

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A Subscriber keeps something in memory that PostgreSQL notifications
// keep honest (StaffCache, the web's session cache).
type Subscriber interface {
	// Notice is one notification on the subscriber's channel.
	Notice(payload string)
	// SetLive(true) is called once the channel is listened to, SetLive(false)
	// as soon as the connection is lost: from then until the next
	// SetLive(true) notices may be missed, so nothing kept may be used.
	SetLive(live bool)
}

// Listener holds one connection of its own (outside the pool) that LISTENs
// on its subscribers' channels, reconnecting after a failure with a
// growing pause.
//
// A connection can look healthy and still deliver nothing (a pooler in
// transaction mode, a half-open TCP connection): when it has been quiet for
// HeartbeatEvery the listener sends itself a notice through the pool, and
// if that does not come back within HeartbeatWait it treats the connection
// as lost — subscribers stop using what they keep until it listens again.
type Listener struct {
	HeartbeatEvery time.Duration
	HeartbeatWait  time.Duration

	store  *Store
	logger *slog.Logger
	subs   map[string]Subscriber
	ready  chan struct{}
	once   sync.Once

	// heartbeatTo is where heartbeats are sent (tests send them astray).
	heartbeatTo string
	nonce       uint64
}

// heartbeatChannel carries the listener's notices to itself.
const heartbeatChannel = "partner_admin_listener"

// NewListener returns a listener; Subscribe before Run.
func NewListener(s *Store, logger *slog.Logger) *Listener {
	return &Listener{store: s, logger: logger, subs: map[string]Subscriber{}, ready: make(chan struct{}),
		HeartbeatEvery: 15 * time.Second, HeartbeatWait: 5 * time.Second, heartbeatTo: heartbeatChannel}
}

// Subscribe routes a channel's notices to sub. Call it before Run.
func (l *Listener) Subscribe(channel string, sub Subscriber) { l.subs[channel] = sub }

// Ready is closed once every channel is first listened to.
func (l *Listener) Ready() <-chan struct{} { return l.ready }

// Run listens until ctx ends.
func (l *Listener) Run(ctx context.Context) error {
	pause := 100 * time.Millisecond
	for {
		err := l.listen(ctx)
		for _, sub := range l.subs {
			sub.SetLive(false)
		}
		if ctx.Err() != nil {
			return nil
		}
		l.logger.WarnContext(ctx, "listener: connection lost; caches read from the database until it listens again",
			"err", err, "retry_in", pause)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
		pause = min(2*pause, 30*time.Second)
	}
}

func (l *Listener) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, l.store.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("store: listener: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	channels := []string{heartbeatChannel}
	for channel := range l.subs {
		channels = append(channels, channel)
	}
	for _, channel := range channels {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
			return fmt.Errorf("store: listener: listen %s: %w", channel, err)
		}
	}
	for _, sub := range l.subs {
		sub.SetLive(true)
	}
	l.once.Do(func() { close(l.ready) })
	pending := ""     // the heartbeat on its way, if any
	var due time.Time // when it must have come back
	for {
		until := time.Now().Add(l.HeartbeatEvery)
		if pending != "" {
			until = due
		}
		wctx, cancel := context.WithDeadline(ctx, until)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err != nil && ctx.Err() == nil && pgconn.Timeout(err) && pending != "":
			return fmt.Errorf("store: listener: its heartbeat did not come back within %s", l.HeartbeatWait)
		case err != nil && ctx.Err() == nil && pgconn.Timeout(err):
			l.nonce++
			pending = fmt.Sprintf("%d.%d", conn.PgConn().PID(), l.nonce)
			due = time.Now().Add(l.HeartbeatWait)
			if _, err := l.store.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, l.heartbeatTo, pending); err != nil {
				return fmt.Errorf("store: listener: send heartbeat: %w", err)
			}
		case err != nil:
			return fmt.Errorf("store: listener: wait: %w", err)
		case n.Channel == heartbeatChannel:
			if n.Payload == pending {
				pending = ""
			}
		default:
			if sub, ok := l.subs[n.Channel]; ok {
				sub.Notice(n.Payload)
			}
		}
	}
}

// Memo is a map that notices keep honest, for a Subscriber: entries are
// used only while live (the listener is listening), every change and
// every (un)subscription empties what it must, and a value read from the
// database is kept only if nothing was announced while it was being read.
// Its zero value is ready (not live: it keeps nothing).
type Memo[K comparable, V any] struct {
	// Max bounds the entries: past it the memo starts again empty (0: no
	// bound).
	Max int

	mu   sync.Mutex
	live bool
	gen  uint64 // bumped by every change and every (un)subscription
	rows map[K]V
}

// Get returns the kept value of k when live and fresh(v) holds (a stale
// value is dropped); otherwise it returns a ticket for Keep.
func (m *Memo[K, V]) Get(k K, fresh func(V) bool) (v V, ok bool, ticket uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.rows[k]; ok && m.live {
		if fresh == nil || fresh(v) {
			return v, true, 0
		}
		delete(m.rows, k)
	}
	return v, false, m.gen // Keep refuses it if not live
}

// Keep stores a value read after Get gave ticket, unless anything was
// announced (or the listener lost) since.
func (m *Memo[K, V]) Keep(k K, ticket uint64, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.live || m.gen != ticket {
		return
	}
	if m.Max > 0 && len(m.rows) >= m.Max {
		m.rows = map[K]V{}
	}
	m.rows[k] = v
}

// Forget drops k and refuses every Keep of a read that started before.
func (m *Memo[K, V]) Forget(k K) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	delete(m.rows, k)
}

// Clear drops every entry and refuses every Keep of a read that started
// before (a change was announced that may concern any of them).
func (m *Memo[K, V]) Clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	m.rows = map[K]V{}
}

// Live reports whether kept values are in use.
func (m *Memo[K, V]) Live() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.live
}

// SetLive starts or stops using kept values; both start from empty.
func (m *Memo[K, V]) SetLive(live bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	m.live = live
	m.rows = map[K]V{}
}
