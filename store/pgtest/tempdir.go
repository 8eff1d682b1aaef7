package pgtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ramDir is where a test cluster goes when it has room: creating a
// database there takes a tenth of the time it takes on disk, and test data
// never needs to survive a reboot.
const (
	ramDir     = "/dev/shm"
	minRAMFree = 1 << 30 // Docker gives /dev/shm 64 MiB: use the disk there
	dirPrefix  = "pgtest-"
)

// clusterDir makes the directory for this binary's cluster, named for this
// process so that a later run can tell it from a live one, and first
// removes those left by test binaries that died without running Main's
// cleanup (killed by a timeout or Ctrl-C): in RAM they would hold memory
// until the next reboot.
func clusterDir() (string, error) {
	base := os.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(ramDir, &st); err == nil && uint64(st.Bavail)*uint64(st.Bsize) >= minRAMFree {
		base = ramDir
	}
	removeAbandoned(base)
	dir, err := os.MkdirTemp(base, dirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil && base != os.TempDir() {
		dir, err = os.MkdirTemp(os.TempDir(), dirPrefix+strconv.Itoa(os.Getpid())+"-")
	}
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	return dir, nil
}

// removeAbandoned removes cluster directories whose test binary is gone.
// The server in one stops by itself when its binary dies (localpg asks the
// kernel for that), so only the files remain. Best effort: a directory it
// cannot judge or remove is left alone.
func removeAbandoned(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), dirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, named := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !named || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			continue // alive, or we cannot tell
		}
		_ = os.RemoveAll(filepath.Join(base, e.Name()))
	}
}
