package auth

import (
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
// account from that client address, against the address, and against the
// account from anywhere. An attacker who guesses from one address locks
// only that address out of the account: its owner, from another address,
// still signs in. The much higher per-account ceiling stops guessing spread
// over many addresses (and then does lock the account until the window
// passes). Attempts are counted before the password is checked.
const (
	Window = 15 * time.Minute
	// MaxAccountFailures is per account from one client address.
	MaxAccountFailures = 5
	// MaxAddressFailures is per client address, whatever the account.
	MaxAddressFailures = 20
	// MaxAccountFailuresTotal is per account, from all addresses.
	MaxAccountFailuresTotal = 100
	// MaxPasswordFailures is per staff member, of wrong current passwords
	// when changing one's own password.
	MaxPasswordFailures = 5
)

// The kinds of key a limit counts under.
const (
	keyAccountAddress = "account-addr:"
	keyAddress        = "addr:"
	keyAccount        = "account:"
	keyPassword       = "password:"
)

// loginLimits are the limits of a sign-in to email from r's client, most
// specific first (the first one reached is the one explained).
func loginLimits(email string, r *http.Request) []store.LoginLimit {
	acct := strings.ToLower(strings.TrimSpace(email))
	addr := clientAddress(r)
	return []store.LoginLimit{
		{Key: keyAccountAddress + addr + " " + acct, Max: MaxAccountFailures},
		{Key: keyAddress + addr, Max: MaxAddressFailures},
		{Key: keyAccount + acct, Max: MaxAccountFailuresTotal},
	}
}

func passwordKey(staffID int64) string { return keyPassword + strconv.FormatInt(staffID, 10) }

// limitMessage explains a reached limit in words.
func limitMessage(key string) string {
	wait := fmt.Sprintf("Wait %d minutes and try again", int(Window.Minutes()))
	switch {
	case strings.HasPrefix(key, keyAccountAddress):
		return "Too many failed sign-ins for this account from your network address. " + wait + ", or ask an owner for a set-password link."
	case strings.HasPrefix(key, keyAddress):
		return "Too many failed sign-ins from your network address. " + wait + "."
	case strings.HasPrefix(key, keyPassword):
		return "Too many wrong current passwords. " + wait + "."
	default:
		return "Too many failed sign-ins for this account, from many addresses. " + wait + ", or ask an owner for a set-password link."
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
