package views

import (
	"context"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"
)

// ProposalRowView is one row of the approval queue. It is written by hand
// rather than in templ, like the list badges (badges.go): the queue renders
// 50 of them on every load and every 2-second poll, and templ's
// per-expression fmt.Sprint made them the page's largest cost.
func ProposalRowView(r ProposalRow) templ.Component { return proposalRows{r} }

// ProposalRows are the queue's rows, written with one scratch buffer for
// their amounts and times.
func ProposalRows(rows []ProposalRow) templ.Component { return proposalRows(rows) }

type proposalRows []ProposalRow

func (rows proposalRows) Render(_ context.Context, w io.Writer) error {
	hw := newBufferedWriter(w)
	for i := range rows {
		hw.proposalRow(&rows[i])
	}
	return hw.done()
}

func (hw *htmlWriter) proposalRow(r *ProposalRow) {
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
	if strings.TrimSpace(r.Description) != "" {
		hw.text(r.Description)
	} else {
		hw.text(r.Title())
	}
	hw.raw(`</a> <span class="muted" data-testid="proposal-type">`)
	hw.text(ProposalTypeLabel(r.Type))
	hw.raw(`</span></td><td class="num" data-testid="proposal-amount">`)
	hw.amount(r.Amount)
	hw.raw(`</td><td data-testid="proposal-parties">`)
	hw.text(r.From)
	hw.raw(` → `)
	hw.text(r.To)
	hw.raw(`</td><td><span class="badge badge-`)
	hw.text(Status(StatusProposal, r.Status).Tone)
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
		hw.raw(`<time datetime="`)
		hw.time(*r.Deadline, time.RFC3339)
		hw.raw(`">`)
		if r.Deadline.IsZero() {
			hw.raw("—") // Clock's word for no time
		} else {
			hw.time(*r.Deadline, clockLayout)
		}
		hw.raw(`</time>`)
	}
	hw.raw(`</td></tr>`)
}

// amount writes Amount.String(), escaped.
func (hw *htmlWriter) amount(a Amount) {
	if hw.buffered() {
		hw.buf = appendDecimal(hw.buf, a.Value, 2)
	} else {
		hw.scratch = appendDecimal(hw.scratch[:0], a.Value, 2)
		hw.bytes(hw.scratch)
	}
	hw.raw(" ")
	hw.text(a.Currency)
	if a.Token != "" && a.Token != a.Currency {
		hw.raw(" (")
		hw.text(a.Token)
		hw.raw(")")
	}
}
