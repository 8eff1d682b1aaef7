package handlers

import (
	"time"

	"partneradmin/views"
)

// DayRange reads a list filter's "from" and "to" dates (YYYY-MM-DD, either
// may be empty) as the half-open range [from, the day after to): the last
// day counts whole. A date that cannot be read, or a last day before the
// first, is said in fields under "from" or "to".
func DayRange(fields views.FieldErrors, from, to string) (start, end time.Time) {
	day := func(field, s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			fields[field] = "Give a date as YYYY-MM-DD, such as 2026-11-01."
		}
		return t
	}
	start = day("from", from)
	if t := day("to", to); !t.IsZero() {
		end = t.AddDate(0, 0, 1)
	}
	if !start.IsZero() && !end.IsZero() && !end.After(start) {
		fields["to"] = "The last day is before the first."
	}
	return start, end
}
