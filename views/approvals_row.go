package views

import (
	"context"
	"io"
	"net/url"
	"time"

	"github.com/a-h/templ"
)

// ProposalRowView is one row of the approval queue. It is written by hand
// rather than in templ, like the list badges (badges.go): the queue renders
// 50 of them on every load and every 2-second poll, and templ's
// per-expression fmt.Sprint made them the page's largest cost.
func ProposalRowView(r ProposalRow) templ.Component { return &proposalRow{r} }

type proposalRow struct{ ProposalRow }

func (r *proposalRow) Render(_ context.Context, w io.Writer) error {
	hw := htmlWriter{w: w}
	hw.raw(`<tr data-testid="proposal-row" data-id="`)
	hw.text(r.ID)
	hw.raw(`"><td>`)
	if r.Selectable {
		// Outside the form, by its form attribute; hx-preserve keeps
		// the tick across the table's 2-second swaps.
		hw.raw(`<input type="checkbox" name="proposal_id" form="sign-batch-form" value="`)
		hw.text(r.ID)
		hw.raw(`" id="select-`)
		hw.text(r.ID)
		hw.raw(`" hx-preserve="true" data-testid="proposal-select" data-owner="`)
		hw.text(r.Owner)
		hw.raw(`" aria-label="Select for signing from one QR code"> `)
	}
	hw.raw(`<a href="/approvals/`)
	hw.text(url.PathEscape(r.ID))
	// An id, so that htmx gives the focus back after the 2-second swap.
	hw.raw(`" id="open-`)
	hw.text(r.ID)
	hw.raw(`" data-testid="proposal-link">`)
	hw.text(r.Title())
	hw.raw(`</a> <span class="muted" data-testid="proposal-type">`)
	hw.text(ProposalTypeLabel(r.Type))
	hw.raw(`</span></td><td class="num" data-testid="proposal-amount">`)
	hw.text(r.Amount.String())
	hw.raw(`</td><td data-testid="proposal-parties">`)
	hw.text(r.From)
	hw.raw(` → `)
	hw.text(r.To)
	hw.raw(`</td><td><span class="badge `)
	hw.text(ProposalBadgeClass(r.Status))
	hw.raw(`" data-testid="proposal-status" data-status="`)
	hw.text(r.Status)
	hw.raw(`">`)
	hw.text(r.StatusLabel)
	hw.raw(`</span>`)
	if r.NeedsMe {
		hw.raw(` <span class="badge badge-warn" data-testid="needs-me">needs me</span>`)
	}
	hw.raw(`</td><td data-testid="proposal-approvals">`)
	hw.text(r.Approvals)
	hw.raw(`</td><td data-testid="proposal-signatures">`)
	hw.text(r.Signatures)
	hw.raw(`</td><td>`)
	hw.text(r.Age)
	hw.raw(`</td><td>`)
	if r.Deadline != nil {
		d := r.Deadline.UTC()
		hw.raw(`<time datetime="`)
		hw.text(d.Format(time.RFC3339))
		hw.raw(`">`)
		hw.text(Clock(d))
		hw.raw(`</time>`)
	}
	hw.raw(`</td></tr>`)
	return hw.err
}
