package auth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"partneradmin/store"
)

// Limits on failed attempts within Window. A failure counts against the
// account, from wherever it came: an account at its limit is locked for
// every address, so guessing spread over many addresses gains nothing.
// A failure also counts against the client address, whatever the account,
// but an address is never locked: many people share one (an office behind
// one NAT address, a proxy), and one machine guessing there must not lock
// out everyone else. Past SlowAddressAfter its sign-ins are slowed instead
// (addressDelay), which bounds the rate of guessing across accounts from
// it while its people still sign in. Attempts are counted before the
// password is checked.
const (
	Window = 15 * time.Minute
	// MaxAccountFailures is per account, from all addresses.
	MaxAccountFailures = 10
	// SlowAddressAfter is how many failures from one client address,
	// whatever the account, go unslowed.
	SlowAddressAfter = 20
	// MaxAddressDelay is the longest a sign-in from a guessing address
	// waits before its password is checked.
	MaxAddressDelay = 5 * time.Second
	// MaxPasswordFailures is per staff member, of wrong current passwords
	// when changing one's own password.
	MaxPasswordFailures = 5
)

// addressDelayStep is what each failure past SlowAddressAfter adds to the
// wait, up to MaxAddressDelay.
const addressDelayStep = 250 * time.Millisecond

// addressDelay is how long a sign-in waits, before its password is checked,
// from an address with failures recent failures.
func addressDelay(failures int) time.Duration {
	if failures < SlowAddressAfter {
		return 0
	}
	return min(MaxAddressDelay, time.Duration(failures-SlowAddressAfter+1)*addressDelayStep)
}

// The kinds of key a limit counts under.
const (
	keyAddress  = "addr:"
	keyAccount  = "account:"
	keyPassword = "password:"
)

// loginLimits are the limits of a sign-in to email from r's client: the
// account's (which refuses) first, then the address's (which only counts;
// loginAddressLimit is its index).
func loginLimits(email string, r *http.Request) []store.LoginLimit {
	acct := strings.ToLower(strings.TrimSpace(email))
	return []store.LoginLimit{
		{Key: keyAccount + acct, Max: MaxAccountFailures},
		{Key: keyAddress + clientAddress(r)},
	}
}

// loginAddressLimit is the index of the address's limit in loginLimits.
const loginAddressLimit = 1

// slowAddress waits as long as the address's recent failures ask
// (addressDelay) before a password is checked; an error is the request's
// context ending first.
func (h *Handler) slowAddress(ctx context.Context, failures int) error {
	d := addressDelay(failures)
	if d == 0 {
		return nil
	}
	if pause := h.pause.Load(); pause != nil {
		return (*pause)(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func passwordKey(staffID int64) string { return keyPassword + strconv.FormatInt(staffID, 10) }

// limitMessage explains a reached limit in words.
func limitMessage(key string) string {
	wait := fmt.Sprintf("Wait %d minutes and try again", int(Window.Minutes()))
	switch {
	case strings.HasPrefix(key, keyPassword):
		return "Too many wrong current passwords. " + wait + "."
	default:
		return "Too many failed sign-ins for this account. " + wait + ", or ask an owner for a set-password link."
	}
}

// msgBusy answers an attempt that found every password check slot taken.
const msgBusy = "Too many sign-ins are being checked right now. Try again in a moment."

// clientAddress is the client's address as limits count it: r.RemoteAddr
// (which web sets from a trusted proxy's X-Forwarded-For when one is
// configured), with an IPv6 address reduced to its /64, the block one
// subscriber usually holds whole.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
