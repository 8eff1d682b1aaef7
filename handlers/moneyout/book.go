package moneyout

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// The address book on the money-out forms: each form offers the book's
// entries of its rail's kind, and a destination picked or typed is checked
// against the book before the form goes on. The spend check decides again,
// with the wallet's limits, in the transaction that begins the request
// (store.CheckSpend through handlers.Write.Spend).

// bookKinds names a kind's entries in a sentence.
var bookKinds = map[store.DestinationKind]string{
	store.DestNigerianBank: "Nigerian bank account",
	store.DestBankAccount:  "payout bank account",
	store.DestIBAN:         "IBAN",
	store.DestCLABE:        "CLABE",
}

// bookPicker lists the book's entries of a kind (of one bank when bankCode
// is set), each with when it is usable.
func (h *Handler) bookPicker(ctx context.Context, id string, kind store.DestinationKind, bankCode, chosen string) (views.BookPicker, error) {
	p := views.BookPicker{ID: id, Kind: bookKinds[kind], Chosen: chosen, AddHref: "/controls#book"}
	book, err := h.store.Destinations(ctx)
	if err != nil {
		return p, err
	}
	now := h.clock()
	for _, d := range book {
		if d.Kind != kind || bankCode != "" && d.BankCode != bankCode {
			continue
		}
		label := d.Name + " (" + d.Value + ")"
		switch {
		case d.Usable(now):
		case d.ConfirmedAt == nil:
			label += ": waits for another person to confirm it"
			p.Pending = append(p.Pending, fmt.Sprintf("“%s” waits for another person to confirm it on the Money controls page; then the cooling-off period runs.", d.Name))
		default:
			label += ": usable from " + views.DateTime(ctx, *d.UsableFrom)
			p.Pending = append(p.Pending, fmt.Sprintf("“%s” becomes usable on %s, when its cooling-off period ends.", d.Name, views.DateTime(ctx, *d.UsableFrom)))
		}
		p.Options = append(p.Options, views.Option{Value: strconv.FormatInt(d.ID, 10), Label: label})
	}
	return p, nil
}

// bookChosen is the entry a form's picker names (nil when none), or the
// field's message when it names no entry of the kind.
func (h *Handler) bookChosen(ctx context.Context, r *http.Request, kind store.DestinationKind) (*store.Destination, string, error) {
	s := strings.TrimSpace(r.PostFormValue("destination_id"))
	if s == "" {
		return nil, "", nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return nil, "Choose one of the book's entries.", nil
	}
	d, err := h.store.Destination(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && d.Kind != kind:
		return nil, "This entry is no longer in the address book: choose another.", nil
	case err != nil:
		return nil, "", err
	}
	return &d, "", nil
}

// fromBook fills a typed field from the entry picked. Both picked and
// typed, and different, is the field's message.
func fromBook(typed *string, picked string) string {
	clean := strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(*typed), " ", ""), "-", "")
	switch {
	case clean == "":
		*typed = picked
	case !strings.EqualFold(clean, picked):
		return "Either choose from the address book or type it, not both: they differ."
	}
	return ""
}

// byOwner: an owner makes the request (the settings may let an owner send
// outside the book, and take more than the share of the balance).
func byOwner(ctx context.Context) bool {
	v := handlers.ViewerFrom(ctx)
	return v != nil && v.Can(store.PermSettings)
}

// bookRefusal is the book's answer for a destination now: nil when money
// may go there.
func (h *Handler) bookRefusal(ctx context.Context, destination string) (*store.PolicyRefusal, error) {
	err := h.store.CheckDestination(ctx, destination, byOwner(ctx), h.clock())
	var refused *store.PolicyRefusal
	if errors.As(err, &refused) {
		return refused, nil
	}
	return nil, err
}

// spend is what a request takes from a treasury wallet, for the spend
// check when it begins.
func (h *Handler) spend(ctx context.Context, w store.Wallet, amount decimal.Decimal, destination string) *store.Spend {
	return &store.Spend{WalletID: w.ID, Currency: w.Currency, Amount: amount, Destination: destination, ByOwner: byOwner(ctx), At: h.clock()}
}

// ngnBookCheck is the book's answer for a Nigerian account: the entry's
// id when the book has one (usable or not), and the refusal when money
// may not go there now.
func (h *Handler) ngnBookCheck(ctx context.Context, bankCode, number string) (int64, *store.PolicyRefusal, error) {
	key := store.DestinationKey(store.DestNigerianBank, bankCode, number)
	refused, err := h.bookRefusal(ctx, key)
	if err != nil {
		return 0, nil, err
	}
	d, err := h.store.DestinationByKey(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, refused, nil
	case err != nil:
		return 0, nil, err
	}
	return d.ID, refused, nil
}

// ngnDestination is the spend's destination of a registered account: the
// book's entry it was registered from. The ledger keeps the account by its
// last four digits only, so an account the book did not have (or no longer
// has) is named by those, which no entry matches: outside the book.
func (h *Handler) ngnDestination(ctx context.Context, acct ngnAccount) (string, error) {
	if acct.DestinationID != 0 {
		d, err := h.store.Destination(ctx, acct.DestinationID)
		switch {
		case err == nil:
			return store.DestinationKey(d.Kind, d.BankCode, d.Value), nil
		case !errors.Is(err, store.ErrNotFound):
			return "", err
		}
	}
	return store.DestinationKey(store.DestNigerianBank, acct.BankCode, "****"+acct.Last4), nil
}

// refusedAt puts a refusal of the money controls at its field and says it
// whole in the form's summary.
func refusedAt(fields views.FieldErrors, refused *store.PolicyRefusal, destinationField, amountField string) string {
	fields[handlers.PolicyField(refused, destinationField, amountField)] = refused.Message
	return refused.Words()
}

// bpDestination is a payout's destination as the book names it: the
// rail's bank id and the account number, written as the book keeps it.
func bpDestination(v views.BankPayoutView) string {
	account := strings.ToUpper(strings.ReplaceAll(strings.ReplaceAll(v.AccountNumber, " ", ""), "-", ""))
	return store.DestinationKey(store.DestBankAccount, v.BankID, account)
}

// bpFromBook fills the payout's account from the entry picked at the
// account step; the entry must be an account at the bank chosen.
func (h *Handler) bpFromBook(ctx context.Context, r *http.Request, v *views.BankPayoutView) error {
	picked, msg, err := h.bookChosen(ctx, r, store.DestBankAccount)
	switch {
	case err != nil:
		return err
	case msg != "":
		v.Fields["destination_id"] = msg
	case picked != nil && picked.BankCode != v.BankID:
		v.Fields["destination_id"] = "This entry of the book is an account at another bank: choose one at the bank chosen, or go back and choose its bank."
	case picked != nil:
		v.Book.Chosen = strconv.FormatInt(picked.ID, 10)
		if msg := fromBook(&v.AccountNumber, picked.Value); msg != "" {
			v.Fields["destination_id"] = msg
		}
	}
	if v.Fields.Has("destination_id") {
		v.Step = views.BankPayoutStepAccount
	}
	return nil
}
