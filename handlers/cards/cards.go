// Package cards is the support desk's card console: find a card across
// every employee's wallets, read its live status, balance, limits and
// transactions, freeze and unfreeze it, set limits, cancel it, help activate
// a physical card, and issue a new one.
//
// Every change sent to the Partner API goes through the action ledger
// (handlers.Actions): each form carries a one-time token that is the
// action's key, so a double click, a second tab or a retry sends one
// request; an answer that never came is read back, never sent again.
//
// The app never calls the sensitive-data endpoints, and never stores, logs
// or caches a PAN, CVV or NIN: card pages are sent with Cache-Control:
// no-store and turn off htmx's history cache, and a PAN or NIN typed into a
// form is passed to the API once, never kept in the ledger and never echoed
// back.
package cards

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// API is what the card handlers call upstream. It deliberately has no
// sensitive-data method.
type API interface {
	GetCard(ctx context.Context, userID, cardID string) (*apiclient.Card, error)
	GetWalletCard(ctx context.Context, userID, walletID, cardID string) (*apiclient.CardDetail, error)
	ListCards(ctx context.Context, userID, walletID string) ([]apiclient.Card, error)
	SetCardStatus(ctx context.Context, userID, cardID string, req apiclient.SetCardStatusRequest) error
	GetCardLimits(ctx context.Context, userID, cardID string) (*apiclient.CardLimits, error)
	SetCardLimits(ctx context.Context, userID, cardID string, req apiclient.SetCardLimitsRequest) error
	ListCardTransactions(ctx context.Context, userID, cardID string, q apiclient.CardTransactionQuery) (*apiclient.CardTransactions, error)
	DeactivateCard(ctx context.Context, userID, cardID string) error
	RequestCardActivation(ctx context.Context, userID, cardID string, req apiclient.CardActivationRequest) (*apiclient.CardActivationChallenge, error)
	ConfirmCardActivation(ctx context.Context, userID, cardID string, req apiclient.ConfirmCardActivationRequest) error
	CreateCard(ctx context.Context, userID string, req apiclient.CreateCardRequest) (*apiclient.CardIssuance, error)
	LookupNIN(ctx context.Context, userID, nin string) (*apiclient.IdentityHolder, error)
}

// Queue enqueues a background job (river's client).
type Queue interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Handler serves the card routes.
type Handler struct {
	*handlers.Base
	Store   *store.Store
	API     API
	Indexer *Indexer
	Clock   func() time.Time
	// Queue takes refreshes of a large index into the background.
	Queue   Queue
	Actions *handlers.Actions
}

// The kinds of action the area sends; each is also the audit row's action.
const (
	kindFreeze            = "card.freeze"
	kindUnfreeze          = "card.unfreeze"
	kindLimits            = "card.limits"
	kindCancel            = "card.cancel"
	kindActivationRequest = "card.activation_request"
	kindActivationConfirm = "card.activation_confirm"
	kindIssue             = "card.issue"
)

// New returns the card handler. It registers how each kind of card action
// is read back when its answer was lost (an activation request cannot be:
// whether a code reached the cardholder is not readable).
func New(d handlers.Deps) *Handler {
	h := &Handler{Base: d.Base, Store: d.Store, Clock: d.Clock, Queue: d.Queue, Actions: d.Actions,
		Indexer: NewIndexer(d.Store, d.API, d.Logger, d.Clock)}
	if d.API != nil {
		h.API = d.API
	}
	d.Actions.ReadBackFor(kindFreeze, h.readBackStatus)
	d.Actions.ReadBackFor(kindUnfreeze, h.readBackStatus)
	d.Actions.ReadBackFor(kindLimits, h.readBackLimits)
	d.Actions.ReadBackFor(kindCancel, h.readBackCancel)
	d.Actions.ReadBackFor(kindActivationConfirm, h.readBackActivation)
	d.Actions.ReadBackFor(kindIssue, h.readBackIssue)
	return h
}

// cardMinorUnits is the minor-unit exponent of each card currency (NGN
// kobo, USD cents). spec: cards are "NGN or USD".
var cardMinorUnits = map[string]int32{"NGN": 2, "USD": 2}

// minorUnits is the minor-unit exponent of a card currency.
func minorUnits(currency string) int32 {
	if n, ok := cardMinorUnits[strings.ToUpper(currency)]; ok {
		return n
	}
	return 2
}

// maxReasonLength bounds the optional reason kept in the audit log.
const maxReasonLength = 200

// render writes a card page with no caching anywhere: Cache-Control:
// no-store, and htmx's history snapshot off (DESIGN.md: historyCacheSize=0
// on pages with sensitive data). fragment, when set, answers htmx.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, title string, page, fragment templ.Component) {
	w.Header().Set("Cache-Control", "no-store")
	if fragment != nil && h.Fragment(w, r, status, fragment) {
		return
	}
	meta := h.PageMeta(r, title)
	meta.NoHistoryCache = true
	w.Header().Add("Vary", handlers.HeaderHXRequest)
	h.RenderFragment(w, r, status, views.Layout(meta, page))
}

func (h *Handler) canWrite(r *http.Request) bool {
	return handlers.ViewerFrom(r.Context()).Can(store.PermCardsWrite)
}

// canOpenApproval reports whether the viewer may open an approval page
// (GET /approvals/{id}); others are not offered the link.
func canOpenApproval(r *http.Request) bool {
	return handlers.ViewerFrom(r.Context()).Can(store.PermApprovalsRead)
}

// actionFor is the one button a status offers: freeze for a card that can
// still be used, unfreeze for a frozen one, none for a lost, stolen,
// cancelled or reserved card. The issuer still decides: no transition
// matrix is published, so a refused change is explained, never assumed.
func actionFor(s views.CardStatus) string {
	switch {
	case s.Frozen():
		return "unfreeze"
	case s.LostOrStolen() || s.Canceled() || s.Reserved() || s.Key() == "":
		return ""
	}
	return "freeze"
}

// lastSeen is a badge of the status the index last saw.
func lastSeen(hit store.CardHit, now time.Time) views.CardBadge {
	st := views.CardStatus(hit.Status)
	if hit.Reserved {
		st = views.CardReserved
	}
	return views.CardBadge{Status: st, ReadAt: hit.StatusReadAt, Now: now}
}

// colorPattern is the spec's card colour: "#RGB or #RRGGBB".
var colorPattern = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

func swatch(color, name string) views.CardSwatch {
	if !colorPattern.MatchString(color) {
		color = "#9e9e9e"
	}
	return views.CardSwatch{Color: color, Name: name}
}

func target(cardID string) string { return "card:" + cardID }

// auditDetail joins the parts of an audit detail that are set.
func auditDetail(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

// checkText checks typed text before anything is sent or kept: valid UTF-8,
// no control characters, at most max characters (no limit when max is 0).
// It returns what is wrong in words ("" when it is fine); what names the
// field ("The reason").
func checkText(s string, max int, what string) string {
	switch {
	case !utf8.ValidString(s):
		return what + " contains characters that are not text. Type it again."
	case strings.ContainsFunc(s, unicode.IsControl):
		return what + " contains control characters (such as tabs or line breaks). Type it on one line."
	case max > 0 && utf8.RuneCountInString(s) > max:
		return what + " must be at most " + strconv.Itoa(max) + " characters."
	}
	return ""
}

// failedStatus is the HTTP status of a change that did not end done: the
// API refused invalid input (422), refused it otherwise (409), or its
// outcome is unknown (502).
func failedStatus(d handlers.Done) int {
	switch {
	case d.Repeat && d.State() == store.ActionDone:
		return http.StatusOK
	case d.Repeat:
		return http.StatusConflict
	case d.State() == store.ActionRefused && len(d.Problem.Fields) > 0:
		return http.StatusUnprocessableEntity
	case d.State() == store.ActionRefused:
		return http.StatusConflict
	}
	return http.StatusBadGateway
}

// formToken is the posted form's token, kept when the form is shown again
// after a validation error (nothing was begun with it).
func formToken(r *http.Request) string { return r.PostFormValue(handlers.FormTokenField) }

// loadCard finds the card of the {id} path parameter in the index, or
// answers 404.
func (h *Handler) loadCard(w http.ResponseWriter, r *http.Request) (store.CardHit, bool) {
	id := chi.URLParam(r, "id")
	hit, err := h.Store.CardByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		h.ErrorPage(w, r, http.StatusNotFound, "Card not found",
			"No card with this id is in the card index. Search again, or re-read the card lists from the Cards page.")
		return store.CardHit{}, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return store.CardHit{}, false
	}
	return hit, true
}
