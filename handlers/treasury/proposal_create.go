package treasury

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// kindProposalCreate is the ledger's kind (and the audit row's action) of a
// proposal created from the treasury.
const kindProposalCreate = "proposal.create"

// clockSkew is how much earlier than the action's begin a proposal's
// createdAt may be and still be the one the action made: the API's clock is
// not ours.
const clockSkew = time.Minute

// proposalForm names the forms that propose moving value.
type proposalForm string

const (
	transferForm proposalForm = "transfer" // to an employee, from a chosen wallet
	swapForm     proposalForm = "swap"     // one stablecoin for another
	sendForm     proposalForm = "send"     // account/send: to an employee, the wallet named by its currency
)

// textField is the form's free text: a send's note becomes the proposal's
// description (spec: "note becomes description").
func (f proposalForm) textField() string {
	if f == sendForm {
		return "note"
	}
	return "description"
}

// proposalRequest is what a proposal form asks the API, as the ledger keeps
// it: everything the call and its read-back need.
type proposalRequest struct {
	Form         proposalForm           `json:"form"`
	OwnerUserID  string                 `json:"ownerUserId"`
	WalletID     string                 `json:"walletId"`
	Type         apiclient.ProposalType `json:"type"`
	Currency     apiclient.Stablecoin   `json:"currency"`
	Amount       decimal.Decimal        `json:"amount"`
	ToUserID     string                 `json:"toUserId,omitempty"`
	ToStablecoin apiclient.Stablecoin   `json:"toStablecoin,omitempty"`
	SlippageBps  *int                   `json:"slippageBps,omitempty"`
	Description  string                 `json:"description,omitempty"`
	// A swap's quote, shown to the proposer before it was proposed.
	QuoteID        string `json:"quoteId,omitempty"`
	QuotedToAmount string `json:"quotedToAmount,omitempty"`
}

// spend is what the proposal takes from its wallet for the money
// controls: a swap's value stays in the treasury; a transfer goes to an
// employee, a trusted recipient.
func (q proposalRequest) spend(r *http.Request, now time.Time) *store.Spend {
	if q.Form == swapForm {
		return nil
	}
	return &store.Spend{WalletID: q.WalletID, Currency: string(q.Currency), Amount: q.Amount,
		Destination: store.EmployeeDestination(q.ToUserID), ByOwner: handlers.ViewerFrom(r.Context()).Can(store.PermSettings), At: now}
}

// joinWords joins two notes with "; ", either may be empty.
func joinWords(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// detail is the audit row's words.
func (q proposalRequest) detail() string {
	to := q.ToUserID
	if q.Form == swapForm {
		to = string(q.ToStablecoin)
	}
	return fmt.Sprintf("%s of %s %s to %s", q.Form, q.Amount, q.Currency, to)
}

// made reports whether p is a proposal this request would have created.
func (q proposalRequest) made(p apiclient.Proposal) bool {
	amount, currency := p.Amount, p.Currency
	if p.FromAmount != nil {
		amount = *p.FromAmount
	}
	if p.FromStablecoin != "" {
		currency = p.FromStablecoin
	}
	return p.Type == q.Type && amount.Equal(q.Amount) && (currency == "" || currency == q.Currency) &&
		p.ToUserID == q.ToUserID && p.ToStablecoin == q.ToStablecoin && p.Description == q.Description
}

// Transfer proposes a transfer from a treasury wallet to an employee.
func (h *Handler) Transfer(w http.ResponseWriter, r *http.Request) { h.propose(w, r, transferForm) }

// Swap proposes exchanging a treasury wallet's stablecoin for another.
func (h *Handler) Swap(w http.ResponseWriter, r *http.Request) { h.propose(w, r, swapForm) }

// Send proposes account/send from the treasury user's account.
func (h *Handler) Send(w http.ResponseWriter, r *http.Request) { h.propose(w, r, sendForm) }

// formOf is the page's form of a kind.
func formOf(v *views.TreasuryView, form proposalForm) *views.ProposalForm {
	switch form {
	case swapForm:
		return &v.Swap
	case sendForm:
		return &v.Send
	}
	return &v.Transfer
}

// propose checks a proposal form, creates the proposal once under the
// form's token and opens it; or shows the form again with what was typed.
func (h *Handler) propose(w http.ResponseWriter, r *http.Request, form proposalForm) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f, req, understood, err := h.readProposal(r, t, form)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if form == swapForm && !f.Fields.Any() {
		q, msg := h.quoteFor(r, req)
		if msg != "" {
			f.Fields["quote"] = msg
		} else {
			req.QuoteID, req.QuotedToAmount = q.QuoteID, q.ToAmount.String()
			understood = joinWords(understood, "quoted to deliver "+q.view(h.clock()).To.String())
		}
	}
	if f.Fields.Any() {
		h.render(w, r, http.StatusUnprocessableEntity, func(v *views.TreasuryView) { *formOf(v, form) = f })
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	actor := handlers.ActorFrom(ctx)
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindProposalCreate, Target: "wallet:" + req.WalletID,
		Actor: actor, Request: req, Spend: req.spend(r, h.clock()), Call: func(ctx context.Context) (handlers.Effect, error) {
			p, err := h.createProposal(ctx, req)
			if err != nil {
				return handlers.Effect{}, err
			}
			return proposalEffect(req, *p, actor, h.clock()), nil
		}})
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		f.Fields[handlers.PolicyField(refused, "to", "amount")] = refused.Message
		h.render(w, r, http.StatusUnprocessableEntity, func(v *views.TreasuryView) { *formOf(v, form), v.Error = f, refused.Words() })
		return
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, proposalPage(done.Action))
		return
	case done.State() == store.ActionDone:
		msg := "Proposal created. Another approver must approve it."
		if understood != "" {
			msg = "Proposal created (" + understood + "). Another approver must approve it."
		}
		h.Flash(r, "ok", msg)
		h.Redirect(w, r, proposalPage(done.Action))
		return
	}
	// Refused, or not known: the form again with what was typed and a new
	// token, since this one is spent.
	f.Token = handlers.NewFormToken()
	status, summary := problemAt(form, done, f.Fields)
	h.render(w, r, status, func(v *views.TreasuryView) { *formOf(v, form), v.Error = f, summary })
}

// proposalPage is where an action's proposal is shown: its approval page
// once created, else the treasury's forms.
func proposalPage(a store.Action) string {
	if id, ok := strings.CutPrefix(a.Target, "proposal:"); ok && a.State == store.ActionDone {
		return "/approvals/" + id
	}
	return "/treasury"
}

// readProposal reads a proposal form and checks it: one path for the three
// forms, field by field. It returns the form as typed with its messages,
// what to ask the API when there are none, and how a grouped amount was
// read.
func (h *Handler) readProposal(r *http.Request, t treasury, form proposalForm) (views.ProposalForm, proposalRequest, string, error) {
	f := views.ProposalForm{Token: postedToken(r), WalletID: r.PostFormValue("wallet_id"), Amount: r.PostFormValue("amount"),
		Description: strings.TrimSpace(r.PostFormValue(form.textField())), Fields: views.FieldErrors{}}
	q := proposalRequest{Form: form, OwnerUserID: t.user.ServiceUserID, Type: apiclient.ProposalTransfer, Description: f.Description}
	wallet, ok := t.wallet(f.WalletID)
	if ok {
		q.WalletID, q.Currency = wallet.ID, apiclient.Stablecoin(wallet.Currency)
	} else {
		f.Fields["wallet"] = "Choose one of the treasury wallets."
	}
	if form == swapForm {
		q.Type = apiclient.ProposalSwap
		f.ToStablecoin, f.SlippageBps = r.PostFormValue("to_stablecoin"), strings.TrimSpace(r.PostFormValue("slippage_bps"))
		to, err := apiclient.ParseStablecoin(f.ToStablecoin)
		switch {
		case err != nil || to.IsLegacy():
			f.Fields["to_stablecoin"] = "Choose one of the listed stablecoins."
		case ok && to == q.Currency:
			f.Fields["to_stablecoin"] = "Choose a different stablecoin from the wallet's own."
		case ok && !t.has(to):
			f.Fields["to_stablecoin"] = "The treasury has no " + string(to) + " wallet to receive the swap."
		}
		q.ToStablecoin = to
		if f.SlippageBps != "" {
			n, err := strconv.Atoi(f.SlippageBps)
			if err != nil || n < apiclient.MinSlippageBps || n > apiclient.MaxSlippageBps {
				f.Fields["slippage_bps"] = "Give a whole number of basis points from 1 to 500 (100 bps = 1%)."
			}
			q.SlippageBps = &n
		}
	} else {
		f.ToUserID = strings.TrimSpace(r.PostFormValue("to_user_id"))
		f.To = views.RecipientPicker{Search: r.PostFormValue("to_search")}
		msg, err := h.checkRecipient(r.Context(), f.ToUserID)
		if err != nil {
			return f, q, "", err
		}
		if msg != "" {
			f.Fields["to"] = msg
		}
		q.ToUserID = f.ToUserID
	}
	amount, msg := handlers.ParseAmount(f.Amount, handlers.TokenDecimals(q.Currency))
	switch {
	case msg != "":
		f.Fields["amount"] = msg
	case ok && !f.Fields.Any():
		// Checked against the balance the API holds now, not the last
		// figure read: a transfer that completed since has taken its share.
		bal, read, err := h.liveBalance(r.Context(), t, wallet.ID)
		if err != nil {
			return f, q, "", err
		}
		held := money(wallet)
		held.Value = bal
		switch {
		case !read:
			f.Fields["amount"] = "The wallet's balance could not be read from the Partner API just now, so the amount cannot be checked. Nothing was sent; try again in a moment."
		case amount.Value.GreaterThan(bal):
			f.Fields["amount"] = "More than the wallet holds now (" + held.String() + ", read just now)."
		}
	}
	q.Amount = amount.Value
	checkText(f.Fields, form.textField(), f.Description, apiclient.MaxDescriptionLength, true)
	return f, q, amount.Understood, nil
}

// checkRecipient says what is wrong with the chosen recipient, "" when
// nothing: value goes only to a linked employee who is not deleted (those the
// picker offers), checked before anything is sent upstream.
func (h *Handler) checkRecipient(ctx context.Context, serviceUserID string) (string, error) {
	if serviceUserID == "" {
		return "Choose the employee who receives it.", nil
	}
	if handlers.CheckText(serviceUserID, maxIDLength, false) != "" {
		return "Search and choose the employee again.", nil
	}
	_, ok, err := h.store.TreasuryRecipient(ctx, serviceUserID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "This person cannot receive value: they are not a linked employee, or their account was deleted. Search and choose again.", nil
	}
	return "", nil
}

// createProposal is the one upstream call of a proposal form.
func (h *Handler) createProposal(ctx context.Context, q proposalRequest) (*apiclient.Proposal, error) {
	switch q.Form {
	case swapForm:
		return h.api.CreateSwapProposal(ctx, q.OwnerUserID, q.WalletID, apiclient.SwapProposal{FromStablecoin: q.Currency,
			ToStablecoin: q.ToStablecoin, FromAmount: q.Amount, SlippageBps: q.SlippageBps, Description: q.Description})
	case sendForm:
		return h.api.Send(ctx, q.OwnerUserID, apiclient.SendRequest{ToUserID: q.ToUserID, Amount: q.Amount, Currency: q.Currency,
			Note: q.Description})
	}
	return h.api.CreateTransferProposal(ctx, q.OwnerUserID, q.WalletID, apiclient.TransferProposal{ToUserID: q.ToUserID,
		Amount: q.Amount, Currency: q.Currency, Description: q.Description})
}

// proposalEffect mirrors the created proposal with its creator, so that
// they may not approve it. The API's answer may carry no more than the id
// and status (spec: "{ data: { proposal: { id, status } } }"): what it
// leaves out is what was asked.
func proposalEffect(q proposalRequest, p apiclient.Proposal, by store.Actor, now time.Time) handlers.Effect {
	row := proposal.FromAPI(p, q.OwnerUserID, now)
	fill := func(field *string, asked string) {
		if *field == "" {
			*field = asked
		}
	}
	fill(&row.WalletID, q.WalletID)
	fill(&row.Type, string(q.Type))
	fill(&row.Currency, string(q.Currency))
	fill(&row.ToUserID, q.ToUserID)
	fill(&row.ToStablecoin, string(q.ToStablecoin))
	fill(&row.Description, q.Description)
	if row.Amount.IsZero() {
		row.Amount = q.Amount
	}
	if row.SlippageBps == 0 && q.SlippageBps != nil {
		row.SlippageBps = *q.SlippageBps
	}
	row.CreatedByStaffID = by.StaffID
	return handlers.Effect{Target: "proposal:" + p.ID, Result: map[string]string{"id": p.ID, "status": string(p.Status)},
		Detail: q.detail(), Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.UpsertProposal(ctx, row)
			return err
		}}
}

// readBackProposal finds the proposal a create with no answer made: a
// proposal of the wallet that matches what was asked, created after the
// action began, that no other action made and no staff member is recorded
// as creating. (The approvals sync may have mirrored it meanwhile, without
// a creator.) A proposal without a creation time is taken on the other
// checks alone.
func (h *Handler) readBackProposal(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var q proposalRequest
	if err := a.DecodeRequest(&q); err != nil {
		return handlers.Effect{}, false, err
	}
	ps, err := h.api.ListProposals(ctx, q.OwnerUserID, q.WalletID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	since := a.BegunAt.Add(-clockSkew)
	var found *apiclient.Proposal
	for i, p := range ps {
		if !q.made(p) || !p.CreatedAt.IsZero() && p.CreatedAt.Before(since) ||
			found != nil && !p.CreatedAt.Before(found.CreatedAt) {
			continue
		}
		free, err := h.unclaimed(ctx, p.ID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		if free {
			found = &ps[i]
		}
	}
	if found == nil {
		return handlers.Effect{}, false, nil
	}
	return proposalEffect(q, *found, a.Actor, h.clock()), true, nil
}

// unclaimed reports whether no action made the proposal and the mirror
// names no creator for it.
func (h *Handler) unclaimed(ctx context.Context, proposalID string) (bool, error) {
	made, err := h.store.ListActions(ctx, store.ActionFilter{Target: "proposal:" + proposalID, Limit: 1})
	if err != nil || len(made) > 0 {
		return false, err
	}
	p, err := h.store.ProposalByID(ctx, proposalID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return true, nil
	case err != nil:
		return false, err
	}
	return p.CreatedByStaffID == 0, nil
}

// problemAt puts the API's refusal next to the fields it concerns and
// returns the status and the words shown above the form.
func problemAt(form proposalForm, d handlers.Done, fields views.FieldErrors) (int, string) {
	p := d.Problem
	if d.State() != store.ActionRefused {
		return http.StatusBadGateway, d.Action.Message + " Look for it in the approval queue before proposing it again."
	}
	for apiField, msg := range p.Fields {
		if field := formField(form, apiField); field != "" {
			fields[field] = msg
		}
	}
	switch {
	case len(fields) > 0:
		return http.StatusUnprocessableEntity, p.Summary
	case form != swapForm && (p.Status == http.StatusBadRequest || p.Status == http.StatusNotFound):
		// spec: a transfer's 400 is a missing recipient or one with no
		// active account in the currency; its 404 a user the partner
		// does not have.
		fields["to"] = p.Summary
		return http.StatusUnprocessableEntity, ""
	}
	return http.StatusBadGateway, p.Summary
}

// formField is the form's field of a request field the API named.
func formField(form proposalForm, apiField string) string {
	switch strings.TrimPrefix(apiField, "proposal.") {
	case "toUserId", "toAddress":
		if form != swapForm {
			return "to"
		}
	case "amount", "fromAmount":
		return "amount"
	case "description", "note":
		return form.textField()
	case "currency", "fromStablecoin":
		return "wallet"
	case "toStablecoin":
		if form == swapForm {
			return "to_stablecoin"
		}
	case "slippageBps":
		if form == swapForm {
			return "slippage_bps"
		}
	}
	return ""
}
