package apiclient

import "testing"

func TestProposalStatusIsOpen(t *testing.T) {
	t.Parallel()
	open := map[ProposalStatus]bool{
		ProposalPendingApprovals: true, ProposalPendingSignatures: true, ProposalFailed: true,
		ProposalSubmitted: false, ProposalCompleted: false, ProposalRejected: false, ProposalExpired: false, ProposalExecuting: false,
	}
	for s, want := range open {
		if s.IsOpen() != want {
			t.Errorf("%s.IsOpen() = %v, want %v", s, !want, want)
		}
	}
}
