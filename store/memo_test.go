package store_test

import (
	"testing"

	"partneradmin/store"
)

func TestMemoKeepsOnlyWhatNothingContradicts(t *testing.T) {
	var m store.Memo[string, int]
	// Not live: nothing is kept.
	_, ok, ticket := m.Get("a", nil)
	if ok {
		t.Fatal("an empty memo has a value")
	}
	m.Keep("a", ticket, 1)
	if _, ok = get(&m, "a"); ok {
		t.Fatal("kept while not live")
	}
	m.SetLive(true)
	// A ticket from before going live is refused.
	m.Keep("a", ticket, 1)
	if _, ok = get(&m, "a"); ok {
		t.Fatal("kept a read that started before the memo was live")
	}
	_, _, ticket = m.Get("a", nil)
	m.Keep("a", ticket, 1)
	if v, ok := get(&m, "a"); !ok || v != 1 {
		t.Fatalf("a = %d %v", v, ok)
	}
	// A change announced while reading refuses the read, whatever its key.
	_, _, ticket = m.Get("b", nil)
	m.Forget("zzz")
	m.Keep("b", ticket, 2)
	if _, ok = get(&m, "b"); ok {
		t.Fatal("kept a read a notice raced with")
	}
	m.Forget("a")
	if _, ok = get(&m, "a"); ok {
		t.Fatal("forgotten value served")
	}
	// A value that is no longer fresh is dropped.
	_, _, ticket = m.Get("c", nil)
	m.Keep("c", ticket, 3)
	if _, ok, _ := m.Get("c", func(v int) bool { return v > 3 }); ok {
		t.Fatal("stale value served")
	}
	if _, ok = get(&m, "c"); ok {
		t.Fatal("stale value kept")
	}
	// Losing the listener empties it.
	_, _, ticket = m.Get("d", nil)
	m.Keep("d", ticket, 4)
	m.SetLive(false)
	m.SetLive(true)
	if _, ok = get(&m, "d"); ok {
		t.Fatal("a value survived the listener's loss")
	}
	// The bound.
	m.Max = 2
	for i, k := range []string{"x", "y", "z"} {
		_, _, ticket = m.Get(k, nil)
		m.Keep(k, ticket, i)
	}
	n := 0
	for _, k := range []string{"x", "y", "z"} {
		if _, ok := get(&m, k); ok {
			n++
		}
	}
	if n > 2 {
		t.Fatalf("%d values kept, bound 2", n)
	}
}

func get(m *store.Memo[string, int], k string) (int, bool) {
	v, ok, _ := m.Get(k, nil)
	return v, ok
}
