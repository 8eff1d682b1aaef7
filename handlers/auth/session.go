package auth

import (
	"context"
	"net"
	"net/http"
	"strings"
	"unicode/utf8"

	"partneradmin/handlers"
	"partneradmin/store"
)

// maxUserAgent bounds the browser description a session keeps.
const maxUserAgent = 200

// startSession is the one place a staff session begins: a new token
// (defeating session fixation), the staff id, when it started and was last
// used, the browser and address it is used from (for the sessions list),
// and when it proved a second factor (0: not in this sign-in). Whatever a
// sign-in in progress kept is dropped.
func (h *Handler) startSession(ctx context.Context, r *http.Request, s store.Staff, secondFactorAt int64) error {
	if err := h.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	for _, k := range []string{sessPendingStaff, sessPendingAt, sessPendingNext, sessWebAuthnLogin, sessWebAuthnReg, sessTOTPPending,
		sessOIDCState, sessOIDCNonce, sessOIDCVerifier, sessOIDCNext, sessOIDCAt} {
		h.Sessions.Remove(ctx, k)
	}
	now := h.Now().Unix()
	h.Sessions.Put(ctx, handlers.SessionStaffID, s.ID)
	h.Sessions.Put(ctx, handlers.SessionLastSeen, now)
	h.Sessions.Put(ctx, store.SessionKeyCreated, now)
	h.Sessions.Put(ctx, store.SessionKeyUserAgent, userAgent(r))
	h.Sessions.Put(ctx, store.SessionKeyAddress, remoteHost(r))
	if secondFactorAt != 0 {
		h.Sessions.Put(ctx, SessionSecondFactorAt, secondFactorAt)
	} else {
		h.Sessions.Remove(ctx, SessionSecondFactorAt)
	}
	return nil
}

// endSession signs this browser out: a new token, and nothing of the
// staff member kept.
func (h *Handler) endSession(ctx context.Context) error {
	if err := h.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	for _, k := range []string{handlers.SessionStaffID, SessionSecondFactorAt, store.SessionKeyCreated, store.SessionKeyUserAgent,
		store.SessionKeyAddress, sessPendingStaff, sessPendingAt, sessPendingNext, sessWebAuthnLogin, sessWebAuthnReg, sessTOTPPending} {
		h.Sessions.Remove(ctx, k)
	}
	return nil
}

// userAgent is the request's browser description, valid UTF-8, bounded.
func userAgent(r *http.Request) string {
	ua := strings.ToValidUTF8(r.UserAgent(), "")
	for len(ua) > maxUserAgent {
		_, size := utf8.DecodeLastRuneInString(ua)
		ua = ua[:len(ua)-size]
	}
	return ua
}

// remoteHost is the client's address (web sets RemoteAddr from a trusted
// proxy's X-Forwarded-For when one is configured).
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
