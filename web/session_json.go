package web

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/alexedwards/scs/v2"
)

// sessionCodec encodes session data as JSON with each value tagged with its
// type (the app keeps only strings, integers and booleans in sessions).
// Unlike scs's gob, the staff member a session belongs to can be found in
// its bytes by PostgreSQL, so that a password change or a disabled account
// ends that person's sessions in the transaction that makes the change
// (store.endStaffSessions). Sessions in the gob form still decode.
type sessionCodec struct{}

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

func (sessionCodec) Decode(b []byte) (time.Time, map[string]any, error) { return decodeSession(b) }

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
