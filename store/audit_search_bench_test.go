package store_test

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/store/pgtest"
)

// BenchmarkAuditSearch reads the first page of the audit log, searched and
// filtered, over AUDIT_ROWS rows (default 100,000), with the trigram index
// of migration 0035 and then without it (the substring cases), and prints
// the time per page:
//
//	go test -run '^$' -bench AuditSearch -benchtime 20x ./store/
func BenchmarkAuditSearch(b *testing.B) {
	ctx := context.Background()
	n := 100_000
	if s := os.Getenv("AUDIT_ROWS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	pool, err := store.Open(ctx, pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		b.Fatal(err)
	}
	// A log shaped like the app's: 20 staff and the system, 24 actions,
	// targets with UUIDs and numbers, details in words with ids, over 90
	// days.
	start := time.Now()
	if _, err := pool.Exec(ctx, `
		INSERT INTO audit_log (at, actor_email, action, target, outcome, detail)
		SELECT now() - (i * interval '77 seconds'),
			CASE WHEN i % 21 = 0 THEN '' ELSE 'staff' || (i % 21) || '@partner.example' END,
			(ARRAY['proposal.approve','proposal.reject','proposal.create','card.freeze','card.unfreeze','card.limits','card.cancel',
				'employee.invite','employee.reinvite','employee.delete','employee.reactivate','auth.login','auth.login_failed',
				'staff.create','staff.role','sign_request.create','sign.submit','payroll.send','payroll.approve','webhooks.event.replay',
				'treasury.transfer','crypto_withdrawal.create','approver.link','cards.index_refresh'])[1 + i % 24],
			CASE i % 4 WHEN 0 THEN 'proposal:' || md5(i::text)::uuid WHEN 1 THEN 'employee:' || (i % 5000)
				WHEN 2 THEN 'card:' || md5((i * 7)::text)::uuid ELSE 'staff:' || (i % 21) END,
			CASE WHEN i % 50 = 0 THEN 'failed' ELSE 'ok' END,
			CASE i % 3 WHEN 0 THEN 'as wallet admin ' || md5((i * 3)::text) || '; 1 of 2 approvals; status PENDING_APPROVALS'
				WHEN 1 THEN 'invite sent to person' || (i % 5000) || '@example.com'
				ELSE 'sign request ' || i || ' for owner 0x' || md5((i * 11)::text) || ', expires 2026-11-22T12:00:00Z' END
		FROM generate_series(1, $1) AS i`, n); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE audit_log`); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d audit rows written and analysed in %s", n, time.Since(start).Round(time.Millisecond))
	st := store.New(pool)
	var rare string
	if err := pool.QueryRow(ctx, `SELECT substr(target, 15, 10) FROM audit_log WHERE target LIKE 'proposal:%' ORDER BY id LIMIT 1 OFFSET 777`).Scan(&rare); err != nil {
		b.Fatal(err)
	}
	substring := []struct {
		name string
		f    store.AuditFilter
	}{
		{"q=one_row", store.AuditFilter{Query: rare}},
		{"q=common", store.AuditFilter{Query: "approve"}},
		{"q=common_old_rows", store.AuditFilter{Query: "approve", To: time.Now().AddDate(0, 0, -60)}},
		{"q=two_letters", store.AuditFilter{Query: "zq"}},
		{"q=no_match", store.AuditFilter{Query: "nothing-like-this"}},
		{"q=person_email", store.AuditFilter{Query: "person4321@"}},
	}
	filters := []struct {
		name string
		f    store.AuditFilter
	}{
		{"newest", store.AuditFilter{}},
		{"actor", store.AuditFilter{Actor: "STAFF7@partner.example"}},
		{"action", store.AuditFilter{Action: "card.cancel"}},
		{"target", store.AuditFilter{Target: "employee:1234"}},
		{"dates", store.AuditFilter{From: time.Now().AddDate(0, 0, -31), To: time.Now().AddDate(0, 0, -30)}},
		{"actor+q", store.AuditFilter{Actor: "staff3@partner.example", Query: "person"}},
	}
	if os.Getenv("AUDIT_EXPLAIN") != "" {
		for _, q := range []string{rare, "approve", "zq", "person4321@"} {
			rows, err := pool.Query(ctx, `EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM audit_log WHERE (coalesce(nullif(actor_email, ''), 'system') || E'\n' || action || E'\n' || target || E'\n' || detail) ILIKE $1 ORDER BY id DESC LIMIT 50`, "%"+q+"%")
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: %s", q, line)
			}
			rows.Close()
		}
	}
	run := func(prefix, name string, f store.AuditFilter) {
		f.Limit = 50
		b.Run(prefix+name, func(b *testing.B) {
			rows := 0
			for b.Loop() {
				list, err := st.ListAudit(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				rows = len(list)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/page")
			b.ReportMetric(float64(rows), "rows")
		})
	}
	for _, c := range filters {
		run("", c.name, c.f)
	}
	for _, c := range substring {
		run("trgm/", c.name, c.f)
	}
	if _, err := pool.Exec(ctx, `DROP INDEX audit_log_search_trgm`); err != nil {
		b.Fatal(err)
	}
	for _, c := range substring {
		run("no_index/", c.name, c.f)
	}
}
