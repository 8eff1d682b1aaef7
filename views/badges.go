package views

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// The list page renders 25 invite badges and 125 readiness cells; as templ
// components they were a fifth of the page's CPU (templ formats every
// expression with fmt.Sprint and builds a closure per call). They are
// written here by hand, with the same escaping templ applies to text and
// attribute values.

// InviteStateBadge is an employee's invite state as a badge.
func InviteStateBadge(state, label string) templ.Component {
	return inviteBadge{state: state, label: label}
}

type inviteBadge struct{ state, label string }

func (b inviteBadge) Render(_ context.Context, w io.Writer) error {
	hw := htmlWriter{w: w}
	hw.raw(`<span class="badge `)
	hw.raw(inviteBadgeClass(b.state))
	hw.raw(`" data-testid="invite-state" data-state="`)
	hw.text(b.state)
	hw.raw(`">`)
	hw.text(b.label)
	hw.raw(`</span>`)
	return hw.err
}

// ReadinessCell is one currency's readiness; the missing fields open on
// click or keyboard (details/summary needs no script).
func ReadinessCell(c ReadinessCellView) templ.Component { return &readinessCell{c} }

type readinessCell struct{ ReadinessCellView }

func (c *readinessCell) Render(_ context.Context, w io.Writer) error {
	hw := htmlWriter{w: w}
	if len(c.Missing) == 0 && c.Detail == "" {
		hw.raw(`<span data-testid="readiness-`)
		hw.text(c.Currency)
		hw.raw(`" data-state="`)
		hw.text(c.State)
		hw.raw(`">`)
		hw.readinessBadge(c.State, c.Label)
		hw.raw(`</span>`)
		return hw.err
	}
	hw.raw(`<details class="readiness" data-testid="readiness-`)
	hw.text(c.Currency)
	hw.raw(`" data-state="`)
	hw.text(c.State)
	hw.raw(`"><summary>`)
	hw.readinessBadge(c.State, c.Label)
	hw.raw(`</summary>`)
	if len(c.Missing) > 0 {
		hw.raw(`<ul data-testid="missing-`)
		hw.text(c.Currency)
		hw.raw(`">`)
		for _, m := range c.Missing {
			hw.raw(`<li>`)
			hw.text(m)
			hw.raw(`</li>`)
		}
		hw.raw(`</ul>`)
	}
	if c.Detail != "" {
		hw.raw(`<p>`)
		hw.text(c.Detail)
		hw.raw(`</p>`)
	}
	hw.raw(`</details>`)
	return hw.err
}

// htmlWriter writes markup, keeping the first error.
type htmlWriter struct {
	w   io.Writer
	err error
}

// raw writes trusted markup (constants of this file).
func (h *htmlWriter) raw(s string) {
	if h.err == nil {
		_, h.err = io.WriteString(h.w, s)
	}
}

// text writes a value as escaped text, safe in element content and in a
// double-quoted attribute value.
func (h *htmlWriter) text(s string) { h.raw(templ.EscapeString(s)) }

func (h *htmlWriter) readinessBadge(state, label string) {
	h.raw(`<span class="badge `)
	h.raw(readinessBadgeClass(state))
	h.raw(`">`)
	h.text(label)
	h.raw(`</span>`)
}
