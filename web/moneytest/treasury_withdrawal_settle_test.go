package moneytest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// signedWithdrawal is a crypto withdrawal the owner's device has signed.
type signedWithdrawal struct {
	ID         int64
	UpstreamID string
	Poll       string // the sign panel's live state, /sign-requests/{rid}
	SignReqID  int64
	Page       string
}

// startSignedWithdrawal sends a crypto withdrawal of the treasury's USDB
// wallet from the form and has the owner's device sign it.
func startSignedWithdrawal(t *testing.T, env *webtest.Env, c *http.Client) signedWithdrawal {
	t.Helper()
	ctx := context.Background()
	form, _ := webtest.WithdrawalForm(t, env, c, webtest.TreasuryWallet(t, env, "USDB").ID)
	form.Set("route", "base:USDC")
	form.Set("address", webtest.WithdrawalDestination)
	form.Set("confirm_tail", webtest.WithdrawalAddressTail(form.Get("address")))
	resp := env.PostForm(c, "/treasury/withdrawal", form)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("withdraw: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	poll, _ := doc.Find(`#sign-state`).Attr("hx-get")
	rid, err := strconv.ParseInt(strings.TrimPrefix(poll, "/sign-requests/"), 10, 64)
	if err != nil || link == "" {
		t.Fatalf("link %q, poll %q", link, poll)
	}
	var w signedWithdrawal
	if err := env.Store.Pool().QueryRow(ctx, `SELECT id, upstream_id FROM crypto_withdrawals WHERE sign_request_id = $1`, rid).
		Scan(&w.ID, &w.UpstreamID); err != nil || w.UpstreamID == "" {
		t.Fatalf("withdrawal row: %+v %v", w, err)
	}
	w.Poll, w.SignReqID, w.Page = poll, rid, "/treasury/withdrawal/"+strconv.FormatInt(w.ID, 10)
	u, _ := url.Parse(link)
	code, req := webtest.DeviceGet(t, env, u.Path)
	if code != http.StatusOK {
		t.Fatalf("device get: %d %v", code, req)
	}
	code, ans := webtest.DevicePost(t, env, u.Path, webtest.SignHash(t, webtest.OwnerKey(t, env, "treasury"), req["hashToSign"]).Hex())
	if code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("device post: %d %v", code, ans)
	}
	return w
}

// withdrawalEvent waits for the processed delivery of a withdrawal event
// naming reference.
func withdrawalEvent(t *testing.T, env *webtest.Env, eventType, reference string) store.WebhookEvent {
	t.Helper()
	var ev store.WebhookEvent
	webtest.WaitFor(t, eventType+" of "+reference+" processed", 30*time.Second, func() bool {
		var id int64
		err := env.Store.Pool().QueryRow(context.Background(), `SELECT id FROM webhook_events
			WHERE event_type = $1 AND convert_from(body, 'UTF8')::jsonb -> 'payload' ->> 'reference' = $2 ORDER BY id DESC LIMIT 1`, eventType, reference).Scan(&id)
		if err != nil {
			return false
		}
		ev, err = env.Store.WebhookEventByID(context.Background(), id)
		return err == nil && ev.State != store.EventQueued
	})

	return ev
}

func settleAudit(t *testing.T, env *webtest.Env) []store.AuditEntry {
	t.Helper()
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "crypto_withdrawal.settle"})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// withdrawalPage reads the withdrawal's page: its state, its label, its
// error, and the sign panel's state and label.
func withdrawalPage(t *testing.T, env *webtest.Env, c *http.Client, path string) (state, label, errText, signState, signLabel string) {
	t.Helper()
	resp := env.Get(c, path)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", path, resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	state, _ = doc.Find(`[data-testid="withdrawal-state"]`).Attr("data-state")
	signState, _ = doc.Find(`[data-testid="sign-panel"] [data-testid="sign-state"]`).Attr("data-state")
	if doc.Find(`[data-testid="withdrawal-link-form"]`).Length() != 0 {
		t.Fatalf("%s offers a new signing link once the withdrawal settled", path)
	}
	return state, webtest.TestID(doc, "withdrawal-state"), webtest.TestID(doc, "withdrawal-record-error"),
		signState, webtest.TestID(doc, "sign-state-label")
}

// signFragment reads the sign panel's live state as its poll does.
func signFragment(t *testing.T, env *webtest.Env, c *http.Client, poll string) (state, label, errText string, polls bool) {
	t.Helper()
	doc := webtest.Doc(t, env.Do(c, http.MethodGet, poll, nil, http.Header{"HX-Request": {"true"}}))
	sel := doc.Find(`[data-testid="sign-state"]`)
	state, _ = sel.Attr("data-state")
	_, polls = sel.Attr("hx-get")
	return state, webtest.TestID(doc, "sign-state-label"), webtest.TestID(doc, "sign-error"), polls
}

// TestCryptoWithdrawalCompletesFromItsWebhook: after the owner's device
// signs and the sandbox settles the withdrawal, the sandbox's
// employee.withdrawal.completed delivery is processed: the withdrawal is
// recorded completed with one audit row by the webhook actor, its page and
// its sign panel say completed and stop polling. A replay of the delivery,
// the same delivery sent again, a late failed event for it and an event of
// another wallet with its reference change nothing and write no audit row.
func TestCryptoWithdrawalCompletesFromItsWebhook(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)
	w := startSignedWithdrawal(t, env, c)

	// Signed, not settled: the page and the panel say submitted.
	if st, _, _, sst, _ := withdrawalPage(t, env, c, w.Page); st != string(store.WithdrawalAwaitingSignature) || sst != store.SignSubmitted {
		t.Fatalf("before settling: withdrawal %q, sign %q", st, sst)
	}
	if len(settleAudit(t, env)) != 0 {
		t.Fatal("settled before the rail settled")
	}

	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", map[string]any{})
	ev := withdrawalEvent(t, env, apiclient.EventEmployeeWithdrawalCompleted, w.UpstreamID)
	wantNote := "crypto withdrawal " + strconv.FormatInt(w.ID, 10) + " marked completed"
	if ev.State != store.EventProcessed || !strings.Contains(ev.Outcome, wantNote) {
		t.Fatalf("event %s: %s %q", ev.WebhookID, ev.State, ev.Outcome)
	}
	rec, err := env.Store.CryptoWithdrawalByID(ctx, w.ID)
	if err != nil || rec.State != store.WithdrawalCompleted || rec.SettledEventID != ev.ID || rec.SettledAt == nil || rec.FailureReason != "" {
		t.Fatalf("withdrawal after the webhook: %+v %v", rec, err)
	}
	if sr, err := env.Store.SignRequestByID(ctx, w.SignReqID); err != nil || sr.State != store.SignCompleted {
		t.Fatalf("sign request after the webhook: %q %v", sr.State, err)
	}
	audit := settleAudit(t, env)
	if len(audit) != 1 || audit[0].Outcome != store.OutcomeOK || audit[0].Actor.Email != "webhook" ||
		audit[0].Target != "crypto_withdrawal:"+strconv.FormatInt(w.ID, 10) || !strings.Contains(audit[0].Detail, ev.WebhookID) {
		t.Fatalf("audit %+v", audit)
	}

	// The page and the sign panel say completed; the panel stops polling.
	st, label, errText, sst, slabel := withdrawalPage(t, env, c, w.Page)
	if st != string(store.WithdrawalCompleted) || !strings.Contains(label, "completed") || errText != "" || sst != store.SignCompleted || slabel != "completed" {
		t.Fatalf("page: %q %q %q, sign %q %q", st, label, errText, sst, slabel)
	}
	if sst, slabel, serr, polls := signFragment(t, env, c, w.Poll); sst != store.SignCompleted || slabel != "completed" || serr != "" || polls {
		t.Fatalf("sign fragment: %q %q %q polls=%v", sst, slabel, serr, polls)
	}
	// The panel reads the withdrawal's outcome, not only the request's last
	// step: a relay answer recorded after the webhook (submitted) does not
	// take it back.
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE sign_requests SET state = 'submitted' WHERE id = $1`, w.SignReqID); err != nil {
		t.Fatal(err)
	}
	if sst, slabel, _, polls := signFragment(t, env, c, w.Poll); sst != store.SignCompleted || slabel != "completed" || polls {
		t.Fatalf("sign fragment over a late relay answer: %q %q polls=%v", sst, slabel, polls)
	}

	// A replay (through the event log) runs processing again: nothing changes.
	resp := env.PostForm(c, "/events/"+strconv.FormatInt(ev.ID, 10)+"/replay", url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("replay: %d", resp.StatusCode)
	}
	webtest.WaitFor(t, "the replay processed", 30*time.Second, func() bool {
		e, err := env.Store.WebhookEventByID(ctx, ev.ID)
		return err == nil && e.ProcessedCount >= 2
	})

	replayed, _ := env.Store.WebhookEventByID(ctx, ev.ID)
	if replayed.State != store.EventProcessed || !strings.Contains(replayed.Outcome, "already completed by this event; nothing changed") {
		t.Fatalf("replayed event: %s %q", replayed.State, replayed.Outcome)
	}
	// The sender delivers the same delivery again: a duplicate, not processed.
	if code := webtest.MustDeliver(t, env, secret, ev.WebhookID, ev.Body); code != http.StatusOK {
		t.Fatalf("redelivery: %d", code)
	}
	if e, _ := env.Store.WebhookEventByID(ctx, ev.ID); e.Duplicates != 1 || e.ProcessedCount != 2 {
		t.Fatalf("redelivery: %d duplicates, processed %d times", e.Duplicates, e.ProcessedCount)
	}

	// A late failed event for it (out of order) and an event of another
	// wallet that happens to carry its reference change nothing either.
	rec0, _ := env.Store.CryptoWithdrawalByID(ctx, w.ID)
	late := webtest.EventBody("wh-cw-late", apiclient.EventEmployeeWithdrawalFailed, map[string]any{
		"userId": rec0.UserID, "serviceUserId": rec0.UserID, "smartWalletId": rec0.WalletID, "amount": "1", "currency": rec0.Currency,
		"rail": "crypto_withdrawal", "reference": w.UpstreamID, "reason": "late and wrong"})

	other := webtest.EventBody("wh-cw-other", apiclient.EventEmployeeWithdrawalFailed, map[string]any{
		"userId": rec0.UserID, "serviceUserId": rec0.UserID, "smartWalletId": "wallet-of-someone-else", "amount": "1",
		"rail": "payout", "reference": w.UpstreamID, "reason": "not this one"})

	for id, body := range map[string][]byte{"wh-cw-late": late, "wh-cw-other": other} {
		if code := webtest.MustDeliver(t, env, secret, id, body); code != http.StatusOK {
			t.Fatalf("deliver %s: %d", id, code)
		}
	}
	for id, want := range map[string]string{
		"wh-cw-late":  "was already completed (event " + strconv.FormatInt(ev.ID, 10) + "); nothing changed",
		"wh-cw-other": "not ours, nothing else to do",
	} {
		var e store.WebhookEvent
		webtest.WaitFor(t, id+" processed", 30*time.Second, func() bool {
			e = webtest.EventByWebhookID(t, env, id)
			return e.State != store.EventQueued
		})

		if e.State != store.EventProcessed || e.Error != "" || !strings.Contains(e.Outcome, want) {
			t.Fatalf("%s: %s %q %q", id, e.State, e.Outcome, e.Error)
		}
	}
	after, _ := env.Store.CryptoWithdrawalByID(ctx, w.ID)
	if after.State != store.WithdrawalCompleted || after.SettledEventID != ev.ID || !after.SettledAt.Equal(*rec.SettledAt) {
		t.Fatalf("withdrawal changed: %+v", after)
	}
	if n := len(settleAudit(t, env)); n != 1 {
		t.Fatalf("%d settle audit rows after the replay and the later events, want 1", n)
	}
}

// TestCryptoWithdrawalFailsFromItsWebhook: the rail fails the signed
// withdrawal (the sandbox refunds it and sends employee.withdrawal.failed
// with a reason): the withdrawal is recorded failed with the reason, audited
// as failed, and the page and the sign panel say failed with the reason in
// words.
func TestCryptoWithdrawalFailsFromItsWebhook(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/fail-next", map[string]any{"rail": "crypto"})
	w := startSignedWithdrawal(t, env, c)

	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", map[string]any{})
	ev := withdrawalEvent(t, env, apiclient.EventEmployeeWithdrawalFailed, w.UpstreamID)
	const reason = "The transfer reverted on chain; the amount was refunded"
	if ev.State != store.EventProcessed || !strings.Contains(ev.Outcome, "marked failed: "+reason) {
		t.Fatalf("event %s: %s %q", ev.WebhookID, ev.State, ev.Outcome)
	}
	rec, err := env.Store.CryptoWithdrawalByID(ctx, w.ID)
	if err != nil || rec.State != store.WithdrawalRailFailed || rec.FailureReason != reason || rec.SettledEventID != ev.ID {
		t.Fatalf("withdrawal after the webhook: %+v %v", rec, err)
	}
	if sr, err := env.Store.SignRequestByID(ctx, w.SignReqID); err != nil || sr.State != store.SignRefused || !strings.Contains(sr.Error, reason) {
		t.Fatalf("sign request after the webhook: %q %q %v", sr.State, sr.Error, err)
	}
	audit := settleAudit(t, env)
	if len(audit) != 1 || audit[0].Outcome != store.OutcomeFailed || audit[0].Actor.Email != "webhook" || !strings.Contains(audit[0].Detail, reason) {
		t.Fatalf("audit %+v", audit)
	}

	st, label, errText, sst, slabel := withdrawalPage(t, env, c, w.Page)
	if st != string(store.WithdrawalRailFailed) || !strings.Contains(label, "failed") || !strings.Contains(errText, "failed on the rail after it was signed: "+reason) ||
		sst != "failed" || slabel != "failed" {
		t.Fatalf("page: %q %q %q, sign %q %q", st, label, errText, sst, slabel)
	}
	sst, slabel, serr, polls := signFragment(t, env, c, w.Poll)
	if sst != "failed" || slabel != "failed" || !strings.Contains(serr, reason) || polls {
		t.Fatalf("sign fragment: %q %q %q polls=%v", sst, slabel, serr, polls)
	}

	// Replayed: no second audit row, the failure stands.
	if err := env.App.Webhooks().ProcessEvent(ctx, ev.ID, true); err != nil {
		t.Fatal(err)
	}
	if n := len(settleAudit(t, env)); n != 1 {
		t.Fatalf("%d settle audit rows after the replay, want 1", n)
	}
	if after, _ := env.Store.CryptoWithdrawalByID(ctx, w.ID); after.State != store.WithdrawalRailFailed || after.FailureReason != reason {
		t.Fatalf("withdrawal after the replay: %+v", after)
	}
}

// TestWithdrawalEventOfNoCryptoWithdrawalIsNotOurs: a completed withdrawal
// of another rail (or another app) is recorded in the activity feed as
// before, and its log entry says there was nothing else to do.
func TestWithdrawalEventOfNoCryptoWithdrawalIsNotOurs(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	body := webtest.EventBody("wh-cw-unknown", apiclient.EventEmployeeWithdrawalCompleted, map[string]any{
		"userId": "user-elsewhere", "serviceUserId": "user-elsewhere", "smartWalletId": "wallet-elsewhere", "amount": "12.50",
		"currency": "USDB", "rail": "nigeria", "reference": "payout-not-ours"})

	if code := webtest.MustDeliver(t, env, secret, "wh-cw-unknown", body); code != http.StatusOK {
		t.Fatalf("deliver: %d", code)
	}
	ev := webtest.EventByWebhookID(t, env, "wh-cw-unknown")
	if err := env.App.Webhooks().ProcessEvent(ctx, ev.ID, false); err != nil {
		t.Fatal(err)
	}
	ev = webtest.EventByWebhookID(t, env, "wh-cw-unknown")
	if ev.State != store.EventProcessed || ev.Error != "" ||
		!strings.Contains(ev.Outcome, "no crypto withdrawal of this app has reference payout-not-ours: not ours, nothing else to do") {
		t.Fatalf("event: %s %q %q", ev.State, ev.Outcome, ev.Error)
	}
	if webtest.ActivityCount(t, env, ev.ID) != 1 || len(settleAudit(t, env)) != 0 {
		t.Fatalf("activity %d, settle audit %d", webtest.ActivityCount(t, env, ev.ID), len(settleAudit(t, env)))
	}
}
