package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// CardEntry is a card of the local index: what a wallet's card list last
// said about it. Status is the last status seen, read at StatusReadAt; the
// live status is only ever GET /cards/{cardId}.
type CardEntry struct {
	ID             string // card id; for a reserved entry the issuance proposal id
	WalletID       string
	EmployeeID     int64
	CardName       string
	CardColor      string
	Currency       string // NGN or USD
	Type           string // virtual or physical
	Last4          string
	Status         string
	StatusReadAt   time.Time
	FundedAt       *time.Time
	Reserved       bool
	ProposalID     string
	ProposalStatus string
	Gone           bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// CardHit is a card found by a search, with its owner.
type CardHit struct {
	CardEntry
	ServiceUserID  string
	EmployeeName   string
	EmployeeEmail  string
	WalletCurrency string // stablecoin code of the wallet
}

const cardColumns = `c.id, c.wallet_id, c.employee_id, c.card_name, c.card_color, c.currency, c.type, c.last4, c.status,
	c.status_read_at, c.funded_at, c.reserved, c.proposal_id, c.proposal_status, c.gone, c.created_at, c.updated_at`

const cardHitColumns = cardColumns + `, coalesce(e.service_user_id, ''), trim(e.first_name || ' ' || e.last_name), e.email, w.currency`

const cardHitFrom = ` FROM cards c JOIN employees e ON e.id = c.employee_id JOIN wallets w ON w.id = c.wallet_id `

func scanCardHit(row pgx.Row) (CardHit, error) {
	var h CardHit
	c := &h.CardEntry
	err := row.Scan(&c.ID, &c.WalletID, &c.EmployeeID, &c.CardName, &c.CardColor, &c.Currency, &c.Type, &c.Last4, &c.Status,
		&c.StatusReadAt, &c.FundedAt, &c.Reserved, &c.ProposalID, &c.ProposalStatus, &c.Gone, &c.CreatedAt, &c.UpdatedAt,
		&h.ServiceUserID, &h.EmployeeName, &h.EmployeeEmail, &h.WalletCurrency)
	if h.EmployeeName == "" {
		h.EmployeeName = h.EmployeeEmail
	}
	return h, err
}

// cardSearchText is what search matches: the owner's name and email, the
// card's name, last four and id, lower-cased.
func cardSearchText(e Employee, c CardEntry) string {
	return strings.ToLower(strings.Join([]string{e.FirstName, e.LastName, e.Email, c.CardName, c.Last4, c.ID}, " "))
}

// ReplaceWalletCards records a wallet's card list as just read: entries are
// inserted or updated, and entries of the wallet no longer listed (an
// expired reservation, say) are marked gone. The owner is the wallet's
// employee.
func (s *Store) ReplaceWalletCards(ctx context.Context, walletID string, cards []CardEntry, readAt time.Time) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var e Employee
		var err error
		e, err = scanEmployee(tx.QueryRow(ctx, `SELECT `+employeeColumns+` FROM employees
			WHERE id = (SELECT employee_id FROM wallets WHERE id = $1)`, walletID))
		if err != nil {
			return fmt.Errorf("store: cards of wallet %s: owner: %w", walletID, notFound(err))
		}
		ids := make([]string, 0, len(cards))
		for _, c := range cards {
			c.WalletID, c.EmployeeID = walletID, e.ID
			if err := upsertCard(ctx, tx, e, c, readAt); err != nil {
				return err
			}
			ids = append(ids, c.ID)
		}
		_, err = tx.Exec(ctx, `UPDATE cards SET gone = true, updated_at = now()
			WHERE wallet_id = $1 AND NOT (id = ANY($2)) AND NOT gone`, walletID, ids)
		if err != nil {
			return fmt.Errorf("store: cards of wallet %s: mark gone: %w", walletID, err)
		}
		return nil
	})
}

// UpsertCard records one card (after an issuance, or a detail read).
func (s *Store) UpsertCard(ctx context.Context, c CardEntry, readAt time.Time) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		e, err := scanEmployee(tx.QueryRow(ctx, `SELECT `+employeeColumns+` FROM employees WHERE id = $1`, c.EmployeeID))
		if err != nil {
			return fmt.Errorf("store: upsert card %s: owner: %w", c.ID, notFound(err))
		}
		return upsertCard(ctx, tx, e, c, readAt)
	})
}

func upsertCard(ctx context.Context, tx pgx.Tx, e Employee, c CardEntry, readAt time.Time) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO cards (id, wallet_id, employee_id, card_name, card_color, currency, type, last4, status, status_read_at,
			funded_at, reserved, proposal_id, proposal_status, gone, search_text)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, false, $15)
		ON CONFLICT (id) DO UPDATE SET
			wallet_id = EXCLUDED.wallet_id, employee_id = EXCLUDED.employee_id,
			card_name = CASE WHEN EXCLUDED.card_name = '' THEN cards.card_name ELSE EXCLUDED.card_name END,
			card_color = CASE WHEN EXCLUDED.card_color = '' THEN cards.card_color ELSE EXCLUDED.card_color END,
			currency = EXCLUDED.currency, type = EXCLUDED.type,
			last4 = CASE WHEN EXCLUDED.last4 = '' THEN cards.last4 ELSE EXCLUDED.last4 END,
			status = EXCLUDED.status, status_read_at = EXCLUDED.status_read_at,
			funded_at = coalesce(EXCLUDED.funded_at, cards.funded_at),
			reserved = EXCLUDED.reserved, proposal_id = EXCLUDED.proposal_id, proposal_status = EXCLUDED.proposal_status,
			gone = false,
			search_text = CASE WHEN EXCLUDED.card_name = '' THEN cards.search_text ELSE EXCLUDED.search_text END,
			updated_at = now()`,
		c.ID, c.WalletID, c.EmployeeID, c.CardName, c.CardColor, c.Currency, c.Type, c.Last4, c.Status, readAt,
		c.FundedAt, c.Reserved, c.ProposalID, c.ProposalStatus, cardSearchText(e, c))
	if err != nil {
		return fmt.Errorf("store: upsert card %s: %w", c.ID, err)
	}
	return nil
}

// CardByID loads one indexed card with its owner.
func (s *Store) CardByID(ctx context.Context, id string) (CardHit, error) {
	h, err := scanCardHit(s.db.QueryRow(ctx, `SELECT `+cardHitColumns+cardHitFrom+`WHERE c.id = $1`, id))
	if err != nil {
		return CardHit{}, fmt.Errorf("store: load card %s: %w", id, notFound(err))
	}
	return h, nil
}

// CardStatusRestamp is how long a status read again unchanged leaves the
// recorded time of the read as it is: a card page viewed many times a
// second would otherwise write, and lock, its card's row on every view.
// "Last seen" may then be up to this much older than the last live read.
const CardStatusRestamp = time.Minute

// StatusFresh reports whether recording status, read at readAt, would
// change nothing RecordCardStatus keeps: the same status, recorded less
// than CardStatusRestamp before.
func (h CardHit) StatusFresh(status string, readAt time.Time) bool {
	return h.Status == status && !h.StatusReadAt.IsZero() && readAt.Sub(h.StatusReadAt) < CardStatusRestamp
}

// RecordCardStatus keeps the status just read live (GET /cards/{cardId}),
// with the time of the read: a newer read wins, an older one is dropped,
// and the same status again is recorded at most once per
// CardStatusRestamp.
func (s *Store) RecordCardStatus(ctx context.Context, id, status string, readAt time.Time) error {
	_, err := s.db.Exec(ctx, `UPDATE cards SET status = $2, status_read_at = $3, updated_at = now()
		WHERE id = $1 AND status_read_at <= $3 AND (status IS DISTINCT FROM $2 OR status_read_at <= $3 - $4::interval)`,
		id, status, readAt, CardStatusRestamp)
	if err != nil {
		return fmt.Errorf("store: record card %s status: %w", id, err)
	}
	return nil
}

// WalletCardIDs returns the ids of a wallet's cards and requested cards in
// the index, gone ones included.
func (s *Store) WalletCardIDs(ctx context.Context, walletID string) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT id FROM cards WHERE wallet_id = $1 ORDER BY id`, walletID)
	if err != nil {
		return nil, fmt.Errorf("store: card ids of wallet %s: %w", walletID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: card ids of wallet %s: %w", walletID, err)
	}
	return ids, nil
}

// CardSearch selects indexed cards.
type CardSearch struct {
	// Query matches the owner's name or email, the card's name, last four
	// or id: every typed word (split at spaces and ASCII punctuation, as
	// the employee list's search splits) starts a word of them,
	// case-insensitively. Empty lists every card; text with no word in it
	// (only punctuation) matches none.
	Query string
	// EmployeeID, when set, keeps that employee's cards.
	EmployeeID int64
	// IncludeGone keeps entries no longer listed upstream.
	IncludeGone bool
	// After is the keyset cursor: the SortKey and ID of the last row of the
	// previous page.
	AfterKey, AfterID string
	Limit             int
}

// How card search matches typed words (card_search_words, migration
// 0061): the card words the longest typed word starts are read first, up
// to cardWalkMin+1 of them. At most cardWalkMin: the page is chosen among
// those cards, by id. More (a word most cards have, such as "card"): the
// index is walked in its order, each card probed for the words, until the
// page is full. Both are branches of one statement, gated by that count;
// the typed words reach the statement through init plans, so PostgreSQL
// plans it once per connection and keeps the plan (a search planned for
// its words cost more than it took to run).
const cardWalkMin = 500

// cardWordBounds are the range of words starting with $n, as init plans.
func cardWordBounds(n string) (lo, hi string) {
	return "(SELECT left(" + n + "::text, 100))", "(SELECT left(" + n + "::text, 100) || chr(1114111))"
}

// cardWordProbes is the condition that card c has, for each of words, a
// word starting with it: one read of card_search_words_card_key a word.
func cardWordProbes(words []string, arg func(any) string) []string {
	conds := make([]string, len(words))
	for i, w := range words {
		lo, hi := cardWordBounds(arg(w))
		conds[i] = "(SELECT true FROM card_search_words s WHERE s.card_id = c.id AND s.word >= " + lo +
			" AND s.word < " + hi + " LIMIT 1)"
	}
	return conds
}

// SearchCards returns indexed cards matching the search, ordered by owner
// name then card name, with keyset paging. It answers from the store alone.
func (s *Store) SearchCards(ctx context.Context, f CardSearch) ([]CardHit, string, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 50
	}
	q := strings.TrimSpace(f.Query)
	words := searchWords(strings.ToLower(q))
	if q != "" && len(words) == 0 {
		return nil, "", nil // only punctuation: no word to match
	}
	// Only the filters that are set become conditions, and the page size
	// is written into the statement: each combination is its own
	// statement, planned for what it asks.
	var (
		args []any
		cond = []string{"true"}
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.EmployeeID != 0 {
		cond = append(cond, "c.employee_id = "+arg(f.EmployeeID))
	}
	if !f.IncludeGone {
		cond = append(cond, "NOT c.gone")
	}
	if f.AfterKey != "" {
		cond = append(cond, "(c.search_text, c.id) > ("+arg(f.AfterKey)+"::text, "+arg(f.AfterID)+"::text)")
	}
	limit := strconv.Itoa(f.Limit)
	pageOf := func(extra ...string) string {
		return `SELECT * FROM cards c WHERE ` + strings.Join(append(extra, cond...), " AND ") +
			` ORDER BY c.search_text, c.id LIMIT ` + limit
	}
	// The page is chosen on cards alone, then joined to its owners: 50
	// rows are joined, not every match.
	with, page := "", pageOf()
	if len(words) > 0 {
		driver := longestWordIndex(words)
		lo, hi := cardWordBounds(arg(words[driver]))
		rest := append(slices.Clone(words[:driver]), words[driver+1:]...)
		with = `WITH cand AS MATERIALIZED (SELECT count(*) AS n, array_agg(card_id) AS ids
			FROM (SELECT card_id FROM card_search_words WHERE word >= ` + lo + ` AND word < ` + hi + `
				LIMIT ` + strconv.Itoa(cardWalkMin+1) + `) w) `
		byID := append([]string{"(SELECT n FROM cand) <= " + strconv.Itoa(cardWalkMin),
			"c.id = ANY((SELECT ids FROM cand)::text[])"}, cardWordProbes(rest, arg)...)
		walk := append([]string{"(SELECT n FROM cand) > " + strconv.Itoa(cardWalkMin)}, cardWordProbes(words, arg)...)
		page = `(` + pageOf(byID...) + `) UNION ALL (` + pageOf(walk...) + `)`
	}
	// The owner and the wallet are read row by row (the foreign keys
	// guarantee both): as plain joins, the plan cached for every word
	// hashed all the wallets for a page of five cards.
	rows, err := s.db.Query(ctx, with+`SELECT `+cardColumns+`, coalesce(e.service_user_id, ''), trim(e.first_name || ' ' || e.last_name), e.email,
			(SELECT w.currency FROM wallets w WHERE w.id = c.wallet_id), c.search_text
		FROM (`+page+`) c
		JOIN LATERAL (SELECT service_user_id, first_name, last_name, email FROM employees e WHERE e.id = c.employee_id LIMIT 1) e ON true
		ORDER BY c.search_text, c.id`, args...)
	if err != nil {
		return nil, "", fmt.Errorf("store: search cards: %w", err)
	}
	var lastKey string
	hits, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CardHit, error) {
		var h CardHit
		c := &h.CardEntry
		err := r.Scan(&c.ID, &c.WalletID, &c.EmployeeID, &c.CardName, &c.CardColor, &c.Currency, &c.Type, &c.Last4, &c.Status,
			&c.StatusReadAt, &c.FundedAt, &c.Reserved, &c.ProposalID, &c.ProposalStatus, &c.Gone, &c.CreatedAt, &c.UpdatedAt,
			&h.ServiceUserID, &h.EmployeeName, &h.EmployeeEmail, &h.WalletCurrency, &lastKey)
		if h.EmployeeName == "" {
			h.EmployeeName = h.EmployeeEmail
		}
		return h, err
	})
	if err != nil {
		return nil, "", fmt.Errorf("store: search cards: %w", err)
	}
	if len(hits) < f.Limit {
		lastKey = ""
	}
	return hits, lastKey, nil
}

// EmployeeHasHadCard reports whether any card (issued or requested) of the
// employee is in the index. spec: nin is "required the first time an owner
// is issued a card".
func (s *Store) EmployeeHasHadCard(ctx context.Context, employeeID int64) (bool, error) {
	var ok bool
	err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cards WHERE employee_id = $1)`, employeeID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("store: cards of employee %d: %w", employeeID, err)
	}
	return ok, nil
}

// WalletOwner is a wallet with its employee, for choosing where to issue a
// card.
type WalletOwner struct {
	Wallet   Wallet
	Employee Employee
}

// SearchWallets finds the wallets of employees (never the treasury's) whose
// name or email contains the query (case-insensitive), at most limit.
func (s *Store) SearchWallets(ctx context.Context, query string, limit int) ([]WalletOwner, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	q := strings.ToLower(strings.TrimSpace(query))
	like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(q) + "%"
	rows, err := s.db.Query(ctx, `
		SELECT w.id, w.employee_id, w.currency, w.display_currency, w.address, w.chain, w.status, w.owner_address, w.legacy,
			w.balance::text, w.balance_read_at, w.updated_at,
			e.id, e.kind, coalesce(e.service_user_id, ''), e.email, e.first_name, e.last_name, e.country, e.invite_state,
			e.linked_at, e.kyc_submitted, e.action_required, e.deleted_at, e.last_activity_at, e.created_at, e.updated_at
		FROM wallets w JOIN employees e ON e.id = w.employee_id
		WHERE e.kind = 'employee' AND e.service_user_id IS NOT NULL AND e.deleted_at IS NULL
		  AND ($1 = '' OR lower(e.first_name || ' ' || e.last_name || ' ' || e.email || ' ' || coalesce(e.service_user_id, '')) LIKE $2)
		ORDER BY lower(e.first_name || ' ' || e.last_name), e.id, w.currency
		LIMIT $3`, q, like, limit)
	if err != nil {
		return nil, fmt.Errorf("store: search wallets: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WalletOwner, error) {
		var wo WalletOwner
		var balance *string
		w, e := &wo.Wallet, &wo.Employee
		err := r.Scan(&w.ID, &w.EmployeeID, &w.Currency, &w.DisplayCurrency, &w.Address, &w.Chain, &w.Status,
			&w.OwnerAddress, &w.Legacy, &balance, &w.BalanceReadAt, &w.UpdatedAt,
			&e.ID, &e.Kind, &e.ServiceUserID, &e.Email, &e.FirstName, &e.LastName, &e.Country, &e.InviteState,
			&e.LinkedAt, &e.KYCSubmitted, &e.ActionRequired, &e.DeletedAt, &e.LastActivityAt, &e.CreatedAt, &e.UpdatedAt)
		return wo, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: search wallets: %w", err)
	}
	return list, nil
}
