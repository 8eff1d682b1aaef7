package handlers

import (
	"testing"
	"time"

	"partneradmin/views"
)

func TestDayRange(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, tc := range []struct {
		from, to   string
		start, end time.Time
		errField   string
	}{
		{"", "", time.Time{}, time.Time{}, ""},
		{"2026-11-01", "", day("2026-11-01"), time.Time{}, ""},
		{"", "2026-11-30", time.Time{}, day("2026-12-01"), ""},
		{"2026-11-30", "2026-11-30", day("2026-11-30"), day("2026-12-01"), ""},
		{"2026-11-31", "", time.Time{}, time.Time{}, "from"},
		{"", "30/11/2026", time.Time{}, time.Time{}, "to"},
		{"2026-12-02", "2026-12-01", day("2026-12-02"), day("2026-12-02"), "to"},
	} {
		fields := views.FieldErrors{}
		start, end := DayRange(fields, tc.from, tc.to)
		if !start.Equal(tc.start) || !end.Equal(tc.end) {
			t.Errorf("%q..%q: got %v..%v, want %v..%v", tc.from, tc.to, start, end, tc.start, tc.end)
		}
		if tc.errField == "" && len(fields) != 0 || tc.errField != "" && fields[tc.errField] == "" {
			t.Errorf("%q..%q: messages %v, want one at %q", tc.from, tc.to, fields, tc.errField)
		}
	}
}
