package web

import (
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
)

// sessionCodec encodes session data as JSON with each value tagged with its
// type. scs's default gob codec compiles a decoder for every session it
// reads (a gob stream carries its types), which was a twentieth of a list
// page's CPU; the app keeps only strings and integers in sessions, so a
// small typed JSON does the job at a fraction of the cost. Sessions written
// by the gob codec (before this one) still decode.
//
// A signed-in person's session bytes are the same from one request to the
// next (scs writes them only when a value changes), so the decoded form is
// kept by its exact bytes (memo; nil keeps nothing): a request pays a map
// copy instead of a JSON decode. Keyed by content, an entry can never be
// stale, on any replica.
type sessionCodec struct {
	memo *sessionMemo
}

// sessionMemo holds decoded sessions by their encoded bytes, up to
// maxDecodedSessions (past it, it starts again empty).
type sessionMemo struct {
	mu   sync.Mutex
	rows map[string]decodedSession
}

type decodedSession struct {
	deadline time.Time
	values   map[string]any
}

const maxDecodedSessions = 20_000

func newSessionCodec() sessionCodec {
	return sessionCodec{memo: &sessionMemo{rows: map[string]decodedSession{}}}
}

type sessionValue struct {
	S *string `json:"s,omitempty"`
	I *int64  `json:"i,omitempty"`
	B *bool   `json:"b,omitempty"`
}

type sessionData struct {
	Deadline time.Time               `json:"d"`
	Values   map[string]sessionValue `json:"v"`
}

func (sessionCodec) Encode(deadline time.Time, values map[string]any) ([]byte, error) {
	d := sessionData{Deadline: deadline, Values: make(map[string]sessionValue, len(values))}
	for k, v := range values {
		var sv sessionValue
		switch x := v.(type) {
		case string:
			sv.S = &x
		case int64:
			sv.I = &x
		case int:
			i := int64(x)
			sv.I = &i
		case bool:
			sv.B = &x
		default:
			return nil, fmt.Errorf("web: session value %q: unsupported type %T", k, v)
		}
		d.Values[k] = sv
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("web: encode session: %w", err)
	}
	return b, nil
}

func (c sessionCodec) Decode(b []byte) (time.Time, map[string]any, error) {
	if c.memo == nil {
		return decodeSession(b)
	}
	c.memo.mu.Lock()
	d, ok := c.memo.rows[string(b)]
	c.memo.mu.Unlock()
	if ok {
		// scs changes the map it is given: each request gets its own.
		return d.deadline, maps.Clone(d.values), nil
	}
	deadline, values, err := decodeSession(b)
	if err != nil {
		return deadline, values, err
	}
	c.memo.mu.Lock()
	if len(c.memo.rows) >= maxDecodedSessions {
		clear(c.memo.rows)
	}
	c.memo.rows[string(b)] = decodedSession{deadline: deadline, values: maps.Clone(values)}
	c.memo.mu.Unlock()
	return deadline, values, nil
}

func decodeSession(b []byte) (time.Time, map[string]any, error) {
	if len(b) == 0 || b[0] != '{' {
		return scs.GobCodec{}.Decode(b)
	}
	var d sessionData
	if err := json.Unmarshal(b, &d); err != nil {
		return time.Time{}, nil, fmt.Errorf("web: decode session: %w", err)
	}
	values := make(map[string]any, len(d.Values))
	for k, v := range d.Values {
		switch {
		case v.S != nil:
			values[k] = *v.S
		case v.I != nil:
			values[k] = *v.I
		case v.B != nil:
			values[k] = *v.B
		default:
			return time.Time{}, nil, fmt.Errorf("web: decode session: value %q has no type", k)
		}
	}
	return d.Deadline, values, nil
}
