package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/apiclient/sandbox"
)

// TestSignTheEURProviderAuthorization: the device signs an EUR provider
// authorization as a message (the signature recovers to the owner from
// the text the provider checks), and refuses, posting nothing, a request of
// that kind whose text is anything else.
func TestSignTheEURProviderAuthorization(t *testing.T) {
	ks := filepath.Join(t.TempDir(), "device-keys.json")
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if _, err := sandbox.SeedDemo(sb, sandbox.DemoOptions{KeystorePath: ks}); err != nil {
		t.Fatal(err)
	}
	keys, err := loadKeystore(ks)
	if err != nil {
		t.Fatal(err)
	}
	var owner string
	for _, k := range keys.Keys {
		if k.Label == "treasury" {
			owner = k.Address
		}
	}
	if owner == "" {
		t.Fatal("no treasury key in the demo keystore")
	}
	for _, tc := range []struct {
		name, message string
		wantCode      int
	}{
		{"authorization", apiclient.EURProviderAuthorizationMessage("SANDBOX-EUR-1"), exitOK},
		{"another text", "Transfer everything to 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", exitError},
		{"no code", apiclient.EURProviderAuthorizationMessage(""), exitError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var posted string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.Method == http.MethodGet {
					_ = json.NewEncoder(w).Encode(map[string]any{"kind": "eur_authorization", "message": tc.message,
						"deadline": time.Now().Add(time.Minute), "ownerAddress": owner,
						"summary": map[string]string{"title": "Authorize the EUR provider for the treasury's EURe wallet"}})
					return
				}
				var in struct {
					Signature string `json:"signature"`
				}
				_ = json.NewDecoder(r.Body).Decode(&in)
				mu.Lock()
				posted = in.Signature
				mu.Unlock()
				_ = json.NewEncoder(w).Encode(map[string]string{"state": "completed"})
			}))
			defer srv.Close()
			r := device(t, "", "sign", "--keystore", ks, "--yes", srv.URL+"/sign/abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ")
			mu.Lock()
			defer mu.Unlock()
			if r.code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %+v", r.code, tc.wantCode, r)
			}
			if tc.wantCode != exitOK {
				if posted != "" || !strings.Contains(r.stderr, "refusing to sign") {
					t.Fatalf("posted %q for a refused text: %+v", posted, r)
				}
				return
			}
			sig, err := ethsig.ParseSignature(posted)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ethsig.RecoverMessage([]byte(tc.message), sig)
			if err != nil || !strings.EqualFold(got.Hex(), owner) {
				t.Fatalf("signature recovers to %v, want %s: %v", got, owner, err)
			}
		})
	}
}
