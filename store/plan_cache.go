package store

// anyText is the condition operand "= ANY(param)" for a text[] parameter
// (such as "$1"), passed through an init plan: the planner never sees the
// array, so it estimates the same rows for one element and for many, and
// PostgreSQL keeps the statement's cached generic plan. With the array in
// sight it estimated a few rows for a short array against ten for an
// unknown one, found every custom plan cheaper than the generic one, and
// planned the statement afresh on each execution.
func anyText(param string) string {
	return "ANY((SELECT " + param + "::text[])::text[])"
}
