package views

import (
	"context"
	"testing"
	"time"
)

func TestRelativeClockShorten(t *testing.T) {
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{now.Add(9*time.Minute + 20*time.Second), "in 9 minutes"},
		{now.Add(time.Minute), "in 1 minute"},
		{now.Add(45 * time.Second), "in 45 seconds"},
		{now.Add(-3 * time.Hour), "3 hours ago"},
		{now.Add(2 * time.Second), "now"},
		{now.Add(72 * time.Hour), "on 25 Nov 2026 14:00 UTC"},
	} {
		if got := Relative(context.Background(), tc.at, now); got != tc.want {
			t.Errorf("Relative(%s) = %q, want %q", tc.at.Sub(now), got, tc.want)
		}
	}
	if got := Clock(context.Background(), now.Add(11*time.Hour+13*time.Minute)); got != "01:13 UTC" {
		t.Errorf("Clock %q", got)
	}
	if got := Shorten("0xe8a96B0000000000000000000000000000003701"); got != "0xe8a96B…3701" {
		t.Errorf("Shorten %q", got)
	}
	if got := Shorten("card-12"); got != "card-12" {
		t.Errorf("a short id is kept: %q", got)
	}
	if got := SlippagePercent(50); got != "0.5%" {
		t.Errorf("slippage %q", got)
	}
}

func TestProposalWords(t *testing.T) {
	if got := (ProposalRow{Type: "SWAP", To: "Treasury"}).Title(); got != "Swap to Treasury" {
		t.Errorf("title without description %q", got)
	}
	if got := TimelineDetail(TimelineEntry{Kind: "status", Detail: "PENDING_SIGNATURES → FAILED: out of gas"}); got != "from waiting for the owner's signature to failed: out of gas" {
		t.Errorf("status change %q", got)
	}
	if got := TimelineKindLabel("proposal.approve unknown"); got != "approval outcome unknown" {
		t.Errorf("request kind %q", got)
	}
	if got := TimelineDetail(TimelineEntry{Kind: "created", Detail: "status PENDING_APPROVALS"}); got != "waiting for approvals" {
		t.Errorf("created %q", got)
	}
}
