package views

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// betweenTags is white space between two tags, which HTML ignores there.
var betweenTags = regexp.MustCompile(`>\s+<`)

// tight is markup without white space between tags.
func tight(s string) string { return betweenTags.ReplaceAllString(s, "><") }

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
			`<span data-testid="readiness-EUR" data-state="x&#34; onclick=&#34;y"><span class="badge badge-neutral">?</span></span>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := ReadinessCell(tc.cell).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			if tight(b.String()) != tight(tc.want) {
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
	if tight(b.String()) != tight(want) {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// Every state in the table is said in words: no enum spelling (capitals,
// underscores) and a known tone.
func TestStatusWordsArePeoplesWords(t *testing.T) {
	tones := map[string]bool{ToneOK: true, ToneBad: true, ToneWarn: true, ToneInfo: true, ToneNeutral: true}
	for kind, states := range statusWords {
		for value, w := range states {
			if w.Label == "" || strings.Contains(w.Label, "_") || (len(w.Label) > 1 && strings.ToUpper(w.Label) == w.Label) {
				t.Errorf("%s %q: label %q", kind, value, w.Label)
			}
			if !tones[w.Tone] {
				t.Errorf("%s %q: tone %q", kind, value, w.Tone)
			}
		}
	}
	if got := StatusLabel(StatusProposal, "PENDING_APPROVALS"); got != "waiting for approvals" {
		t.Errorf("proposal label %q", got)
	}
	if got := Status(StatusProposal, "SOME_NEW_STATE"); got.Label != "some new state" || got.Tone != ToneNeutral {
		t.Errorf("unknown state %+v", got)
	}
	if got := StatusLabel(StatusCard, " Blocked "); got != "frozen" {
		t.Errorf("card status read case-insensitively: %q", got)
	}
	if got := ReadinessLabel("missing", 3); got != "missing 3 fields" {
		t.Errorf("readiness %q", got)
	}
}

func TestChipMarkup(t *testing.T) {
	var b strings.Builder
	if err := Chip(StatusProposal, `COMPLETED"<`).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	want := `<span class="badge badge-neutral" data-status="COMPLETED&#34;&lt;">completed&#34;&lt;</span>`
	if b.String() != want {
		t.Errorf("got %s", b.String())
	}
}

// An activity line of a completed proposal says its type in words, and
// no kind is shown as an enum.
func TestActivityKindLabelsAreWords(t *testing.T) {
	for kind, want := range map[string]string{"card_transaction": "card spend", "transfer": StatusLabel(StatusProposalType, "TRANSFER"),
		"card_issuance": StatusLabel(StatusProposalType, "CARD_ISSUANCE"), "something_new": "something new"} {
		if got := ActivityKindLabel(kind); got != want || strings.Contains(got, "_") {
			t.Errorf("%s: %q, want %q", kind, got, want)
		}
	}
}
