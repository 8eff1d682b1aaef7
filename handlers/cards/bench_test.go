package cards_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/store/pgtest"
	"partneradmin/web/webtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// BenchmarkFreezeRoundTrip measures a freeze or unfreeze through the real
// router (session, permission, live read, the action ledger's begin, the
// write, the finish with its audit row) against the sandbox, with and
// without 100 ms injected on every upstream call. The same upstream calls
// (GET /cards/{id} then PUT .../status) are timed on their own, so
// overhead-ms/op is what the app adds on top of the upstream round trips.
func BenchmarkFreezeRoundTrip(b *testing.B) {
	for _, latency := range []int{0, 100} {
		b.Run(fmt.Sprintf("upstream+%dms", latency), func(b *testing.B) {
			env := webtest.New(b, webtest.Options{})
			c, _ := env.SignedIn(store.RoleSupport)
			resp := env.PostForm(c, "/cards/refresh", nil)
			resp.Body.Close()
			hits, _, err := env.Store.SearchCards(context.Background(), store.CardSearch{Query: "everyday"})
			if err != nil || len(hits) != 1 {
				b.Fatalf("card: %v %d", err, len(hits))
			}
			card := hits[0]
			if latency > 0 {
				addFault(b, env, latency)
			}
			h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}}
			var app, upstream time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				form := url.Values{"view": {"row"}, handlers.FormTokenField: {handlers.NewFormToken()}}
				resp := env.Do(c, http.MethodPost, "/cards/"+card.ID+"/freeze", strings.NewReader(form.Encode()), h)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				app += time.Since(start)
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `data-status="frozen"`) || strings.Contains(string(body), "nothing was sent") {
					b.Fatalf("freeze: %d %s", resp.StatusCode, body)
				}
				// The same upstream calls on their own (a live read, then
				// the write), which also unfreeze the card for the next
				// round.
				start = time.Now()
				if _, err := env.API.GetCard(context.Background(), card.ServiceUserID, card.ID); err != nil {
					b.Fatal(err)
				}
				if err := env.API.SetCardStatus(context.Background(), card.ServiceUserID, card.ID, apiclient.SetCardStatusRequest{Status: apiclient.CardActive}); err != nil {
					b.Fatal(err)
				}
				upstream += time.Since(start)
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(float64(app.Microseconds())/n/1000, "roundtrip-ms/op")
			b.ReportMetric(float64(upstream.Microseconds())/n/1000, "upstream-ms/op")
			b.ReportMetric(float64((app-upstream).Microseconds())/n/1000, "overhead-ms/op")
		})
	}
}

func addFault(b *testing.B, env *webtest.Env, latency int) {
	b.Helper()
	body := fmt.Sprintf(`{"route":"*","latencyMs":%d}`, latency)
	resp, err := http.Post(env.SandboxURL+"/_sandbox/faults", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("fault: %d", resp.StatusCode)
	}
}

// BenchmarkCardSearch10k searches the card index of 10,000 employees (one
// NGN wallet and 2–3 cards each, 25,000 cards) from the store, with the
// queries support types: names, emails, card names, last four, ids, partial
// words. It reports p50 and p99 latency. Budget: p99 ≤ 25 ms.
func BenchmarkCardSearch10k(b *testing.B) {
	ctx := context.Background()
	pool, err := store.Open(ctx, webtest.MigratedDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	st := store.New(pool)
	seed10k(b, st)
	queries := []string{"adaeze", "okafor", "chinedu eze", "emily.carter", "emily.carter1@bench.example", "fuel", "1234", "8765",
		"travel", "c-00012345", "e", "zz-no-match", "subscriptions", "bench.example", "ngoz", "ola", "team lunch"}
	durations := make([]time.Duration, 0, b.N)
	worst := map[string]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		start := time.Now()
		if _, _, err := st.SearchCards(ctx, store.CardSearch{Query: q, Limit: 50}); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		durations = append(durations, d)
		worst[q] = max(worst[q], d)
	}
	b.StopTimer()
	b.Logf("slowest answer per query: %v", worst)
	slices.Sort(durations)
	pct := func(p float64) float64 {
		return float64(durations[min(len(durations)-1, int(float64(len(durations))*p))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// seed10k writes 10,000 employees with varied names (80 first names × 80
// last names), their NGN wallets and 25,000 cards in bulk.
func seed10k(b *testing.B, st *store.Store) {
	b.Helper()
	ctx := context.Background()
	_, err := st.Pool().Exec(ctx, `
		WITH f AS (SELECT ARRAY['Adaeze','Chinedu','Funke','Ibrahim','Ngozi','Emily','Marcus','Sophia','Daniel','Olivia',
			'Lucia','Mateo','Valentina','Diego','Camila','Oliver','Amelia','Harry','Isla','George','Lena','Jonas','Mia',
			'Felix','Hannah','Tunde','Bola','Kemi','Segun','Yemi','Aisha','Musa','Zainab','Emeka','Obinna','Chioma',
			'Amaka','Ifeoma','Nnamdi','Uche','James','Mary','John','Linda','Robert','Susan','David','Karen','Paul',
			'Nancy','Mark','Lisa','Steven','Betty','Kevin','Sandra','Brian','Ashley','Jason','Donna','Ryan','Carol',
			'Eric','Ruth','Jacob','Sharon','Gary','Cynthia','Nicholas','Kathleen','Jonathan','Amy','Larry','Angela',
			'Justin','Helen','Scott','Anna','Frank','Brenda'] AS n),
		l AS (SELECT ARRAY['Okafor','Eze','Adeyemi','Musa','Nwosu','Carter','Johnson','Nguyen','Brooks','Reed',
			'Hernandez','Garcia','Lopez','Martinez','Torres','Smith','Jones','Taylor','Brown','Wilson','Schmidt','Muller',
			'Weber','Wagner','Becker','Bello','Okonkwo','Adebayo','Ogunleye','Balogun','Abubakar','Danjuma','Ibe',
			'Okeke','Obi','Nwachukwu','Chukwu','Onyeka','Uzor','Ekwueme','Miller','Davis','Rodriguez','Wright','Lewis',
			'Walker','Hall','Allen','Young','King','Scott','Green','Baker','Adams','Nelson','Hill','Campbell','Mitchell',
			'Roberts','Turner','Phillips','Parker','Evans','Edwards','Collins','Stewart','Morris','Murphy','Cook',
			'Rogers','Morgan','Peterson','Cooper','Bailey','Bell','Gomez','Kelly','Howard','Ward','Cox'] AS n)
		INSERT INTO employees (kind, service_user_id, email, first_name, last_name, invite_state)
		SELECT 'employee', 'u-' || lpad(g::text, 5, '0'),
			lower(f.n[1 + g % 80] || '.' || l.n[1 + (g / 80) % 80]) || g || '@bench.example',
			f.n[1 + g % 80], l.n[1 + (g / 80) % 80], 'linked'
		FROM generate_series(1, 10000) g, f, l;
		INSERT INTO wallets (id, employee_id, currency, display_currency)
		SELECT 'w-' || e.id, e.id, 'CNGN', 'NGN' FROM employees e WHERE e.email LIKE '%@bench.example';
		INSERT INTO cards (id, wallet_id, employee_id, card_name, card_color, currency, type, last4, status, search_text)
		SELECT 'c-' || lpad((e.id * 10 + k)::text, 8, '0'), 'w-' || e.id, e.id,
			(ARRAY['Everyday', 'Travel', 'Subscriptions', 'Fuel', 'Office', 'Team lunch'])[1 + (e.id + k) % 6],
			'#1E88E5', 'NGN', 'virtual', lpad(((e.id * 7919 + k * 104729) % 10000)::text, 4, '0'), 'active', ''
		FROM employees e, generate_series(1, 3) k
		WHERE e.email LIKE '%@bench.example' AND (k < 3 OR e.id % 2 = 0);
		UPDATE cards c SET search_text = lower(e.first_name || ' ' || e.last_name || ' ' || e.email || ' ' || c.card_name || ' ' || c.last4 || ' ' || c.id)
		FROM employees e WHERE e.id = c.employee_id;
		ANALYZE employees; ANALYZE wallets; ANALYZE cards;`)
	if err != nil {
		b.Fatal(err)
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM cards`).Scan(&n); err != nil || n < 20000 {
		b.Fatalf("seeded %d cards: %v", n, err)
	}
}
