package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"partneradmin/apiclient/ethsig"
)

// Keystore is the device's key file, in the format the sandbox writes for
// the demo company (apiclient/sandbox KeystoreFile): {"keys": [{address,
// privateKey, label}]}. It holds private keys: mode 0600, never printed.
type Keystore struct {
	Keys []KeystoreKey `json:"keys"`
}

// KeystoreKey is one owner key.
type KeystoreKey struct {
	Address    string `json:"address"`
	PrivateKey string `json:"privateKey"`
	Label      string `json:"label"`
}

// loadKeystore reads a keystore; a missing file is an empty keystore.
func loadKeystore(path string) (*Keystore, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Keystore{Keys: []KeystoreKey{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read keystore: %w", err)
	}
	var ks Keystore
	if err := json.Unmarshal(b, &ks); err != nil {
		return nil, fmt.Errorf("keystore %s is not a keystore file: %w", path, err)
	}
	for i, k := range ks.Keys {
		key, err := ethsig.ParsePrivateKey(k.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("keystore %s: key %d (%s): %w", path, i, k.Label, err)
		}
		if a, err := ethsig.ParseAddress(k.Address); err != nil || !a.Equal(ethsig.KeyAddress(key)) {
			return nil, fmt.Errorf("keystore %s: key %d (%s): the address does not match the private key", path, i, k.Label)
		}
	}
	return &ks, nil
}

// save writes the keystore atomically with mode 0600.
func (ks *Keystore) save(path string) error {
	b, err := json.MarshalIndent(ks, "", "  ")
	if err != nil {
		return fmt.Errorf("encode keystore: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keystore directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".device-keys-*")
	if err != nil {
		return fmt.Errorf("keystore temp file: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name) //nolint:errcheck // gone after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("keystore chmod: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write keystore: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write keystore: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write keystore: %w", err)
	}
	return nil
}

// add appends a key unless its address is already there; it reports
// whether it was added.
func (ks *Keystore) add(k *secp256k1.PrivateKey, label string) bool {
	addr := ethsig.KeyAddress(k)
	if _, ok := ks.find(addr.Hex()); ok {
		return false
	}
	ks.Keys = append(ks.Keys, KeystoreKey{Address: addr.Hex(), PrivateKey: ethsig.PrivateKeyHex(k), Label: label})
	return true
}

// find returns the key of an address (any letter case).
func (ks *Keystore) find(address string) (*secp256k1.PrivateKey, bool) {
	want, err := ethsig.ParseAddress(strings.TrimSpace(address))
	if err != nil {
		return nil, false
	}
	for _, k := range ks.Keys {
		a, err := ethsig.ParseAddress(k.Address)
		if err != nil || !a.Equal(want) {
			continue
		}
		key, err := ethsig.ParsePrivateKey(k.PrivateKey)
		if err != nil {
			return nil, false
		}
		return key, true
	}
	return nil, false
}
