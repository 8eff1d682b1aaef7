package localpg

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// fakeServer answers the PostgreSQL protocol on 127.0.0.1: its first
// startingUp connections are turned away with refuse (SQLSTATE), the
// others are let in without a password and told that the data directory is
// dataDir. It counts the connections it accepted.
type fakeServer struct {
	addr        string
	connections atomic.Int32
}

func startFakeServer(t *testing.T, startingUp int32, refuse, dataDir string) *fakeServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{addr: l.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			n := s.connections.Add(1)
			wg.Go(func() {
				defer nc.Close()
				_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
				if err := s.serve(nc, n <= startingUp, refuse, dataDir); err != nil {
					t.Logf("fake server: %v", err)
				}
			})
		}
	})
	return s
}

func (s *fakeServer) serve(nc net.Conn, turnAway bool, refuse, dataDir string) error {
	b := pgproto3.NewBackend(nc, nc)
	if _, err := b.ReceiveStartupMessage(); err != nil {
		return err
	}
	if turnAway {
		b.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: refuse, Message: "turned away by the fake server"})
		return b.Flush()
	}
	b.Send(&pgproto3.AuthenticationOk{})
	b.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if err := b.Flush(); err != nil {
		return err
	}
	for {
		msg, err := b.Receive()
		if err != nil {
			return err
		}
		switch msg := msg.(type) {
		case *pgproto3.Query:
			if msg.String != "SHOW data_directory" {
				b.Send(&pgproto3.ErrorResponse{Severity: "ERROR", Code: "42601", Message: "unexpected query " + msg.String})
			} else {
				b.Send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("data_directory"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1}}})
				b.Send(&pgproto3.DataRow{Values: [][]byte{[]byte(dataDir)}})
				b.Send(&pgproto3.CommandComplete{CommandTag: []byte("SHOW")})
			}
			b.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if err := b.Flush(); err != nil {
				return err
			}
		case *pgproto3.Terminate:
			return nil
		}
	}
}

func TestWaitReady(t *testing.T) {
	t.Parallel()
	const dataDir = "/srv/pg/data"
	// Long enough never to end a wait that works; a wait that does not
	// return when it should fails on it instead of hanging the test.
	const bound = 20 * time.Second

	t.Run("waits while the server starts up", func(t *testing.T) {
		t.Parallel()
		s := startFakeServer(t, 3, sqlstateCannotConnectNow, dataDir)
		ctx, cancel := context.WithTimeout(t.Context(), bound)
		defer cancel()
		if err := waitReady(ctx, s.addr, "secret", dataDir, make(chan struct{})); err != nil {
			t.Fatalf("waitReady = %v, want nil once the server lets us in", err)
		}
		if n := s.connections.Load(); n != 4 {
			t.Errorf("waitReady connected %d times, want 4 (3 turned away while starting up, then in)", n)
		}
	})

	t.Run("a refused password ends the wait", func(t *testing.T) {
		t.Parallel()
		s := startFakeServer(t, 1000, sqlstateInvalidPassword, dataDir)
		ctx, cancel := context.WithTimeout(t.Context(), bound)
		defer cancel()
		err := waitReady(ctx, s.addr, "wrong", dataDir, make(chan struct{}))
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != sqlstateInvalidPassword {
			t.Fatalf("waitReady = %v, want the server's SQLSTATE %s", err, sqlstateInvalidPassword)
		}
		if n := s.connections.Load(); n != 1 {
			t.Errorf("waitReady connected %d times, want 1", n)
		}
	})

	t.Run("another cluster on the port is not ready", func(t *testing.T) {
		t.Parallel()
		s := startFakeServer(t, 0, "", "/somewhere/else")
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		err := waitReady(ctx, s.addr, "secret", dataDir, make(chan struct{}))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("waitReady = %v, want it still waiting when ctx ends", err)
		}
		if n := s.connections.Load(); n < 1 {
			t.Errorf("waitReady connected %d times, want at least once", n)
		}
	})

	t.Run("an exited server ends the wait", func(t *testing.T) {
		t.Parallel()
		s := startFakeServer(t, 1000, sqlstateCannotConnectNow, dataDir)
		exited := make(chan struct{})
		close(exited)
		ctx, cancel := context.WithTimeout(t.Context(), bound)
		defer cancel()
		if err := waitReady(ctx, s.addr, "secret", dataDir, exited); !errors.Is(err, errServerExited) {
			t.Fatalf("waitReady = %v, want errServerExited", err)
		}
	})
}
