package store

import (
	"context"
	"strconv"
	"sync"
)

// StaffCache keeps the staff rows that authentication reads on every
// request in memory, and drops a row as soon as PostgreSQL announces that
// it changed (the staff_changed trigger, migration 0009) — whichever
// process changed it. It answers from memory only while its Listener is
// listening: before the first LISTEN, and from the moment the connection
// fails until it listens again (when it starts empty), it reads through
// to the database. A role change or a disabled account therefore
// takes effect on the next request, here and on every other replica, as
// it did without the cache.
//
// Password hashes are not kept: rows from the cache have PasswordHash "".
type StaffCache struct {
	store *Store

	mu   sync.Mutex
	live bool   // subscribed: entries are kept and used
	gen  uint64 // bumped by every change notice and every (un)subscription
	rows map[int64]Staff
}

// StaffChannel is the notification channel of the staff_changed trigger.
const StaffChannel = "staff_changed"

// NewStaffCache returns a cache over s, subscribed to l: it serves from
// memory once l listens. Changes made through s reach it before they
// return.
func NewStaffCache(s *Store, l *Listener) *StaffCache {
	c := &StaffCache{store: s}
	s.staffCache.Store(c)
	l.Subscribe(StaffChannel, c)
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

// Notice drops the row a change notice names.
func (c *StaffCache) Notice(payload string) {
	id, err := strconv.ParseInt(payload, 10, 64)
	if err != nil {
		c.SetLive(false) // cannot tell which row: keep nothing
		c.SetLive(true)
		return
	}
	c.forget(id)
}

// forget drops one row.
func (c *StaffCache) forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.rows, id)
}

// SetLive starts or stops answering from memory; both start from empty.
func (c *StaffCache) SetLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.live = live
	c.rows = map[int64]Staff{}
}
