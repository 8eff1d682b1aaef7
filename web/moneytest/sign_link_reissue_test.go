package moneytest

import (
	"net/http"
	"net/url"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestSignLinkIsReissuedOnEveryRail: on the bank payout, the EUR SEPA
// payout and the crypto withdrawal (one way to issue a link serves them
// all), "Issue a new signing link" on the record's page answers 201 with a
// new link, and the earlier link stops working on the device; a role
// without the treasury permission is refused and nothing is issued.
func TestSignLinkIsReissuedOnEveryRail(t *testing.T) {
	t.Parallel()
	for _, rail := range []struct {
		name, path, testID string
		// form is a confirmed form of the rail, ready to send.
		form func(env *webtest.Env, c *http.Client) url.Values
	}{
		{"bank payout", "/money-out/payout/confirm", "payout-link", func(env *webtest.Env, c *http.Client) url.Values {
			form, _ := webtest.PayoutReview(t, env, c, "KEN", "ken-kcb", "", "1234567890", "75")
			return form
		}},
		{"EUR SEPA payout", "/money-out/sepa", "sepa-link", func(env *webtest.Env, c *http.Client) url.Values {
			webtest.SEPAReady(t, env)
			form := webtest.SEPAForm(t, env, c)
			form.Set("confirm", "1")
			return form
		}},
		{"crypto withdrawal", "/treasury/withdrawal", "withdrawal-link", func(env *webtest.Env, c *http.Client) url.Values {
			form, _ := webtest.WithdrawalForm(t, env, c, webtest.TreasuryWallet(t, env, "USDB").ID)
			form.Set("route", "base:USDC")
			form.Set("address", webtest.WithdrawalDestination)
			form.Set("confirm_tail", webtest.WithdrawalAddressTail(webtest.WithdrawalDestination))
			return form
		}},
	} {
		t.Run(rail.name, func(t *testing.T) {
			env := webtest.New(t, webtest.Options{})
			c, _ := env.SignedIn(store.RoleOwner)
			hr, _ := env.SignedIn(store.RoleHRAdmin)
			form := rail.form(env, c)
			resp := env.PostForm(c, rail.path, form)
			doc := webtest.Doc(t, resp)
			first := doc.Find(`[data-testid="sign-link"]`).AttrOr("value", "")
			if resp.StatusCode != http.StatusCreated || first == "" {
				t.Fatalf("send: %d, link %q", resp.StatusCode, first)
			}
			// The same form again leads to the record's page, which offers
			// a new link (the first is shown only once).
			resp = env.PostForm(c, rail.path, form)
			resp.Body.Close()
			page := resp.Header.Get("Location")
			if resp.StatusCode != http.StatusSeeOther || page == "" {
				t.Fatalf("the form again: %d, location %q", resp.StatusCode, page)
			}
			doc = webtest.Doc(t, env.Get(c, page))
			if action := doc.Find(`[data-testid="`+rail.testID+`-form"]`).AttrOr("action", ""); action != page+"/sign-request" ||
				webtest.TestID(doc, rail.testID+"-submit") != "Issue a new signing link" {
				t.Fatalf("record page: form action %q, button %q", action, webtest.TestID(doc, rail.testID+"-submit"))
			}

			resp = env.PostForm(hr, page+"/sign-request", url.Values{})
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("HR admin: %d", resp.StatusCode)
			}
			if n := len(webtest.AuditRows(t, env, "sign_request.create")); n != 1 {
				t.Fatalf("%d links issued before the new one, want 1", n)
			}

			resp = env.PostForm(c, page+"/sign-request", url.Values{})
			doc = webtest.Doc(t, resp)
			second := doc.Find(`[data-testid="sign-link"]`).AttrOr("value", "")
			if resp.StatusCode != http.StatusCreated || second == "" || second == first ||
				doc.Find(`[data-testid="`+rail.testID+`-form"]`).Length() != 0 {
				t.Fatalf("new link: %d, %q (first %q)", resp.StatusCode, second, first)
			}
			if n := len(webtest.AuditRows(t, env, "sign_request.create")); n != 2 {
				t.Fatalf("%d sign_request.create audit rows, want 2", n)
			}
			old, _ := url.Parse(first)
			if code, _ := webtest.DeviceGet(t, env, old.Path); code != http.StatusGone {
				t.Fatalf("the earlier link on the device: %d, want 410", code)
			}
			cur, _ := url.Parse(second)
			if code, _ := webtest.DeviceGet(t, env, cur.Path); code != http.StatusOK {
				t.Fatalf("the new link on the device: %d", code)
			}
		})
	}
}
