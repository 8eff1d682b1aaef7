package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"partneradmin/store"
)

// cardWordsDrift counts the rows by which card_search_words differs from
// the words of every card's search_text, both ways.
func cardWordsDrift(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	err := st.Pool().QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM (SELECT word, card_id FROM card_search_words
			EXCEPT SELECT w, c.id FROM cards c, card_search_words_of(c.search_text) w) x) +
		(SELECT count(*) FROM (SELECT w, c.id FROM cards c, card_search_words_of(c.search_text) w
			EXCEPT SELECT word, card_id FROM card_search_words) y)`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wordsOf splits lower-cased text the way card search does.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r < 0x80 && !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
}

// matches is card search's rule, written plainly: every typed word starts
// a word of the card's text.
func matches(text, query string) bool {
	have := wordsOf(text)
	for _, w := range wordsOf(query) {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
}

// Card search finds exactly the cards whose words the typed words start,
// in the index's order, page after page, whether the longest word starts a
// few cards' words (read by id) or most cards' (the index walked in
// order), with the other words and the cursor applied in both.
func TestCardSearchMatchesWordStartsInEveryMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	type card struct{ id, text string }
	var all []card
	names := []string{"Fuel", "Fuel card", "Travel", "Meals", "Office supplies"}
	for o := range 6 {
		e, err := st.UpsertEmployee(ctx, store.Employee{Email: fmt.Sprintf("person%02d@load.example", o), FirstName: fmt.Sprintf("First%d", o),
			LastName: []string{"Okafor", "Okoro", "Bello", "Adeyemi", "Okafor-Bello", "Eze"}[o], ServiceUserID: fmt.Sprintf("u-%d", o)})
		if err != nil {
			t.Fatal(err)
		}
		wallet := fmt.Sprintf("w-%d", o)
		if err := st.UpsertWallet(ctx, store.Wallet{ID: wallet, EmployeeID: e.ID, Currency: "USDB", DisplayCurrency: "USD"}); err != nil {
			t.Fatal(err)
		}
		// 130 cards each: "person", "load" and "e" start words of all
		// 780, more than the candidates read by id; "fuel" starts 312.
		var cards []store.CardEntry
		for i := range 130 {
			c := store.CardEntry{ID: fmt.Sprintf("c%d-%03d", o, i), CardName: fmt.Sprintf("%s %d", names[i%len(names)], i),
				Currency: "USD", Type: "virtual", Last4: fmt.Sprintf("%04d", 1000+o*130+i), Status: "active"}
			cards = append(cards, c)
			all = append(all, card{c.ID, strings.Join([]string{e.FirstName, e.LastName, e.Email, c.CardName, c.Last4, c.ID}, " ")})
		}
		if err := st.ReplaceWalletCards(ctx, wallet, cards, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if d := cardWordsDrift(t, st); d != 0 {
		t.Fatalf("card_search_words drifted by %d rows after the inserts", d)
	}
	// The index's order (owner's name, then card name), as PostgreSQL
	// collates it.
	rows, err := st.Pool().Query(ctx, `SELECT id FROM cards ORDER BY search_text, id`)
	if err != nil {
		t.Fatal(err)
	}
	order, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, c := range all {
		text[c.id] = c.text
	}
	for _, q := range []string{"fuel", "FUEL CARD", "card fuel", "okafor", "okafor bello", "okafor-bello", "bello okafor fuel",
		"person03@", "first2 meals", "1523", "15", "c5-12", "c5 12", "office sup", "kafor", "uel", "nobody", "okafor nobody",
		"fuel 7", "e", "person", "load example fuel", "person 1 okafor"} {
		var want []string
		for _, id := range order {
			if matches(text[id], q) {
				want = append(want, id)
			}
		}
		for _, size := range []int{500, 37} {
			var got []string
			f := store.CardSearch{Query: q, Limit: size}
			for range 100 {
				hits, next, err := st.SearchCards(ctx, f)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				for _, h := range hits {
					got = append(got, h.ID)
				}
				if next == "" {
					break
				}
				f.AfterKey, f.AfterID = next, hits[len(hits)-1].ID
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q in pages of %d: %d cards %v, want %d %v", q, size, len(got), got, len(want), want)
			}
		}
	}
	// Only punctuation has no word to match.
	if hits, _, err := st.SearchCards(ctx, store.CardSearch{Query: "%_-"}); err != nil || len(hits) != 0 {
		t.Fatalf("punctuation: %d hits %v", len(hits), err)
	}
}

// The words follow each card's search_text under concurrent writers on two
// replicas (two pools): after cards are renamed over and over, from both,
// card_search_words holds exactly the words of every card's text, and a
// search for a card's final name finds it.
func TestCardSearchWordsFollowConcurrentWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stores := replicaStores(t, 2)
	st := stores[0]
	e, err := st.UpsertEmployee(ctx, store.Employee{Email: "ada.okafor@partner.example", FirstName: "Ada", LastName: "Okafor", ServiceUserID: "u-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertWallet(ctx, store.Wallet{ID: "w-1", EmployeeID: e.ID, Currency: "USDB", DisplayCurrency: "USD"}); err != nil {
		t.Fatal(err)
	}
	names := []string{"Fuel", "Travel desk", "Meals and drinks", "Office", "Fleet fuel"}
	cardsNamed := func(rng *rand.Rand) []store.CardEntry {
		var cards []store.CardEntry
		for i := range 4 {
			cards = append(cards, store.CardEntry{ID: fmt.Sprintf("card-%d", i), CardName: names[rng.IntN(len(names))],
				Currency: "USD", Type: "virtual", Last4: fmt.Sprintf("%04d", 4000+i), Status: "active"})
		}
		return cards
	}
	const workers = 6
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 61))
			s := stores[w%2]
			for range 20 {
				var err error
				if rng.IntN(2) == 0 {
					err = s.ReplaceWalletCards(ctx, "w-1", cardsNamed(rng), time.Now())
				} else {
					c := cardsNamed(rng)[rng.IntN(4)]
					c.WalletID, c.EmployeeID = "w-1", e.ID
					err = s.UpsertCard(ctx, c, time.Now())
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if d := cardWordsDrift(t, st); d != 0 {
		t.Fatalf("card_search_words drifted by %d rows", d)
	}
	for i := range 4 {
		h, err := st.CardByID(ctx, fmt.Sprintf("card-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stores {
			hits, _, err := s.SearchCards(ctx, store.CardSearch{Query: h.CardName + " " + h.Last4})
			if err != nil || len(hits) != 1 || hits[0].ID != h.ID {
				t.Fatalf("search for %q %s: %v %v", h.CardName, h.Last4, hits, err)
			}
		}
		for _, n := range names {
			hits, _, err := st.SearchCards(ctx, store.CardSearch{Query: n + " " + h.Last4})
			if err != nil || (len(hits) == 1) != matches(h.CardName, n) {
				t.Fatalf("search for %q %s finds %d, card named %q: %v", n, h.Last4, len(hits), h.CardName, err)
			}
		}
	}
}
