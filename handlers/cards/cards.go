// Package cards is the support desk's card console: find a card across
// every employee's wallets, read its live status, balance, limits and
// transactions, freeze and unfreeze it, set limits, cancel it, help activate
// a physical card, and issue a new one.
//
// The app never calls the sensitive-data endpoints, and never stores, logs
// or caches a PAN, CVV or NIN: card pages are sent with Cache-Control:
// no-store and turn off htmx's history cache, and a PAN or NIN typed into a
// form is passed to the API once and never echoed back.
package cards

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Store is what the card handlers need from the store.
type Store interface {
	SearchCards(ctx context.Context, f store.CardSearch) ([]store.CardHit, string, error)
	CardByID(ctx context.Context, id string) (store.CardHit, error)
	RecordCardStatus(ctx context.Context, id, status string, readAt time.Time) error
	CardAuditChange(ctx context.Context, e store.AuditEntry, cardID, status string, readAt time.Time) error
	CardIssued(ctx context.Context, c store.CardEntry, e store.AuditEntry, readAt time.Time) error
	Audit(ctx context.Context, e store.AuditEntry) error
	BeginCardAction(ctx context.Context, cardID, action string, stale time.Duration) (bool, error)
	EndCardAction(ctx context.Context, cardID string) error
	CardActivityFeed(ctx context.Context, cardID string, limit int) ([]store.CardActivity, error)
	EmployeeHasHadCard(ctx context.Context, employeeID int64) (bool, error)
	SearchWallets(ctx context.Context, query string, limit int) ([]store.WalletOwner, error)
	WalletByID(ctx context.Context, id string) (store.Wallet, error)
	WalletsByEmployee(ctx context.Context, employeeID int64) ([]store.Wallet, error)
	EmployeeByID(ctx context.Context, id int64) (store.Employee, error)
}

// API is what the card handlers call upstream. It deliberately has no
// sensitive-data method.
type API interface {
	GetCard(ctx context.Context, userID, cardID string) (*apiclient.Card, error)
	GetWalletCard(ctx context.Context, userID, walletID, cardID string) (*apiclient.CardDetail, error)
	SetCardStatus(ctx context.Context, userID, cardID string, req apiclient.SetCardStatusRequest) error
	GetCardLimits(ctx context.Context, userID, cardID string) (*apiclient.CardLimits, error)
	SetCardLimits(ctx context.Context, userID, cardID string, req apiclient.SetCardLimitsRequest) error
	ListCardTransactions(ctx context.Context, userID, cardID string, q apiclient.CardTransactionQuery) (*apiclient.CardTransactions, error)
	DeactivateCard(ctx context.Context, userID, cardID string) error
	RequestCardActivation(ctx context.Context, userID, cardID string, req apiclient.CardActivationRequest) (*apiclient.CardActivationChallenge, error)
	ConfirmCardActivation(ctx context.Context, userID, cardID string, req apiclient.ConfirmCardActivationRequest) error
	CreateCard(ctx context.Context, userID string, req apiclient.CreateCardRequest) (*apiclient.CardIssuance, error)
}

// Queue enqueues a background job (river's client).
type Queue interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Handler serves the card routes.
type Handler struct {
	*handlers.Base
	Store   Store
	API     API
	Indexer *Indexer
	Now     func() time.Time
	// Queue, once river's client exists, takes refreshes of a large index
	// into the background.
	Queue Queue
	// WriteTimeout bounds an upstream write. Writes run detached from the
	// request's context, so a browser that goes away mid-freeze does not
	// leave the card in an unknown state without an audit row.
	WriteTimeout time.Duration
}

// New returns the card handler over the store and the Partner API client.
func New(base *handlers.Base, st *store.Store, api *apiclient.Client) *Handler {
	h := &Handler{Base: base, Store: st, Now: time.Now, WriteTimeout: 30 * time.Second,
		Indexer: NewIndexer(st, api, base.Logger, nil)}
	if api != nil {
		h.API = api
	}
	return h
}

// minorPlaces is the minor-unit exponent of the card currencies (NGN kobo,
// USD cents).
const minorPlaces = 2

// inFlightStale is how long an unfinished action keeps a card locked
// against a second one (a crashed replica's lock expires).
const inFlightStale = time.Minute

// render writes a card page with no caching anywhere: Cache-Control:
// no-store, and htmx's history snapshot off (DESIGN.md: historyCacheSize=0
// on pages with sensitive data). fragment, when set, answers htmx.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, title string, page, fragment templ.Component) {
	w.Header().Set("Cache-Control", "no-store")
	if fragment != nil && handlers.IsFragmentRequest(r) {
		h.RenderFragment(w, r, status, fragment)
		return
	}
	meta := h.PageMeta(r, title)
	meta.NoHistoryCache = true
	w.Header().Add("Vary", handlers.HeaderHXRequest)
	h.RenderFragment(w, r, status, views.Layout(meta, page))
}

// fragmentStatus is the status of an htmx fragment answer: htmx swaps only
// 2xx answers, so a refusal shown in place is sent as 200 (the fragment says
// what happened); full pages keep the real status.
func fragmentStatus(r *http.Request, status int) int {
	if handlers.IsFragmentRequest(r) {
		return http.StatusOK
	}
	return status
}

func (h *Handler) canWrite(r *http.Request) bool {
	return handlers.ViewerFrom(r.Context()).Can(store.PermCardsWrite)
}

// writeContext detaches an upstream write from the request, with a bound.
func (h *Handler) writeContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), h.WriteTimeout)
}

// Status words. spec: issuer statuses are "read case-insensitively; the set
// is open".
func statusKey(s apiclient.CardStatus) string { return strings.ToLower(strings.TrimSpace(string(s))) }

func isFrozen(s string) bool   { return s == "frozen" || s == "blocked" }
func isCanceled(s string) bool { return s == "canceled" || s == "cancelled" || s == "deactivated" }
func isLostOrStolen(s string) bool {
	return s == "lost" || s == "stolen"
}

// badge builds the status badge.
func badge(status string, live bool, readAt, now time.Time) views.CardBadge {
	k := strings.ToLower(status)
	label := k
	switch {
	case k == "reserved":
		label = "requested"
	case k == "blocked":
		label = "frozen"
	case isCanceled(k):
		label = "cancelled"
	case k == "":
		label = "unknown"
	}
	class := "badge-" + k
	switch {
	case k == "active":
		class = "badge-active"
	case isFrozen(k):
		class = "badge-frozen"
	case isLostOrStolen(k) || isCanceled(k):
		class = "badge-failed"
	case k == "pending" || k == "reserved" || k == "restricted" || k == "inactive":
		class = "badge-pending"
	default:
		class = "badge"
	}
	return views.CardBadge{Status: status, Label: label, Class: class, Live: live, ReadAt: readAt, Now: now}
}

// actionFor is the one button a status offers: freeze for a card that can
// still be used, unfreeze for a frozen one, none for a lost, stolen,
// cancelled or reserved card. The issuer still decides: no transition
// matrix is published, so a refused change is explained, never assumed.
func actionFor(status string) string {
	k := strings.ToLower(status)
	switch {
	case isFrozen(k):
		return "unfreeze"
	case isLostOrStolen(k) || isCanceled(k) || k == "reserved" || k == "":
		return ""
	default:
		return "freeze"
	}
}

// explainStatus says in words what a status means for support.
func explainStatus(status string) string {
	k := strings.ToLower(status)
	switch {
	case k == "active":
		return "Active: the card can be used."
	case isFrozen(k):
		return "Frozen: payments are declined until the card is unfrozen."
	case k == "pending":
		return "Issued but never activated. A physical card needs activation with a one-time code; unfreezing (ACTIVE) does not activate it."
	case k == "inactive":
		return "The issuer reports the card as inactive."
	case k == "restricted":
		return "The issuer has restricted this card. The partner cannot lift a restriction; the issuer decides."
	case k == "lost":
		return "Reported lost. A lost card cannot be unfrozen: cancel it and issue a replacement."
	case k == "stolen":
		return "Reported stolen. A stolen card cannot be unfrozen: cancel it and issue a replacement."
	case isCanceled(k):
		return "Cancelled permanently. Nothing more can be done with this card."
	case k == "reserved":
		return "Requested, not issued yet: the issuance proposal must be approved and signed first."
	}
	return "The issuer reports the status " + status + "."
}

// explainRefusal says why the issuer refused a freeze or unfreeze, from the
// status re-read after the refusal. spec: "retrying cannot succeed, read the
// status first".
func explainRefusal(action, status string) string {
	k := strings.ToLower(status)
	verb, done := "freeze", "frozen"
	if action == "unfreeze" {
		verb, done = "unfreeze", "unfrozen"
	}
	switch {
	case action == "unfreeze" && k == "pending":
		return "The issuer refused to unfreeze: this card was never activated, and ACTIVE does not activate a never-activated card. Use physical card activation instead. Nothing was retried."
	case isLostOrStolen(k):
		return "The issuer refused to " + verb + ": the card is reported " + k + ", and a " + k + " card cannot be " + done + ". Cancel it and issue a replacement. Nothing was retried."
	case isCanceled(k):
		return "The issuer refused to " + verb + ": the card is cancelled permanently. Nothing was retried."
	case k == "restricted":
		return "The issuer refused to " + verb + ": the card is restricted by the issuer, which only the issuer can change. Nothing was retried."
	case action == "freeze" && isFrozen(k):
		return "The card is already frozen."
	case action == "unfreeze" && k == "active":
		return "The card is already active."
	}
	return "The issuer refused to " + verb + " the card in its current status (" + status + "). Nothing was retried."
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

// upstreamWords explains an upstream failure without its raw text.
func upstreamWords(err error) string {
	switch {
	case apiclient.IsNotFound(err):
		return "The API does not know this card (any more)."
	case apiclient.IsForbidden(err):
		return "The API refused: this card does not belong to this partner."
	case apiclient.StatusCode(err) == 0:
		return "The API could not be reached."
	}
	return "The API answered with an error."
}

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

// asErr is errors.As for the API's error type.
func asErr(err error, target **apiclient.Error) bool { return errors.As(err, target) }
