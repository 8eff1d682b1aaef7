package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	Search      string // name, email or serviceUserId, anywhere in them
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

// searchExpr is the expression the trigram index employees_search_trgm
// covers; the query must use it verbatim for the planner to pick the index.
const searchExpr = `lower(first_name || ' ' || last_name || ' ' || email || ' ' || coalesce(service_user_id, ''))`

// nameExpr is the expression of the index employees_name_key.
const nameExpr = `lower(first_name || ' ' || last_name)`

// escapeLike escapes LIKE's wildcards in user input.
func escapeLike(s string) string {
	if !strings.ContainsAny(s, `\%_`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '\\' || r == '%' || r == '_' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ListEmployees returns one page of employees (not treasury users).
func (s *Store) ListEmployees(ctx context.Context, f EmployeeFilter) (EmployeePage, error) {
	sql, args, err := employeeListSQL(f)
	if err != nil {
		return EmployeePage{}, err
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return EmployeePage{}, fmt.Errorf("store: list employees: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Employee, error) { return scanEmployee(r) })
	if err != nil {
		return EmployeePage{}, fmt.Errorf("store: list employees: %w", err)
	}
	page := EmployeePage{Employees: list}
	if limit := listLimit(f.Limit); len(list) > limit {
		page.Employees = list[:limit]
		page.Next = cursorOf(f.Sort, page.Employees[limit-1])
	}
	return page, nil
}

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
	sql, args, err := employeeListSQLWith(f, ", "+readinessAgg+", "+changedAtColumn)
	if err != nil {
		return EmployeePageWithReadiness{}, err
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return EmployeePageWithReadiness{}, fmt.Errorf("store: list employees: %w", err)
	}
	out := EmployeePageWithReadiness{Readiness: map[int64]map[string]ReadinessCell{}}
	var list []Employee
	for rows.Next() {
		var e Employee
		var packed string
		err := rows.Scan(&e.ID, &e.Kind, &e.ServiceUserID, &e.Email, &e.FirstName, &e.LastName, &e.Country, &e.InviteState,
			&e.LinkedAt, &e.KYCSubmitted, &e.ActionRequired, &e.DeletedAt, &e.LastActivityAt, &e.CreatedAt, &e.UpdatedAt, &packed, &out.ChangedAt)
		if err != nil {
			rows.Close()
			return out, fmt.Errorf("store: list employees: %w", err)
		}
		list = append(list, e)
		if packed == "" {
			continue
		}
		cells := map[string]ReadinessCell{}
		for _, c := range strings.Split(packed, "\x1d") {
			parts := strings.SplitN(c, "\x1e", 4)
			if len(parts) != 4 {
				continue
			}
			cell := ReadinessCell{EmployeeID: e.ID, Currency: parts[0], State: parts[1], Detail: parts[3]}
			if parts[2] != "" {
				cell.Missing = strings.Split(parts[2], "\x1f")
			}
			cells[cell.Currency] = cell
		}
		out.Readiness[e.ID] = cells
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("store: list employees: %w", err)
	}
	out.Employees = list
	if limit := listLimit(f.Limit); len(list) > limit {
		out.Employees = list[:limit]
		out.Next = cursorOf(f.Sort, out.Employees[limit-1])
	}
	if len(list) == 0 {
		// No row carried the stamp.
		if out.ChangedAt, err = s.EmployeesChangedAt(ctx); err != nil {
			return out, err
		}
	}
	return out, nil
}

// ExplainEmployeeSearch returns PostgreSQL's plan of the list query (for the
// benchmark, which shows that search uses an index).
func (s *Store) ExplainEmployeeSearch(ctx context.Context, f EmployeeFilter) (string, error) {
	sql, args, err := employeeListSQL(f)
	if err != nil {
		return "", err
	}
	rows, err := s.pool.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF) "+sql, args...)
	if err != nil {
		return "", fmt.Errorf("store: explain: %w", err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("store: explain: %w", err)
	}
	return strings.Join(lines, "\n"), nil
}

func listLimit(n int) int {
	if n <= 0 || n > 1000 {
		return 50
	}
	return n
}

func employeeListSQL(f EmployeeFilter) (string, []any, error) { return employeeListSQLWith(f, "") }

func employeeListSQLWith(f EmployeeFilter, extraColumns string) (string, []any, error) {
	var where []string
	args := []any{}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where = append(where, "kind = 'employee'")
	if q := strings.ToLower(strings.TrimSpace(f.Search)); q != "" {
		where = append(where, searchExpr+" LIKE "+arg("%"+escapeLike(q)+"%"))
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
	sql := `SELECT ` + employeeColumns + extraColumns + ` FROM employees WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY ` + order + ` LIMIT ` + strconv.Itoa(listLimit(f.Limit)+1)
	return sql, args, nil
}

type cursor struct {
	name string
	at   time.Time
	id   int64
}

func cursorOf(sort string, e Employee) string {
	var raw string
	if sort == SortActivity {
		raw = "a|" + e.LastActivityAt.UTC().Format(time.RFC3339Nano) + "|" + strconv.FormatInt(e.ID, 10)
	} else {
		raw = "n|" + strings.ToLower(e.FirstName+" "+e.LastName) + "|" + strconv.FormatInt(e.ID, 10)
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
	if err := s.pool.QueryRow(ctx, `SELECT max(last_activity_at) FROM employees`).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("store: employees changed at: %w", err)
	}
	if t == nil {
		return time.Time{}, nil
	}
	return *t, nil
}
