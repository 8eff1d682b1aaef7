package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Five concurrent posts of one subscription form send one PATCH and write
// one audit row; a fresh form is a new action.
func TestWebhookSettingsFormSendsOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	owner, _ := env.SignedIn(store.RoleOwner)
	cfg, err := env.API.GetWebhookConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"callback_url": {cfg.CallbackURL}, "events": {apiclient.EventEmployeeLinked}, "active": {"true"},
		"form_token": {webtest.WebhookFormToken(env, owner)}}
	env.Sandbox.ResetRequestCounts()
	for code := range env.PostFormAtOnce(owner, "/settings/webhooks/update", form, 5) {
		if code != http.StatusSeeOther {
			t.Errorf("update: %d", code)
		}
	}
	if n := env.Sandbox.RequestCount("PATCH", "/v1/webhooks/config"); n != 1 {
		t.Fatalf("%d PATCH calls, want 1", n)
	}
	if rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "webhooks.subscription.update"}); len(rows) != 1 {
		t.Fatalf("%d audit rows, want 1", len(rows))
	}
	form.Set("form_token", webtest.WebhookFormToken(env, owner))
	resp := env.PostForm(owner, "/settings/webhooks/update", form)
	resp.Body.Close()
	if n := env.Sandbox.RequestCount("PATCH", "/v1/webhooks/config"); resp.StatusCode != http.StatusSeeOther || n != 2 {
		t.Fatalf("a fresh form: %d, %d PATCH calls", resp.StatusCode, n)
	}
	// Without a token nothing is sent.
	form.Del("form_token")
	resp = env.PostForm(owner, "/settings/webhooks/update", form)
	resp.Body.Close()
	if n := env.Sandbox.RequestCount("PATCH", "/v1/webhooks/config"); resp.StatusCode != http.StatusBadRequest || n != 2 {
		t.Fatalf("no token: %d, %d PATCH calls", resp.StatusCode, n)
	}
}

// The API records the change and the answer is lost: the app reads the
// subscription back and finishes the action as done, with no second PATCH.
func TestWebhookSettingsLostAnswerIsReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	owner, _ := env.SignedIn(store.RoleOwner)
	cfg, err := env.API.GetWebhookConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{
		"method": "PATCH", "route": "/v1/webhooks/config", "drop": true, "after": true, "times": 1})

	env.Sandbox.ResetRequestCounts()
	form := url.Values{"callback_url": {cfg.CallbackURL}, "events": {apiclient.EventEmployeeLinked, apiclient.EventCardTransactionCreated},
		"active": {"true"}, "form_token": {webtest.WebhookFormToken(env, owner)}}
	resp := env.PostForm(owner, "/settings/webhooks/update", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("update with a lost answer: %d", resp.StatusCode)
	}
	if n := env.Sandbox.RequestCount("PATCH", "/v1/webhooks/config"); n != 1 {
		t.Fatalf("%d PATCH calls, want 1", n)
	}
	a, err := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token"))
	if err != nil || a.State != store.ActionDone {
		t.Fatalf("action %+v %v", a, err)
	}
	sub, _ := env.Store.WebhookSubscription(ctx)
	if len(sub.Events) != 2 {
		t.Fatalf("the mirror did not take the read-back change: %v", sub.Events)
	}
	// The API refuses: the action is refused, with its words, nothing kept.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{
		"method": "PATCH", "route": "/v1/webhooks/config", "status": 400, "message": "events must contain valid names", "times": 1})

	form.Set("form_token", webtest.WebhookFormToken(env, owner))
	resp = env.PostForm(owner, "/settings/webhooks/update", form)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("refused update: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	if msg := webtest.TestID(doc, "events-error"); msg == "" {
		t.Fatalf("the API's words are not next to the field: %q", doc.Find("form").Text())
	}
	if a, _ := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token")); a.State != store.ActionRefused {
		t.Fatalf("refused action: %+v", a)
	}
}

// An audit write that fails fails the change: the mirror keeps what it had.
func TestWebhookSettingsAuditFailureChangesNothing(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	owner, _ := env.SignedIn(store.RoleOwner)
	cfg, _ := env.API.GetWebhookConfig(ctx)
	before, _ := env.Store.WebhookSubscription(ctx)
	token := webtest.WebhookFormToken(env, owner)
	refuseAudit(t, env)
	resp := env.PostForm(owner, "/settings/webhooks/update", url.Values{"callback_url": {cfg.CallbackURL},
		"events": {apiclient.EventEmployeeLinked}, "active": {"true"}, "form_token": {token}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("update with a failing audit: %d", resp.StatusCode)
	}
	after, _ := env.Store.WebhookSubscription(ctx)
	if len(after.Events) != len(before.Events) {
		t.Fatalf("the mirror changed without its audit row: %v → %v", before.Events, after.Events)
	}
	if a, _ := env.Store.ActionByKey(ctx, "form:"+token); a.State != store.ActionBegun {
		t.Fatalf("action after a failed finish: %+v (want begun, for the recovery job)", a)
	}
}

// refuseAudit makes every audit write fail from now on.
func refuseAudit(t *testing.T, env *webtest.Env) {
	t.Helper()
	if _, err := env.Store.Pool().Exec(context.Background(), `
		CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'audit refused'; END $$;
		CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit();`); err != nil {
		t.Fatal(err)
	}
}
