package sandbox

import (
	"testing"
	"time"

	"partneradmin/apiclient/ethsig"
)

// The demo seed has employees in the middle of each currency's journey, and
// they move on as a partner would move them.
func TestSeedDemo_RailJourneysInProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	info, err := SeedDemo(e.s, DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]string{}
	for _, emp := range info.Employees {
		id[emp.FirstName] = emp.ServiceUserID
	}
	key := info.APIKey
	get := func(name, path string) resp {
		t.Helper()
		return e.want(e.call("GET", "/v1/users/"+id[name]+path, key, nil), 200)
	}
	status := func(name, cur string) string {
		t.Helper()
		return get(name, "/onboarding/status").data()["currencies"].(map[string]any)[cur].(map[string]any)["status"].(string)
	}
	for _, c := range []struct{ name, cur, want string }{
		{"Adaeze", "NGN", "active"}, {"Chinedu", "USD", "pending"}, {"Funke", "USD", "provisioning"}, {"Marcus", "USD", "failed"},
		{"Marcus", "CAD", "pending"}, {"Daniel", "USD", "rejected"}, {"Lucía", "MXN", "approved"}, {"Mateo", "MXN", "proposed"},
		{"Lena", "EUR", "active"}, {"Jonas", "EUR", "pending"},
	} {
		if got := status(c.name, c.cur); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.name, c.cur, got, c.want)
		}
	}
	if r := get("Daniel", "/vba/usd").data(); r["reason"] == nil || r["account"] != nil {
		t.Errorf("rejected account %v", r)
	}
	if rd := get("Amelia", "/kyc/readiness").data(); rd["canActivate"] != true {
		t.Errorf("Amelia readiness %v", rd)
	}
	if rd := get("Ngozi", "/kyc/readiness").data(); rd["canActivate"] != true || rd["currency"] != "NGN" {
		t.Errorf("Ngozi readiness %v", rd)
	}
	mx := get("Lucía", "/bank-accounts/deposit-accounts/MXN").data()["accounts"].([]any)
	if len(mx) != 1 || len(mx[0].(map[string]any)["clabe"].(string)) != 18 {
		t.Errorf("Lucía CLABE %v", mx)
	}
	legacy := false
	for _, w := range get("Lucía", "/smart-wallets/account/balances").list() {
		legacy = legacy || (w.(map[string]any)["currency"] == "MXNe" && w.(map[string]any)["balance"] == "125.4")
	}
	if !legacy {
		t.Error("no legacy MXNe balance for Lucía")
	}
	// Adaeze's offramp awaits approval.
	var offramp map[string]any
	for _, w := range get("Adaeze", "/smart-wallets/account/wallets").list() {
		wm := w.(map[string]any)
		if wm["currency"] == "CNGN" {
			for _, p := range get("Adaeze", "/smart-wallets/"+wm["id"].(string)+"/proposals").list() {
				if pm := p.(map[string]any); pm["type"] == typeNigerianOfframp {
					offramp = pm
				}
			}
		}
	}
	if offramp == nil || offramp["status"] != statusPendingApprovals {
		t.Errorf("Adaeze offramp %v", offramp)
	}
	// Emily's payout can be signed with her demo key.
	wfs := e.want(e.call("GET", "/_sandbox/rails/workflows", "", nil), 200).list()
	var wf map[string]any
	for _, x := range wfs {
		if m := x.(map[string]any); m["userId"] == id["Emily"] && m["kind"] == wfPayout {
			wf = m
		}
	}
	if wf == nil {
		t.Fatal("no payout workflow for Emily")
	}
	h, _ := ethsig.ParseHash(wf["hashToSign"].(string))
	sig := ethsig.Sign(demoKey("emily.carter@acme-payroll.example"), h)
	e.want(e.call("POST", "/v1/users/"+id["Emily"]+"/wallets/submit-signature", key, map[string]any{"workflowId": wf["id"], "signature": sig.Hex()}), 200)
	// The clock moves the provisioning accounts on.
	e.advance(15 * time.Minute)
	if got := status("Funke", "USD"); got != "active" {
		t.Errorf("Funke USD after 15 minutes: %s", got)
	}
	if got := status("Mateo", "MXN"); got != "approved" {
		t.Errorf("Mateo MXN after 15 minutes: %s", got)
	}
}

// The demo's treasury has its KYC submitted and nothing activated: a rail
// starts with POST /kyc/activate for its currency (spec rule 4), then, for
// Mexico, POST /latam/mx/kyc/activate, which needs the RFC and JPEG or PNG
// documents (spec: Mexico rule 1, "Mexico: documents must be JPEG or PNG").
func TestSeedDemo_TreasuryActivatesPerRail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	info, err := SeedDemo(e.s, DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := "/v1/users/" + info.TreasuryUserID
	for _, cur := range []string{"EUR", "MXN", "USD"} {
		if rd := e.want(e.call("GET", u+"/kyc/readiness?currency="+cur, info.APIKey, nil), 200).data(); rd["canActivate"] != true {
			t.Errorf("treasury readiness for %s: %v", cur, rd)
		}
	}
	// Nothing is activated yet: Mexico KYC refuses.
	e.want(e.call("POST", u+"/latam/mx/kyc/activate", info.APIKey, nil), 400)
	e.want(e.call("POST", u+"/kyc/activate", info.APIKey, map[string]any{"identityLevelName": "id-only"}), 200)
	mx := e.want(e.call("POST", u+"/latam/mx/kyc/activate", info.APIKey, nil), 200).data()
	if up := mx["uploaded"].(map[string]any); mx["status"] != "proposed" || up["selfie"] != true || up["document"] != true {
		t.Errorf("treasury Mexico activation %v", mx)
	}
}
