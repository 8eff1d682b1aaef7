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

// BookPicker lists the book's entries of a kind (of one bank when bankCode
// is set), each with when it is usable.
func (h *Rail) BookPicker(ctx context.Context, id string, kind store.DestinationKind, bankCode, chosen string) (views.BookPicker, error) {
	p := views.BookPicker{ID: id, Kind: bookKinds[kind], Chosen: chosen, AddHref: "/controls#book"}
	book, err := h.Store.Destinations(ctx)
	if err != nil {
		return p, err
	}
	now := h.Clock()
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

// BookChosen is the entry a form's picker names (nil when none), or the
// field's message when it names no entry of the kind.
func (h *Rail) BookChosen(ctx context.Context, r *http.Request, kind store.DestinationKind) (*store.Destination, string, error) {
	s := strings.TrimSpace(r.PostFormValue("destination_id"))
	if s == "" {
		return nil, "", nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return nil, "Choose one of the book's entries.", nil
	}
	d, err := h.Store.Destination(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && d.Kind != kind:
		return nil, "This entry is no longer in the address book: choose another.", nil
	case err != nil:
		return nil, "", err
	}
	return &d, "", nil
}

// FromBook fills a typed field from the entry picked. Both picked and
// typed, and different, is the field's message.
func FromBook(typed *string, picked string) string {
	clean := strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(*typed), " ", ""), "-", "")
	switch {
	case clean == "":
		*typed = picked
	case !strings.EqualFold(clean, picked):
		return "Either choose from the address book or type it, not both: they differ."
	}
	return ""
}

// ByOwner: an owner makes the request (the settings may let an owner send
// outside the book, and take more than the share of the balance).
func ByOwner(ctx context.Context) bool {
	v := handlers.ViewerFrom(ctx)
	return v != nil && v.Can(store.PermSettings)
}

// BookRefusal is the book's answer for a destination now: nil when money
// may go there.
func (h *Rail) BookRefusal(ctx context.Context, destination string) (*store.PolicyRefusal, error) {
	err := h.Store.CheckDestination(ctx, destination, ByOwner(ctx), h.Clock())
	var refused *store.PolicyRefusal
	if errors.As(err, &refused) {
		return refused, nil
	}
	return nil, err
}

// Spend is what a request takes from a treasury wallet, for the spend
// check when it begins.
func (h *Rail) Spend(ctx context.Context, w store.Wallet, amount decimal.Decimal, destination string) *store.Spend {
	return &store.Spend{WalletID: w.ID, Currency: w.Currency, Amount: amount, Destination: destination, ByOwner: ByOwner(ctx), At: h.Clock()}
}

// RefusedAt puts a refusal of the money controls at its field and says it
// whole in the form's summary.
func RefusedAt(fields views.FieldErrors, refused *store.PolicyRefusal, destinationField, amountField string) string {
	fields[handlers.PolicyField(refused, destinationField, amountField)] = refused.Message
	return refused.Words()
}
