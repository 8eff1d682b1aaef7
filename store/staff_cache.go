package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// StaffCache keeps the staff rows that authentication reads on every
// request in memory, and drops a row as soon as PostgreSQL announces that
// it changed (the staff_changed trigger, migration 0009) — whichever
// process changed it. It answers from memory only while it is listening:
// before Run has subscribed, and from the moment the listening connection
// fails until it has subscribed again (when it starts empty), it reads
// through to the database. A role change or a disabled account therefore
// takes effect on the next request, here and on every other replica, as
// it did without the cache.
//
// Password hashes are not kept: rows from the cache have PasswordHash "".
type StaffCache struct {
	store  *Store
	logger *slog.Logger

	mu   sync.Mutex
	live bool   // subscribed: entries are kept and used
	gen  uint64 // bumped by every change notice and every (un)subscription
	rows map[int64]Staff

	// listening is closed when the first subscription is in place (tests).
	listening chan struct{}
	once      sync.Once
}

// staffChannel is the notification channel of the staff_changed trigger.
const staffChannel = "staff_changed"

// NewStaffCache returns a cache over s; it serves from memory once Run is
// listening. Changes made through s reach it before they return.
func NewStaffCache(s *Store, logger *slog.Logger) *StaffCache {
	c := &StaffCache{store: s, logger: logger, listening: make(chan struct{})}
	s.staffCache.Store(c)
	return c
}

// staffChanged tells the cache (if any) that a staff row changed here; the
// notification would tell it too, but a little later.
func (s *Store) staffChanged(id int64) {
	if c := s.staffCache.Load(); c != nil {
		c.forget(id)
	}
}

// StaffByID returns the staff member, from memory when it can.
func (c *StaffCache) StaffByID(ctx context.Context, id int64) (Staff, error) {
	c.mu.Lock()
	if st, ok := c.rows[id]; ok && c.live {
		c.mu.Unlock()
		return st, nil
	}
	gen, live := c.gen, c.live
	c.mu.Unlock()
	st, err := c.store.StaffByID(ctx, id)
	if err != nil {
		return Staff{}, err
	}
	st.PasswordHash = ""
	if live {
		c.mu.Lock()
		// A notice that arrived while reading may be about this very row:
		// keep the row only if nothing was announced meanwhile.
		if c.live && c.gen == gen {
			c.rows[id] = st
		}
		c.mu.Unlock()
	}
	return st, nil
}

// forget drops one row (a change notice).
func (c *StaffCache) forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.rows, id)
}

// setLive starts or stops answering from memory; both start from empty.
func (c *StaffCache) setLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.live = live
	c.rows = map[int64]Staff{}
}

// Listening is closed once the cache first serves from memory.
func (c *StaffCache) Listening() <-chan struct{} { return c.listening }

// Run listens for staff changes until ctx ends, on a connection of its own
// (outside the pool), reconnecting after a failure with a growing pause.
func (c *StaffCache) Run(ctx context.Context) error {
	pause := 100 * time.Millisecond
	for {
		err := c.listen(ctx)
		c.setLive(false)
		if ctx.Err() != nil {
			return nil
		}
		c.logger.WarnContext(ctx, "staff cache: listening failed; reading staff from the database until it listens again",
			"err", err, "retry_in", pause)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
		pause = min(2*pause, 30*time.Second)
	}
}

func (c *StaffCache) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, c.store.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("store: staff cache: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+staffChannel); err != nil {
		return fmt.Errorf("store: staff cache: listen: %w", err)
	}
	c.setLive(true)
	c.once.Do(func() { close(c.listening) })
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("store: staff cache: wait: %w", err)
		}
		id, err := strconv.ParseInt(n.Payload, 10, 64)
		if err != nil {
			return errors.Join(fmt.Errorf("store: staff cache: notice %q", n.Payload), err)
		}
		c.forget(id)
	}
}
