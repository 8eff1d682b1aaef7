package localpg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// baseBackup fills dataDir with a copy of primary taken by pg_basebackup,
// set up to stream from it (-R writes standby.signal and primary_conninfo).
// Like initCluster it works in sideDir's directory, so an interrupted copy
// is never mistaken for a cluster. The copy
// holds the primary's PasswordFile, so both share the postgres password.
func baseBackup(ctx context.Context, bins binaries, dataDir string, id identity, primary *Cluster, forTests bool, log *slog.Logger) (string, error) {
	if primary == nil || primary.hasExited() {
		return "", errors.New("localpg: StandbyOf: the primary is not running")
	}
	tmp, err := sideDir(dataDir, ".basebackup", id)
	if err != nil {
		return "", err
	}
	// The password travels in the connection string, which -R writes into
	// the standby's postgresql.auto.conf (inside the private data directory)
	// so that it can reconnect to the primary.
	conninfo := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres password=%s sslmode=disable", primary.port, primary.password)
	args := []string{"-D", tmp, "-d", conninfo, "-R", "-X", "stream", "--checkpoint=fast"}
	if forTests {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(filepath.Dir(bins.postgres), "pg_basebackup"), args...)
	id.command(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("localpg: pg_basebackup from port %d: %w\n%s", primary.port, err, lastLines(string(out), 15))
	}
	if err := intoPlace(tmp, dataDir); err != nil {
		return "", err
	}
	log.Info("localpg: standby made from primary", "datadir", dataDir, "primary_port", primary.port)
	return primary.password, nil
}

// Promote ends a standby's recovery and makes it a primary that accepts
// writes, waiting until it does (pg_promote with wait).
func (c *Cluster) Promote(ctx context.Context) error {
	conn, err := connect(ctx, c.addr(), c.password, "postgres")
	if err != nil {
		return fmt.Errorf("localpg: promote: %w", err)
	}
	defer conn.Close(ctx)
	res, err := conn.Exec(ctx, "SELECT pg_promote(true, 60)").ReadAll()
	if err != nil {
		return fmt.Errorf("localpg: promote: %w", err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || string(res[0].Rows[0][0]) != "t" {
		return errors.New("localpg: promote: the server did not leave recovery within 60 s")
	}
	c.log.Info("postgres promoted", "datadir", c.dataDir)
	return nil
}

// Kill stops the server and all its processes at once, without a
// shutdown (as a crash of its machine would), and waits until it is gone.
// Stop afterwards reports that the server had already exited.
func (c *Cluster) Kill() error {
	if c.hasExited() {
		return nil
	}
	if err := killGroup(c.process.Pid); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("localpg: kill server: %w", err)
	}
	select {
	case <-c.exited:
		return nil
	case <-time.After(shutdownGrace):
		return errors.New("localpg: killed server has not exited")
	}
}
