package views

import "strconv"

// People's words for the states of employees, shared by every page that
// shows them (the employee list, the readiness matrix, the start page). The
// states are the store's values (store.Invite*, store.Ready*), spelled here
// as text because views import no store.

// InviteStateLabel is an invite state in the users' words.
func InviteStateLabel(s string) string {
	switch s {
	case "invited":
		return "invited"
	case "linked":
		return "linked"
	case "kyc_submitted":
		return "KYC submitted"
	case "action_required":
		return "action required"
	case "deleted":
		return "deleted"
	}
	return s
}

// ReadinessLabel is a currency's readiness state in words ("missing 3
// fields"); missing is how many fields the API still asks for.
func ReadinessLabel(state string, missing int) string {
	switch state {
	case "not_read":
		return "not read yet"
	case "not_started":
		return "not started"
	case "missing":
		if missing == 1 {
			return "missing 1 field"
		}
		return "missing " + strconv.Itoa(missing) + " fields"
	case "ready":
		return "ready to activate"
	case "onboarding":
		return "onboarding"
	case "active":
		return "active"
	case "failed":
		return "failed"
	case "rejected":
		return "rejected"
	}
	return state
}

// ReadinessTotalLabel is a readiness state in words for totals and a
// chart's key, where no count of fields applies.
func ReadinessTotalLabel(state string) string {
	if state == "missing" {
		return "missing fields"
	}
	return ReadinessLabel(state, 2)
}
