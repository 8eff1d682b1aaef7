package localpg

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// identity is the user the server runs as. initdb and postgres refuse to
// run as root, so root hands them to an unprivileged user; anyone else runs
// them as themselves.
type identity struct {
	name string
	cred *syscall.Credential // nil: the current user
}

func currentIdentity() (identity, error) {
	if os.Geteuid() != 0 {
		name := "uid " + strconv.Itoa(os.Geteuid())
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
		return identity{name: name}, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err := strconv.ParseUint(u.Uid, 10, 32)
		if err != nil {
			return identity{}, fmt.Errorf("localpg: user %s has uid %q: %w", name, u.Uid, err)
		}
		gid, err := strconv.ParseUint(u.Gid, 10, 32)
		if err != nil {
			return identity{}, fmt.Errorf("localpg: user %s has gid %q: %w", name, u.Gid, err)
		}
		// NoSetGroups: setgroups is refused in some user namespaces
		// (rootless containers), which would make every start fail.
		return identity{name: name, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}}, nil
	}
	return identity{}, errors.New("localpg: running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as (PostgreSQL refuses to run as root)")
}

// command prepares a server binary to run as this identity, from a working
// directory every user can read, with no PG* variables that could point it
// at another cluster or port.
func (id identity) command(cmd *exec.Cmd) {
	cmd.Dir = "/"
	cmd.Env = serverEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: id.cred}
}

func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if len(kv) >= 2 && kv[:2] == "PG" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// own gives dir and everything under it to the identity, when it is not the
// current user and dir is not already its.
func (id identity) own(dir string, log *slog.Logger) error {
	if id.cred == nil {
		return nil
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == id.cred.Uid && st.Gid == id.cred.Gid {
		return nil
	}
	log.Info("localpg: giving data directory to the server user", "dir", dir, "user", id.name)
	err = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(id.cred.Uid), int(id.cred.Gid))
	})
	if err != nil {
		return fmt.Errorf("localpg: chown %s to %s: %w", dir, id.name, err)
	}
	return nil
}

// makeReachable lets the identity traverse every directory from / down to
// dir. Temporary directories are 0700 root, so a server user could not
// reach a cluster under one; only the search bit is added (listing is not),
// and each change is logged because it widens access to a directory the
// caller may care about.
func (id identity) makeReachable(dir string, log *slog.Logger) error {
	if id.cred == nil {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("localpg: %w", err)
		}
		bit := fs.FileMode(0o001)
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == id.cred.Uid {
			bit = 0o100
		}
		if info.Mode().Perm()&bit == 0 {
			mode := info.Mode().Perm() | bit
			if err := os.Chmod(d, mode); err != nil {
				return fmt.Errorf("localpg: let %s reach %s: %w", id.name, d, err)
			}
			log.Warn("localpg: made directory searchable for the server user", "dir", d, "user", id.name, "mode", mode)
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}
