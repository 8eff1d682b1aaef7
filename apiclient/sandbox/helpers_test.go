package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"partneradmin/apiclient/ethsig"
)

const (
	keyA = "test-key-partner-a"
	keyB = "test-key-partner-b"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

type env struct {
	t     *testing.T
	s     *Server
	ts    *httptest.Server
	clock *fakeClock
}

// newEnv starts a sandbox with partners A and B, the control API, local
// mode, a fake clock and fast webhook retries.
func newEnv(t *testing.T, mod ...func(*Options)) *env {
	t.Helper()
	clock := &fakeClock{t: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	opts := Options{
		Partners: []Partner{
			{ID: "11111111-1111-4111-8111-111111111111", Name: "Acme", APIKey: keyA},
			{ID: "22222222-2222-4222-8222-222222222222", Name: "Globex", APIKey: keyB},
		},
		Control:            true,
		Local:              true,
		Clock:              clock.Now,
		SettleDelay:        -1,
		WebhookTimeout:     500 * time.Millisecond,
		WebhookRetryBase:   10 * time.Millisecond,
		WebhookRetryMax:    50 * time.Millisecond,
		WebhookMaxAttempts: 4,
	}
	for _, m := range mod {
		m(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return &env{t: t, s: s, ts: ts, clock: clock}
}

type resp struct {
	status int
	body   map[string]any
	raw    []byte
}

func (r resp) data() map[string]any {
	d, _ := r.body["data"].(map[string]any)
	return d
}

func (r resp) list() []any {
	d, _ := r.body["data"].([]any)
	return d
}

func (r resp) msg() string {
	switch m := r.body["message"].(type) {
	case string:
		return m
	case []any:
		var parts []string
		for _, x := range m {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// call sends a request with key (empty: none) and a JSON body (string bodies
// are sent raw).
func (e *env) call(method, path, key string, body any, hdr ...string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.ts.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := resp{status: res.StatusCode, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

func (e *env) want(r resp, status int) resp {
	e.t.Helper()
	if r.status != status {
		e.t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

func (e *env) advance(d time.Duration) {
	e.t.Helper()
	e.want(e.call("POST", "/_sandbox/clock/advance", "", map[string]any{"seconds": int64(d / time.Second)}), 200)
}

var userSeq struct {
	sync.Mutex
	n int
}

func (e *env) user(key string) string {
	e.t.Helper()
	userSeq.Lock()
	userSeq.n++
	n := userSeq.n
	userSeq.Unlock()
	r := e.want(e.call("POST", "/v1/users", key, map[string]any{
		"email": fmt.Sprintf("user%d@example.com", n), "firstName": "Ada", "lastName": fmt.Sprintf("User%d", n),
	}), 201)
	return r.body["serviceUserId"].(string)
}

type ownedWallet struct {
	id, address string
	key         *secp256k1.PrivateKey
}

// wallet runs the owner-proof flow and creates a managed wallet.
func (e *env) wallet(key, userID, currency string) ownedWallet {
	e.t.Helper()
	k, err := ethsig.GenerateKey()
	if err != nil {
		e.t.Fatal(err)
	}
	owner := ethsig.KeyAddress(k).Hex()
	ch := e.want(e.call("POST", "/v1/users/"+userID+"/smart-wallets/owner-proof-challenges", key,
		map[string]any{"currency": currency, "userOwnerAddress": owner}), 201).data()
	sig := ethsig.SignMessage(k, []byte(ch["message"].(string)))
	w := e.want(e.call("POST", "/v1/users/"+userID+"/smart-wallets/create-managed", key, map[string]any{
		"currency": currency, "userOwnerAddress": owner, "ownerProofChallengeId": ch["challengeId"], "ownerProofSignature": sig.Hex(),
	}), 201).data()
	return ownedWallet{id: w["id"].(string), address: w["address"].(string), key: k}
}

func (e *env) deposit(walletID, amount string) {
	e.t.Helper()
	e.want(e.call("POST", "/_sandbox/deposits", "", map[string]any{"smartWalletId": walletID, "amount": amount}), 200)
}

func (e *env) balance(key, userID, walletID string) string {
	e.t.Helper()
	r := e.want(e.call("GET", "/v1/users/"+userID+"/smart-wallets/"+walletID, key, nil), 200)
	return r.data()["balance"].(string)
}

func (e *env) propose(key, userID, walletID string, p map[string]any) map[string]any {
	e.t.Helper()
	r := e.want(e.call("POST", "/v1/users/"+userID+"/smart-wallets/"+walletID+"/proposals", key, map[string]any{"proposal": p}), 201)
	return r.data()["proposal"].(map[string]any)
}

func (e *env) proposalPath(userID, id, action string) string {
	p := "/v1/users/" + userID + "/smart-wallets/proposals/" + id
	if action != "" {
		p += "/" + action
	}
	return p
}

// signWith fetches the sign payload and signs hashToSign raw with k.
func (e *env) signWith(key, userID, proposalID string, k *secp256k1.PrivateKey) resp {
	e.t.Helper()
	sp := e.want(e.call("GET", e.proposalPath(userID, proposalID, "sign-payload"), key, nil), 200).data()
	h, err := ethsig.ParseHash(sp["hashToSign"].(string))
	if err != nil {
		e.t.Fatal(err)
	}
	return e.call("POST", e.proposalPath(userID, proposalID, "sign"), key, map[string]any{"signature": ethsig.Sign(k, h).Hex()})
}

// webhookSink records deliveries and answers with the scripted statuses
// (then 200).
type webhookSink struct {
	mu       sync.Mutex
	ts       *httptest.Server
	statuses []int
	delay    time.Duration
	got      []sinkHit
}

type sinkHit struct {
	body   []byte
	header http.Header
}

func newSink(t *testing.T, statuses ...int) *webhookSink {
	t.Helper()
	k := &webhookSink{statuses: statuses}
	k.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		k.mu.Lock()
		k.got = append(k.got, sinkHit{body: b, header: r.Header.Clone()})
		status := 200
		if len(k.statuses) > 0 {
			status = k.statuses[0]
			k.statuses = k.statuses[1:]
		}
		delay := k.delay
		k.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
			}
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(k.ts.Close)
	return k
}

func (k *webhookSink) hits() []sinkHit {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]sinkHit(nil), k.got...)
}

// waitDelivery polls the delivery history until the newest delivery of
// eventType leaves pending.
func (e *env) waitDelivery(key, eventType string) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		r := e.want(e.call("GET", "/v1/webhooks/deliveries", key, nil), 200)
		for _, x := range r.list() {
			d := x.(map[string]any)
			if d["eventType"] == eventType && d["status"] != "pending" {
				return d
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatalf("no finished delivery of %s", eventType)
	return nil
}
