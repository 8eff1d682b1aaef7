package web

import (
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
)

func TestSessionCodecRoundTrip(t *testing.T) {
	t.Parallel()
	deadline := time.Date(2026, 11, 22, 15, 4, 5, 123456789, time.UTC)
	in := map[string]any{"staff_id": int64(42), "last_seen": int64(1795000000), "flash": "Saved <b>", "n": 7, "ok": true, "empty": ""}
	b, err := sessionCodec{}.Encode(deadline, in)
	if err != nil {
		t.Fatal(err)
	}
	gotDeadline, got, err := sessionCodec{}.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !gotDeadline.Equal(deadline) {
		t.Errorf("deadline %v, want %v", gotDeadline, deadline)
	}
	want := map[string]any{"staff_id": int64(42), "last_seen": int64(1795000000), "flash": "Saved <b>", "n": int64(7), "ok": true, "empty": ""}
	if len(got) != len(want) {
		t.Fatalf("decoded %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
}

func TestSessionCodecRefusesOtherTypes(t *testing.T) {
	t.Parallel()
	if _, err := (sessionCodec{}).Encode(time.Now(), map[string]any{"when": time.Now()}); err == nil {
		t.Fatal("a time.Time value was encoded; only strings, integers and booleans are supported")
	}
	if _, _, err := (sessionCodec{}).Decode([]byte(`{"d":"2026-11-22T00:00:00Z","v":{"x":{}}}`)); err == nil {
		t.Fatal("a value without a type decoded")
	}
}

// Sessions written before the JSON codec (gob) still load after an upgrade.
func TestSessionCodecReadsGobSessions(t *testing.T) {
	t.Parallel()
	deadline := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	b, err := scs.GobCodec{}.Encode(deadline, map[string]any{"staff_id": int64(9)})
	if err != nil {
		t.Fatal(err)
	}
	d, values, err := sessionCodec{}.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Equal(deadline) || values["staff_id"] != int64(9) {
		t.Fatalf("decoded %v %v", d, values)
	}
}
