package apiclient

import (
	"context"
	"time"
)

// Exchange is one HTTP exchange with the API as an observer sees it: the
// client method that made it (Op, such as "GetCard"), never the URL, which
// carries identifiers.
type Exchange struct {
	Op     string
	Method string
	// Status is the HTTP status received; 0 when none was (a network
	// error, a timeout, a cancelled request).
	Status   int
	Duration time.Duration
}

// WithObserver has observe called after every HTTP exchange, each attempt
// of a retried call included (metrics). It runs on the caller's goroutine
// and must return quickly.
func WithObserver(observe func(ctx context.Context, e Exchange)) Option {
	return func(c *Client) { c.observe = observe }
}

// observed reports one exchange to the observer, if any.
func (c *Client) observed(ctx context.Context, req request, status int, start time.Time) {
	if c.observe != nil {
		c.observe(ctx, Exchange{Op: req.op, Method: req.method, Status: status, Duration: time.Since(start)})
	}
}
