package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEncryptionKeyGeneratedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	k1, err := loadOrCreateEncryptionKey(dir)
	if err != nil || len(k1.Reveal()) != 64 {
		t.Fatalf("generated %d characters, %v", len(k1.Reveal()), err)
	}
	info, err := os.Stat(filepath.Join(dir, encryptionKeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v", info, err)
	}
	k2, err := loadOrCreateEncryptionKey(dir)
	if err != nil || k2 != k1 {
		t.Fatal("a second start did not reuse the key")
	}
	if err := os.WriteFile(filepath.Join(dir, encryptionKeyFile), []byte("not hex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadOrCreateEncryptionKey(dir); err == nil {
		t.Fatal("a damaged key file was accepted")
	}
}
