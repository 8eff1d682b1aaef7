package controlstest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A trusted destination leaves the book only when a second person confirms
// its removal; until then it stays usable. An entry nobody confirmed yet is
// withdrawn at once. Support cannot remove.
func TestBookRemovalNeedsASecondPerson(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	finance, fs := env.SignedIn(store.RoleFinanceApprover)
	owner, os := env.SignedIn(store.RoleOwner)
	support, _ := env.SignedIn(store.RoleSupport)
	webtest.TrustDestination(t, env, store.DestIBAN, webtest.SEPAIBANElectronic, "")
	d, err := env.Store.DestinationByKey(ctx, store.DestinationKey(store.DestIBAN, "", webtest.SEPAIBANElectronic))
	if err != nil {
		t.Fatal(err)
	}
	remove := "/controls/destinations/" + itoa(d.ID) + "/remove"
	if code, _ := post(t, env, support, remove, nil); code != http.StatusForbidden {
		t.Fatalf("support removes: %d", code)
	}
	row := destinationRow(page(t, env, finance), d.Name)
	if got := strings.TrimSpace(row.Find(`[data-testid="destination-remove"]`).Text()); got != "Ask to remove" {
		t.Fatalf("remove button %q", got)
	}
	// The first person asks: it stays in the book, usable.
	if code, _ := post(t, env, finance, remove, nil); code != http.StatusSeeOther {
		t.Fatalf("ask: %d", code)
	}
	if err := env.Store.CheckDestination(ctx, store.DestinationKey(store.DestIBAN, "", webtest.SEPAIBANElectronic), false, time.Now()); err != nil {
		t.Fatalf("not usable while its removal waits: %v", err)
	}
	row = destinationRow(page(t, env, finance), d.Name)
	if !strings.Contains(row.Find(`[data-testid="destination-state"]`).Text(), fs.Name+" asked to remove it") ||
		row.Find(`[data-testid="destination-remove"]`).Length() != 0 {
		t.Fatalf("asker's row: %q", row.Text())
	}
	// The asker cannot confirm it.
	if code, doc := post(t, env, finance, remove, nil); code != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "controls-error"), "another person must confirm") {
		t.Fatalf("asker confirms: %d", code)
	}
	// Another person confirms: gone, and no longer usable.
	if got := strings.TrimSpace(destinationRow(page(t, env, owner), d.Name).Find(`[data-testid="destination-remove"]`).Text()); got != "Confirm the removal" {
		t.Fatalf("other's button %q", got)
	}
	if code, _ := post(t, env, owner, remove, nil); code != http.StatusSeeOther {
		t.Fatalf("confirm removal: %d", code)
	}
	if _, err := env.Store.Destination(ctx, d.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("still in the book: %v", err)
	}
	var refused *store.PolicyRefusal
	if err := env.Store.CheckDestination(ctx, store.DestinationKey(store.DestIBAN, "", webtest.SEPAIBANElectronic), false, time.Now()); !errors.As(err, &refused) {
		t.Fatalf("usable after its removal: %v", err)
	}
	audit, err := env.Store.ListAudit(ctx, store.AuditFilter{Target: "destination:" + itoa(d.ID)})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, a := range audit {
		by[a.Action] = a.Actor.Email
	}
	if by["destination.remove_ask"] != fs.Email || by["destination.remove"] != os.Email {
		t.Fatalf("audit %v", by)
	}

	// Not yet confirmed: withdrawn at once by one person.
	n, err := env.Store.AddDestination(ctx, store.NewDestination{Kind: store.DestCLABE, Value: "032180000118359719", Name: "Not yet",
		By: fs.Actor(), At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := post(t, env, finance, "/controls/destinations/"+itoa(n.ID)+"/remove", nil); code != http.StatusSeeOther {
		t.Fatalf("withdraw: %d", code)
	}
	if _, err := env.Store.Destination(ctx, n.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a withdrawn entry is still in the book: %v", err)
	}
}
