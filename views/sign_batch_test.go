package views

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// The batch page names the owner and shows their signing key as a short
// id, never the templ call that draws it as text.
func TestSignBatchPageShowsTheOwnersKey(t *testing.T) {
	var b strings.Builder
	v := SignBatchView{ID: 7, ReturnTo: "/approvals", Owner: "Ada Lovelace", OwnerAddress: "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23",
		Table: SignBatchTable{PollURL: "/sign-batches/7/state", ExpiresAt: time.Now().Add(10 * time.Minute)}}
	if err := SignBatchPage(v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	panel := doc.Find(`[data-testid="sign-batch-panel"]`)
	if text := panel.Text(); strings.Contains(text, "@ShortID") || !strings.Contains(text, "Ada Lovelace") {
		t.Errorf("owner line: %q", text)
	}
	if got, _ := panel.Find("#sign-batch-owner-key").Attr("data-full"); got != v.OwnerAddress {
		t.Errorf("signing key %q, want %q", got, v.OwnerAddress)
	}
}

// A sign request's state says when its link expires as words with their
// spaces ("The link expires at 14:05 UTC"), not run together.
func TestSignStateSaysWhenTheLinkExpires(t *testing.T) {
	var b strings.Builder
	at := time.Date(2026, 11, 28, 14, 5, 0, 0, time.UTC)
	if err := SignStateView(SignPanel{State: "waiting", Label: "waiting", ExpiresAt: at, PollURL: "/x"}).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(strings.Fields(doc.Text()), " "); !strings.Contains(text, "The link expires at 14:05 UTC") {
		t.Errorf("state says %q", text)
	}
}

// The batch's counts say the first deadline with its space ("is at").
func TestSignBatchCountsSayTheFirstDeadline(t *testing.T) {
	var b strings.Builder
	at := time.Date(2026, 11, 28, 14, 5, 0, 0, time.UTC)
	tb := SignBatchTable{PollURL: "/x", Waiting: 2, Deadline: at, ExpiresAt: at.Add(time.Hour)}
	if err := SignBatchTableView(tb).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(strings.Fields(doc.Find(`[data-testid="sign-batch-counts"]`).Text()), " "); !strings.Contains(text, "The first deadline is at 14:05 UTC") {
		t.Errorf("counts say %q", text)
	}
}
