// The sandbox's control API: put the Partner API in the state a test
// needs and read it back.

package webtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/shopspring/decimal"
)

// SandboxControl calls the sandbox's control API and returns its answer
// (body is sent as JSON when not nil).
func SandboxControl(t testing.TB, env *Env, method, path string, body any) []byte {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, env.SandboxURL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("sandbox %s %s: %d %s", method, path, resp.StatusCode, out)
	}
	return out
}

// EditSandboxState exports the sandbox's state, lets edit change it and
// imports it again: the way to put a rail into a state the control API has
// no call for.
func EditSandboxState(t testing.TB, env *Env, edit func(st map[string]any)) {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal(SandboxControl(t, env, http.MethodGet, "/_sandbox/state", nil), &st); err != nil {
		t.Fatal(err)
	}
	if d, ok := st["data"].(map[string]any); ok {
		st = d
	}
	edit(st)
	SandboxControl(t, env, http.MethodPut, "/_sandbox/state", st)
}

// SandboxObject is st[keys...] as an object, made when missing.
func SandboxObject(st map[string]any, keys ...string) map[string]any {
	m := st
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

// CoinBalance is a user's live balance in a stablecoin.
func CoinBalance(t testing.TB, env *Env, user, coin string) decimal.Decimal {
	t.Helper()
	ws, err := env.API.ListWallets(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if string(w.Currency) == coin {
			return w.Balance
		}
	}
	t.Fatalf("%s has no %s wallet", user, coin)
	return decimal.Zero
}

// SandboxControlData is SandboxControl that decodes the answer's data
// into out (when not nil).
func SandboxControlData(t testing.TB, env *Env, method, path string, body, out any) {
	t.Helper()
	raw := SandboxControl(t, env, method, path, body)
	if out == nil {
		return
	}
	var answer struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(answer.Data, out); err != nil {
		t.Fatalf("sandbox %s: %v: %s", path, err, raw)
	}
}

// SetSandboxState sets the value at a path of the sandbox's state (maps are
// made as needed): a fixture the control API has no call for.
func SetSandboxState(t testing.TB, env *Env, value any, path ...string) {
	t.Helper()
	EditSandboxState(t, env, func(st map[string]any) {
		SandboxObject(st, path[:len(path)-1]...)[path[len(path)-1]] = value
	})
}

// SettleInFlight settles what the sandbox has in flight, the demo's
// submitted transfer among it, so that it cannot move a balance in the
// middle of a test that measures one.
func SettleInFlight(t testing.TB, env *Env) {
	t.Helper()
	SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", nil)
}
