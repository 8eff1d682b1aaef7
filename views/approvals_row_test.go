package views

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestProposalRowMarkup(t *testing.T) {
	deadline := time.Date(2026, 11, 22, 14, 5, 0, 0, time.UTC)
	row := ProposalRow{ID: "p/1?x", Type: "TRANSFER", Amount: Amount{Value: decimal.RequireFromString("1234.5"), Currency: "USD", Token: "USDB"},
		From: "Treasury", To: `Ada <Lovelace>`, Description: `Bonus "Q4" & more`, Status: "PENDING_SIGNATURES",
		StatusLabel: "waiting for the owner's signature", Approvals: "2 of 2", Signatures: "0 of 1", Created: deadline.Add(-14 * time.Minute), Now: deadline.Add(-9 * time.Minute), Deadline: &deadline, NeedsMe: true}
	var b strings.Builder
	if err := ProposalRowView(row).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	want := `<tr data-testid="proposal-row" data-id="p/1?x"><td><a href="/approvals/p%2F1%3Fx" id="open-p/1?x" data-testid="proposal-link">Bonus &#34;Q4&#34; &amp; more</a> <span class="muted" data-testid="proposal-type">transfer</span></td>` +
		`<td class="num" data-testid="proposal-amount" data-label="Amount">1,234.50 USD (USDB)</td>` +
		`<td data-testid="proposal-parties" data-label="From → to">Treasury → Ada &lt;Lovelace&gt;</td>` +
		`<td data-label="State"><span class="badge badge-warn" data-testid="proposal-status" data-status="PENDING_SIGNATURES">waiting for the owner&#39;s signature</span>` +
		` <span class="badge badge-warn" data-testid="needs-me">needs me</span></td>` +
		`<td data-testid="proposal-approvals" data-label="Approvals">2 of 2</td><td data-testid="proposal-signatures" data-label="Signatures">0 of 1</td><td data-label="Age"><time class="nowrap" datetime="2026-11-22T13:51:00Z" title="22 Nov 2026 13:51 UTC">5 min ago</time></td>` +
		`<td data-label="Deadline"><time class="nowrap" datetime="2026-11-22T14:05:00Z" title="22 Nov 2026 14:05 UTC">in 9 minutes</time></td></tr>`
	if tight(b.String()) != tight(want) {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	row.NeedsMe, row.Deadline, row.Status = false, nil, "COMPLETED"
	b.Reset()
	if err := ProposalRowView(row).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); strings.Contains(got, "needs-me") || strings.Contains(got, "in 9 minutes") ||
		!strings.Contains(got, `<span class="badge badge-ok" data-testid="proposal-status" data-status="COMPLETED">`) {
		t.Errorf("completed row without deadline or flag:\n%s", got)
	}
	// A row that may be signed with others carries its checkbox, escaped.
	row.Status, row.Selectable, row.Owner = "PENDING_SIGNATURES", true, `u"1&<`
	b.Reset()
	if err := ProposalRowView(row).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	wantBox := `<tr data-testid="proposal-row" data-id="p/1?x"><td><input type="checkbox" name="proposal_id" form="sign-batch-form" value="p/1?x" ` +
		`id="select-p/1?x" hx-preserve="true" data-testid="proposal-select" data-owner="u&#34;1&amp;&lt;" ` +
		`aria-label="Select for signing from one QR code"><a href="/approvals/p%2F1%3Fx" id="open-p/1?x" data-testid="proposal-link">Bonus &#34;Q4&#34; &amp; more</a> <span class="muted" data-testid="proposal-type">transfer</span></td>`
	if got := b.String(); !strings.HasPrefix(tight(got), tight(wantBox)) {
		t.Errorf("selectable row:\n%s\nwant prefix\n%s", got, wantBox)
	}
}
