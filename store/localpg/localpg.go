// Package localpg starts and stops a private PostgreSQL cluster from the
// system's server binaries: partner-admin uses one under ./.data when it has
// no DATABASE_URL, and store/pgtest one per test binary.
//
// The cluster listens on 127.0.0.1 only, over TCP (no Unix socket, whose
// path length is limited). Every connection must authenticate with
// SCRAM-SHA-256 as the superuser postgres, whose password is generated with
// the cluster and kept in the data directory (see PasswordFile); ConnString
// carries it. When the caller is root, the server runs as the postgres user
// (or nobody), because PostgreSQL refuses to run as root.
//
// The server is a child of the calling process rather than a daemon started
// by pg_ctl: on Linux the kernel asks it for a fast shutdown when that
// process dies, so a crash or a test timeout does not leave it running. Stop
// sends the same signal as pg_ctl stop -m fast and waits for it to finish.
//
// It talks to the server (to wait until it accepts connections, and to
// create databases) through pgx's low-level pgconn.
package localpg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Options says where and how to run a cluster.
type Options struct {
	// DataDir holds the cluster. It is created with initdb unless it
	// already holds one (a PG_VERSION file), which is then reused with its
	// data; one that does not require a password yet is made to.
	DataDir string
	// Port on 127.0.0.1; 0 picks a free one.
	Port int
	// Logger receives startup and shutdown events; nil means slog.Default().
	Logger *slog.Logger
	// ForTests trades durability for speed (no fsync, no synchronous
	// commit, no full-page writes, initdb --no-sync) and allows 200
	// connections. Never use it for data worth keeping: a crash can
	// corrupt the cluster.
	ForTests bool
	// BinDir, when set, is the only directory searched for initdb and
	// postgres. Otherwise PATH is searched, then /usr/lib/postgresql/*/bin
	// from the highest version down.
	BinDir string
	// LogFile receives the server's own log; empty means postgres.log
	// beside DataDir.
	LogFile string
	// StartTimeout bounds Start when ctx has no deadline; 0 means 60s
	// (crash recovery of a large cluster can take a while).
	StartTimeout time.Duration
	// Settings are server settings ("name=value", as postgres -c takes
	// them) applied after those ForTests sets, so they win.
	Settings []string
	// StandbyOf, when set and DataDir holds no cluster yet, makes the
	// cluster a streaming standby of that one: DataDir is filled with
	// pg_basebackup (which writes standby.signal and the connection to the
	// primary) instead of initdb. It shares the primary's postgres password.
	StandbyOf *Cluster
}

// Timings says how long a Start took.
type Timings struct {
	// InitDB is the time initdb took; zero when the cluster was reused.
	InitDB time.Duration
	// Start runs from spawning the server to its first successful
	// connection.
	Start time.Duration
}

// Cluster is a running server. Stop it when done.
type Cluster struct {
	dataDir  string
	port     int
	password string // the postgres role's
	logFile  string
	logFrom  int64 // where this run's part of the server log begins
	log      *slog.Logger
	version  string
	timings  Timings

	process *os.Process
	exited  chan struct{} // closed once the server has exited and been reaped
	waitErr error         // how it exited; read only after exited is closed

	stopOnce sync.Once
	stopErr  error
}

const (
	defaultStartTimeout = 60 * time.Second
	// shutdownGrace is how long a fast shutdown may take before the server
	// is told to stop immediately, and then killed.
	shutdownGrace = 10 * time.Second
	portAttempts  = 5
	// pingTimeout bounds one readiness check, and connectTimeout each
	// connection, in case something that is not PostgreSQL holds the port
	// and never answers.
	pingTimeout    = 2 * time.Second
	connectTimeout = pingTimeout
)

// SQLSTATEs this package acts on.
const (
	sqlstateCannotConnectNow  = "57P03" // starting up, recovering, shutting down
	sqlstateDuplicateDatabase = "42P04"
	sqlstateUniqueViolation   = "23505"
	sqlstateInvalidPassword   = "28P01"
)

var errPortInUse = errors.New("port already in use")

// Start creates the cluster in opts.DataDir if needed, starts the server
// and returns once it accepts connections. ctx bounds starting only; the
// server runs until Stop.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.DataDir == "" {
		return nil, errors.New("localpg: Options.DataDir is empty")
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("localpg: port %d out of range", opts.Port)
	}
	if _, ok := ctx.Deadline(); !ok {
		timeout := opts.StartTimeout
		if timeout <= 0 {
			timeout = defaultStartTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}

	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("localpg: data directory: %w", err)
	}
	logFile := opts.LogFile
	if logFile == "" {
		logFile = filepath.Join(filepath.Dir(dataDir), "postgres.log")
	}
	id, err := currentIdentity()
	if err != nil {
		return nil, err
	}
	major, err := clusterMajor(dataDir)
	if err != nil {
		return nil, err
	}
	bins, err := findBinaries(ctx, searchPlaces{binDir: opts.BinDir, pathEnv: os.Getenv("PATH"), debianRoot: debianRoot}, major)
	if err != nil {
		return nil, err
	}

	if err := os.MkdirAll(filepath.Dir(dataDir), 0o755); err != nil {
		return nil, fmt.Errorf("localpg: %w", err)
	}
	if err := id.makeReachable(filepath.Dir(dataDir), log); err != nil {
		return nil, err
	}
	password, initDB, err := prepareCluster(ctx, bins, dataDir, id, major, opts, log)
	if err != nil {
		return nil, err
	}

	// The server writes its log through this descriptor, so it needs no
	// permission on the file or its directory.
	logf, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return nil, fmt.Errorf("localpg: open server log: %w", err)
	}
	defer logf.Close() // the server keeps its own copy

	cluster := func(port int) *Cluster {
		return &Cluster{dataDir: dataDir, port: port, password: password, logFile: logFile, log: log, version: bins.version, timings: Timings{InitDB: initDB}}
	}
	return listen(ctx, bins, id, opts, logf, cluster)
}

// prepareCluster makes the data directory ready to start: a new cluster
// (initdb, or a base backup for a standby) when there is none, else the
// existing one checked, owned by the server's user and given its password.
func prepareCluster(ctx context.Context, bins binaries, dataDir string, id identity, major int, opts Options, log *slog.Logger) (password string, initDB time.Duration, err error) {
	if major == 0 {
		began := time.Now()
		if opts.StandbyOf != nil {
			password, err = baseBackup(ctx, bins, dataDir, id, opts.StandbyOf, opts.ForTests, log)
		} else {
			password, err = initCluster(ctx, bins, dataDir, id, opts.ForTests, log)
		}
		if err != nil {
			return "", 0, err
		}
		return password, time.Since(began), nil
	}
	if err := checkPidFile(dataDir, log); err != nil {
		return "", 0, err
	}
	if err := id.own(dataDir, log); err != nil {
		return "", 0, err
	}
	if password, err = ensurePassword(ctx, bins, dataDir, id, !opts.ForTests, log); err != nil {
		return "", 0, err
	}
	return password, 0, nil
}

// listen starts the server on opts.Port, or on a free port, trying another
// when a port is taken between the probe and the server binding it. Each
// attempt is a new Cluster, made by cluster.
func listen(ctx context.Context, bins binaries, id identity, opts Options, logf *os.File, cluster func(port int) *Cluster) (*Cluster, error) {
	var err error
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			if port, err = freePort(); err != nil {
				return nil, err
			}
		}
		c := cluster(port)
		err := c.start(ctx, bins, id, serverArgs(c.dataDir, port, opts.ForTests, opts.Settings), logf)
		if err == nil {
			c.log.Info("postgres ready",
				"initdb", c.timings.InitDB, "start", c.timings.Start,
				"port", port, "datadir", c.dataDir, "version", bins.version, "user", id.name, "for_tests", opts.ForTests)
			return c, nil
		}
		// Another process can take a free port between our probe and the
		// server binding it.
		if !errors.Is(err, errPortInUse) || opts.Port != 0 || attempt == portAttempts {
			return nil, err
		}
		c.log.Warn("localpg: port taken while starting, trying another", "port", port)
	}
}

// initCluster runs initdb into a sibling directory and renames it into
// place, so that an interrupted initdb never leaves a PG_VERSION over a
// half-made cluster that the next Start would try to reuse. It returns the
// postgres role's new password, kept in the cluster's PasswordFile.
func initCluster(ctx context.Context, bins binaries, dataDir string, id identity, forTests bool, log *slog.Logger) (string, error) {
	tmp, err := sideDir(dataDir, ".initdb", id)
	if err != nil {
		return "", err
	}
	password, err := newPassword()
	if err != nil {
		return "", err
	}
	// initdb reads the password from a file, which its user must be able
	// to read, and which must not outlive it.
	pwfile, err := os.CreateTemp(filepath.Dir(dataDir), "."+filepath.Base(dataDir)+".pwfile.*")
	if err != nil {
		return "", fmt.Errorf("localpg: %w", err)
	}
	defer os.Remove(pwfile.Name())
	_, err = pwfile.WriteString(password + "\n")
	if err == nil && id.cred != nil {
		err = pwfile.Chown(int(id.cred.Uid), int(id.cred.Gid))
	}
	if closeErr := pwfile.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return "", fmt.Errorf("localpg: write password for initdb: %w", err)
	}

	args := []string{"-D", tmp, "-U", "postgres", "-A", "scram-sha-256", "--pwfile", pwfile.Name(),
		"-E", "UTF8", "--no-locale", "--no-instructions"}
	if forTests {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, bins.initdb, args...)
	id.command(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("localpg: initdb %s: %w\n%s", dataDir, err, lastLines(string(out), 15))
	}
	log.Debug("localpg: initdb done", "output", string(out))
	if err := writePrivateFile(filepath.Join(tmp, PasswordFile), []byte(password+"\n"), id, !forTests); err != nil {
		_ = os.RemoveAll(tmp)
		return "", err
	}

	if err := intoPlace(tmp, dataDir); err != nil {
		return "", err
	}
	if !forTests {
		if err := syncDir(filepath.Dir(dataDir)); err != nil {
			return "", err
		}
	}
	return password, nil
}

// sideDir makes the empty sibling directory, owned by the server's user,
// in which a new cluster is made before intoPlace renames it to dataDir,
// so that an interrupted initdb or copy never leaves a PG_VERSION over a
// half-made cluster. dataDir must be missing or empty.
func sideDir(dataDir, suffix string, id identity) (string, error) {
	entries, err := os.ReadDir(dataDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("localpg: %w", err)
	case len(entries) > 0:
		return "", fmt.Errorf("localpg: %s is not empty but holds no cluster (no PG_VERSION): move it away or choose another data directory", dataDir)
	}
	tmp := dataDir + suffix
	if err := os.RemoveAll(tmp); err != nil {
		return "", fmt.Errorf("localpg: remove an unfinished %s: %w", tmp, err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return "", fmt.Errorf("localpg: %w", err)
	}
	if id.cred != nil {
		if err := os.Chown(tmp, int(id.cred.Uid), int(id.cred.Gid)); err != nil {
			return "", fmt.Errorf("localpg: chown %s to %s: %w", tmp, id.name, err)
		}
	}
	return tmp, nil
}

// intoPlace renames a cluster made in sideDir's directory to dataDir.
func intoPlace(tmp, dataDir string) error {
	if err := os.Remove(dataDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("localpg: %w", err)
	}
	if err := os.Rename(tmp, dataDir); err != nil {
		return fmt.Errorf("localpg: move new cluster into place: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("localpg: sync %s: %w", dir, err)
	}
	return nil
}

func serverArgs(dataDir string, port int, forTests bool, settings []string) []string {
	args := []string{
		"-D", dataDir,
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=",
	}
	if forTests {
		args = append(args,
			"-c", "fsync=off",
			"-c", "synchronous_commit=off",
			"-c", "full_page_writes=off",
			"-c", "max_connections=200",
		)
	}
	for _, kv := range settings {
		args = append(args, "-c", kv)
	}
	return args
}

// start spawns the server and waits for its first connection.
func (c *Cluster) start(ctx context.Context, bins binaries, id identity, args []string, logf *os.File) error {
	var err error
	if c.logFrom, err = logf.Seek(0, io.SeekEnd); err != nil {
		return fmt.Errorf("localpg: server log: %w", err)
	}
	cmd := exec.Command(bins.postgres, args...)
	id.command(cmd)
	// Its own session: a Ctrl-C meant for the app must not stop the
	// database under the app's graceful shutdown.
	cmd.SysProcAttr.Setsid = true
	stopWithParent(cmd.SysProcAttr)
	cmd.Stdout = logf
	cmd.Stderr = logf

	c.exited = make(chan struct{})
	started := make(chan error, 1)
	go c.run(cmd, started)
	if err := <-started; err != nil {
		return fmt.Errorf("localpg: start %s: %w", bins.postgres, err)
	}
	c.process = cmd.Process

	began := time.Now()
	err = waitReady(ctx, c.addr(), c.password, c.dataDir, c.exited)
	if err == nil {
		c.timings.Start = time.Since(began)
		return nil
	}
	if !c.hasExited() {
		_ = c.shutdown(context.Background())
	}
	tail := c.logSince()
	if strings.Contains(tail, "Address already in use") {
		return fmt.Errorf("localpg: start server on port %d: %w", c.port, errPortInUse)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == sqlstateInvalidPassword {
		err = fmt.Errorf("%w (the password in %s is not the postgres role's: remove that file and a new one is set at the next start)",
			err, filepath.Join(c.dataDir, PasswordFile))
	}
	return fmt.Errorf("localpg: start server in %s: %w\nserver log (%s):\n%s", c.dataDir, err, c.logFile, lastLines(tail, 15))
}

// run starts and reaps the server. The parent-death signal is tied to the
// thread that forked the child, not to the process, so the fork happens on
// a thread locked for as long as the server lives (Go may otherwise retire
// that thread and stop the server early). The thread is never unlocked:
// it ends with this goroutine, after the server has gone.
func (c *Cluster) run(cmd *exec.Cmd, started chan<- error) {
	runtime.LockOSThread()
	if err := cmd.Start(); err != nil {
		started <- err
		close(c.exited)
		return
	}
	started <- nil
	c.waitErr = cmd.Wait()
	close(c.exited)
}

func (c *Cluster) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

var errServerExited = errors.New("server exited")

// waitReady connects until the server in dataDir answers. Checking the
// data directory makes sure the answer comes from our server, not from
// another one that took the port first.
func waitReady(ctx context.Context, addr, password, dataDir string, exited <-chan struct{}) error {
	// A server that exits ends the wait at once, even mid-connection (to
	// whatever else listens on the port).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	delay := 2 * time.Millisecond
	for {
		pingCtx, cancelPing := context.WithTimeout(ctx, pingTimeout)
		err := ping(pingCtx, addr, password, dataDir)
		cancelPing()
		if err == nil {
			return nil
		}
		// A refused connection means the server does not listen yet, and
		// "cannot connect now" that it is still starting up; any other
		// answer from a server ends the wait.
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code != sqlstateCannotConnectNow {
			return err
		}
		select {
		case <-exited:
			return errServerExited
		case <-ctx.Done():
			select {
			case <-exited:
				return errServerExited
			default:
			}
			return fmt.Errorf("waiting for the server: %w (last: %v)", ctx.Err(), err)
		case <-time.After(delay):
		}
		delay = min(delay*2, 50*time.Millisecond)
	}
}

func ping(ctx context.Context, addr, password, dataDir string) error {
	conn, err := connect(ctx, addr, password, "postgres")
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	results, err := conn.Exec(ctx, "SHOW data_directory").ReadAll()
	if err != nil {
		return err
	}
	if len(results) != 1 || len(results[0].Rows) != 1 || len(results[0].Rows[0]) != 1 ||
		filepath.Clean(string(results[0].Rows[0][0])) != dataDir {
		return fmt.Errorf("another server answers on %s (not data directory %s)", addr, dataDir)
	}
	return nil
}

// connect opens a session on database db as the superuser postgres. The
// password goes in the config rather than the URL, and sslmode=disable
// because the cluster has no TLS.
func connect(ctx context.Context, addr, password, db string) (*pgconn.PgConn, error) {
	cfg, err := pgconn.ParseConfig(fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", addr, url.PathEscape(db)))
	if err != nil {
		return nil, err
	}
	cfg.Password = password
	cfg.ConnectTimeout = connectTimeout
	return pgconn.ConnectConfig(ctx, cfg)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("localpg: find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("localpg: find a free port: %w", err)
	}
	return port, nil
}

// ConnString is a URL for database dbname as the superuser postgres, with
// its password: treat it as a secret.
func (c *Cluster) ConnString(dbname string) string {
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", url.UserPassword("postgres", c.password), c.addr(), url.PathEscape(dbname))
}

// Port is the TCP port on 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// Timings says how long Start took.
func (c *Cluster) Timings() Timings { return c.timings }

// Version is the server version, such as "15.18".
func (c *Cluster) Version() string { return c.version }

func (c *Cluster) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)) }

// EnsureDatabase creates database name unless it exists.
func (c *Cluster) EnsureDatabase(ctx context.Context, name string) error {
	conn, err := connect(ctx, c.addr(), c.password, "postgres")
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()).ReadAll()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == sqlstateDuplicateDatabase:
			return nil
		// CREATE DATABASE checks for the name before it inserts the row,
		// so of two sessions creating the same database at once the
		// second fails on pg_database's unique index instead.
		case pgErr.Code == sqlstateUniqueViolation && pgErr.ConstraintName == "pg_database_datname_index":
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("localpg: create database %s: %w", name, err)
	}
	c.log.Info("localpg: created database", "name", name)
	return nil
}

// Stop shuts the server down as pg_ctl stop -m fast does: clients are
// disconnected, a checkpoint is written, and the server exits. When ctx ends
// first, the server is told to stop immediately (it recovers at the next
// start). Calling Stop again returns the first result.
func (c *Cluster) Stop(ctx context.Context) error {
	c.stopOnce.Do(func() {
		if c.hasExited() {
			c.stopErr = fmt.Errorf("localpg: server had already exited: %w\n%s", exitError(c.waitErr), lastLines(c.logSince(), 10))
			return
		}
		began := time.Now()
		c.stopErr = c.shutdown(ctx)
		if c.stopErr == nil {
			c.log.Info("postgres stopped", "took", time.Since(began), "datadir", c.dataDir)
		}
	})
	return c.stopErr
}

func (c *Cluster) shutdown(ctx context.Context) error {
	grace, cancel := context.WithTimeout(ctx, shutdownGrace)
	defer cancel()
	if err := c.process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("localpg: signal server: %w", err)
	}
	select {
	case <-c.exited:
		if c.waitErr != nil {
			return fmt.Errorf("localpg: server shutdown: %w", c.waitErr)
		}
		return nil
	case <-grace.Done():
	}
	c.log.Warn("localpg: fast shutdown too slow, stopping immediately", "datadir", c.dataDir)
	_ = c.process.Signal(syscall.SIGQUIT)
	select {
	case <-c.exited:
	case <-time.After(shutdownGrace):
		_ = c.process.Kill()
		<-c.exited
	}
	return fmt.Errorf("localpg: fast shutdown did not finish: %w", grace.Err())
}

func exitError(err error) error {
	if err == nil {
		return errServerExited
	}
	return err
}

// logSince reads this run's server log, for error messages.
func (c *Cluster) logSince() string {
	f, err := os.Open(c.logFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(c.logFrom, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
