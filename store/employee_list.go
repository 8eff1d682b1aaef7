package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// Sort orders of the employee list.
const (
	SortName     = "name"
	SortActivity = "activity"
)

// EmployeeFilter selects employees for the list, the readiness matrix and
// their CSV exports. Pages are keyset-paged: After is the Next cursor of the
// previous page.
type EmployeeFilter struct {
	Search      string // words starting words of the name, email or serviceUserId
	InviteState string // one of the Invite* states, or ""
	Currency    string // with Readiness: employees whose cell in Currency is in that state
	Readiness   string
	Sort        string // SortName (default) or SortActivity
	After       string
	Limit       int
}

// EmployeePage is one page of the list.
type EmployeePage struct {
	Employees []Employee
	Next      string // "" on the last page
}

// nameExpr is the expression of the index employees_name_key.
const nameExpr = `lower(first_name || ' ' || last_name)`

// maxSearchWords bounds how many typed words a search matches on.
const maxSearchWords = 5

// searchWords splits typed text into the words a search matches, the way
// the migration's employee_search_words_of splits what it indexes: at runs
// of ASCII characters that are neither letters nor digits (spaces, "@",
// ".", "-", "_", ...). Letters outside ASCII are word characters. Case is
// left to the database's employee_search_fold, which both sides go through.
// Repeated words are dropped; at most maxSearchWords are kept.
func searchWords(q string) []string {
	words := strings.FieldsFunc(q, func(r rune) bool {
		return r < utf8.RuneSelf && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
	out := words[:0]
	for _, w := range words {
		if !slices.Contains(out, w) && len(out) < maxSearchWords {
			out = append(out, w)
		}
	}
	return out
}

// employeeSearchCond is the condition that an employees row matches the
// typed text q: for every typed word, one of the employee's words (name,
// email, serviceUserId) starts with it, case-insensitively. Each word is a
// range read on employee_search_words' primary key. Text with no word in it
// (only punctuation) matches no one.
func employeeSearchCond(q string, arg func(any) string) string {
	words := searchWords(q)
	if len(words) == 0 {
		return "false"
	}
	return wordsCond(words, arg)
}

// wordsCond is employeeSearchCond's condition for words already split. The
// words are plain parameters: PostgreSQL plans the statement for them.
func wordsCond(words []string, arg func(any) string) string {
	conds := make([]string, len(words))
	for i, w := range words {
		p := "left(employee_search_fold(" + arg(w) + "), 100)"
		conds[i] = "employees.id IN (SELECT employee_id FROM employee_search_words WHERE word >= " + p +
			" AND word < " + p + " || chr(1114111))"
	}
	return strings.Join(conds, " AND ")
}

// How the list matches typed text depends on how many employees' words
// the longest typed word starts (counted up to searchWalkMin+1):
//   - at most searchIDCap: their ids are read, then the page among them;
//   - more than searchWalkMin, and no other filter: the list is walked in its
//     order, each row checked, until the page is full (a word of one in 20
//     of 10,000 people fills it within about 1,000 rows; the first letter
//     typed, within a few dozen);
//   - in between: one statement that PostgreSQL plans for the words.
//
// The first two keep PostgreSQL's cached generic plan whatever the words (a
// search planned afresh cost more than it took to run); the third needs the
// words' statistics to choose between those two shapes.
const (
	searchIDCap   = 200
	searchWalkMin = 500
)

type searchMode int

const (
	searchPlanned searchMode = iota // one statement planned for its words
	searchByID                      // the candidates' ids, then the page
	searchWalk                      // the list's order, each row checked
)

// listSearch is how the list's query matches q's words (see searchIDCap).
type listSearch struct {
	words []string
	mode  searchMode
	ids   []int64  // searchByID: the longest word's candidates
	rest  []string // searchByID: the other words
}

// wordBounds are the range of words starting with $n, computed in init
// plans: the planner never sees the word, so the plan is the same for
// every word and stays cached.
func wordBounds(n string) (lo, hi string) {
	return "(SELECT left(employee_search_fold(" + n + "), 100))", "(SELECT left(employee_search_fold(" + n + "), 100) || chr(1114111))"
}

// searchCandidatesSQL counts, up to searchWalkMin+1, the employees' words
// that start with $1, with their employees' ids when there are at most
// searchIDCap.
var searchCandidatesSQL = func() string {
	lo, hi := wordBounds("$1")
	return `SELECT count(*), CASE WHEN count(*) <= ` + strconv.Itoa(searchIDCap) + ` THEN array_agg(employee_id) END
	FROM (SELECT employee_id FROM employee_search_words WHERE word >= ` + lo + ` AND word < ` + hi + `
		LIMIT ` + strconv.Itoa(searchWalkMin+1) + `) c`
}()

// wordProbes is the condition that the row has, for each of words, a word
// starting with it, checked row by row on employee_search_words' second
// index (a subquery in the condition is never turned into a join).
func wordProbes(words []string, arg func(any) string) string {
	conds := make([]string, len(words))
	for i, w := range words {
		lo, hi := wordBounds(arg(w))
		conds[i] = "(SELECT true FROM employee_search_words s WHERE s.employee_id = employees.id AND s.word >= " + lo +
			" AND s.word < " + hi + " LIMIT 1)"
	}
	return strings.Join(conds, " AND ")
}

// planSearch decides how the list's query for f matches its search (see
// searchIDCap).
func (s *Store) planSearch(ctx context.Context, f EmployeeFilter) (listSearch, error) {
	ls := listSearch{words: searchWords(f.Search)}
	if len(ls.words) == 0 {
		return ls, nil
	}
	driver := longestWordIndex(ls.words)
	var n int
	var ids []int64
	if err := s.db.QueryRow(ctx, searchCandidatesSQL, ls.words[driver]).Scan(&n, &ids); err != nil {
		return ls, fmt.Errorf("store: search employees: %w", err)
	}
	switch {
	case n <= searchIDCap:
		ls.mode, ls.ids = searchByID, ids // no one: NULL, and ANY(NULL) keeps no row
		ls.rest = append(slices.Clone(ls.words[:driver]), ls.words[driver+1:]...)
	case n > searchWalkMin && f.InviteState == "" && (f.Currency == "" || f.Readiness == ""):
		// Another filter could leave few of the walked rows: the planner,
		// knowing both, chooses better.
		ls.mode = searchWalk
	}
	return ls, nil
}

// longestWordIndex is the index of the longest of words (the first of
// equals): the likeliest to start few people's words.
func longestWordIndex(words []string) int {
	longest := 0
	for i, w := range words {
		if utf8.RuneCountInString(w) > utf8.RuneCountInString(words[longest]) {
			longest = i
		}
	}
	return longest
}

func longestWord(words []string) string { return words[longestWordIndex(words)] }

// ListEmployees returns one page of employees (not treasury users).
func (s *Store) ListEmployees(ctx context.Context, f EmployeeFilter) (EmployeePage, error) {
	ls, err := s.planSearch(ctx, f)
	if err != nil {
		return EmployeePage{}, err
	}
	sql, args, err := employeeListSQLWith(f, "", ls)
	if err != nil {
		return EmployeePage{}, err
	}
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return EmployeePage{}, fmt.Errorf("store: list employees: %w", err)
	}
	var list []Employee
	var nameKeys []string
	for rows.Next() {
		e, key, err := scanListed(rows)
		if err != nil {
			rows.Close()
			return EmployeePage{}, fmt.Errorf("store: list employees: %w", err)
		}
		list, nameKeys = append(list, e), append(nameKeys, key)
	}
	if err := rows.Err(); err != nil {
		return EmployeePage{}, fmt.Errorf("store: list employees: %w", err)
	}
	page := EmployeePage{Employees: list}
	if limit := listLimit(f.Limit); len(list) > limit {
		page.Employees = list[:limit]
		page.Next = cursorOf(f.Sort, page.Employees[limit-1], nameKeys[limit-1])
	}
	return page, nil
}

// scanListed reads a row of the list's query with scanEmployee: the
// employee, then its nameExpr, then the extra columns into extra.
func scanListed(row pgx.Row, extra ...any) (Employee, string, error) {
	var nameKey string
	e, err := scanEmployee(rowThen{row, append([]any{&nameKey}, extra...)})
	return e, nameKey, err
}

// rowThen is a row whose Scan fills then after the caller's destinations.
type rowThen struct {
	pgx.Row
	then []any
}

func (r rowThen) Scan(dest ...any) error { return r.Row.Scan(append(dest, r.then...)...) }

// EmployeePageWithReadiness is a page of the list with every shown
// employee's readiness cells (ReadAt left zero), read in one query.
type EmployeePageWithReadiness struct {
	EmployeePage
	Readiness map[int64]map[string]ReadinessCell
	// ChangedAt is EmployeesChangedAt, read in the same statement.
	ChangedAt time.Time
}

// readinessAgg packs an employee's cells into one text: cells separated by
// \x1d, fields by \x1e, missing fields by \x1f. One round trip for a page
// instead of two; the correlated subquery is a primary-key range read.
const readinessAgg = `coalesce((SELECT string_agg(r.currency || chr(30) || r.state || chr(30) ||
	array_to_string(r.missing, chr(31)) || chr(30) || translate(r.detail, chr(29) || chr(30) || chr(31), '   '), chr(29))
	FROM employee_readiness r WHERE r.employee_id = employees.id), '')`

// changedAtColumn is EmployeesChangedAt as a column: an init plan that runs
// once per statement, so the page and its change stamp take one round trip.
const changedAtColumn = `(SELECT max(last_activity_at) FROM employees)`

// ListEmployeesWithReadiness is ListEmployees with the readiness cells of
// the page's employees, for the list and the matrix.
func (s *Store) ListEmployeesWithReadiness(ctx context.Context, f EmployeeFilter) (EmployeePageWithReadiness, error) {
	page, _, err := s.listWithReadiness(ctx, f, nil)
	return page, err
}

// ReadinessMatrixPage is ListEmployeesWithReadiness with the whole
// workforce's readiness counts in currencies (ReadinessCounts), both read
// in one round trip, for the matrix's page and its chart.
func (s *Store) ReadinessMatrixPage(ctx context.Context, f EmployeeFilter, currencies []string) (EmployeePageWithReadiness, map[string]map[string]int, error) {
	return s.listWithReadiness(ctx, f, currencies)
}

// listWithReadiness reads a page with its readiness and, when currencies
// is not nil, the kept readiness counts in the same batch.
func (s *Store) listWithReadiness(ctx context.Context, f EmployeeFilter, currencies []string) (EmployeePageWithReadiness, map[string]map[string]int, error) {
	ls, err := s.planSearch(ctx, f)
	if err != nil {
		return EmployeePageWithReadiness{}, nil, err
	}
	sql, args, err := employeeListSQLWith(f, ", "+readinessAgg+", "+changedAtColumn, ls)
	if err != nil {
		return EmployeePageWithReadiness{}, nil, err
	}
	n := listLimit(f.Limit) + 1
	out := EmployeePageWithReadiness{Readiness: make(map[int64]map[string]ReadinessCell, n)}
	list, nameKeys := make([]Employee, 0, n), make([]string, 0, n)
	batch := &pgx.Batch{}
	batch.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var packed string
			e, key, err := scanListed(rows, &packed, &out.ChangedAt)
			if err != nil {
				return err
			}
			list, nameKeys = append(list, e), append(nameKeys, key)
			if packed != "" {
				out.Readiness[e.ID] = unpackReadiness(e.ID, packed)
			}
		}
		return rows.Err()
	})
	var counts map[string]map[string]int
	if currencies != nil {
		queueReadinessCounts(batch, currencies, &counts)
	}
	if err := s.db.SendBatch(ctx, batch).Close(); err != nil {
		return out, nil, fmt.Errorf("store: list employees: %w", err)
	}
	out.Employees = list
	if limit := listLimit(f.Limit); len(list) > limit {
		out.Employees = list[:limit]
		out.Next = cursorOf(f.Sort, out.Employees[limit-1], nameKeys[limit-1])
	}
	if len(list) == 0 {
		// No row carried the stamp.
		if out.ChangedAt, err = s.EmployeesChangedAt(ctx); err != nil {
			return out, nil, err
		}
	}
	return out, counts, nil
}

// unpackReadiness reads an employee's cells as readinessAgg packed them.
func unpackReadiness(id int64, packed string) map[string]ReadinessCell {
	cells := make(map[string]ReadinessCell, 5)
	for c := range strings.SplitSeq(packed, "\x1d") {
		parts := strings.SplitN(c, "\x1e", 4)
		if len(parts) != 4 {
			continue
		}
		cell := ReadinessCell{EmployeeID: id, Currency: parts[0], State: parts[1], Detail: parts[3]}
		if parts[2] != "" {
			cell.Missing = strings.Split(parts[2], "\x1f")
		}
		cells[cell.Currency] = cell
	}
	return cells
}

// ExplainEmployeeSearch returns PostgreSQL's plans of the list's
// statements for f: the candidates' read first when the search takes two
// steps (for the benchmark, which shows that search uses an index).
func (s *Store) ExplainEmployeeSearch(ctx context.Context, f EmployeeFilter) (string, error) {
	ls, err := s.planSearch(ctx, f)
	if err != nil {
		return "", err
	}
	var out []string
	explain := func(sql string, args ...any) error {
		rows, err := s.db.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF) "+sql, args...)
		if err != nil {
			return fmt.Errorf("store: explain: %w", err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("store: explain: %w", err)
		}
		out = append(out, lines...)
		return nil
	}
	if len(ls.words) > 0 {
		out = append(out, "-- step 1: how many employees' words the longest word starts")
		if err := explain(searchCandidatesSQL, longestWord(ls.words)); err != nil {
			return "", err
		}
		out = append(out, "-- step 2: the page ("+[]string{"planned for the words", "among those employees, by id", "walking the list's order"}[ls.mode]+")")
	}
	sql, args, err := employeeListSQLWith(f, "", ls)
	if err != nil {
		return "", err
	}
	if err := explain(sql, args...); err != nil {
		return "", err
	}
	return strings.Join(out, "\n"), nil
}

func listLimit(n int) int {
	if n <= 0 || n > 1000 {
		return 50
	}
	return n
}

func employeeListSQLWith(f EmployeeFilter, extraColumns string, ls listSearch) (string, []any, error) {
	var where []string
	args := []any{}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where = append(where, "kind = 'employee'")
	switch {
	case strings.TrimSpace(f.Search) == "":
	case len(ls.words) == 0:
		where = append(where, "false") // only punctuation: no word to match
	case ls.mode == searchByID:
		where = append(where, "employees.id = ANY("+arg(ls.ids)+")")
		if len(ls.rest) > 0 {
			where = append(where, wordProbes(ls.rest, arg))
		}
	case ls.mode == searchWalk:
		where = append(where, wordProbes(ls.words, arg))
	default:
		where = append(where, wordsCond(ls.words, arg))
	}
	if f.InviteState != "" {
		where = append(where, "invite_state = "+arg(f.InviteState))
	}
	if f.Currency != "" && f.Readiness != "" {
		if f.Readiness == ReadyNotStarted {
			where = append(where, "NOT EXISTS (SELECT 1 FROM employee_readiness r WHERE r.employee_id = employees.id AND r.currency = "+
				arg(f.Currency)+" AND r.state <> 'not_started')")
		} else {
			where = append(where, "EXISTS (SELECT 1 FROM employee_readiness r WHERE r.employee_id = employees.id AND r.currency = "+
				arg(f.Currency)+" AND r.state = "+arg(f.Readiness)+")")
		}
	}
	order := nameExpr + ", id"
	if f.Sort == SortActivity {
		order = "last_activity_at DESC, id DESC"
	}
	if f.After != "" {
		c, err := parseCursor(f.After)
		if err != nil {
			return "", nil, err
		}
		if f.Sort == SortActivity {
			where = append(where, "(last_activity_at, id) < ("+arg(c.at)+", "+arg(c.id)+")")
		} else {
			where = append(where, "("+nameExpr+", id) > ("+arg(c.name)+", "+arg(c.id)+")")
		}
	}
	// nameExpr is selected for the cursor (scanListed).
	sql := `SELECT ` + employeeColumns + `, ` + nameExpr + extraColumns + ` FROM employees WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY ` + order + ` LIMIT ` + strconv.Itoa(listLimit(f.Limit)+1)
	return sql, args, nil
}

type cursor struct {
	name string
	at   time.Time
	id   int64
}

// cursorOf is the cursor after e. nameKey is e's nameExpr as PostgreSQL
// computed it: lower() folds letters by the database's locale (a C-locale
// database folds only ASCII), so a key folded in Go could sort elsewhere
// than the row and skip or repeat people.
func cursorOf(sort string, e Employee, nameKey string) string {
	var raw string
	if sort == SortActivity {
		raw = "a|" + e.LastActivityAt.UTC().Format(time.RFC3339Nano) + "|" + strconv.FormatInt(e.ID, 10)
	} else {
		raw = "n|" + nameKey + "|" + strconv.FormatInt(e.ID, 10)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// ErrBadCursor is returned for a page cursor that this app did not make.
var ErrBadCursor = fmt.Errorf("store: bad page cursor")

func parseCursor(s string) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, ErrBadCursor
	}
	raw := string(b)
	kind, rest, ok := strings.Cut(raw, "|")
	i := strings.LastIndexByte(rest, '|')
	if !ok || i < 0 {
		return cursor{}, ErrBadCursor
	}
	id, err := strconv.ParseInt(rest[i+1:], 10, 64)
	if err != nil {
		return cursor{}, ErrBadCursor
	}
	c := cursor{id: id}
	switch kind {
	case "n":
		c.name = rest[:i]
	case "a":
		if c.at, err = time.Parse(time.RFC3339Nano, rest[:i]); err != nil {
			return cursor{}, ErrBadCursor
		}
	default:
		return cursor{}, ErrBadCursor
	}
	return c, nil
}

// EmployeesChangedAt is the latest activity of any employee: every change
// the lists show (invite, link, flag, readiness read, deletion) moves it.
// Polling pages compare it to skip re-rendering when nothing changed; it is
// one read of the employees_activity_key index.
func (s *Store) EmployeesChangedAt(ctx context.Context) (time.Time, error) {
	var t *time.Time
	if err := s.db.QueryRow(ctx, `SELECT max(last_activity_at) FROM employees`).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("store: employees changed at: %w", err)
	}
	if t == nil {
		return time.Time{}, nil
	}
	return *t, nil
}
