package payroll

import (
	"context"
	"sync"
	"time"

	"partneradmin/store"
)

// liveTTL is how long one replica answers a run's polls from one read of
// its summary and rows window. The run page polls every 2 s from every
// viewer; a figure at most this old is as true as the poll's own rhythm,
// and a run of a thousand rows being sent to many viewers costs one read a
// second, not one a poll. The page itself (and every form's answer) reads
// afresh.
const liveTTL = time.Second

// liveMemoMax bounds the windows kept; past it, expired ones are dropped.
const liveMemoMax = 256

type liveKey struct {
	run int64
	win rowWindow
}

// liveData is what a poll shows of all of a run's rows.
type liveData struct {
	at   time.Time
	sum  store.PayrollSummary
	page []store.PayrollRow
	next int
}

// liveCall is one read: the polls that arrive while it runs wait for it.
type liveCall struct {
	done chan struct{}
	data liveData
	err  error
}

// liveMemo keeps the last read of each run's window for liveTTL.
type liveMemo struct {
	mu sync.Mutex
	m  map[liveKey]*liveCall
}

// get returns the window's data read at most liveTTL before now, reading
// it with load when there is none; concurrent polls share one read.
func (lm *liveMemo) get(ctx context.Context, key liveKey, now time.Time, load func(context.Context) (liveData, error)) (liveData, error) {
	lm.mu.Lock()
	if lm.m == nil {
		lm.m = map[liveKey]*liveCall{}
	}
	if c, ok := lm.m[key]; ok {
		select {
		case <-c.done:
			if c.err == nil && now.Sub(c.data.at) < liveTTL && !now.Before(c.data.at) {
				lm.mu.Unlock()
				return c.data, nil
			}
		default:
			lm.mu.Unlock()
			select {
			case <-c.done:
				return c.data, c.err
			case <-ctx.Done():
				return liveData{}, ctx.Err()
			}
		}
	}
	c := &liveCall{done: make(chan struct{})}
	if len(lm.m) >= liveMemoMax {
		for k, old := range lm.m {
			select {
			case <-old.done:
				if now.Sub(old.data.at) >= liveTTL || old.err != nil {
					delete(lm.m, k)
				}
			default:
			}
		}
	}
	lm.m[key] = c
	lm.mu.Unlock()
	c.data, c.err = load(context.WithoutCancel(ctx))
	c.data.at = now
	close(c.done)
	return c.data, c.err
}
