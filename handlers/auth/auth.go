// Package auth handles signing in, signing out, changing one's own password
// and setting it through a one-time link.
package auth

import (
	"context"
	"sync/atomic"
	"time"

	"partneradmin/handlers"
	"partneradmin/store"
)

// Store is what the auth handlers need from the store.
type Store interface {
	StaffByEmail(ctx context.Context, email string) (store.Staff, error)
	StaffByID(ctx context.Context, id int64) (store.Staff, error)
	BeginLoginAttempt(ctx context.Context, window time.Duration, limits ...store.LoginLimit) (store.LoginAttempt, error)
	FinishLoginAttempt(ctx context.Context, a store.LoginAttempt, outcome store.LoginOutcome, e store.AuditEntry, clear ...string) error
	ClearLoginFailures(ctx context.Context, keys ...string) error
	ChangeStaffPassword(ctx context.Context, id int64, hash string, keep string, by store.Actor) (int64, error)
	SetPasswordLinkByTokenHash(ctx context.Context, hash []byte) (store.SetPasswordLink, error)
	UseSetPasswordLink(ctx context.Context, tokenHash []byte, passwordHash string) (store.SetPasswordLink, error)
	FactorStore
	SSOStore
}

// Handler serves the auth routes.
type Handler struct {
	*handlers.Base
	Store Store
	Now   func() time.Time
	// pause, when set (SetPause), replaces the wait before a password is
	// checked from an address that has failed often.
	pause atomic.Pointer[func(ctx context.Context, d time.Duration) error]
	// dummyHash is checked when the account does not exist or is
	// disabled, so such an account costs the same time as a wrong password.
	dummyHash string
	// factors: second factors, step-up and sessions (factors.go).
	factors factors
	// sso: sign-in with the identity provider (nil when not configured).
	sso *sso
}

// New returns the auth handler.
func New(d handlers.Deps, opts Options) (*Handler, error) {
	base, st := d.Base, d.Store
	dummy, err := handlers.HashPassword(handlers.GeneratePassword())
	if err != nil {
		return nil, err
	}
	f, err := newFactors(d.Config.PublicOrigin, opts)
	if err != nil {
		return nil, err
	}
	return &Handler{Base: base, Store: st, Now: d.Clock, dummyHash: dummy, factors: f, sso: newSSO(opts.OIDC)}, nil
}

// SetPause replaces the wait before a password is checked from an address
// that has failed often (slowAddress): tests record the waits instead of
// waiting.
func (h *Handler) SetPause(pause func(ctx context.Context, d time.Duration) error) {
	h.pause.Store(&pause)
}
