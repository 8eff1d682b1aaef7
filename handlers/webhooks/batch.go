package webhooks

import (
	"context"
	"sync"
	"time"

	"partneradmin/store"
)

// Deliveries that arrive while others are being stored are stored
// together: one statement, one commit for all of them (each still answered
// only once its row is committed). A commit waits for the write-ahead log
// to reach the disk; with at most receiveStatements statements in flight,
// what arrives meanwhile waits and goes in the next one, so under load the
// receiver commits many deliveries per flush instead of holding a pooled
// connection per delivery, and a lone delivery is stored at once.
const (
	// receiveStatements is how many statements the receiver runs at once:
	// half the default pool, leaving the rest to the pages and the jobs.
	receiveStatements = 3
	// A statement stores at most this many deliveries and body bytes.
	batchRows  = 64
	batchBytes = 4 << 20
	// batchTimeout bounds a statement, whoever's request runs it: one
	// sender hanging up does not fail the others' deliveries.
	batchTimeout = 15 * time.Second
)

// receiveBatcher queues deliveries to store; a request holding one of the
// receiveStatements slots stores what is queued, then hands the slot to a
// waiting request (no goroutine of its own).
type receiveBatcher struct {
	mu      sync.Mutex
	waiting []*pendingDelivery
	running int
}

// pendingDelivery is one request's delivery. done, lead, res and err are
// guarded by the batcher's mutex; wake is signalled when one changes.
type pendingDelivery struct {
	d    store.NewDelivery
	wake chan struct{}
	done bool
	lead bool // this request holds a slot: run the next statement
	res  store.Received
	err  error
}

func (p *pendingDelivery) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// storeDelivery stores d (and wakes its processing) and returns once it
// is committed, with what the store did with it.
func (h *Handler) storeDelivery(ctx context.Context, d store.NewDelivery) (int64, bool, error) {
	b := &h.batcher
	p := &pendingDelivery{d: d, wake: make(chan struct{}, 1)}
	b.mu.Lock()
	b.waiting = append(b.waiting, p)
	if b.running < receiveStatements {
		b.running++
		p.lead = true
	}
	for {
		switch {
		case p.lead:
			p.lead = false
			b.mu.Unlock()
			h.runBatch(ctx)
			b.mu.Lock()
		case p.done:
			b.mu.Unlock()
			if p.err != nil {
				return 0, false, p.err
			}
			return p.res.ID, p.res.Inserted, p.res.Err
		default:
			b.mu.Unlock()
			<-p.wake
			b.mu.Lock()
		}
	}
}

// runBatch stores the oldest waiting deliveries (distinct keys, within the
// limits) in one statement, tells each its result, and hands the slot on.
func (h *Handler) runBatch(ctx context.Context) {
	b := &h.batcher
	b.mu.Lock()
	var batch, rest []*pendingDelivery
	keys := map[string]bool{}
	size := 0
	for _, p := range b.waiting {
		if len(batch) == batchRows || keys[p.d.WebhookID] || (len(batch) > 0 && size+len(p.d.Body) > batchBytes) {
			rest = append(rest, p)
			continue
		}
		keys[p.d.WebhookID] = true
		size += len(p.d.Body)
		batch = append(batch, p)
	}
	b.waiting = rest
	b.mu.Unlock()

	if len(batch) > 0 {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), batchTimeout)
		h.storeBatch(sctx, batch)
		cancel()
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range batch {
		p.done = true
		p.signal()
	}
	for _, p := range b.waiting {
		if !p.lead {
			p.lead = true
			p.signal()
			return
		}
	}
	b.running--
}

// storeBatch stores a batch in one statement. When the statement fails
// with more than one delivery in it, each is stored alone, so one
// delivery the database refuses does not fail the others.
func (h *Handler) storeBatch(ctx context.Context, batch []*pendingDelivery) {
	ds := make([]store.NewDelivery, len(batch))
	for i, p := range batch {
		ds[i] = p.d
	}
	res, err := h.Store.ReceiveDeliveries(ctx, ds, h.wakeDrain)
	if err == nil {
		for i, p := range batch {
			p.res = res[i]
		}
		return
	}
	if len(batch) == 1 {
		batch[0].err = err
		return
	}
	for _, p := range batch {
		one, err := h.Store.ReceiveDeliveries(ctx, []store.NewDelivery{p.d}, h.wakeDrain)
		if err != nil {
			p.err = err
			continue
		}
		p.res = one[0]
	}
}
