package localpg

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Every connection to a cluster, even from 127.0.0.1, must give the postgres
// role's password: another local user must not read the app's data. The
// password is made when the cluster is and kept in the data directory,
// which PostgreSQL requires to be private to the server's user.

// PasswordFile is the name, inside the data directory, of the file holding
// the postgres role's password (mode 0600).
const PasswordFile = "localpg-password"

// hbaConf replaces the pg_hba.conf of a cluster that accepted connections
// without a password (made before localpg required one).
const hbaConf = `# Written by store/localpg: every connection must give the postgres role's
# password, kept in ` + PasswordFile + ` beside this file.
# TYPE  DATABASE        USER            ADDRESS                 METHOD
local   all             all                                     scram-sha-256
host    all             all             127.0.0.1/32            scram-sha-256
host    all             all             ::1/128                 scram-sha-256
local   replication     all                                     scram-sha-256
host    replication     all             127.0.0.1/32            scram-sha-256
host    replication     all             ::1/128                 scram-sha-256
`

func newPassword() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("localpg: generate password: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// readPassword reads the password file of dataDir: "" when there is none.
func readPassword(dataDir string, log *slog.Logger) (string, error) {
	path := filepath.Join(dataDir, PasswordFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("localpg: read password: %w", err)
	}
	password := strings.TrimSpace(string(b))
	// SCRAM normalises other characters (SASLprep) before hashing, which
	// scramVerifier does not.
	for _, r := range password {
		if r <= ' ' || r > '~' {
			return "", fmt.Errorf("localpg: %s holds characters other than printable ASCII: remove it and a new password is set at the next start", path)
		}
	}
	if password == "" {
		return "", nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("localpg: %w", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		log.Warn("localpg: password file readable by others, making it private", "file", path, "mode", info.Mode().Perm())
		if err := os.Chmod(path, 0o600); err != nil {
			return "", fmt.Errorf("localpg: %w", err)
		}
	}
	return password, nil
}

// writePrivateFile replaces path with a file of mode 0600 holding data,
// owned by the server's user: it is written beside and renamed, so that a
// crash leaves either the old file or the new one.
func writePrivateFile(path string, data []byte, id identity, durable bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	tmp := f.Name()
	err = func() error {
		defer f.Close()
		if _, err := f.Write(data); err != nil {
			return err
		}
		if durable {
			if err := f.Sync(); err != nil {
				return err
			}
		}
		if id.cred != nil {
			if err := f.Chown(int(id.cred.Uid), int(id.cred.Gid)); err != nil {
				return err
			}
		}
		return f.Close()
	}()
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("localpg: write %s: %w", path, err)
	}
	if durable {
		return syncDir(filepath.Dir(path))
	}
	return nil
}

// hbaRequiresPassword reports whether every rule of pg_hba.conf asks for
// the password with SCRAM-SHA-256. A rule's method is its last field that
// is not an option (options are name=value).
func hbaRequiresPassword(dataDir string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "pg_hba.conf"))
	if err != nil {
		return false, fmt.Errorf("localpg: %w", err)
	}
	rules := 0
	for line := range strings.Lines(string(b)) {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		for len(fields) > 0 && strings.Contains(fields[len(fields)-1], "=") {
			fields = fields[:len(fields)-1]
		}
		if len(fields) == 0 {
			continue
		}
		rules++
		if fields[len(fields)-1] != "scram-sha-256" {
			return false, nil
		}
	}
	return rules > 0, nil
}

// ensurePassword makes an existing cluster require its password, and
// returns it. A cluster made before localpg required one (trust for
// everyone, no password file), or whose password file was lost, gets a new
// password, set in single-user mode, which needs no connection: the server
// never listens while it would let anyone in.
func ensurePassword(ctx context.Context, bins binaries, dataDir string, id identity, durable bool, log *slog.Logger) (string, error) {
	password, err := readPassword(dataDir, log)
	if err != nil {
		return "", err
	}
	hbaOK, err := hbaRequiresPassword(dataDir)
	if err != nil {
		return "", err
	}
	if password != "" && hbaOK {
		return password, nil
	}

	log.Warn("localpg: the cluster does not require a password: setting one and requiring it",
		"datadir", dataDir, "password_file", password != "", "pg_hba_scram", hbaOK)
	if password == "" {
		if password, err = newPassword(); err != nil {
			return "", err
		}
		// Kept before the role has it: if setting it fails, the next start
		// sets this one again rather than a password nobody knows.
		if err := writePrivateFile(filepath.Join(dataDir, PasswordFile), []byte(password+"\n"), id, durable); err != nil {
			return "", err
		}
	}
	if err := setPasswordSingleUser(ctx, bins, dataDir, id, password); err != nil {
		return "", err
	}
	if err := writePrivateFile(filepath.Join(dataDir, "pg_hba.conf"), []byte(hbaConf), id, durable); err != nil {
		return "", err
	}
	return password, nil
}

// setPasswordSingleUser sets the postgres role's password with the server
// in single-user mode (postgres --single), which reads SQL from stdin and
// accepts no connections.
func setPasswordSingleUser(ctx context.Context, bins binaries, dataDir string, id identity, password string) error {
	verifier, err := scramVerifier(password)
	if err != nil {
		return err
	}
	// exit_on_error makes a failed statement a failed exit.
	cmd := exec.CommandContext(ctx, bins.postgres, "--single", "-D", dataDir, "-c", "exit_on_error=true", "postgres")
	id.command(cmd)
	cmd.Stdin = strings.NewReader("ALTER ROLE postgres PASSWORD '" + verifier + "'\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("localpg: set the postgres role's password in single-user mode: %w\n%s", err, lastLines(out.String(), 15))
	}
	return nil
}

// scramIterations is what PostgreSQL 15 uses for the verifiers it makes
// itself.
const scramIterations = 4096

// scramVerifier is what PostgreSQL stores in pg_authid for password
// (RFC 5802 section 3, RFC 7677), in the form ALTER ROLE ... PASSWORD
// accepts as already hashed, so that the password itself never reaches the
// server (nor its output, which quotes a failed statement).
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("localpg: salt: %w", err)
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return "", fmt.Errorf("localpg: derive key: %w", err)
	}
	storedKey := sha256.Sum256(hmacSHA256(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", scramIterations, b64(salt), b64(storedKey[:]), b64(hmacSHA256(salted, "Server Key"))), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}
