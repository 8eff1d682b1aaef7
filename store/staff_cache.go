package store

import (
	"context"
	"strconv"
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
	rows  Memo[int64, Staff]
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
	st, ok, ticket := c.rows.Get(id, nil)
	if ok {
		return st, nil
	}
	st, err := c.store.StaffByID(ctx, id)
	if err != nil {
		return Staff{}, err
	}
	st.PasswordHash = ""
	c.rows.Keep(id, ticket, st)
	return st, nil
}

// Notice drops the row a change notice names.
func (c *StaffCache) Notice(payload string) {
	id, err := strconv.ParseInt(payload, 10, 64)
	if err != nil {
		c.rows.SetLive(false) // cannot tell which row: keep nothing
		c.rows.SetLive(true)
		return
	}
	c.forget(id)
}

// forget drops one row.
func (c *StaffCache) forget(id int64) { c.rows.Forget(id) }

// SetLive starts or stops answering from memory; both start from empty.
func (c *StaffCache) SetLive(live bool) { c.rows.SetLive(live) }

// Clear drops every row (auth_epoch moved: some staff row changed).
func (c *StaffCache) Clear() { c.rows.Clear() }

// Live reports whether the cache answers from memory.
func (c *StaffCache) Live() bool { return c.rows.Live() }
