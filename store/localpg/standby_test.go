package localpg

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestStandbyStreamsAndTakesOver makes a standby of a primary that waits
// for it at each commit, kills the primary, promotes the standby and finds
// every committed row there, writable.
func TestStandbyStreamsAndTakesOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	primary := start(t, Options{DataDir: filepath.Join(dir, "primary"), ForTests: true,
		Settings: []string{"synchronous_commit=on", "synchronous_standby_names=*"}})
	standby := start(t, Options{DataDir: filepath.Join(dir, "standby"), ForTests: true, StandbyOf: primary})

	conn, err := pgx.Connect(ctx, primary.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE t (n int)"); err != nil {
		t.Fatal(err)
	}
	// With synchronous_standby_names, a commit returns only once the
	// standby has it: each acknowledged row must survive the kill.
	for n := range 50 {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := conn.Exec(cctx, "INSERT INTO t VALUES ($1)", n)
		cancel()
		if err != nil {
			t.Fatalf("insert %d (is the standby streaming?): %v", n, err)
		}
	}
	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	sc, err := pgx.Connect(ctx, standby.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	var count int
	if err := sc.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != 50 {
		t.Fatalf("promoted standby has %d of 50 acknowledged rows", count)
	}
	if _, err := sc.Exec(ctx, "INSERT INTO t VALUES (50)"); err != nil {
		t.Fatalf("promoted standby refuses writes: %v", err)
	}
}
