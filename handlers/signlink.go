package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/views"
)

// A value-moving record the API opened with a signatureRequest (a bank
// payout, a EUR SEPA or Mexican order, a crypto withdrawal) waits for its
// wallet owner's signature. SignLinks is the one way such a record's
// signing link is issued, on opening and again on "Issue a new signing
// link": the sign area creates the sign request (with its audit row, in
// one transaction) and the record keeps its id; the earlier link is
// superseded. Issuing a link writes nothing upstream: the device's
// signature is relayed later by the sign area, through Actions.Run.

// WorkflowSigner hands a rail's signatureRequest to the owner's device:
// the sign area's IssueWorkflow.
type WorkflowSigner interface {
	IssueWorkflow(ctx context.Context, by store.Actor, userID, walletID string, req apiclient.SignatureRequest, what string) (views.SignPanel, error)
}

// Signature is the owner signature a record waits for: what its link is
// issued for.
type Signature struct {
	UserID, WalletID       string
	WorkflowID, HashToSign string
	// Deadline is when it can no longer be signed (nil: none given; the
	// sign area's own limit applies).
	Deadline *time.Time
	// What is the line the device shows.
	What string
	// Log names the record in the log when its link cannot be issued
	// (slog key-value pairs).
	Log []any
}

// SignLinks serves one rail's records, of type R: their page and their
// signing links.
type SignLinks[R any] struct {
	*Base
	Sign WorkflowSigner
	// LogMessage is logged when the sign area could not issue a link.
	LogMessage string
	// Failed is shown on the record when the sign area could not issue a
	// link.
	Failed string
	// Load reads the record a route's {id} names (store.ErrNotFound when
	// there is none).
	Load func(ctx context.Context, id int64) (R, error)
	// Check reads the record as it stands now and says why no new link may
	// be issued for it ("" when one may).
	Check func(ctx context.Context, rec R) (R, string, error)
	// Signature is the signature rec waits for.
	Signature func(rec R) Signature
	// Keep records the new sign request on the record, and returns the
	// record as now known.
	Keep func(ctx context.Context, rec R, signRequestID int64) (R, error)
	// Show renders the record. panel is a just-issued link (with its QR
	// code), nil to show the stored one; errMsg is said at the record.
	Show func(w http.ResponseWriter, r *http.Request, rec R, status int, note string, panel *views.SignPanel, errMsg string)
}

// Issue issues a link for the signature rec waits for and shows rec with
// it, as status. When the sign area cannot issue it, rec is shown with
// Failed (502) and keeps its earlier link, if any.
func (l *SignLinks[R]) Issue(w http.ResponseWriter, r *http.Request, rec R, status int) {
	ctx := r.Context()
	sig := l.Signature(rec)
	req := apiclient.SignatureRequest{WorkflowID: sig.WorkflowID, HashToSign: sig.HashToSign}
	if sig.Deadline != nil {
		req.Deadline = *sig.Deadline
	}
	panel, err := l.Sign.IssueWorkflow(ctx, ActorFrom(ctx), sig.UserID, sig.WalletID, req, sig.What)
	if err != nil {
		l.Logger.ErrorContext(ctx, l.LogMessage, append(append([]any{}, sig.Log...), "err", err)...)
		l.Show(w, r, rec, http.StatusBadGateway, "", nil, l.Failed)
		return
	}
	if rec, err = l.Keep(ctx, rec, panel.ID); err != nil {
		l.ServerError(w, r, err)
		return
	}
	l.Show(w, r, rec, status, "", &panel, "")
}

// Reissue serves POST …/{id}/sign-request: a new link (201) for a record
// that still waits for its signature, or the record and why not (409).
func (l *SignLinks[R]) Reissue(w http.ResponseWriter, r *http.Request) {
	rec, ok := l.record(w, r, func(w http.ResponseWriter, r *http.Request, _ int64) { l.NotFound(w, r) })
	if !ok {
		return
	}
	rec, why, err := l.Check(r.Context(), rec)
	if err != nil {
		l.ServerError(w, r, err)
		return
	}
	if why != "" {
		l.Show(w, r, rec, http.StatusConflict, "", nil, why)
		return
	}
	l.Issue(w, r, rec, http.StatusCreated)
}

// Detail serves GET …/{id}: the record as it stands. When there is none
// (the API has not opened it: the request is being sent, was refused or
// has no known outcome), notOpened shows the request that asked for it.
func (l *SignLinks[R]) Detail(w http.ResponseWriter, r *http.Request, notOpened func(w http.ResponseWriter, r *http.Request, id int64)) {
	if rec, ok := l.record(w, r, notOpened); ok {
		l.Show(w, r, rec, http.StatusOK, "", nil, "")
	}
}

// record loads the record the route's {id} names. When it cannot, it
// answers (missing: there is no record of that id) and returns false.
func (l *SignLinks[R]) record(w http.ResponseWriter, r *http.Request, missing func(w http.ResponseWriter, r *http.Request, id int64)) (R, bool) {
	var zero R
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		l.NotFound(w, r)
		return zero, false
	}
	rec, err := l.Load(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		missing(w, r, id)
		return zero, false
	case err != nil:
		l.ServerError(w, r, err)
		return zero, false
	}
	return rec, true
}

// CheckOneSignRequest is a SignLinks.Check for a record that keeps one sign
// request (its id): why says, from the record and that request (nil: none
// issued), why no new link may be issued ("" when one may).
func CheckOneSignRequest[R any](st *store.Store, id func(R) int64, why func(R, *store.SignRequest) string) func(context.Context, R) (R, string, error) {
	return func(ctx context.Context, rec R) (R, string, error) {
		sr, err := SignRequestOf(ctx, st, id(rec))
		if err != nil {
			return rec, "", err
		}
		return rec, why(rec, sr), nil
	}
}

// SignRequestOf loads the sign request a record keeps (nil when id is 0:
// none was issued).
func SignRequestOf(ctx context.Context, st *store.Store, id int64) (*store.SignRequest, error) {
	if id == 0 {
		return nil, nil
	}
	sr, err := st.SignRequestByID(ctx, id)
	if err != nil {
		return nil, err
	}
	return &sr, nil
}

// SignatureOnItsWay reports whether the device's signature was checked and
// is being, or was, taken by the API (sr nil: no link issued): no new link
// is needed.
func SignatureOnItsWay(sr *store.SignRequest) bool {
	if sr == nil {
		return false
	}
	switch sr.State {
	case store.SignRelaying, store.SignRelayPending, store.SignSubmitted, store.SignCompleted:
		return true
	}
	return false
}

// SignatureOnItsWayWords says why no new link is issued when
// SignatureOnItsWay.
const SignatureOnItsWayWords = "The owner's signature is already on its way or accepted: no new link is needed."

// EarliestDeadline is the earlier of two deadlines (nil: none), such as a
// signature request's and its quote's expiry: no link outlives either.
func EarliestDeadline(a, b *time.Time) *time.Time {
	if a == nil || b != nil && b.Before(*a) {
		return b
	}
	return a
}

// NotOpened is the ledger's action that asks the API for target (of
// kind): what a record's page shows while the API has not opened the
// record, because the request is being sent, was refused or has no known
// outcome. With req not nil, the action's request is decoded into it. When
// there is no such action it answers 404 (500 on a fault) and returns
// false.
func (b *Base) NotOpened(w http.ResponseWriter, r *http.Request, st *store.Store, target, kind string, req any) (store.Action, bool) {
	as, err := st.ListActions(r.Context(), store.ActionFilter{Target: target, Limit: 1})
	if err != nil {
		b.ServerError(w, r, err)
		return store.Action{}, false
	}
	if len(as) == 0 || as[0].Kind != kind {
		b.NotFound(w, r)
		return store.Action{}, false
	}
	if req != nil {
		if err := as[0].DecodeRequest(req); err != nil {
			b.ServerError(w, r, err)
			return store.Action{}, false
		}
	}
	return as[0], true
}

// NotOpenedSays is what such a page says of the request: whether it polls
// (the request is still being sent) and its message, the API's words,
// with unknown (what to check, and where) after them when the outcome is
// not known.
func NotOpenedSays(a store.Action, unknown string) (poll bool, message string) {
	switch a.State {
	case store.ActionBegun:
		return true, a.Message
	case store.ActionUnknown:
		return false, a.Message + " " + unknown
	}
	return false, a.Message
}
