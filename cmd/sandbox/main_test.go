package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The "Done when": --demo --control serves the API with the demo
// seed and prints "api key: KEY" for the demo partner and each extra one.
func TestRun_DemoControlServesAndPrintsKeys(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	args := []string{"sandbox", "--demo", "--control", "--addr", "127.0.0.1:0", "--api-key", "extra-key-1",
		"--keystore", filepath.Join(dir, "keys.json"), "--state", filepath.Join(dir, "state.json")}
	go func() { done <- run(ctx, args, func(string) string { return "" }, out, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run: %v\n%s", err, out)
	case <-time.After(10 * time.Second):
		t.Fatal("not ready")
	}
	keys := regexp.MustCompile(`(?m)^api key: (\S+)$`).FindAllStringSubmatch(out.String(), -1)
	if len(keys) != 2 {
		t.Fatalf("want 2 api key lines:\n%s", out)
	}
	var demoKey string
	for _, k := range keys {
		if k[1] != "extra-key-1" {
			demoKey = k[1]
		}
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/smart-wallets/supported-currencies", nil)
	req.Header.Set("x-api-key", demoKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	res, err = http.Get("http://" + addr + "/_sandbox/invites")
	if err != nil {
		t.Fatal(err)
	}
	var invites struct {
		Data []map[string]any `json:"data"`
	}
	_ = json.NewDecoder(res.Body).Decode(&invites)
	res.Body.Close()
	if len(invites.Data) < 10 {
		t.Errorf("demo invites %d", len(invites.Data))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}

func TestParseConfig_NeedsPartners(t *testing.T) {
	_, err := parseConfig([]string{"sandbox"}, func(string) string { return "" }, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no partners") {
		t.Fatalf("err %v", err)
	}
	c, err := parseConfig([]string{"sandbox"}, func(k string) string {
		if k == "SANDBOX_API_KEYS" {
			return "a, b"
		}
		return ""
	}, &bytes.Buffer{})
	if err != nil || len(c.keys) != 2 {
		t.Fatalf("keys %v err %v", c.keys, err)
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:0": true, "localhost:80": true, "[::1]:9": true, ":8090": false, "0.0.0.0:1": false, "10.1.2.3:4": false} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v", addr, got)
		}
	}
	if _, err := parseConfig([]string{"sandbox", "--demo", "--local", "maybe"}, func(string) string { return "" }, &bytes.Buffer{}); err == nil {
		t.Error("--local maybe accepted")
	}
}
