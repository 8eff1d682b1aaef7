package localpg

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Just enough of the PostgreSQL frontend/backend protocol (version 3.0,
// SCRAM-SHA-256 authentication, simple queries) to tell when the server
// accepts connections and to create a database, so that this package needs
// no driver.

// serverError is an ErrorResponse from the server.
type serverError struct {
	code    string // SQLSTATE
	message string
}

func (e *serverError) Error() string { return fmt.Sprintf("%s (SQLSTATE %s)", e.message, e.code) }

const (
	sqlstateCannotConnectNow  = "57P03" // starting up, recovering, shutting down
	sqlstateDuplicateDatabase = "42P04"
	sqlstateInvalidPassword   = "28P01"
	maxMessageLen             = 1 << 24
)

type wireConn struct {
	nc         net.Conn
	r          *bufio.Reader
	stopCancel func() bool
}

// dial opens a session as user on database db, giving password when the
// server asks for one.
func dial(ctx context.Context, addr, user, password, db string) (*wireConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(30 * time.Second)
	}
	if err := nc.SetDeadline(deadline); err != nil {
		nc.Close()
		return nil, err
	}
	// Ending ctx interrupts reads and writes in progress.
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	c := &wireConn{nc: nc, r: bufio.NewReader(nc), stopCancel: stop}

	var body []byte
	body = binary.BigEndian.AppendUint32(body, 3<<16) // protocol 3.0
	for _, s := range []string{"user", user, "database", db, ""} {
		body = append(body, s...)
		body = append(body, 0)
	}
	msg := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	if _, err := nc.Write(append(msg, body...)); err != nil {
		c.abort()
		return nil, err
	}
	for {
		typ, payload, err := c.read()
		if err != nil {
			c.abort()
			return nil, err
		}
		switch typ {
		case 'R':
			if err := c.authenticate(payload, password); err != nil {
				c.abort()
				return nil, err
			}
		case 'E':
			c.abort()
			return nil, parseError(payload)
		case 'Z':
			return c, nil
		}
		// ParameterStatus, BackendKeyData and notices are not needed.
	}
}

// authenticate answers an authentication request: SCRAM-SHA-256 is the
// only method localpg clusters use (no server should send the password in
// clear or as MD5 to this client).
func (c *wireConn) authenticate(payload []byte, password string) error {
	if len(payload) < 4 {
		return errors.New("protocol: short authentication request")
	}
	switch code := binary.BigEndian.Uint32(payload); code {
	case authOK:
		return nil
	case authSASL:
		return c.authenticateSCRAM(payload[4:], password)
	default:
		return fmt.Errorf("server asks for authentication method %d; localpg clusters use SCRAM-SHA-256", code)
	}
}

// send writes one message of type typ.
func (c *wireConn) send(typ byte, body []byte) error {
	msg := []byte{typ}
	msg = binary.BigEndian.AppendUint32(msg, uint32(4+len(body)))
	_, err := c.nc.Write(append(msg, body...))
	return err
}

// query runs one simple query and returns its rows as text (NULL as "").
func (c *wireConn) query(sql string) ([][]string, error) {
	if err := c.send('Q', append([]byte(sql), 0)); err != nil {
		return nil, err
	}
	var rows [][]string
	var queryErr error
	for {
		typ, payload, err := c.read()
		if err != nil {
			return nil, err
		}
		switch typ {
		case 'D':
			row, err := parseDataRow(payload)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		case 'E':
			queryErr = parseError(payload)
		case 'Z':
			return rows, queryErr
		}
	}
}

// close ends the session politely.
func (c *wireConn) close() {
	_, _ = c.nc.Write([]byte{'X', 0, 0, 0, 4})
	c.abort()
}

func (c *wireConn) abort() {
	c.stopCancel()
	_ = c.nc.Close()
}

func (c *wireConn) read() (byte, []byte, error) {
	var header [5]byte
	if _, err := io.ReadFull(c.r, header[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(header[1:])
	if n < 4 || n > maxMessageLen {
		return 0, nil, fmt.Errorf("protocol: message %q of length %d", header[0], n)
	}
	payload := make([]byte, n-4)
	if _, err := io.ReadFull(c.r, payload); err != nil {
		return 0, nil, err
	}
	return header[0], payload, nil
}

func parseError(payload []byte) error {
	e := &serverError{}
	for len(payload) > 1 {
		field := payload[0]
		value, rest, ok := strings.Cut(string(payload[1:]), "\x00")
		if !ok {
			break
		}
		switch field {
		case 'C':
			e.code = value
		case 'M':
			e.message = value
		}
		payload = []byte(rest)
	}
	return e
}

func parseDataRow(payload []byte) ([]string, error) {
	if len(payload) < 2 {
		return nil, errors.New("protocol: short DataRow")
	}
	n := int(binary.BigEndian.Uint16(payload))
	payload = payload[2:]
	row := make([]string, 0, n)
	for range n {
		if len(payload) < 4 {
			return nil, errors.New("protocol: short DataRow")
		}
		size := int32(binary.BigEndian.Uint32(payload))
		payload = payload[4:]
		if size < 0 {
			row = append(row, "")
			continue
		}
		if int(size) > len(payload) {
			return nil, errors.New("protocol: short DataRow")
		}
		row = append(row, string(payload[:size]))
		payload = payload[size:]
	}
	return row, nil
}

// quoteIdent quotes a name for SQL.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
