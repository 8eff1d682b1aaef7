package cards_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/cards"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

type fakeQueue struct{ kinds []string }

func (q *fakeQueue) Insert(_ context.Context, args river.JobArgs, _ *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	q.kinds = append(q.kinds, args.Kind())
	return &rivertype.JobInsertResult{}, nil
}

func (q *fakeQueue) InsertTx(ctx context.Context, _ pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	return q.Insert(ctx, args, opts)
}

// manyWallets is an index store with n NGN wallets (and one EUR wallet,
// which holds no cards).
type manyWallets struct {
	n     int
	lists atomic.Int64
}

func (m *manyWallets) AllWallets(context.Context) ([]store.Wallet, error) {
	ws := []store.Wallet{{ID: "eur", EmployeeID: 1, Currency: "EURe", DisplayCurrency: "EUR"}}
	for i := range m.n {
		ws = append(ws, store.Wallet{ID: fmt.Sprintf("w-%d", i), EmployeeID: int64(i + 1), Currency: "CNGN", DisplayCurrency: "NGN"})
	}
	return ws, nil
}

func (m *manyWallets) EmployeeByID(_ context.Context, id int64) (store.Employee, error) {
	return store.Employee{ID: id, ServiceUserID: fmt.Sprintf("u-%d", id)}, nil
}

func (m *manyWallets) ReplaceWalletCards(context.Context, string, []store.CardEntry, time.Time) error {
	m.lists.Add(1)
	return nil
}

type noCards struct{}

func (noCards) ListCards(context.Context, string, string) ([]apiclient.Card, error) { return nil, nil }

// TestRefreshBeyondTheInlineLimitGoesToTheJob: a few wallets are re-read
// while the user waits; more than 300 are handed to the background job.
func TestRefreshBeyondTheInlineLimitGoesToTheJob(t *testing.T) {
	ctx := context.Background()
	pool, err := store.Open(ctx, webtest.MigratedDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st := store.New(pool)
	logger := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		wallets    int
		wantQueued bool
	}{{3, false}, {301, true}} {
		idx := &manyWallets{n: tc.wallets}
		q := &fakeQueue{}
		h := cards.New(handlers.Deps{Base: &handlers.Base{Logger: logger}, Store: st, Clock: time.Now, Logger: logger,
			Actions: handlers.NewActions(st, logger)})
		h.Queue = q
		h.Indexer = &cards.Indexer{Store: idx, API: noCards{}, Logger: logger, Now: time.Now}
		rec := httptest.NewRecorder()
		h.Refresh(rec, httptest.NewRequest(http.MethodPost, "/cards/refresh", nil))
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("%d wallets: %d", tc.wallets, rec.Code)
		}
		queued := len(q.kinds) == 1 && q.kinds[0] == "cards.refresh_index"
		if queued != tc.wantQueued || (tc.wantQueued && idx.lists.Load() != 0) || (!tc.wantQueued && idx.lists.Load() != int64(tc.wallets)) {
			t.Fatalf("%d wallets: queued %v, %d lists read", tc.wallets, q.kinds, idx.lists.Load())
		}
		rows, err := st.ListAudit(ctx, store.AuditFilter{Action: "cards.index_refresh", Limit: 1})
		if err != nil || len(rows) != 1 {
			t.Fatalf("audit %v %v", rows, err)
		}
		want := fmt.Sprintf("read %d wallets", tc.wallets)
		if tc.wantQueued {
			want = "queued for 301 wallets"
		}
		if !strings.Contains(rows[0].Detail, want) {
			t.Fatalf("audit detail %q, want %q", rows[0].Detail, want)
		}
	}
}
