package approvals

import (
	"strconv"
	"testing"
)

func TestOfCount(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {1, 2}, {9, 9}, {10, 12}, {3, 15}, {-1, 2}} {
		if got, want := ofCount(c[0], c[1]), strconv.Itoa(c[0])+" of "+strconv.Itoa(c[1]); got != want {
			t.Errorf("ofCount(%d, %d) = %q, want %q", c[0], c[1], got, want)
		}
	}
}
