package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"partneradmin/store"
)

// ProposalsByIDs reads exactly the proposals asked for that the mirror
// knows, with the open sign request's deadline, however many ids it is
// given: run more often than PostgreSQL's five custom plans, so that the
// cached generic plan answers too.
func TestProposalsByIDsReadsTheProposalsAskedFor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	for _, id := range []string{"p-a", "p-b", "p-c"} {
		seedProposal(t, st, id)
	}
	expires := time.Now().Add(time.Hour)
	newSignRequest(t, st, "p-b", "tok-b", expires)
	cases := []struct {
		ids  []string
		want []string
	}{
		{[]string{"p-a"}, []string{"p-a"}},
		{[]string{"p-b", "p-c"}, []string{"p-b", "p-c"}},
		{[]string{"p-c", "p-a", "p-b", "p-unknown"}, []string{"p-a", "p-b", "p-c"}},
		{[]string{"p-unknown"}, nil},
		{[]string{}, nil},
		{nil, nil},
	}
	for round := 0; round < 3; round++ {
		for _, c := range cases {
			got, err := st.ProposalsByIDs(ctx, c.ids)
			if err != nil {
				t.Fatalf("%v: %v", c.ids, err)
			}
			var ids []string
			for _, p := range got {
				ids = append(ids, p.ID)
				if p.OwnerUserID != "u-1" || p.Status != store.ProposalPendingSignatures || p.Amount.String() != "1.5" {
					t.Fatalf("%v: row %+v", c.ids, p)
				}
				if hasDeadline := p.SignDeadline != nil; hasDeadline != (p.ID == "p-b") {
					t.Fatalf("%s: sign deadline %v", p.ID, p.SignDeadline)
				}
				if p.ID == "p-b" && !p.SignDeadline.Equal(expires.Truncate(time.Microsecond)) {
					t.Fatalf("sign deadline %v, want %v", p.SignDeadline, expires)
				}
			}
			slices.Sort(ids)
			if !slices.Equal(ids, c.want) {
				t.Fatalf("round %d: ids %v read %v, want %v", round, c.ids, ids, c.want)
			}
		}
	}
}
