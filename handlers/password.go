package handlers

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's minimum is m=19 MiB, t=2, p=1; we use a little
// more memory.
const (
	argonTime    = 2
	argonMemory  = 32 * 1024 // KiB
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// MinPasswordLength is the shortest password the app accepts.
const MinPasswordLength = 12

// Each argon2id computation holds its memory cost (m) for its whole run, so
// the computations running at once in this process share a memory budget:
// four at the default cost. One that finds no room within passwordWait is
// refused with ErrPasswordBusy rather than queued without end, so a flood of
// sign-ins can neither exhaust memory nor pile up waiting requests.
const (
	passwordMemoryBudget = 4 * argonMemory // KiB
	passwordWait         = 2 * time.Second
)

// ErrPasswordBusy means too many passwords were being checked at once; the
// user should try again in a moment.
var ErrPasswordBusy = errors.New("password checks are busy")

// passwordMemory is the process's argon2id budget. It is the one piece of
// process-wide state here, because what it guards (this process's memory) is
// process-wide.
var passwordMemory = newMemoryBudget(passwordMemoryBudget)

// HashPassword returns an argon2id hash in PHC string form. It waits for room
// in the memory budget as long as it takes; request handlers use
// HashPasswordContext.
func HashPassword(password string) (string, error) {
	return hashPassword(context.Background(), password, 0)
}

// HashPasswordContext is HashPassword for a request: it returns
// ErrPasswordBusy when the budget has no room within a short wait.
func HashPasswordContext(ctx context.Context, password string) (string, error) {
	return hashPassword(ctx, password, passwordWait)
}

func hashPassword(ctx context.Context, password string, wait time.Duration) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	release, err := passwordMemory.acquire(ctx, argonMemory, wait)
	if err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	release()
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

var errBadHash = errors.New("password hash is not a recognised argon2id hash")

// CheckPassword reports whether password matches the PHC-form hash, in
// constant time. The parameters are read from the hash, so older hashes keep
// working when the defaults change. It returns ErrPasswordBusy when the
// memory budget has no room within a short wait.
func CheckPassword(ctx context.Context, hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var memory, time uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &time, &threads); err != nil {
		return false, errBadHash
	}
	// A cost the budget cannot hold could never run.
	if memory == 0 || memory > passwordMemoryBudget || time == 0 || threads == 0 {
		return false, errBadHash
	}
	enc := base64.RawStdEncoding
	salt, err := enc.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := enc.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errBadHash
	}
	release, err := passwordMemory.acquire(ctx, int64(memory), passwordWait)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, time, memory, threads, uint32(len(want)))
	release()
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// GeneratePassword returns a random password: 26 base32 characters, 128 bits.
func GeneratePassword() string { return rand.Text() }

// memoryBudget is a counting semaphore over KiB of memory.
type memoryBudget struct {
	mu   sync.Mutex
	free int64
	// freed is closed, and replaced, whenever memory is given back.
	freed chan struct{}
}

func newMemoryBudget(kib int64) *memoryBudget {
	return &memoryBudget{free: kib, freed: make(chan struct{})}
}

// acquire takes kib from the budget, waiting at most wait (0: until ctx
// ends) for room. It returns the function that gives the memory back.
func (b *memoryBudget) acquire(ctx context.Context, kib int64, wait time.Duration) (func(), error) {
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	for {
		b.mu.Lock()
		if b.free >= kib {
			b.free -= kib
			b.mu.Unlock()
			return func() { b.release(kib) }, nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-timeout:
			return nil, ErrPasswordBusy
		case <-ctx.Done():
			return nil, ErrPasswordBusy
		}
	}
}

func (b *memoryBudget) release(kib int64) {
	b.mu.Lock()
	b.free += kib
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}
