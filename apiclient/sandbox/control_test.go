package sandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"partneradmin/apiclient/ethsig"
)

// Fault injection: latency, a status code, a dropped or reset connection per route
// pattern, for a number of requests.
func TestFaults_StatusLatencyDropPerRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)
	walletsPath := "/v1/users/" + u + "/smart-wallets/account/wallets"

	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "/v1/users/{userId}/smart-wallets/account/wallets", "status": 502, "times": 2}), 201)
	for i := 0; i < 2; i++ {
		r := e.want(e.call("GET", walletsPath, keyA, nil), 502)
		if r.body["statusCode"] != 502.0 || r.body["error"] != "Bad Gateway" {
			t.Errorf("fault body %s", r.raw)
		}
	}
	e.want(e.call("GET", walletsPath, keyA, nil), 200)
	if n := len(e.want(e.call("GET", "/_sandbox/faults", "", nil), 200).list()); n != 0 {
		t.Errorf("used-up fault still listed (%d)", n)
	}

	// A path glob and a method filter.
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"method": "POST", "route": "/v1/users/*/smart-wallets/*", "status": 429}), 201)
	e.want(e.call("GET", walletsPath, keyA, nil), 200)
	e.want(e.call("POST", "/v1/users/"+u+"/smart-wallets/owner-proof-challenges", keyA, map[string]any{}), 429)
	e.want(e.call("DELETE", "/_sandbox/faults", "", nil), 200)

	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "/v1/smart-wallets/supported-currencies", "latencyMs": 150, "times": 1}), 201)
	start := time.Now()
	e.want(e.call("GET", "/v1/smart-wallets/supported-currencies", keyA, nil), 200)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("latency not injected: %s", d)
	}

	// A POST, because net/http replays an idempotent GET on a reused
	// connection that closed without answering.
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "/v1/users", "drop": true, "times": 1}), 201)
	req, _ := http.NewRequest("POST", e.ts.URL+"/v1/users", strings.NewReader(`{"email":"drop@example.com","firstName":"D","lastName":"R"}`))
	req.Header.Set("x-api-key", keyA)
	if res, err := e.ts.Client().Do(req); err == nil {
		res.Body.Close()
		t.Errorf("dropped connection answered %d", res.StatusCode)
	}
	// Nothing was created: the retry succeeds with 201.
	e.want(e.call("POST", "/v1/users", keyA, map[string]any{"email": "drop@example.com", "firstName": "D", "lastName": "R"}), 201)

	// A reset: the connection is closed with an RST, which the client
	// reads as "connection reset by peer", and nothing is created.
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "/v1/users", "reset": true, "times": 1}), 201)
	req, _ = http.NewRequest("POST", e.ts.URL+"/v1/users", strings.NewReader(`{"email":"reset@example.com","firstName":"R","lastName":"S"}`))
	req.Header.Set("x-api-key", keyA)
	if res, err := e.ts.Client().Do(req); err == nil {
		res.Body.Close()
		t.Errorf("reset connection answered %d", res.StatusCode)
	} else if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("reset connection: %v, want connection reset by peer", err)
	}
	e.want(e.call("POST", "/v1/users", keyA, map[string]any{"email": "reset@example.com", "firstName": "R", "lastName": "S"}), 201)
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "*", "reset": true, "drop": true}), 400)

	// Validation, and the control API itself is never faulted.
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "*", "status": 200}), 400)
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "*", "status": 500, "rate": 1.5}), 400)
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "*", "status": 500}), 201)
	e.want(e.call("GET", "/_sandbox/clock", "", nil), 200)
	e.want(e.call("GET", "/v1/smart-wallets/supported-currencies", keyA, nil), 500)
}

// Export and import: a test or a demo can start from a fixture.
func TestState_ExportResetImport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.deposit(w.id, "42.42")
	fixture := e.want(e.call("GET", "/_sandbox/state", "", nil), 200).raw
	e.want(e.call("POST", "/_sandbox/reset", "", nil), 200)
	e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/account/wallets", keyA, nil), 404)
	// Partners survive a reset.
	e.want(e.call("GET", "/v1/smart-wallets/supported-currencies", keyA, nil), 200)
	e.want(e.call("PUT", "/_sandbox/state", "", "{not json"), 400)
	e.want(e.call("PUT", "/_sandbox/state", "", fixture), 200)
	if b := e.balance(keyA, u, w.id); b != "42.42" {
		t.Errorf("balance after import %s", b)
	}
	// The imported owner key still signs for the wallet.
	to := e.user(keyA)
	e.wallet(keyA, to, "USDB")
	p := e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "2"})
	e.want(e.call("POST", e.proposalPath(u, p["id"].(string), "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, u, p["id"].(string), w.key), 200)
}

// Persistence: with StatePath the state is saved atomically after each change
// and restored at start.
func TestState_PersistsAcrossRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox", "state.json")
	e := newEnv(t, func(o *Options) { o.StatePath = path })
	u := e.user(keyA)
	w := e.wallet(keyA, u, "CNGN")
	e.deposit(w.id, "1500.5")
	e.advance(time.Hour)
	e.ts.Close()
	e.s.Close()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() == 0 {
		t.Fatal("empty state file")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	e2 := newEnv(t, func(o *Options) { o.StatePath = path })
	if b := e2.balance(keyA, u, w.id); b != "1500.5" {
		t.Errorf("balance after restart %s", b)
	}
	now := e2.want(e2.call("GET", "/_sandbox/clock", "", nil), 200).data()["now"]
	if now != "2026-11-01T10:00:00.000Z" {
		t.Errorf("clock offset not restored: %v", now)
	}
	// A corrupt file is an error, not an empty sandbox.
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{StatePath: path}); err == nil {
		t.Error("corrupt state accepted")
	}
}

// With LoadOnly the state is loaded from StatePath and changes are served,
// but the file is never rewritten.
func TestState_LoadOnlyNeverRewrites(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, func(o *Options) { o.StatePath = path })
	u := e.user(keyA)
	w := e.wallet(keyA, u, "CNGN")
	e.deposit(w.id, "7")
	e.ts.Close()
	e.s.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e2 := newEnv(t, func(o *Options) { o.StatePath, o.LoadOnly = path, true })
	if b := e2.balance(keyA, u, w.id); b != "7" {
		t.Errorf("balance loaded %s, want 7", b)
	}
	e2.deposit(w.id, "5")
	if b := e2.balance(keyA, u, w.id); b != "12" {
		t.Errorf("balance after a deposit %s, want 12", b)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Error("the state file was rewritten with LoadOnly")
	}
}

// Demo seed: the data partner-admin runs with no configuration.
func TestSeedDemo_CoversEveryStateAndWritesTheKeystore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sink := newSink(t)
	dir := t.TempDir()
	keystore := filepath.Join(dir, "device", "keys.json")
	info, err := SeedDemo(e.s, DemoOptions{CallbackURL: sink.ts.URL + "/webhooks/partner-api", KeystorePath: keystore})
	if err != nil {
		t.Fatal(err)
	}
	if info.APIKey != DemoAPIKey || len(info.Employees) != 25 || info.TreasuryUserID == "" || info.WebhookSecret == "" {
		t.Fatalf("info %+v", info)
	}
	countries, invites := map[string]int{}, map[string]int{}
	admins := 0
	for _, emp := range info.Employees {
		countries[emp.Country]++
		invites[emp.InviteState]++
		if slices.Contains(emp.Roles, "treasury_admin") {
			admins++
		}
	}
	// The treasury's wallets need admin approval: its admins are named.
	if admins == 0 {
		t.Error("no employee has the treasury_admin role")
	}
	for _, c := range []string{"NGA", "USA", "MEX", "GBR", "DEU"} {
		if countries[c] != 5 {
			t.Errorf("country %s: %d", c, countries[c])
		}
	}
	for _, s := range []string{"invited", "reinvited", "linked", "not_invited"} {
		if invites[s] == 0 {
			t.Errorf("no employee %s", s)
		}
	}
	key := info.APIKey
	tr := info.TreasuryUserID
	if m := e.want(e.call("GET", "/v1/users/"+tr+"/smart-wallets/account/approval-policy", key, nil), 200).data(); m["mode"] != "ADMIN_THRESHOLD" || m["requiredApprovals"] != 2.0 {
		t.Errorf("treasury policy %v", m)
	}
	wallets := e.want(e.call("GET", "/v1/users/"+tr+"/smart-wallets/account/wallets", key, nil), 200).list()
	usdb := wallets[0].(map[string]any)
	states := map[string]string{}
	for _, x := range e.want(e.call("GET", "/v1/users/"+tr+"/smart-wallets/"+usdb["id"].(string)+"/proposals", key, nil), 200).list() {
		p := x.(map[string]any)
		states[p["status"].(string)] = p["id"].(string)
	}
	for _, s := range []string{"PENDING_APPROVALS", "PENDING_SIGNATURES", "SUBMITTED", "COMPLETED", "FAILED", "REJECTED", "EXPIRED"} {
		if states[s] == "" {
			t.Errorf("no proposal %s", s)
		}
	}

	// The keystore is 0600 JSON and its keys sign for the seeded wallets.
	st, err := os.Stat(keystore)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("keystore mode %v", st.Mode().Perm())
	}
	raw, _ := os.ReadFile(keystore)
	var ks KeystoreFile
	if err := json.Unmarshal(raw, &ks); err != nil {
		t.Fatal(err)
	}
	var treasuryKey string
	for _, k := range ks.Keys {
		if k.Label == "treasury" {
			treasuryKey = k.PrivateKey
		}
		pk, err := ethsig.ParsePrivateKey(k.PrivateKey)
		if err != nil || ethsig.KeyAddress(pk).Hex() != k.Address {
			t.Errorf("keystore entry %s", k.Label)
		}
	}
	if treasuryKey == "" || !strings.EqualFold(usdb["userOwnerAddress"].(string), addrOf(t, treasuryKey)) {
		t.Fatalf("treasury key does not own %v", usdb["userOwnerAddress"])
	}
	pk, _ := ethsig.ParsePrivateKey(treasuryKey)
	r := e.want(e.signWith(key, tr, states["PENDING_SIGNATURES"], pk), 200)
	if r.data()["status"] != "SUBMITTED" {
		t.Errorf("sign with keystore key %s", r.raw)
	}

	// Cards in several statuses, one reserved.
	var ada string
	for _, emp := range info.Employees {
		if emp.FirstName == "Adaeze" {
			ada = emp.ServiceUserID
		}
	}
	aw := e.want(e.call("GET", "/v1/users/"+ada+"/smart-wallets/account/wallets", key, nil), 200).list()[0].(map[string]any)
	cardStates := map[string]bool{}
	for _, x := range e.want(e.call("GET", "/v1/users/"+ada+"/smart-wallets/"+aw["id"].(string)+"/cards", key, nil), 200).list() {
		cardStates[x.(map[string]any)["status"].(string)] = true
	}
	for _, s := range []string{"RESERVED", "active", "pending", "frozen", "lost"} {
		if !cardStates[s] {
			t.Errorf("no card %s (have %v)", s, cardStates)
		}
	}
	// The subscription points at the app and fires.
	cfg := e.want(e.call("GET", "/v1/webhooks/config", key, nil), 200).data()
	if cfg["callbackUrl"] != sink.ts.URL+"/webhooks/partner-api" {
		t.Errorf("webhook %v", cfg)
	}
	e.deposit(aw["id"].(string), "10")
	if d := e.waitDelivery(key, "employee.deposit.completed"); d["status"] != "delivered" {
		t.Errorf("demo delivery %v", d)
	}

	// Seeding again is a no-op that describes the same data.
	again, err := SeedDemo(e.s, DemoOptions{})
	if err != nil || !again.AlreadySeeded || again.TreasuryUserID != tr || len(again.Employees) != 25 {
		t.Errorf("second seed %+v %v", again, err)
	}
}

// The seed is deterministic: two sandboxes get the same ids.
func TestSeedDemo_IsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := newEnv(t), newEnv(t)
	ia, err := SeedDemo(a.s, DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ib, err := SeedDemo(b.s, DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ia.TreasuryUserID != ib.TreasuryUserID || ia.Employees[0].ServiceUserID != ib.Employees[0].ServiceUserID {
		t.Errorf("ids differ: %s vs %s", ia.TreasuryUserID, ib.TreasuryUserID)
	}
}

func addrOf(t *testing.T, key string) string {
	t.Helper()
	pk, err := ethsig.ParsePrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return ethsig.KeyAddress(pk).Hex()
}

// A fault with a rate hits about that share of the matching requests.
func TestFaults_RateAppliesToAShareOfRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.Rand = &demoStream{seed: []byte("fault-rate-test")} })
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "/v1/smart-wallets/supported-currencies", "status": 503, "rate": 0.25}), 201)
	failed := 0
	for i := 0; i < 200; i++ {
		switch r := e.call("GET", "/v1/smart-wallets/supported-currencies", keyA, nil); r.status {
		case 503:
			failed++
		case 200:
		default:
			t.Fatalf("status %d", r.status)
		}
	}
	if failed < 25 || failed > 75 {
		t.Errorf("%d of 200 failed at rate 0.25", failed)
	}
}

// A proposal is only reachable through its wallet owner's path.
func TestProposals_OtherUsersPathIsNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, to, other := e.user(keyA), e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.wallet(keyA, to, "USDB")
	id := e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})["id"].(string)
	for _, action := range []string{"", "sign-payload"} {
		if r := e.want(e.call("GET", e.proposalPath(other, id, action), keyA, nil), 404); r.body["message"] != msgItemNotFound {
			t.Errorf("%q: %s", action, r.raw)
		}
	}
	e.want(e.call("POST", e.proposalPath(other, id, "approve"), keyA, nil), 404)
	e.want(e.call("GET", "/v1/users/"+other+"/smart-wallets/"+w.id, keyA, nil), 404)
	e.want(e.call("GET", e.proposalPath(u, id, ""), keyB, nil), 403)
}

// An after-fault acts once the request was handled and its change saved:
// the client sees a dropped connection, a timeout or a 5xx, yet the write
// happened (spec: "No idempotency keys exist. A timed-out create-user must
// be recovered through the 409 rule above."). A before-fault (the default)
// stops the request before it is handled.
func TestFaults_AfterTheWriteKeepsTheWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fault      map[string]any
		wantStatus int // 0: the client gets an error, no answer
		written    bool
	}{
		{"drop before", map[string]any{"drop": true}, 0, false},
		{"drop after", map[string]any{"drop": true, "after": true}, 0, true},
		{"status before", map[string]any{"status": 504}, 504, false},
		{"status after", map[string]any{"status": 504, "after": true}, 504, true},
		{"latency before, client gives up", map[string]any{"latencyMs": 60000}, 0, false},
		{"latency after, client gives up", map[string]any{"latencyMs": 60000, "after": true}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			fault := map[string]any{"method": "POST", "route": "/v1/users", "times": 1}
			for k, v := range tc.fault {
				fault[k] = v
			}
			f := e.want(e.call("POST", "/_sandbox/faults", "", fault), 201).data()
			if f["after"] != tc.fault["after"] {
				t.Errorf("fault listed as %v", f)
			}

			client := *e.ts.Client()
			if tc.fault["latencyMs"] != nil {
				client.Timeout = 300 * time.Millisecond
			}
			req, _ := http.NewRequest("POST", e.ts.URL+"/v1/users", strings.NewReader(`{"email":"late@example.com","firstName":"L","lastName":"W"}`))
			req.Header.Set("x-api-key", keyA)
			res, err := client.Do(req)
			switch {
			case tc.wantStatus == 0 && err == nil:
				res.Body.Close()
				t.Fatalf("answered %d, want no answer", res.StatusCode)
			case tc.wantStatus != 0 && err != nil:
				t.Fatalf("no answer (%v), want %d", err, tc.wantStatus)
			case tc.wantStatus != 0:
				res.Body.Close()
				if res.StatusCode != tc.wantStatus {
					t.Fatalf("answered %d, want %d", res.StatusCode, tc.wantStatus)
				}
			}

			lookup := e.call("GET", "/v1/users/lookup?email=late@example.com", keyA, nil)
			retry := e.call("POST", "/v1/users", keyA, map[string]any{"email": "late@example.com", "firstName": "L", "lastName": "W"})
			if tc.written {
				e.want(lookup, 200)
				e.want(retry, 409) // recovered through the 409 rule
			} else {
				e.want(lookup, 404)
				e.want(retry, 201)
			}
		})
	}
}
