package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An Area is a set of reads kept in memory (readCache) and served again
// for as long as the groups of tables they read have not changed.
type Area int

const (
	// AreaEmployees is the employee list and the readiness matrix.
	AreaEmployees Area = iota
	// AreaQueue is the approval queue.
	AreaQueue
	// AreaCards is card search.
	AreaCards
	// AreaActivity is the activity feed.
	AreaActivity
	// AreaTreasury is the treasury user and its wallets, for the pages
	// that only show them (CachedTreasury).
	AreaTreasury
	// AreaPayroll is the list of payroll runs.
	AreaPayroll
	// AreaActivityDays is the start page's money in and out and card
	// spend per day: activity_days, which activity's trigger keeps in the
	// transaction that records a money event (migration 0037).
	AreaActivityDays
	numAreas
)

// A group is a set of tables whose committed changes are counted together
// (migration 0071).
type group int

const (
	groupEmployees group = iota // employees, employee_search_words
	groupReadiness              // employee_readiness, readiness_counts
	groupProposals              // proposals, sign_requests, actions, queue_counts
	groupCards                  // cards, card_search_words, wallets' currency
	groupActivity               // activity
	groupWallets                // wallets (balances included)
	groupPayroll                // payroll_runs
	numGroups
)

// areaGroups are the groups each area's reads read.
var areaGroups = [numAreas][]group{
	AreaEmployees: {groupEmployees, groupReadiness},
	AreaQueue:     {groupProposals, groupEmployees},
	AreaCards:     {groupCards, groupEmployees},
	AreaActivity:  {groupActivity, groupProposals, groupEmployees},
	AreaTreasury:  {groupEmployees, groupWallets},
	AreaPayroll:   {groupPayroll},
	// activity_days only changes with activity.
	AreaActivityDays: {groupActivity},
}

// Versions are the groups' versions as one statement read them.
type Versions [numGroups]int64

// of is area's version: the sum of its groups' versions. Every version
// only grows, so two readings of the same groups have the same sum only
// when none of them changed in between, and the later has the larger sum
// when one did.
func (v Versions) of(area Area) int64 {
	var n int64
	for _, g := range areaGroups[area] {
		n += v[g]
	}
	return n
}

type versionsKey struct{}

// WithVersions returns ctx carrying v: versions read after the request
// arrived and before it reads any data. Store reads of a cached area
// under ctx are then served from memory when a read made at the same
// version is kept; without versions every read goes to the database.
//
// Only a request that changes nothing may carry versions: a request that
// writes and then reads would be served what was kept before its own
// write.
func WithVersions(ctx context.Context, v Versions) context.Context {
	return context.WithValue(ctx, versionsKey{}, v)
}

func versionsFrom(ctx context.Context) (Versions, bool) {
	v, ok := ctx.Value(versionsKey{}).(Versions)
	return v, ok
}

// cachedPageRows is the largest page kept: the pages people look at are
// smaller, and CSV exports walk every page once.
const cachedPageRows = 100

// cacheKey joins a read's parameters into its key. Every parameter is a
// field of the read's filter; times are written to the nanosecond (in
// UTC, without the monotonic clock reading).
func cacheKey(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			b.WriteString(strconv.Quote(x))
		case int:
			b.WriteString(strconv.Itoa(x))
		case int64:
			b.WriteString(strconv.FormatInt(x, 10))
		case bool:
			b.WriteString(strconv.FormatBool(x))
		case time.Time:
			b.WriteString(x.UTC().Format(time.RFC3339Nano))
		default:
			fmt.Fprint(&b, x)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// readCacheEntries bounds the reads kept per area (a page of the list is
// a few kilobytes; different searches and pages each take one).
const readCacheEntries = 64

// readCache keeps reads of each area made at its newest version seen.
//
// It is honest across replicas because of the order of the reads: the
// versions are read before the data, and every change moves its area's
// version in the transaction that makes it (at commit, migration 0071).
// So a read kept under version v shows every change counted in v (it may
// show later ones too), and a request is only served a read kept under
// the very version it read itself, after it arrived. A newer version
// drops the area's kept reads; a request holding an older version than
// the kept ones reads the database and keeps nothing.
//
// Kept values are shared by every request that is served them: callers
// must not change them.
type readCache struct {
	areas [numAreas]areaCache
}

type areaCache struct {
	mu      sync.Mutex
	version int64
	entries map[string]any
	order   []string // keys in the order they were kept, for the bound
}

// cachedRead returns the read of key in area kept at ctx's version, or
// makes it with read and keeps it.
func cachedRead[T any](ctx context.Context, c *readCache, area Area, key string, read func() (T, error)) (T, error) {
	if x, ok := keptLookup(ctx, c, area, key); ok {
		if v, ok := x.(T); ok {
			return v, nil
		}
	}
	x, err := read()
	if err == nil {
		keep(ctx, c, area, key, x)
	}
	return x, err
}

// keptLookup is the read of key in area kept at ctx's version, if there
// is one: cachedRead's first half, for a read that goes in one batch with
// others when it is not kept.
func keptLookup(ctx context.Context, c *readCache, area Area, key string) (any, bool) {
	v, ok := versionsFrom(ctx)
	if !ok || c == nil {
		return nil, false
	}
	return c.areas[area].get(v.of(area), key)
}

// keep keeps x, read after ctx's versions were, as the read of key in
// area: cachedRead's second half. Without versions it keeps nothing.
func keep(ctx context.Context, c *readCache, area Area, key string, x any) {
	v, ok := versionsFrom(ctx)
	if !ok || c == nil {
		return
	}
	c.areas[area].put(v.of(area), key, x)
}

func (a *areaCache) get(version int64, key string) (any, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.version != version {
		return nil, false
	}
	x, ok := a.entries[key]
	return x, ok
}

func (a *areaCache) put(version int64, key string, x any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case version < a.version:
		return
	case version > a.version || a.entries == nil:
		a.version, a.entries, a.order = version, make(map[string]any, readCacheEntries), a.order[:0]
	}
	if _, ok := a.entries[key]; ok {
		return
	}
	if len(a.order) == readCacheEntries {
		delete(a.entries, a.order[0])
		a.order = append(a.order[:0], a.order[1:]...)
	}
	a.entries[key] = x
	a.order = append(a.order, key)
}

// Derived keeps values derived from one read, such as its rows as a page
// shows them or their markup: made once, however many requests are served
// the read from memory. It keeps the derivedValues most recently made; a
// nil Derived keeps nothing.
type Derived struct {
	mu     sync.Mutex
	values map[string]any
	order  []string // keys, oldest first
}

// derivedValues is how many values a Derived keeps: a page keeps a few
// (rows, markup, chart), and the queue one markup per set of ages shown,
// which moves every minute while the read stays the same.
const derivedValues = 16

// Get returns the value kept under key, or makes it (once: requests asking
// meanwhile wait for it) and keeps it. make must derive the value from the
// read and key alone, never from anything else of the request, which other
// requests do not share.
func (m *Derived) Get(key string, make func() any) any {
	if m == nil {
		return make()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.values[key]; ok {
		return v
	}
	v := make()
	if m.values == nil {
		m.values = map[string]any{}
	}
	if len(m.order) == derivedValues {
		delete(m.values, m.order[0])
		m.order = append(m.order[:0], m.order[1:]...)
	}
	m.values[key] = v
	m.order = append(m.order, key)
	return v
}
