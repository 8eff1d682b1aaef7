package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"partneradmin/web"
)

// encryptionKeyFile holds the generated ENCRYPTION_KEY in the data
// directory, readable by the app's user only.
const encryptionKeyFile = "encryption.key"

// loadOrCreateEncryptionKey returns the key kept in the data directory,
// generating it on the first run. Losing it loses the webhook secret (rotate
// it on the settings page); it is never printed.
func loadOrCreateEncryptionKey(dataDir string) (web.Secret, error) {
	path := filepath.Join(dataDir, encryptionKeyFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		key := strings.TrimSpace(string(b))
		if k, err := hex.DecodeString(key); err != nil || len(k) != 32 {
			return "", fmt.Errorf("%s: want 64 hex characters; delete it to generate a new key (then rotate the webhook secret)", path)
		}
		return web.Secret(key), nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read encryption key: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", fmt.Errorf("create data directory: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return "", fmt.Errorf("generate encryption key: %w", err)
	}
	key := hex.EncodeToString(k)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("write encryption key: %w", err)
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("write encryption key: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write encryption key: %w", err)
	}
	return web.Secret(key), nil
}
