// Package sign hands owner signatures to a device and relays them
// (DESIGN.md decision 5): the approver creates a sign request and shows its
// link as a QR code; the device GETs what to sign (fetched fresh from the
// API, never cached) and POSTs the signature, which is checked here —
// format, recovered address equal to the registered owner, deadline, token
// unused — before exactly one upstream call. The server never holds a key.
package sign

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// MaxLifetime caps a link's life; the upstream deadline may end it sooner.
const MaxLifetime = 15 * time.Minute

// PathPrefix is where device links live.
const PathPrefix = "/sign/"

// Action kinds of this area.
const (
	// kindCreate issues a link: a fresh sign payload is read and the
	// request stored, once per form.
	kindCreate = "sign_request.create"
	// kindSubmit relays a device's signature upstream: once per request,
	// keyed store.SignActionKey.
	kindSubmit = "sign_request.submit"
)

// deviceActor is whom the ledger and the audit log name for a device's
// signature.
var deviceActor = store.Actor{Email: "device"}

// Handler serves sign requests: the approver's side and the device's.
type Handler struct {
	*handlers.Base
	store        *store.Store
	api          *apiclient.Client
	actions      *handlers.Actions
	publicOrigin string
	// linkTemplate is what a link's QR code carries (LinkContent).
	linkTemplate string
	clock        func() time.Time
}

// New returns the sign handler and registers how a relayed signature is
// read back.
func New(d handlers.Deps) *Handler {
	h := &Handler{Base: d.Base, store: d.Store, api: d.API, actions: d.Actions,
		publicOrigin: strings.TrimRight(d.Config.PublicOrigin, "/"), linkTemplate: d.Config.SignLinkTemplate, clock: d.Clock}
	d.Actions.ReadBackFor(kindSubmit, h.readBackSubmit)
	d.Actions.ReadBackFor(kindBatchSubmit, h.readBackSubmit)
	return h
}

// NewToken returns a link token (32 random bytes, base64url) and the
// SHA-256 that is all the store keeps.
func NewToken() (string, []byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("sign: token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	return tok, HashToken(tok), nil
}

// HashToken is the stored form of a token.
func HashToken(tok string) []byte {
	sum := sha256.Sum256([]byte(tok))
	return sum[:]
}

// QRDataURL encodes a link as a PNG QR code in a data: URL.
func QRDataURL(link string) (string, error) { return handlers.QRDataURL(link, 320) }

// qrCode is the QR code of a link as the configured template has it.
func (h *Handler) qrCode(link string) (string, error) {
	return QRDataURL(LinkContent(h.linkTemplate, link))
}

// refusal is a write refused here, before anything was sent upstream: the
// ledger records it as refused with these words.
func refusal(msg string) error {
	return apiclient.FieldErrors{"": strings.TrimSuffix(msg, ".")}
}

// The public device routes take at most deviceRateMax requests a window from
// one client address, counted in PostgreSQL so the limit holds across
// replicas. Tokens are unguessable; this caps floods and guessing.
const (
	deviceRateMax    = 60
	deviceRateWindow = time.Minute
)

// allowed counts a device request against its client's limit.
func (h *Handler) allowed(r *http.Request) (bool, error) {
	return h.store.RateLimitHit(r.Context(), "sign:"+clientKey(r), deviceRateWindow, deviceRateMax)
}

func clientKey(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return host
}

// summaryOf is the device's summary of a proposal.
func (h *Handler) summaryOf(ctx context.Context, p store.Proposal, owner string) (views.DeviceSummary, error) {
	names, err := proposal.LoadNames(ctx, h.store, p)
	if err != nil {
		return views.DeviceSummary{}, err
	}
	return proposal.DeviceSummaryOf(p, names, owner), nil
}

// ownerMatches reports whether sig over hash recovers to owner; when it does
// not, it says why in words (a message-prefixed signature is named).
func ownerMatches(hash ethsig.Hash, sig ethsig.Signature, owner string) (bool, string) {
	want, err := ethsig.ParseAddress(owner)
	if err != nil {
		return false, "The owner address registered for this wallet is not valid."
	}
	got, err := ethsig.Recover(hash, sig)
	if err != nil {
		return false, "The signature does not recover to any key: it is not a signature of this request."
	}
	if got.Equal(want) {
		return true, ""
	}
	if m, err := ethsig.RecoverMessage(hash[:], sig); err == nil && m.Equal(want) {
		return false, "The signature was made with the signed-message prefix. A proposal hash must be signed raw (no prefix); sign again with the raw-hash method."
	}
	return false, "The signature comes from " + got.Hex() + ", not from the wallet's registered owner " + want.Hex() + "."
}
