package store

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/store/pgtest"
)

// liveLog records a subscriber's SetLive calls.
type liveLog struct {
	mu    sync.Mutex
	calls []bool
}

func (l *liveLog) Notice(string) {}
func (l *liveLog) SetLive(live bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, live)
}
func (l *liveLog) lost() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, live := range l.calls {
		if !live {
			n++
		}
	}
	return n
}

// heartbeatListener heartbeats every 30 ms and gives each heartbeat wait to
// come back.
func heartbeatListener(t *testing.T, to string, wait time.Duration) (*Listener, *liveLog) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	l := NewListener(New(pool), slog.New(slog.DiscardHandler))
	l.HeartbeatEvery, l.HeartbeatWait, l.heartbeatTo = 30*time.Millisecond, wait, to
	sub := &liveLog{}
	l.Subscribe("test_channel", sub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-l.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("not listening after 5 s")
	}
	return l, sub
}

func TestListenerHeartbeatsKeepAWorkingConnection(t *testing.T) {
	// A busy machine can hold a heartbeat for a while: 3 s is far more
	// than a working connection needs.
	_, sub := heartbeatListener(t, heartbeatChannel, 3*time.Second)
	time.Sleep(time.Second) // some 30 heartbeats
	if n := sub.lost(); n != 0 {
		t.Fatalf("a working connection was dropped %d times", n)
	}
}

// A connection that delivers nothing (here: heartbeats go to a channel
// nobody listens on) is treated as lost, so nothing kept is used.
func TestListenerDropsAConnectionThatDeliversNothing(t *testing.T) {
	_, sub := heartbeatListener(t, "nobody_listens_here", 200*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for sub.lost() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("a connection whose heartbeats never came back was kept")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
