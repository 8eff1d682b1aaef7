package web

import (
	"time"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
)

// DemoPeople turns the sandbox's demo company into the partner's records:
// what a partner would have kept when it created these users.
func DemoPeople(demo sandbox.DemoInfo, now time.Time) []store.Employee {
	people := []store.Employee{{
		Kind: store.KindTreasury, ServiceUserID: demo.TreasuryUserID, Email: "treasury@demo.partner.example",
		FirstName: demo.PartnerName, LastName: "Treasury", InviteState: store.InviteLinked, LinkedAt: &now,
	}}
	for _, e := range demo.Employees {
		p := store.Employee{
			Kind: store.KindEmployee, ServiceUserID: e.ServiceUserID, Email: e.Email,
			FirstName: e.FirstName, LastName: e.LastName, Country: e.Country, InviteState: store.InviteInvited,
		}
		// A user with a serviceUserId exists upstream: linked through an
		// invite, or created by the partner directly.
		if e.ServiceUserID != "" {
			p.InviteState, p.LinkedAt = store.InviteLinked, &now
		}
		people = append(people, p)
	}
	return people
}
