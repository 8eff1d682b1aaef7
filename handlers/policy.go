package handlers

import "partneradmin/store"

// PolicyField is the form field a refusal of the money controls is shown
// next to: the destination's field, or the amount's.
func PolicyField(r *store.PolicyRefusal, destination, amount string) string {
	if r.OnDestination {
		return destination
	}
	return amount
}
