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
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/handlers/approvals"
	"partneradmin/store"
	"partneradmin/views"
)

// MaxLifetime caps a link's life; the upstream deadline may end it sooner.
const MaxLifetime = 15 * time.Minute

// PathPrefix is where device links live.
const PathPrefix = "/sign/"

// API is what signing calls upstream.
type API interface {
	GetProposal(ctx context.Context, userID, proposalID string) (*apiclient.Proposal, error)
	GetSignPayload(ctx context.Context, userID, proposalID string) (*apiclient.SignPayload, error)
	SignProposal(ctx context.Context, userID, proposalID string, req apiclient.SignProposalRequest) (*apiclient.Proposal, error)
	SubmitSignature(ctx context.Context, userID string, req apiclient.SubmitSignatureRequest) (*apiclient.SubmitSignatureResult, error)
	CreateOwnerProofChallenge(ctx context.Context, userID string, req apiclient.OwnerProofChallengeRequest) (*apiclient.OwnerProofChallenge, error)
	CreateManagedWallet(ctx context.Context, userID string, req apiclient.CreateManagedWalletRequest) (*apiclient.Wallet, error)
}

// Store is what signing reads and writes.
type Store interface {
	ProposalByID(ctx context.Context, id string) (store.Proposal, error)
	UpsertProposal(ctx context.Context, p store.Proposal) (store.ProposalChange, error)
	WalletByID(ctx context.Context, id string) (store.Wallet, error)
	EmployeesByServiceUserIDs(ctx context.Context, ids []string) (map[string]store.Employee, error)
	CreateSignRequest(ctx context.Context, r store.SignRequest, tokenHash []byte, by store.Actor) (store.SignRequest, error)
	SignRequestByTokenHash(ctx context.Context, hash []byte) (store.SignRequest, error)
	SignRequestByID(ctx context.Context, id int64) (store.SignRequest, error)
	MarkSignOpened(ctx context.Context, id int64) error
	ClaimSignRequest(ctx context.Context, hash []byte, now time.Time) (store.SignRequest, error)
	ReopenSignRequest(ctx context.Context, id int64) error
	RefuseSignRequest(ctx context.Context, id int64, reason string) error
	MarkSignRelaying(ctx context.Context, id int64, signature string, collectedBefore int) error
	FinishSignRelay(ctx context.Context, id int64, state string, after *store.Proposal) error
	MarkSignRelayUnsure(ctx context.Context, id int64, detail string) error
	SetSignState(ctx context.Context, id int64, from, to, errText string) (bool, error)
	TakeRelayPending(ctx context.Context, id int64, now time.Time) (store.SignRequest, error)
	RelayPendingIDs(ctx context.Context, now time.Time) ([]int64, error)
	ExpireSignRequest(ctx context.Context, id int64) error
	ExpireStaleSignRequests(ctx context.Context, now time.Time) (int64, error)
	Audit(ctx context.Context, e store.AuditEntry) error
	EmployeeByServiceUserID(ctx context.Context, serviceUserID string) (store.Employee, error)
	UpsertWallet(ctx context.Context, w store.Wallet) error
	RateLimitHit(ctx context.Context, key string, window time.Duration, max int) (bool, error)
	CryptoWithdrawalBySignRequest(ctx context.Context, signRequestID int64) (store.CryptoWithdrawal, error)
}

// Handler serves sign requests: the approver's side and the device's.
type Handler struct {
	*handlers.Base
	Store        Store
	API          API
	Approvals    *approvals.Handler
	PublicOrigin string
	Now          func() time.Time
}

// New returns the sign handler.
func New(base *handlers.Base, st Store, api API, ap *approvals.Handler, publicOrigin string) *Handler {
	return &Handler{Base: base, Store: st, API: api, Approvals: ap, PublicOrigin: strings.TrimRight(publicOrigin, "/"),
		Now: time.Now}
}

func (h *Handler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
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

// QRDataURL encodes a link as a PNG QR code in a data: URL (the CSP allows
// img-src data:).
func QRDataURL(link string) (string, error) {
	png, err := qrcode.Encode(link, qrcode.Medium, 320)
	if err != nil {
		return "", fmt.Errorf("sign: qr code: %w", err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png), nil
}

// UpstreamWords maps the API's refusals of a signature to words (spec,
// Errors).
func UpstreamWords(err error) string {
	var ae *apiclient.Error
	if !errors.As(err, &ae) {
		return "The wallet service did not answer."
	}
	msg := ae.Message()
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "point is not on curve"):
		return "The wallet service could not decode the signature (\"Point is not on curve\"): it must be 65 bytes as 0x plus 130 hex characters, in r, s, v order."
	case strings.Contains(low, "yparityorv"):
		return "The wallet service refused v of 0 or 1 (\"Invalid yParityOrV\"): v must be 27 or 28."
	case strings.Contains(low, "deadline"):
		return "The signing deadline passed before the signature arrived: issue a new link and sign again."
	case ae.StatusCode == http.StatusForbidden || strings.Contains(low, "not authori"):
		return "The signer is not authorised for this wallet: the key is not on the proposal's signer snapshot."
	case ae.StatusCode == http.StatusNotFound:
		return "The proposal no longer waits for signatures."
	}
	return "The wallet service refused the signature: " + msg
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
	return h.Store.RateLimitHit(r.Context(), "sign:"+clientKey(r), deviceRateWindow, deviceRateMax)
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
	names, err := approvals.LoadNames(ctx, h.Store, p)
	if err != nil {
		return views.DeviceSummary{}, err
	}
	return approvals.DeviceSummaryOf(p, names, owner), nil
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

// logged logs a failed bookkeeping step that must not change the answer
// already decided (the device is told what happened either way).
func (h *Handler) logged(ctx context.Context, step string, err error) {
	if err != nil {
		h.Logger.ErrorContext(ctx, "sign request bookkeeping failed", "step", step, "err", err)
	}
}
