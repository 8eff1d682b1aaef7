// Package auth handles signing in, signing out and changing one's own
// password.
package auth

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"

	"partneradmin/handlers"
	"partneradmin/store"
)

// Limits on failed sign-ins within Window: per account and per client address.
const (
	Window             = 15 * time.Minute
	MaxAccountFailures = 5
	MaxAddressFailures = 20
)

// Store is what the auth handlers need from the store.
type Store interface {
	StaffByEmail(ctx context.Context, email string) (store.Staff, error)
	StaffByID(ctx context.Context, id int64) (store.Staff, error)
	CountLoginFailures(ctx context.Context, since time.Time, keys ...string) (map[string]int, error)
	RecordLoginFailure(ctx context.Context, e store.AuditEntry, keys ...string) error
	ClearLoginFailures(ctx context.Context, key string, e store.AuditEntry) error
	SetStaffPassword(ctx context.Context, id int64, hash string, by store.Actor) error
}

// Handler serves the auth routes.
type Handler struct {
	*handlers.Base
	Store Store
	Now   func() time.Time
	// dummyHash is checked when the account does not exist, so a missing
	// account costs the same time as a wrong password.
	dummyHash string
}

// New returns the auth handler.
func New(base *handlers.Base, st Store) (*Handler, error) {
	dummy, err := handlers.HashPassword(handlers.GeneratePassword())
	if err != nil {
		return nil, err
	}
	return &Handler{Base: base, Store: st, Now: time.Now, dummyHash: dummy}, nil
}

func accountKey(email string) string { return "account:" + strings.ToLower(strings.TrimSpace(email)) }

func addressKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// safeNext keeps a post-login redirect on this site: a local path only.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}
