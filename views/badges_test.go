package views

import (
	"context"
	"strings"
	"testing"
)

func TestReadinessCellMarkup(t *testing.T) {
	for _, tc := range []struct {
		name string
		cell ReadinessCellView
		want string
	}{
		{"plain", ReadinessCellView{Currency: "USD", State: "active", Label: "active"},
			`<span data-testid="readiness-USD" data-state="active"><span class="badge badge-ok">active</span></span>`},
		{"missing and detail, escaped", ReadinessCellView{Currency: "NGN", State: "missing", Label: "missing 2 fields",
			Missing: []string{"Occupation", `BVN <"x">`}, Detail: "a & b"},
			`<details class="readiness" data-testid="readiness-NGN" data-state="missing"><summary><span class="badge badge-warn">missing 2 fields</span></summary>` +
				`<ul data-testid="missing-NGN"><li>Occupation</li><li>BVN &lt;&#34;x&#34;&gt;</li></ul><p>a &amp; b</p></details>`},
		{"hostile state stays inside the attribute", ReadinessCellView{Currency: "EUR", State: `x" onclick="y`, Label: "?"},
			`<span data-testid="readiness-EUR" data-state="x&#34; onclick=&#34;y"><span class="badge badge-pending">?</span></span>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := ReadinessCell(tc.cell).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestInviteStateBadgeMarkup(t *testing.T) {
	var b strings.Builder
	if err := InviteStateBadge("action_required", "action <required>").Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	want := `<span class="badge badge-warn" data-testid="invite-state" data-state="action_required">action &lt;required&gt;</span>`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
