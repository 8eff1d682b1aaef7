package views

// Helpers the people areas' forms and filter bars share (employees,
// cards, activity, audit, approvals, events, staff, sign-in).

// Only keeps the messages of the named fields: a filter bar's summary
// links only to the controls it has (a page cursor's problem is said
// elsewhere).
func Only(fe FieldErrors, names ...string) FieldErrors {
	out := FieldErrors{}
	for _, n := range names {
		if m := fe.Get(n); m != "" {
			out[n] = m
		}
	}
	return out
}

// ValueOptions makes a select's options from values, each said by label
// (the value itself when label is nil).
func ValueOptions(values []string, label func(string) string) []Option {
	out := make([]Option, 0, len(values))
	for _, v := range values {
		l := v
		if label != nil {
			l = label(v)
		}
		out = append(out, Option{Value: v, Label: l})
	}
	return out
}
