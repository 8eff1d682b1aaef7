package sandbox

import (
	"fmt"
	"net/http"
	"strings"

	"partneradmin/apiclient/ethsig"
)

// walletRef validates a { <x>WalletAddress, <x>WalletIndex } pair against
// the user's wallet of token: the address must be that wallet's and the
// index one of its owner keys (0 for a single-owner wallet).
func (c *call) walletRef(prefix, token string, addr *string, idx *int, required bool, msgs *[]string) *wallet {
	fa, fi := prefix+"WalletAddress", prefix+"WalletIndex"
	var w *wallet
	switch {
	case addr == nil || strings.TrimSpace(*addr) == "":
		*msgs = append(*msgs, fa+" should not be empty")
	default:
		a, err := ethsig.ParseAddress(strings.TrimSpace(*addr))
		if err != nil {
			*msgs = append(*msgs, fa+" must be a 0x-prefixed 20-byte address")
			break
		}
		w = c.s.userWallet(c.user.ID, token)
		if w == nil {
			*msgs = append(*msgs, fmt.Sprintf("%s must be the address of the user's %s smart wallet (the user has none)", fa, token))
			break
		}
		wa, _ := ethsig.ParseAddress(w.Address)
		if !wa.Equal(a) {
			*msgs = append(*msgs, fmt.Sprintf("%s must be the address of the user's %s smart wallet", fa, token))
			w = nil
		}
	}
	switch {
	case idx == nil && required:
		*msgs = append(*msgs, fi+" must be an integer")
	case idx == nil:
	case *idx < 0:
		*msgs = append(*msgs, fi+" must not be less than 0")
	case w != nil && *idx >= len(w.Signers):
		*msgs = append(*msgs, fmt.Sprintf("%s must be the index of an owner key of the wallet (0 to %d)", fi, len(w.Signers)-1))
	}
	return w
}

// startUSA implements POST .../onboarding/start-usa { smartWalletId }:
// idempotent, and a safe retry of a failed account.
func (c *call) startUSA() (any, error) {
	var in struct {
		SmartWalletID string `json:"smartWalletId"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.SmartWalletID) == "" {
		return nil, validation([]string{"smartWalletId should not be empty"})
	}
	w, err := c.ownWallet(in.SmartWalletID)
	if err != nil {
		return nil, err
	}
	o := c.s.onboardingOf(c.user.ID)
	// spec: "For Nigeria the NGN wallet is mirrored onto the USD fields
	// server-side": a Nigerian onboarding may start USD on the CNGN wallet.
	if w.Currency != "USDB" && !(w.Currency == "CNGN" && o.USDMirrored) {
		return nil, validation([]string{"smartWalletId must be the user's USDB smart wallet"})
	}
	k := c.s.kycFor(c.user)
	now := c.s.now()
	if a := c.s.usdAccount(c.user); a != nil && a.Status != vbaNone {
		switch a.Status {
		case vbaRejected:
			// spec: "rejected | terminal; do not retry; reason populated"
			return nil, conflict("USD account application was rejected and is terminal; do not retry: " + a.Reason)
		case vbaFailed:
			// spec: "failed | start-usa retry (safe) | provisioning"
			a.Status, a.StatusAt, a.Reason, a.WorkflowID = vbaProvisioning, now, "", c.s.newID()
			o.USDWalletID = w.ID
		}
		// spec: "{ workflowId }; idempotent"
		return map[string]any{"data": map[string]any{"workflowId": a.WorkflowID, "status": a.Status}}, nil
	}
	// spec: "Nigeria stage 2 is triggered by POST /kyc/activate, then
	// start-usa gated on usd-readiness."
	if miss := k.missingFor("USD", false); len(miss) > 0 {
		msgs := make([]string, len(miss))
		for i, m := range miss {
			msgs[i] = m + " is required (GET /kyc/usd-readiness)"
		}
		return nil, validation(msgs)
	}
	if !k.takeActivation(pathGlobal, "USD", now) {
		return nil, startOrderError("USD", pathGlobal)
	}
	o.USDWalletID = w.ID
	if o.USDWalletAddress == "" {
		o.USDWalletAddress = w.Address
		zero := 0
		o.USDWalletIndex = &zero
	}
	a := c.s.usdAccount(c.user)
	if a == nil {
		a = c.s.newAccount(c.user.ID, "USD")
	}
	a.Status, a.StatusAt, a.WorkflowID = vbaProvisioning, now, c.s.newID()
	return map[string]any{"data": map[string]any{"workflowId": a.WorkflowID, "status": a.Status}}, nil
}

// startCanada implements POST .../onboarding/start-canada
// { cadWalletAddress, cadWalletIndex }.
func (c *call) startCanada() (any, error) {
	var in struct {
		Address *string `json:"cadWalletAddress"`
		Index   *int    `json:"cadWalletIndex"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	c.walletRef("cad", "CADC", in.Address, in.Index, true, &msgs)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	o := c.s.onboardingOf(c.user.ID)
	now := c.s.now()
	if o.CADStatus == "pending" || o.CADStatus == "active" {
		return map[string]any{"data": map[string]any{"status": o.CADStatus}}, nil
	}
	if o.CADStatus != "failed" && !c.s.kycFor(c.user).takeActivation(pathCAD, "CAD", now) {
		return nil, startOrderError("CAD", pathCAD)
	}
	o.CADWalletAddress, o.CADWalletIndex = strings.TrimSpace(*in.Address), in.Index
	o.CADStatus, o.CADStatusAt = "pending", &now
	return map[string]any{"data": map[string]any{"status": o.CADStatus}}, nil
}

// startEURProvider implements POST .../onboarding/start-eur-provider
// { eurWalletAddress (required), eurWalletIndex (required, integer) }.
func (c *call) startEURProvider() (any, error) {
	var in struct {
		Address *string `json:"eurWalletAddress"`
		Index   *int    `json:"eurWalletIndex"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	c.walletRef("eur", "EURe", in.Address, in.Index, true, &msgs)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	o := c.s.onboardingOf(c.user.ID)
	now := c.s.now()
	if o.EURStatus == "pending" || o.EURStatus == "active" {
		return map[string]any{"data": map[string]any{"status": o.EURStatus, "eurProviderStatus": o.EURStatus}}, nil
	}
	if o.EURStatus != "failed" && !c.s.kycFor(c.user).takeActivation(pathGlobal, "EUR", now) {
		return nil, startOrderError("EUR", pathGlobal)
	}
	o.EURWalletAddress, o.EURWalletIndex = strings.TrimSpace(*in.Address), in.Index
	// Pending until POST /eu/kyc brings the provider's authorization.
	o.EURStatus = "pending"
	return map[string]any{"data": map[string]any{"status": o.EURStatus, "eurProviderStatus": o.EURStatus}}, nil
}

// startNigeria implements POST .../onboarding/start-nigeria
// { bvn, ngnWalletAddress, ngnWalletIndex }: it mirrors the NGN wallet onto
// the USD fields and issues the NGN virtual account.
func (c *call) startNigeria() (any, error) {
	var in struct {
		BVN     *string `json:"bvn"`
		Address *string `json:"ngnWalletAddress"`
		Index   *int    `json:"ngnWalletIndex"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	bvn := trimPtr(in.BVN)
	if !elevenDigits(bvn) {
		msgs = append(msgs, msgBVNDigits)
	}
	w := c.walletRef("ngn", "CNGN", in.Address, in.Index, true, &msgs)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	o := c.s.onboardingOf(c.user.ID)
	if o.NGNStatus == "active" {
		a := c.s.userAccount(c.user.ID, "NGN")
		return map[string]any{"data": map[string]any{"status": "active", "virtualAccount": accountJSON(a)}}, nil
	}
	// spec: "real BVNs are refused outside production"
	if bvn != sandboxBVN {
		return nil, badRequest("BVN could not be verified: the sandbox accepts only the test persona BVN")
	}
	k := c.s.kycFor(c.user)
	now := c.s.now()
	if !k.takeActivation(pathNGN, "NGN", now) {
		return nil, startOrderError("NGN", pathNGN)
	}
	if k.Profile.BVN == "" {
		k.Profile.BVN = bvn
	}
	o.NGNWalletAddress, o.NGNWalletIndex, o.NGNStatus = w.Address, in.Index, "active"
	// spec: "For Nigeria the NGN wallet is mirrored onto the USD fields
	// server-side."
	o.USDWalletAddress, o.USDWalletIndex, o.USDMirrored = w.Address, in.Index, true
	// spec: "The NGN start issues the virtual account."
	a := c.s.issueNGNAccount(c.user)
	c.s.emitUser(c.user, "onboarding.completed", map[string]any{"currency": "NGN", "rail": "nigeria", "status": "active", "completedAt": iso(now)})
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{"status": "active", "virtualAccount": accountJSON(a)}}, nil
}

// startMexico implements POST .../onboarding/start-mexico
// { mxnWalletAddress, mxnWalletIndex }.
func (c *call) startMexico() (any, error) {
	var in struct {
		Address *string `json:"mxnWalletAddress"`
		Index   *int    `json:"mxnWalletIndex"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	c.walletRef("mxn", "MEXe", in.Address, in.Index, true, &msgs)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	o := c.s.onboardingOf(c.user.ID)
	k := c.s.kycFor(c.user)
	now := c.s.now()
	if !o.MXNStarted {
		if !k.takeActivation(pathGlobal, "MXN", now) {
			return nil, startOrderError("MXN", pathGlobal)
		}
		o.MXNStarted = true
		o.MXNWalletAddress, o.MXNWalletIndex = strings.TrimSpace(*in.Address), in.Index
	}
	status := k.MXStatus
	if status == "" {
		status = "kyc_required" // next: POST /latam/mx/kyc/activate
	}
	return map[string]any{"data": map[string]any{"status": status}}, nil
}

// railStatus is one currency's entry of the onboarding status.
func railStatus(status string) map[string]any {
	return map[string]any{"status": status, "active": status == "active" || status == "approved"}
}

// onboardingStatusGet implements GET .../onboarding/status:
// { currencies: { <fiat>: { status, active } }, eurProviderStatus }.
// Statuses: USD the virtual account's; NGN none|active; CAD
// none|pending|active|failed; EUR the provider's; MXN the MXN KYC status.
// Demo users seeded with a status and no rail record report the seeded one.
func (c *call) onboardingStatusGet() (any, error) {
	u := c.user
	o := c.s.onboardingOf(u.ID)
	k := c.s.kycFor(u)
	seeded := func(cur string) string {
		if v := u.Onboarding[cur]; v != "" {
			return v
		}
		return "none"
	}
	cur := map[string]any{}
	for _, w := range c.s.userWallets(u.ID) {
		if f := fiatOf(w.Currency); f != "" {
			cur[f] = railStatus(seeded(f))
		}
	}
	for f := range u.Onboarding {
		if f != "eurProviderStatus" {
			cur[f] = railStatus(seeded(f))
		}
	}
	usd := seeded("USD")
	if a := c.s.usdAccount(u); a != nil {
		usd = a.Status
	}
	cur["USD"] = railStatus(usd)
	if o.NGNStatus != "" {
		cur["NGN"] = railStatus(o.NGNStatus)
	} else if _, ok := cur["NGN"]; !ok {
		cur["NGN"] = railStatus("none")
	}
	if o.CADStatus != "" {
		cur["CAD"] = railStatus(o.CADStatus)
	} else if _, ok := cur["CAD"]; !ok {
		cur["CAD"] = railStatus("none")
	}
	eur := u.Onboarding["eurProviderStatus"]
	if o.EURStatus != "" {
		eur = o.EURStatus
		cur["EUR"] = railStatus(o.EURStatus)
	} else if _, ok := cur["EUR"]; !ok {
		cur["EUR"] = railStatus("none")
	}
	if eur == "" {
		eur = "none"
	}
	switch {
	case k.MXStatus != "":
		cur["MXN"] = railStatus(k.MXStatus)
	case o.MXNStarted:
		// start-mexico answered kyc_required: the rail has begun and waits
		// for POST /latam/mx/kyc/activate.
		cur["MXN"] = railStatus("kyc_required")
	default:
		if _, ok := cur["MXN"]; !ok {
			cur["MXN"] = railStatus("none")
		}
	}
	out := map[string]any{"currencies": cur, "eurProviderStatus": eur}
	if o.USDMirrored {
		out["usdWalletAddress"] = o.USDWalletAddress
		if o.USDWalletIndex != nil {
			out["usdWalletIndex"] = *o.USDWalletIndex
		}
		out["usdMirroredFromNgn"] = true
	}
	return map[string]any{"data": out}, nil
}
