package webtest

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers/proposal"
)

// ProposalsAwaitingSignature creates n transfers of amount USDB from the
// demo treasury to Emily, has two of the treasury's admins approve each (so
// they wait for the owner's signature, the demo key labelled "treasury"),
// stores them in the mirror and returns their ids in creation order.
func (e *Env) ProposalsAwaitingSignature(n int, amount string) []string {
	e.T.Helper()
	ctx := context.Background()
	treasury := e.Demo.TreasuryUserID
	pol, err := e.API.GetApprovalPolicy(ctx, treasury)
	if err != nil || len(pol.Admins) < 2 {
		e.T.Fatalf("treasury approval policy: %+v %v", pol, err)
	}
	ws, err := e.API.ListWallets(ctx, treasury)
	if err != nil {
		e.T.Fatal(err)
	}
	wallet := ""
	for _, w := range ws {
		if w.Currency == "USDB" {
			wallet = w.ID
		}
	}
	emily := ""
	for _, em := range e.Demo.Employees {
		if em.FirstName == "Emily" {
			emily = em.ServiceUserID
		}
	}
	if wallet == "" || emily == "" {
		e.T.Fatalf("demo treasury USDB wallet %q, Emily %q", wallet, emily)
	}
	ids := make([]string, 0, n)
	for i := range n {
		p, err := e.API.CreateTransferProposal(ctx, treasury, wallet, apiclient.TransferProposal{ToUserID: emily,
			Amount: decimal.RequireFromString(amount), Currency: "USDB", Description: fmt.Sprintf("Batch item %d", i+1)})
		if err != nil {
			e.T.Fatalf("create proposal %d: %v", i+1, err)
		}
		for _, admin := range pol.Admins[:2] {
			if p, err = e.API.ApproveProposal(apiclient.WithActingUser(ctx, admin), treasury, p.ID); err != nil {
				e.T.Fatalf("approve proposal %d: %v", i+1, err)
			}
		}
		if p.Status != apiclient.ProposalPendingSignatures {
			e.T.Fatalf("proposal %d is %s after two approvals", i+1, p.Status)
		}
		if _, err := e.Store.UpsertProposal(ctx, proposal.FromAPI(*p, treasury, time.Now())); err != nil {
			e.T.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	return ids
}
