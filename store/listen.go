package store

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
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
type Listener struct {
	store  *Store
	logger *slog.Logger
	subs   map[string]Subscriber
	ready  chan struct{}
	once   sync.Once
}

// NewListener returns a listener; Subscribe before Run.
func NewListener(s *Store, logger *slog.Logger) *Listener {
	return &Listener{store: s, logger: logger, subs: map[string]Subscriber{}, ready: make(chan struct{})}
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
	for channel := range l.subs {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
			return fmt.Errorf("store: listener: listen %s: %w", channel, err)
		}
	}
	for _, sub := range l.subs {
		sub.SetLive(true)
	}
	l.once.Do(func() { close(l.ready) })
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("store: listener: wait: %w", err)
		}
		if sub, ok := l.subs[n.Channel]; ok {
			sub.Notice(n.Payload)
		}
	}
}
