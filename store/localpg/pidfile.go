package localpg

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrAlreadyRunning reports that another process runs a server in the data
// directory.
var ErrAlreadyRunning = errors.New("a PostgreSQL server is already running in this data directory")

// checkPidFile decides what to do with a postmaster.pid left in dataDir.
//
// A live server there (ours from an earlier Start, or anyone's) is an
// error: two servers on one data directory corrupt it. A file left by a
// crash is normally left to postgres itself, which removes it after checking
// that no old backend still holds the shared memory. The one case postgres
// gets wrong is a crash whose PID now belongs to an unrelated process (after
// a reboot or a container restart): it then refuses to start, so when no
// process at all works in dataDir the file is removed here.
func checkPidFile(dataDir string, log *slog.Logger) error {
	pidFile := filepath.Join(dataDir, "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("localpg: read %s: %w", pidFile, err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		log.Warn("localpg: unreadable postmaster.pid, leaving it to postgres", "file", pidFile)
		return nil
	}
	if other, ok := processWorkingIn(dataDir); ok && other != 0 {
		return fmt.Errorf("localpg: %w: %s (process %d; stop it with kill -INT %d)", ErrAlreadyRunning, dataDir, other, other)
	}
	if !processAlive(pid) {
		log.Info("localpg: stale postmaster.pid from an earlier crash; the server will recover", "file", pidFile, "pid", pid)
		return nil
	}
	if !worksElsewhere(pid, dataDir) {
		return fmt.Errorf("localpg: %w: %s (postmaster.pid names live process %d; if it is not a server, remove the file)", ErrAlreadyRunning, dataDir, pid)
	}
	log.Warn("localpg: postmaster.pid names a live process that is not a server here; removing the stale file", "file", pidFile, "pid", pid)
	if err := os.Remove(pidFile); err != nil {
		return fmt.Errorf("localpg: remove stale %s: %w", pidFile, err)
	}
	return nil
}

// worksElsewhere reports whether process pid is known to work in another
// directory than dataDir, so cannot be its server.
func worksElsewhere(pid int, dataDir string) bool {
	want, err := filepath.EvalSymlinks(dataDir)
	if err != nil {
		return false
	}
	cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
	return err == nil && cwd != want
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// processWorkingIn finds a process whose working directory is dataDir: the
// postmaster and every backend chdir there. known is false where /proc
// cannot tell (not Linux).
func processWorkingIn(dataDir string) (pid int, known bool) {
	want, err := filepath.EvalSymlinks(dataDir)
	if err != nil {
		return 0, false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	self := os.Getpid()
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		known = true
		if p == self {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil {
			continue // gone, or another user's process we may not inspect
		}
		if cwd == want {
			return p, true
		}
	}
	return 0, known
}
