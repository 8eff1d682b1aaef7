package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/apiclient/sandbox"
)

// seeded is what the bench put into the sandbox, in the order of the app's
// employees person00001, person00002, …: user i owns wallet i, which holds
// proposal i (open) and cards i*cardsPerWallet … .
type seeded struct {
	// Demo is the demo company as SeedDemo described it before the bench's
	// users joined it.
	Demo                                                sandbox.DemoInfo
	Users, Wallets, Addresses, Owners, Proposals, Cards []string
	CardLast4                                           []string
}

// openQueue is how many seeded proposals are still open, whatever the
// company's size: the queue a finance team works through is the work, and
// holding it fixed shows what the company's size alone costs the
// approvals sync. The other wallets' proposals are settled history.
const openQueue = 200

// object is one record of the sandbox's exported state, kept as JSON
// values so that every field the sandbox keeps survives the copy.
type object = map[string]any

// seedSandboxState builds the sandbox's starting state: the demo company
// (SeedDemo: treasury, admins, proposals in every state, cards) and, for n
// more employees, a user, one USDB wallet with one proposal (open for the
// first openQueue, settled for the others) and
// cardsPerWallet cards each, copied from the demo's own records. The state
// is written to path, from which the bench's sandbox starts: far faster
// than n × 7 API calls, and the records are the sandbox's own shapes.
func seedSandboxState(path string, n, cardsPerWallet int) (seeded, error) {
	sb, err := sandbox.New(sandbox.Options{Control: true, Local: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return seeded{}, err
	}
	defer sb.Close()
	demo, err := sandbox.SeedDemo(sb, sandbox.DemoOptions{})
	if err != nil {
		return seeded{}, fmt.Errorf("seed demo: %w", err)
	}
	rec := httptest.NewRecorder()
	sb.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/_sandbox/state", nil))
	if rec.Code != http.StatusOK {
		return seeded{}, fmt.Errorf("export sandbox state: %d %s", rec.Code, rec.Body.String())
	}
	var st map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		return seeded{}, fmt.Errorf("sandbox state: %w", err)
	}
	var seq int64
	tables := map[string]map[string]object{}
	for _, name := range []string{"users", "wallets", "proposals", "cards"} {
		t := map[string]object{}
		if err := json.Unmarshal(st[name], &t); err != nil {
			return seeded{}, fmt.Errorf("sandbox state %s: %w", name, err)
		}
		tables[name] = t
	}
	if err := json.Unmarshal(st["seq"], &seq); err != nil {
		return seeded{}, fmt.Errorf("sandbox state seq: %w", err)
	}
	users, wallets, proposals, cards := tables["users"], tables["wallets"], tables["proposals"], tables["cards"]

	// Templates: a demo employee's active USDB wallet and its user, an open
	// transfer waiting for approvals (and one waiting for signatures), an
	// issued card.
	var wT, uT, pT, psT, cT object
	for _, w := range sortedValues(wallets) {
		u := users[str(w["userId"])]
		if str(w["currency"]) == "USDB" && w["legacy"] != true && str(w["status"]) == "active" && u != nil && str(u["employeeId"]) != "" {
			wT, uT = w, u
			break
		}
	}
	for _, w := range sortedValues(wallets) {
		if wT == nil && str(w["currency"]) == "USDB" && w["legacy"] != true {
			wT, uT = w, users[str(w["userId"])]
		}
	}
	for _, p := range sortedValues(proposals) {
		switch {
		case pT == nil && str(p["type"]) == "TRANSFER" && str(p["status"]) == "PENDING_APPROVALS":
			pT = p
		case psT == nil && str(p["type"]) == "TRANSFER" && str(p["status"]) == "PENDING_SIGNATURES":
			psT = p
		}
	}
	for _, c := range sortedValues(cards) {
		if c["issued"] == true && strings.EqualFold(str(c["issuerStatus"]), "active") {
			cT = c
			break
		}
	}
	if wT == nil || uT == nil || pT == nil || cT == nil {
		return seeded{}, errors.New("the demo company lacks a USDB wallet, an open transfer or an active card to copy")
	}
	if psT == nil {
		psT = pT
	}

	now := time.Now().UTC()
	next := func() int64 { seq++; return seq }
	out := seeded{Demo: demo}
	for i := range n {
		num := i + 1
		uid, wid := uuid.NewString(), uuid.NewString()
		u := clone(uT)
		u["serviceUserId"], u["email"] = uid, personEmail(num)
		u["firstName"], u["lastName"] = fmt.Sprintf("First%d", num), fmt.Sprintf("Person%05d", num)
		u["employeeId"], u["phoneNumber"] = fmt.Sprintf("E%05d", num), ""
		u["createdAt"], u["seq"] = now.Add(-time.Duration(n-i)*time.Hour), next()
		delete(u, "deletedAt")
		users[uid] = u

		owner, addr := randomAddress(), randomAddress()
		w := clone(wT)
		w["id"], w["userId"], w["address"], w["userOwnerAddress"] = wid, uid, addr, owner
		w["signers"], w["threshold"], w["balance"] = []string{owner}, 1, "1000"
		w["createdAt"], w["seq"] = now.Add(-time.Duration(n-i)*time.Hour), next()
		wallets[wid] = w

		tmpl := pT
		if i%3 == 1 {
			tmpl = psT
		}
		pid := uuid.NewString()
		p := clone(tmpl)
		p["id"], p["walletId"] = pid, wid
		p["amount"] = fmt.Sprintf("%d.%02d", 10+i%490, i%100)
		p["description"] = fmt.Sprintf("Expense claim %d", num)
		if i > 0 {
			p["toUserId"] = out.Users[i-1] // the demo's recipient for the first
		}
		p["approvals"], p["signatures"] = []string{}, map[string]string{}
		at := now.Add(-time.Duration(i) * time.Minute)
		if i >= openQueue {
			// Settled weeks ago: the company's history, not its open work.
			p["status"] = "COMPLETED"
			p["signers"], p["signatures"] = []string{owner}, map[string]string{owner: "0x00"}
			at = now.Add(-time.Duration(i) * time.Minute).Add(-14 * 24 * time.Hour)
			p["submittedAt"] = at
		}
		p["createdAt"], p["updatedAt"], p["seq"] = at, at, next()
		proposals[pid] = p

		out.Users = append(out.Users, uid)
		out.Wallets = append(out.Wallets, wid)
		out.Addresses = append(out.Addresses, addr)
		out.Owners = append(out.Owners, owner)
		out.Proposals = append(out.Proposals, pid)
		for j := range cardsPerWallet {
			cid := uuid.NewString()
			last4 := fmt.Sprintf("%04d", (num*7+j*1311)%10000)
			c := clone(cT)
			c["id"], c["userId"], c["smartWalletId"], c["proposalId"] = cid, uid, wid, ""
			c["cardName"], c["last4"] = fmt.Sprintf("%s card %d", []string{"Travel", "Meals", "Fuel", "Office", "Software"}[j%5], num), last4
			c["createdAt"], c["seq"] = now.Add(-time.Duration(n-i)*time.Hour), next()
			cards[cid] = c
			out.Cards = append(out.Cards, cid)
			out.CardLast4 = append(out.CardLast4, last4)
		}
	}
	for name, t := range tables {
		b, err := json.Marshal(t)
		if err != nil {
			return seeded{}, err
		}
		st[name] = b
	}
	st["seq"], _ = json.Marshal(seq)
	b, err := json.Marshal(st)
	if err != nil {
		return seeded{}, err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return seeded{}, fmt.Errorf("write sandbox state: %w", err)
	}
	return out, nil
}

func personEmail(num int) string { return fmt.Sprintf("person%05d@load.example", num) }

func str(v any) string {
	s, _ := v.(string)
	return s
}

// clone copies a record's top level: the fields a copy changes are
// replaced, never modified in place, so nested values may be shared (they
// are only written out).
func clone(o object) object { return maps.Clone(o) }

func sortedValues(m map[string]object) []object {
	out := make([]object, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

func sortedKeys(m map[string]object) []string {
	return slices.Sorted(maps.Keys(m))
}

func randomAddress() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b) // never fails (Go 1.24+)
	return "0x" + hex.EncodeToString(b)
}

// seedParts is how many transactions the employees and their readiness
// are written in.
const seedParts = 20

// seedStep is one step of the seed and the time it took.
type seedStep struct {
	What string
	Took time.Duration
}

// seedApp writes into the app's database what a partner of this size has
// accumulated: employees with their readiness in every currency (the
// first len(s.Users) of them the sandbox's users, each with its wallet),
// events money events over the last year as the webhooks record them, and
// payrollRuns monthly payroll runs paying every wallet holder. Proposals and cards are not written here: the app's own jobs read
// them from the sandbox (the approvals sync, the card index refresh).
func seedApp(ctx context.Context, pool *pgxpool.Pool, s seeded, employees, events, payrollRuns int, say func(string, ...any)) ([]seedStep, error) {
	// A step with parts runs as that many statements, each its own
	// transaction, the k-th with $n = parts and $n+1 = k appended to its
	// arguments. Every row's triggers move the same few count rows
	// (readiness and dashboard counts), and a transaction that updates a
	// row thousands of times walks a longer chain of its own versions at
	// each update; in parts, the chains stay short.
	steps := []struct {
		what  string
		sql   string
		args  []any
		parts int
	}{
		{"employees", `
			INSERT INTO employees (kind, email, first_name, last_name, country, invite_state, service_user_id, linked_at, kyc_submitted, last_activity_at)
			SELECT 'employee', 'person' || lpad(i::text, greatest(5, length(i::text)), '0') || '@load.example', 'First' || i, 'Person' || lpad(i::text, greatest(5, length(i::text)), '0'),
				(ARRAY['GBR','USA','NGA','MEX','CAN'])[1 + i % 5],
				CASE WHEN i <= cardinality($2::text[]) THEN 'linked'
					ELSE (ARRAY['invited','linked','kyc_submitted','action_required','deleted'])[1 + i % 5] END,
				CASE WHEN i <= cardinality($2::text[]) THEN ($2::text[])[i]
					WHEN i % 5 = 0 THEN NULL ELSE 'svc-' || md5(i::text) END,
				CASE WHEN i <= cardinality($2::text[]) THEN now() - i * interval '1 hour' END,
				i % 5 = 2, now() - i * interval '1 minute'
			FROM generate_series(1, $1) AS i WHERE i % $3 = $4`, []any{employees, s.Users}, seedParts},
		{"readiness", `
			INSERT INTO employee_readiness (employee_id, currency, state, missing, read_at)
			SELECT e.id, c, (ARRAY['missing','ready','onboarding','active','failed','rejected'])[1 + (e.id + length(c)) % 6],
				CASE WHEN (e.id + length(c)) % 6 = 0 THEN ARRAY['employment.occupationCode', 'identificationNumbers.ssn'] ELSE '{}' END, now()
			FROM employees e CROSS JOIN unnest(ARRAY['USD','EUR','NGN','MXN','CAD']) AS c
			WHERE e.email LIKE '%@load.example' AND e.service_user_id IS NOT NULL AND e.id % $1 = $2`, nil, seedParts},
		{"wallets", `
			INSERT INTO wallets (id, employee_id, currency, display_currency, address, chain, status, owner_address, balance, balance_read_at)
			SELECT w.id, e.id, 'USDB', 'USD', w.addr, 'base', 'active', w.owner, 1000, now()
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(id, user_id, addr, owner)
			JOIN employees e ON e.service_user_id = w.user_id`, []any{s.Wallets, s.Users, s.Addresses, s.Owners}, 0},
		{"activity", `
			WITH src AS (
				SELECT g, now() - g * ($2::interval) AS at, ($1::text[])[1 + g % cardinality($1::text[])] AS uid,
					(ARRAY['card.transaction.created','card.transaction.created','employee.deposit.completed','employee.withdrawal.completed'])[1 + g % 4] AS et
				FROM generate_series(1, $3) AS g WHERE g % $4 = $5
			), ev AS (
				INSERT INTO webhook_events (webhook_id, source_event_id, event_type, event_timestamp, received_at, body, state, outcome,
					attempts, processed_count, processed_at, service_user_id)
				SELECT 'seed-' || g, 'src-seed-' || g, et, at, at,
					convert_to(json_build_object('id', 'seed-' || g, 'eventType', et, 'timestamp', at,
						'payload', json_build_object('serviceUserId', uid, 'amount', (5 + g % 300)::text || '.25', 'currency', 'USD'))::text, 'UTF8'),
					'processed', 'recorded', 1, 1, at, uid
				FROM src
				RETURNING id, webhook_id, event_type, event_timestamp, service_user_id
			)
			INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, fee, currency, reference, description, occurred_at)
			SELECT id, service_user_id,
				CASE event_type WHEN 'card.transaction.created' THEN 'card_transaction'
					WHEN 'employee.deposit.completed' THEN 'deposit' ELSE 'withdrawal' END,
				event_type, 'completed', (5 + substr(webhook_id, 6)::int % 300) + 0.25,
				CASE WHEN event_type = 'card.transaction.created' THEN 0.10 END, 'USD', webhook_id,
				CASE WHEN event_type = 'card.transaction.created' THEN 'Merchant ' || (substr(webhook_id, 6)::int % 97) ELSE '' END,
				event_timestamp
			FROM ev`, []any{s.Users, fmt.Sprintf("%d milliseconds", 365*86400*1000/max(events, 1)), events}, seedParts},
		{"payroll runs", `
			INSERT INTO payroll_runs (name, source, state, created_by, created_at, started_at, finished_at, rows_total, rows_valid, totals)
			SELECT to_char(now() - m * interval '1 month', 'FMMonth YYYY') || ' salaries', 'csv', 'sent', 'owner@bench.example',
				now() - m * interval '1 month', now() - m * interval '1 month', now() - m * interval '1 month' + interval '20 minutes',
				cardinality($1::text[]), cardinality($1::text[]), ARRAY['USDB', (cardinality($1::text[]) * 1250)::text || '.00']
			FROM generate_series(1, $2) AS m`, []any{s.Users, payrollRuns}, 0},
		{"payroll rows", `
			INSERT INTO payroll_rows (run_id, line, recipient, name, service_user_id, amount_text, amount, currency_text, currency, description)
			SELECT r.id, i, 'person' || lpad(i::text, greatest(5, length(i::text)), '0') || '@load.example', 'First' || i || ' Person' || lpad(i::text, greatest(5, length(i::text)), '0'),
				($1::text[])[i], '1250.00', 1250.00, 'USD', 'USDB', r.name
			FROM payroll_runs r CROSS JOIN generate_series(1, cardinality($1::text[])) AS i`, []any{s.Users}, 0},
	}
	var took []seedStep
	for _, st := range steps {
		t0 := time.Now()
		for k := range max(st.parts, 1) {
			args := st.args
			if st.parts > 0 {
				args = append(slices.Clip(args), st.parts, k)
			}
			if _, err := pool.Exec(ctx, st.sql, args...); err != nil {
				return nil, fmt.Errorf("seed %s: %w", st.what, err)
			}
		}
		took = append(took, seedStep{What: st.what, Took: time.Since(t0)})
		say("seeded %s in %s", st.what, time.Since(t0).Round(time.Millisecond))
	}
	// A steady-state database: autovacuum has gathered statistics and set
	// the visibility maps.
	t0 := time.Now()
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return nil, fmt.Errorf("seed: vacuum: %w", err)
	}
	return append(took, seedStep{What: "VACUUM ANALYZE", Took: time.Since(t0)}), nil
}
