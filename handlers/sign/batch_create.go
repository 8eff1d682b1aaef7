package sign

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// Action kinds of batch sign requests.
const (
	// kindBatchCreate issues a batch link, once per form.
	kindBatchCreate = "sign_batch.create"
	// kindBatchSubmit relays one item's signature, once per batch and
	// proposal (store.SignBatchActionKey).
	kindBatchSubmit = "sign_batch.submit"
)

// BatchConcurrency bounds the upstream calls one batch makes at once
// (reading sign payloads, checking and relaying signatures).
const BatchConcurrency = 16

// BatchPathPrefix is where a batch's page lives.
const BatchPathPrefix = "/approvals/sign-batch/"

// batchCreateRequest is what the ledger keeps of an issued batch link.
type batchCreateRequest struct {
	OwnerUserID  string   `json:"ownerUserId"`
	OwnerAddress string   `json:"ownerAddress"`
	ProposalIDs  []string `json:"proposalIds"`
}

// batchCreateResult is what a done create leaves in the ledger: where its
// page is, for a second click.
type batchCreateResult struct {
	BatchID int64 `json:"batchId"`
}

// batchForm is the posted selection.
type batchForm struct {
	ProposalIDs []string
	ReturnTo    string
}

// parseBatchForm reads the selection: 1 to store.MaxSignBatchItems
// proposal ids (repeats are one), and a local return path.
func parseBatchForm(r *http.Request) (batchForm, []string) {
	f := batchForm{ReturnTo: "/approvals"}
	if rt := r.PostFormValue("return_to"); rt != "" {
		if handlers.CheckText(rt, 2000, false) == "" {
			f.ReturnTo = handlers.SafeLocalPath(rt)
		}
	}
	var problems []string
	for _, id := range r.PostForm["proposal_id"] {
		if msg := handlers.CheckText(id, 100, false); msg != "" || id == "" {
			problems = append(problems, "A proposal id is not valid: "+strconv.Quote(truncate(id, 100))+".")
			continue
		}
		if !slices.Contains(f.ProposalIDs, id) {
			f.ProposalIDs = append(f.ProposalIDs, id)
		}
	}
	switch {
	case len(f.ProposalIDs) == 0 && len(problems) == 0:
		problems = append(problems, "Select at least one proposal waiting for the owner's signature.")
	case len(f.ProposalIDs) > store.MaxSignBatchItems:
		problems = append(problems, fmt.Sprintf("One QR code signs at most %d proposals; %d were selected.", store.MaxSignBatchItems, len(f.ProposalIDs)))
	}
	return f, problems
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// forEach runs fn for 0..n-1 with at most limit at once.
func forEach(n, limit int, fn func(i int)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// CreateBatch issues one link (one token, one QR code) for many proposals
// of one owner, all waiting for signatures. A selection that cannot be
// signed together is refused with words (422) and nothing is stored. The
// form's one-time token keys the action: a double click makes one batch.
func (h *Handler) CreateBatch(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	actor := handlers.ActorFrom(ctx)
	if err := r.ParseForm(); err != nil {
		h.ErrorPage(w, r, http.StatusBadRequest, "Form not readable", "The form could not be read; nothing was sent. Reload the page and try again.")
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	form, problems := parseBatchForm(r)
	refuse := func(problems []string) {
		h.Render(w, r, http.StatusUnprocessableEntity, "No signing link was made",
			views.SignBatchProblemsPage(views.SignBatchProblemsView{ReturnTo: form.ReturnTo, Problems: problems}), nil)
	}
	if len(problems) > 0 {
		refuse(problems)
		return
	}
	sel, problems, err := h.batchSelection(ctx, form.ProposalIDs)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if len(problems) > 0 {
		refuse(problems)
		return
	}
	issued := &batchIssue{selection: sel, returnTo: form.ReturnTo, actor: actor, now: h.clock()}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindBatchCreate, Target: "owner:" + sel.ownerUserID, Actor: actor,
		Request: batchCreateRequest{OwnerUserID: sel.ownerUserID, OwnerAddress: sel.ownerAddress, ProposalIDs: form.ProposalIDs},
		Call:    func(ctx context.Context) (handlers.Effect, error) { return h.issueBatch(ctx, issued) }})
	if h.Answered(w, r, err) {
		return
	}
	switch {
	case done.Repeat:
		h.batchRepeated(w, r, done, form.ReturnTo)
		return
	case done.State() != store.ActionDone:
		refuse([]string{done.Problem.Summary})
		return
	}
	qr, err := h.qrCode(issued.link)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v, err := h.batchView(ctx, issued.created.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Link, v.QRDataURL = issued.link, qr
	h.Render(w, r, http.StatusCreated, "Sign from one QR code", views.SignBatchPage(v), nil)
}

// batchRepeated answers a selection sent again: to the batch's page when
// the first made one, else back with the first's state.
func (h *Handler) batchRepeated(w http.ResponseWriter, r *http.Request, done handlers.Done, returnTo string) {
	var res batchCreateResult
	if done.State() == store.ActionDone && done.Action.DecodeResult(&res) == nil && res.BatchID != 0 {
		h.Flash(r, "info", "This selection was already sent: its link is shown only once. If it was lost, select the proposals again for a new one.")
		h.Redirect(w, r, BatchPathPrefix+strconv.FormatInt(res.BatchID, 10))
		return
	}
	h.Flash(r, "info", "This selection was already sent: "+views.StatusLabel(views.StatusAction, string(done.Action.State))+".")
	h.Redirect(w, r, returnTo)
}

// batchSelectionOf is a selection that can be signed together: proposals
// of one owner, signed by one key.
type batchSelectionOf struct {
	ownerUserID, ownerAddress string
	items                     []store.SignBatchItem
}

// batchSelection checks the selected proposals against the mirror and
// returns them as batch items, or the reasons they cannot be signed
// together.
func (h *Handler) batchSelection(ctx context.Context, ids []string) (batchSelectionOf, []string, error) {
	ps, err := h.store.ProposalsByIDs(ctx, ids)
	if err != nil {
		return batchSelectionOf{}, nil, err
	}
	byID := make(map[string]store.Proposal, len(ps))
	walletIDs := []string{}
	for _, p := range ps {
		byID[p.ID] = p
		if !slices.Contains(walletIDs, p.WalletID) {
			walletIDs = append(walletIDs, p.WalletID)
		}
	}
	wallets, err := h.store.WalletsByIDs(ctx, walletIDs)
	if err != nil {
		return batchSelectionOf{}, nil, err
	}
	names, err := proposal.LoadNames(ctx, h.store, ps...)
	if err != nil {
		return batchSelectionOf{}, nil, err
	}
	// The first known proposal's owner is the batch's: every other one
	// must be signed by the same key.
	var sel batchSelectionOf
	for _, id := range ids {
		if p, ok := byID[id]; ok {
			sel.ownerUserID, sel.ownerAddress = p.OwnerUserID, wallets[p.WalletID].OwnerAddress
			break
		}
	}
	var problems []string
	for _, id := range ids {
		p, ok := byID[id]
		if !ok {
			problems = append(problems, "Proposal "+id+" is not known here; refresh the queue from the API.")
			continue
		}
		w, known := wallets[p.WalletID]
		if msg := sel.problemWith(p, w, known, names); msg != "" {
			problems = append(problems, msg)
			continue
		}
		sel.items = append(sel.items, store.SignBatchItem{ProposalID: p.ID, UserID: p.OwnerUserID, WalletID: p.WalletID})
	}
	return sel, problems, nil
}

// problemWith is why p cannot join the selection ("" when it can).
func (sel batchSelectionOf) problemWith(p store.Proposal, w store.Wallet, known bool, names proposal.Names) string {
	what := "Proposal " + p.ID + " (" + proposal.Money(p).String() + " to " + names.Recipient(p) + ")"
	switch {
	case p.Status != store.ProposalPendingSignatures:
		return what + " is " + views.StatusLabel(views.StatusProposal, string(p.Status)) + ": only a proposal waiting for the owner's signature can be signed."
	case p.OwnerUserID != sel.ownerUserID:
		return what + " belongs to " + names.Of(p.OwnerUserID) + ", not to " + names.Of(sel.ownerUserID) +
			": one QR code signs the proposals of one owner."
	case !known || w.OwnerAddress == "":
		return what + ": the owner address of its wallet is not in the mirror yet; refresh the employees' wallets first."
	case !strings.EqualFold(w.OwnerAddress, sel.ownerAddress):
		return what + " is signed by the key " + w.OwnerAddress + ", not " + sel.ownerAddress +
			": one QR code signs with one key."
	}
	return ""
}

// batchIssue is one batch being issued: what goes in, and the link and
// batch it made (set once the ledger applies it).
type batchIssue struct {
	selection batchSelectionOf
	returnTo  string
	actor     store.Actor
	now       time.Time

	link    string
	created store.SignBatch
}

// issueBatch is the ledger's call for a batch: fresh payloads tell whether
// signing is open for each item, and until when; the link lives until the
// last item's deadline (15 minutes at most), each item is refused past its
// own.
func (h *Handler) issueBatch(ctx context.Context, b *batchIssue) (handlers.Effect, error) {
	items := b.selection.items
	why := make([]string, len(items))
	forEach(len(items), BatchConcurrency, func(i int) {
		payload, err := h.api.GetSignPayload(ctx, items[i].UserID, items[i].ProposalID)
		switch {
		case apiclient.IsNotReady(err):
			why[i] = "the wallet service has no sign payload for proposal " + items[i].ProposalID + " yet"
		case err != nil:
			why[i] = "the wallet service did not give the sign payload of proposal " + items[i].ProposalID + ": " + apiclient.ReadWords(err)
		default:
			items[i].Deadline = expiryBy(b.now, payload.Deadline)
		}
	})
	for _, msg := range why {
		if msg != "" {
			return handlers.Effect{}, refusal("No link was issued: " + msg)
		}
	}
	var expires time.Time
	for _, it := range items {
		if it.Deadline.After(expires) {
			expires = it.Deadline
		}
	}
	tok, hash, err := NewToken()
	if err != nil {
		return handlers.Effect{}, refusal("No link could be made; try again")
	}
	id, err := h.store.NewSignBatchID(ctx)
	if err != nil {
		return handlers.Effect{}, refusal("No link could be made; try again")
	}
	b.link = h.publicOrigin + PathPrefix + tok
	batch := store.SignBatch{ID: id, OwnerUserID: b.selection.ownerUserID, OwnerAddress: b.selection.ownerAddress, ReturnTo: b.returnTo,
		ExpiresAt: expires, Items: items}
	return handlers.Effect{Target: store.SignBatchTarget(id), Result: batchCreateResult{BatchID: id},
		Detail: fmt.Sprintf("batch of %d proposals for owner %s, expires %s", len(items), b.selection.ownerAddress, expires.UTC().Format(time.RFC3339)),
		Apply: func(ctx context.Context, tx *store.Store) error {
			var err error
			b.created, err = tx.AddSignBatch(ctx, batch, hash, b.actor)
			return err
		}}, nil
}

// BatchPage shows a batch's state (the whole page, or the polled table).
// It never shows the link again.
func (h *Handler) BatchPage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(chi.URLParam(r, "rid"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return
	}
	v, err := h.batchView(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Sign from one QR code", views.SignBatchPage(v), views.SignBatchTableView(v.Table))
}

// batchView is a batch's page from the store: each item with its state and
// what it pays whom.
func (h *Handler) batchView(ctx context.Context, id int64) (views.SignBatchView, error) {
	b, err := h.store.SignBatchByID(ctx, id)
	if err != nil {
		return views.SignBatchView{}, err
	}
	ids := make([]string, len(b.Items))
	for i, it := range b.Items {
		ids[i] = it.ProposalID
	}
	ps, err := h.store.ProposalsByIDs(ctx, ids)
	if err != nil {
		return views.SignBatchView{}, err
	}
	byID := make(map[string]store.Proposal, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	names, err := proposal.LoadNames(ctx, h.store, append(ps, store.Proposal{OwnerUserID: b.OwnerUserID})...)
	if err != nil {
		return views.SignBatchView{}, err
	}
	now := h.clock()
	t := views.SignBatchTable{PollURL: BatchPathPrefix + strconv.FormatInt(b.ID, 10), ExpiresAt: b.ExpiresAt,
		Deadline: b.ExpiresAt, Final: true}
	for _, it := range b.Items {
		p := byID[it.ProposalID]
		st, why := it.StateAt(now, b.ExpiresAt, b.OpenedAt != nil)
		switch st {
		case store.SignSubmitted, store.SignCompleted:
			t.Relayed++
		case store.SignRefused:
			t.Refused++
		case store.SignExpired:
			t.Expired++
		case store.SignRelaying, store.SignRelayPending:
			t.Sending++
		default:
			t.Waiting++
			// The countdown is to the first deadline still ahead.
			if it.Deadline.Before(t.Deadline) {
				t.Deadline = it.Deadline
			}
		}
		// A submitted item follows its proposal to completed.
		if !st.Final() {
			t.Final = false
		}
		t.Items = append(t.Items, views.SignBatchRow{ProposalID: it.ProposalID, Amount: proposal.Money(p), To: names.Recipient(p),
			Description: p.Description, Deadline: it.Deadline, State: string(st), Label: views.StatusLabel(views.StatusSign, string(st)), Error: why})
	}
	return views.SignBatchView{ID: b.ID, ReturnTo: b.ReturnTo, Owner: names.Of(b.OwnerUserID), OwnerAddress: b.OwnerAddress, Table: t}, nil
}
