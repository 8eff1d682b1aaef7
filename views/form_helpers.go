package views

// Helpers every form shares, next to Field and ErrorSummary (form.templ):
// a select's options, and the ids an error summary links to.

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

// FieldIDsOf maps a form's error keys to its controls' ids: the key's entry
// in ids, else "f-"+key (InputField's id). Forms whose error keys differ
// from their input names (an error "bank" on the input bank_id) list them.
func FieldIDsOf(ids map[string]string) func(string) string {
	return func(n string) string {
		if id, ok := ids[n]; ok {
			return id
		}
		return "f-" + n
	}
}

// ChoiceOptions are a select's choices as Field's options.
func ChoiceOptions(cs []Choice) []Option {
	out := make([]Option, 0, len(cs))
	for _, c := range cs {
		out = append(out, Option{Value: c.Value, Label: c.Label})
	}
	return out
}
