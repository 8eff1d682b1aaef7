package store

import "testing"

func TestEscapeLike(t *testing.T) {
	for in, want := range map[string]string{
		"ada":       "ada",
		"50%":       `50\%`,
		"a_b":       `a\_b`,
		`back\both`: `back\\both`,
		`%_\é`:      `\%\_\\é`,
		"":          "",
	} {
		if got := escapeLike(in); got != want {
			t.Errorf("escapeLike(%q) = %q, want %q", in, got, want)
		}
	}
}
