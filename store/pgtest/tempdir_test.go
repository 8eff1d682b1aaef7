package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestRemoveAbandoned(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{ // name -> should survive
		"pgtest-" + strconv.Itoa(dead.Process.Pid) + "-123": false,
		"pgtest-" + strconv.Itoa(os.Getppid()) + "-456":     true, // alive
		"pgtest-" + strconv.Itoa(os.Getpid()) + "-789":      true, // this binary
		"pgtest-99999999": true, // not ours: no pid in the name
		"other-1-2":       true,
	}
	for name := range dirs {
		if err := os.MkdirAll(filepath.Join(base, name, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeAbandoned(base)
	for name, survive := range dirs {
		_, err := os.Stat(filepath.Join(base, name))
		if got := err == nil; got != survive {
			t.Errorf("%s: exists = %v, want %v", name, got, survive)
		}
	}
}
