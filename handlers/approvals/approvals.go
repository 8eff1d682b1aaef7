// Package approvals is the finance approver's queue: every open proposal of
// every wallet the partner administers, read from the local mirror that a
// river job keeps fresh, with approve, approve again and reject.
//
// Approval mapping: the API records each approval against a wallet admin
// (spec: the caller must be "an active admin of the wallet"; the sandbox
// names the admin with x-acting-user-id). Each finance approver or owner
// links their staff account to one admin's serviceUserId (/approvals/link);
// their approvals are sent as that admin, and the app records which staff
// member acted. Wallets under OWNER_APPROVAL (employees' own wallets) are
// approved by the partner itself, with no acting admin.
//
// Approve and reject are upstream writes: each goes through the action
// ledger (handlers.Actions), is sent once, and is read back with
// GetProposal when the API's answer is lost.
package approvals

import (
	"slices"
	"strconv"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// Handler serves the approval routes.
type Handler struct {
	*handlers.Base
	store   *store.Store
	api     *apiclient.Client
	actions *handlers.Actions
	clock   func() time.Time
	// Sync re-reads the proposals of every wallet into the mirror (the
	// periodic job and the refresh button).
	Sync *Syncer
}

// New returns the approvals handler and registers how its writes are read
// back.
func New(d handlers.Deps) *Handler {
	h := &Handler{Base: d.Base, store: d.Store, api: d.API, actions: d.Actions, clock: d.Clock}
	h.Sync = &Syncer{Store: d.Store, Concurrency: d.Config.ApprovalSyncConcurrency, Logger: d.Logger, Clock: d.Clock}
	if d.API != nil {
		h.Sync.API = d.API
	}
	d.Actions.ReadBackFor(kindApprove, proposal.ReadBackApproval(d.API, d.Clock))
	d.Actions.ReadBackFor(kindApproveAgain, proposal.ReadBackApproval(d.API, d.Clock))
	d.Actions.ReadBackFor(kindReject, proposal.ReadBackRejection(d.API, d.Clock))
	return h
}

// ofCounts are "n of m" for the counts a wallet has (up to 9 admins or
// owners), made once: the queue wrote two of them per row.
var ofCounts = func() (t [10][10]string) {
	for n := range t {
		for m := range t[n] {
			t[n][m] = strconv.Itoa(n) + " of " + strconv.Itoa(m)
		}
	}
	return t
}()

// ofCount is "n of m" ("1 of 2").
func ofCount(n, m int) string {
	if n >= 0 && m >= 0 && n < len(ofCounts) && m < len(ofCounts[n]) {
		return ofCounts[n][m]
	}
	return strconv.Itoa(n) + " of " + strconv.Itoa(m)
}

// row builds a queue row as the viewer linked as linkedAs sees it now.
func row(p store.Proposal, names proposal.Names, now time.Time, linkedAs string, viewerID int64) views.ProposalRow {
	r := baseRow(p, names)
	r.Created, r.Now, r.NeedsMe = p.CreatedAt, now, needsMe(p, linkedAs, viewerID)
	return r
}

// baseRow is a queue row without what depends on the time or the viewer
// (its age, "needs me", the signing checkbox).
func baseRow(p store.Proposal, names proposal.Names) views.ProposalRow {
	r := views.ProposalRow{
		ID: p.ID, Type: p.Type, Amount: proposal.Money(p), From: names.Of(p.OwnerUserID), To: names.Recipient(p),
		Description: p.Description, Status: string(p.Status), StatusLabel: views.StatusLabel(views.StatusProposal, string(p.Status)),
		Approvals:  ofCount(len(p.Approvals), p.RequiredApprovals),
		Signatures: ofCount(p.CollectedSignatures, p.RequiredSignatures),
	}
	if p.Status == store.ProposalPendingSignatures {
		r.Deadline = p.SignDeadline
		r.Owner = p.OwnerUserID
	}
	return r
}

// needsMe reports whether p waits for the approval of the wallet admin
// linkedAs, signed in as staff viewerID (who may not approve their own
// proposal).
func needsMe(p store.Proposal, linkedAs string, viewerID int64) bool {
	return p.Status == store.ProposalPendingApprovals && linkedAs != "" && !slices.Contains(p.Approvals, linkedAs) &&
		p.CreatedByStaffID != viewerID
}
