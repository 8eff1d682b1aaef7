package sandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// MXN KYC statuses (spec: States, MXN KYC status).
const (
	mxProposed       = "proposed"
	mxBankVerify     = "bank_verification_required"
	mxApprovedStatus = "approved"
	mxChainDeploying = "approved_chain_deploying"
	mxRejected       = "rejected"
)

var mxStatuses = []string{mxProposed, mxBankVerify, mxApprovedStatus, mxChainDeploying, mxRejected}

func mxApproved(st string) bool { return st == mxApprovedStatus || st == mxChainDeploying }

// mxFeeBps is the offramp fee (0.5%).
var mxFeeBps = decimal.NewFromInt(50)

// clabe builds an 18-digit CLABE with a valid control digit (weights 3, 7,
// 1 over the first 17 digits).
func clabe(bank, city, account string) string {
	base := bank + city + account
	weights := []int{3, 7, 1}
	sum := 0
	for i := 0; i < 17; i++ {
		sum += int(base[i]-'0') * weights[i%3] % 10
	}
	return base + fmt.Sprint((10-sum%10)%10)
}

// mexicoAccount returns (creating it) the user's MXN deposit account.
func (s *Server) mexicoAccount(u *user) *virtualAccount {
	if a := s.userAccount(u.ID, "MXN"); a != nil {
		return a
	}
	a := s.newAccount(u.ID, "MXN")
	a.Status = vbaActive
	a.AccountName = accountHolder(u)
	a.BankName = "Sandbox STP"
	a.BankCode = "646"
	a.Clabe = clabe("646", "180", digitsFrom("mxn-clabe:"+a.ID, 11))
	return a
}

// setMXStatus moves the MXN KYC status and fires what approval means.
func (s *Server) setMXStatus(u *user, k *kycRecord, status string) {
	if k.MXStatus == status {
		return
	}
	now := s.now()
	s.setMXStatusAt(u, k, status, now)
}

// setMXStatusAt moves the MXN KYC status as of at.
func (s *Server) setMXStatusAt(u *user, k *kycRecord, status string, at time.Time) {
	now := s.now()
	k.MXStatus, k.MXStatusAt = status, &at
	switch status {
	case mxApprovedStatus:
		a := s.mexicoAccount(u)
		s.registered(u, a)
		s.emitUser(u, "onboarding.completed", map[string]any{"currency": "MXN", "rail": "mexico", "status": status, "completedAt": iso(now)})
	case mxRejected:
		s.emitUser(u, "onboarding.failed", map[string]any{"currency": "MXN", "rail": "mexico", "status": status,
			"reason": "The provider could not verify the user's identity"})
	case mxBankVerify:
		s.emitUser(u, "kyc.action_required", map[string]any{"action": "bank_verification", "currency": "MXN",
			"reason": "Bank identity verification is needed"})
	}
}

// mxActivate implements POST .../latam/mx/kyc/activate (no body).
func (c *call) mxActivate() (any, error) {
	k := c.s.kycFor(c.user)
	// spec: "Activation returns 400 when the profile is not approved or the
	// RFC is missing."
	var msgs []string
	if !k.Approved {
		msgs = append(msgs, "KYC profile is not approved: complete POST /kyc/activate with an identityLevelName first")
	}
	if id := k.Profile.idNumber("rfc"); id == nil || !knownAlpha3(id.IssuingCountryCode) {
		msgs = append(msgs, "identificationNumbers must contain an rfc entry with an ISO alpha-3 issuingCountryCode")
	}
	if len(msgs) > 0 {
		return nil, badRequest(strings.Join(msgs, "; "))
	}
	// spec: "Mexico: documents must be JPEG or PNG."
	docOK := k.Identification != nil
	if docOK {
		for _, ct := range k.Identification.ContentTypes {
			docOK = docOK && jpegOrPNG(ct)
		}
	}
	selfieOK := k.Biometric != nil && jpegOrPNG(k.Biometric.ContentType)
	status := k.MXStatus
	if docOK && selfieOK && (status == "" || status == mxRejected) {
		c.s.setMXStatus(c.user, k, mxProposed)
		status = mxProposed
	}
	if !docOK || !selfieOK {
		// spec rule 2: "If uploaded.selfie or uploaded.document is false,
		// upload the missing file and activate again."
		missing := "selfie"
		if !docOK {
			missing = "document"
		}
		c.s.emitUser(c.user, "kyc.action_required", map[string]any{"action": missing, "currency": "MXN",
			"reason": "Upload a JPEG or PNG " + missing + " and activate Mexico KYC again"})
		if status == "" {
			status = "incomplete"
		}
	}
	return map[string]any{"data": map[string]any{"status": status, "uploaded": map[string]any{"selfie": selfieOK, "document": docOK}}}, nil
}

// mxLaunch implements GET .../latam/mx/kyc/launch/agreements and its
// deprecated alias launch/idv: a browser form POST whose assertion expires
// about 5 minutes after this fetch.
func (c *call) mxLaunch() (any, error) {
	k := c.s.kycFor(c.user)
	if k.MXStatus == "" {
		return nil, badRequest("Mexico KYC is not activated: call POST /latam/mx/kyc/activate first")
	}
	r := c.s.rails()
	if r.AssertionKey == "" {
		b, err := c.s.randomBytes(32)
		if err != nil {
			return nil, err
		}
		r.AssertionKey = hex.EncodeToString(b)
	}
	now := c.s.now()
	exp := now.Add(launchTTL)
	target := "agreements"
	if strings.HasSuffix(c.r.URL.Path, "/idv") {
		target = "agreements" // spec: "deprecated alias returning the same payload"
	}
	jti, err := c.s.randomBytes(8)
	if err != nil {
		return nil, err
	}
	header, _ := json.Marshal(map[string]any{"alg": "HS256", "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": "partner-api-sandbox", "sub": c.user.ID, "aud": "mx-provider", "target": target,
		"iat": now.Unix(), "exp": exp.Unix(), "jti": hex.EncodeToString(jti)})
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	key, _ := hex.DecodeString(r.AssertionKey)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(signing))
	assertion := signing + "." + enc.EncodeToString(mac.Sum(nil))
	url := "https://mx-provider.sandbox.invalid/oauth/launch"
	fields := map[string]string{"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion, "target": target}
	var b strings.Builder
	b.WriteString(`<!doctype html><html><body onload="document.forms[0].submit()"><form method="POST" action="` + html.EscapeString(url) + `">`)
	for _, name := range []string{"grant_type", "assertion", "target"} {
		b.WriteString(`<input type="hidden" name="` + name + `" value="` + html.EscapeString(fields[name]) + `">`)
	}
	b.WriteString(`<noscript><button type="submit">Continue</button></noscript></form></body></html>`)
	k.MXLaunchedAt = &now
	return map[string]any{"data": map[string]any{"url": url, "method": "POST", "fields": fields, "html": b.String(), "expiresAt": iso(exp)}}, nil
}

// mxStatus implements GET .../latam/mx/kyc/status.
func (c *call) mxStatus() (any, error) {
	k := c.s.kycFor(c.user)
	st := k.MXStatus
	if st == "" {
		if v := c.user.Onboarding["MXN"]; slices.Contains(mxStatuses, v) {
			st = v
		} else {
			return nil, notFound("Mexico KYC has not been activated")
		}
	}
	return map[string]any{"data": map[string]any{"status": st}}, nil
}

func (s *Server) mxOrderJSON(o *mxOrder) map[string]any {
	m := map[string]any{
		"id":               o.ID,
		"orderId":          o.ID,
		"status":           o.Status,
		"orderType":        o.OrderType,
		"depositClabe":     o.DepositClabe,
		"depositClabeName": o.DepositClabeName,
		"statusPage":       "https://mx-provider.sandbox.invalid/orders/" + o.ID,
		"amountInFiat":     o.AmountInFiat.String(),
		"amountInTokens":   o.AmountInTokens.String(),
		"createdAt":        iso(o.CreatedAt),
	}
	if o.Memo != "" {
		m["memo"] = o.Memo
	}
	if wf := s.rails().Workflows[o.BurnWorkflow]; wf != nil && wf.Status == wfAwaiting && o.Status == "created" {
		m["burnSignatureRequest"] = signatureRequestJSON(wf)
	}
	return m
}

// mxQuote implements POST .../latam/mx/quote { type: offramp, sourceAmount, note? }.
func (c *call) mxQuote() (any, error) {
	var in struct {
		Type         string `json:"type"`
		SourceAmount string `json:"sourceAmount"`
		Note         string `json:"note"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if in.Type != "offramp" {
		// spec: "type: 'offramp' (only value)"
		msgs = append(msgs, "type must be offramp (onramp needs no quote: send SPEI to the CLABE)")
	}
	amount := positiveAmount("sourceAmount", in.SourceAmount, &msgs)
	if len([]rune(in.Note)) > maxDescription {
		msgs = append(msgs, "note must be shorter than or equal to 500 characters")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	k := c.s.kycFor(c.user)
	if !mxApproved(k.MXStatus) {
		return nil, badRequest("Mexico KYC is not approved")
	}
	w := c.s.userWallet(c.user.ID, "MEXe")
	if w == nil {
		return nil, badRequest("User has no MEXe smart wallet")
	}
	if w.Balance.LessThan(amount) {
		return nil, badRequest("Insufficient balance: " + w.Balance.String() + " MEXe available, " + amount.String() + " needed")
	}
	now := c.s.now()
	fee := amount.Mul(mxFeeBps).Div(decimal.NewFromInt(10000)).RoundUp(2)
	acct := c.s.mexicoAccount(c.user)
	o := &mxOrder{ID: c.s.newID(), QuoteID: c.s.newID(), UserID: c.user.ID, WalletID: w.ID, OrderType: "offramp", Status: "created", StatusAt: now,
		AmountInTokens: amount, AmountInFiat: amount.Sub(fee), FeeAmount: fee, Memo: in.Note,
		DepositClabe: acct.Clabe, DepositClabeName: acct.AccountName, ExpiresAt: now.Add(quoteTTL), CreatedAt: now}
	c.s.rails().MXOrders[o.ID] = o
	quote := map[string]any{
		"quoteId":           o.QuoteID,
		"orderId":           o.ID,
		"blockchain":        "base",
		"quoteAssets":       map[string]any{"type": "offramp", "sourceAsset": "MEXe", "targetAsset": "MXN"},
		"sourceAmount":      amount.String(),
		"destinationAmount": o.AmountInFiat.String(),
		"feeBps":            mxFeeBps.String(),
		"feeAmount":         fee.String(),
		"exchangeRate":      "1",
		"expiresAt":         iso(o.ExpiresAt),
	}
	// spec: "signatureRequest (absent when the wallet already has enough
	// allowance)".
	if k.MXAllowance.LessThan(amount) {
		wf := c.s.newWorkflow(w, wfMXAllowance, o.ID, amount, "mx-offramp-allowance")
		if wf.Deadline.After(o.ExpiresAt) {
			wf.Deadline = o.ExpiresAt
		}
		o.AllowanceWorkflow = wf.ID
		quote["signatureRequest"] = signatureRequestJSON(wf)
	} else {
		c.s.mxOpenBurn(o, w)
	}
	c.status = http.StatusCreated
	return map[string]any{"data": quote}, nil
}

// mxOpenBurn opens the burn signature request (spec rule 5: "poll the order
// until burnSignatureRequest appears").
func (s *Server) mxOpenBurn(o *mxOrder, w *wallet) {
	if o.BurnWorkflow != "" {
		return
	}
	wf := s.newWorkflow(w, wfMXBurn, o.ID, o.AmountInTokens, "mx-offramp-burn")
	if wf.Deadline.After(o.ExpiresAt) {
		wf.Deadline = o.ExpiresAt
	}
	o.BurnWorkflow = wf.ID
}

// mxAllowanceSigned raises the allowance: the sandbox approves 100000 MEXe
// or the quoted amount if larger, so later quotes within it need no
// allowance signature.
func (s *Server) mxAllowanceSigned(wf *workflow) error {
	o := s.rails().MXOrders[wf.RefID]
	if o == nil {
		return notFound(msgItemNotFound)
	}
	k := s.kycOf(o.UserID)
	k.MXAllowance = decimal.Max(decimal.NewFromInt(100000), o.AmountInTokens)
	wf.Status = wfCompleted
	return nil
}

func (s *Server) mxBurnSigned(wf *workflow, w *wallet) error {
	o := s.rails().MXOrders[wf.RefID]
	if o == nil {
		return notFound(msgItemNotFound)
	}
	if o.Status != "created" {
		return conflict("Order is not awaiting its burn signature (status " + o.Status + ")")
	}
	if err := debit(w, o.AmountInTokens); err != nil {
		return err
	}
	k := s.kycOf(o.UserID)
	k.MXAllowance = k.MXAllowance.Sub(o.AmountInTokens)
	o.Status, o.StatusAt = "funded", s.now()
	s.withdrawalEvent(w, "processing", o.AmountInTokens, "mexico", o.ID, "")
	return nil
}

// getMXOrder implements GET .../latam/mx/orders/{orderId}.
func (c *call) getMXOrder() (any, error) {
	o := c.s.rails().MXOrders[c.param("orderId")]
	if o == nil || o.UserID != c.user.ID {
		return nil, notFound(msgItemNotFound)
	}
	if o.OrderType == "offramp" && o.Status == "created" {
		if k := c.s.kycFor(c.user); k.MXAllowance.GreaterThanOrEqual(o.AmountInTokens) {
			if w := c.s.st.Wallets[o.WalletID]; w != nil {
				c.s.mxOpenBurn(o, w)
			}
		}
	}
	return map[string]any{"data": c.s.mxOrderJSON(o)}, nil
}

// mxSPEIDeposit simulates a SPEI transfer to the user's CLABE (spec rule 4:
// "an order is created automatically; MEXe is credited").
func (s *Server) mxSPEIDeposit(u *user, amount decimal.Decimal, memo string) (*mxOrder, error) {
	k := s.kycFor(u)
	a := s.userAccount(u.ID, "MXN")
	if a == nil || !mxApproved(k.MXStatus) {
		return nil, conflict("The user has no active CLABE: Mexico KYC is not approved")
	}
	w := s.userWallet(u.ID, "MEXe")
	if w == nil {
		return nil, conflict("The user has no MEXe smart wallet")
	}
	now := s.now()
	o := &mxOrder{ID: s.newID(), UserID: u.ID, WalletID: w.ID, OrderType: "onramp", Status: "funded", StatusAt: now,
		AmountInFiat: amount, AmountInTokens: amount, Memo: memo, DepositClabe: a.Clabe, DepositClabeName: a.AccountName,
		ExpiresAt: now.Add(cashOrderTTL), CreatedAt: now}
	s.rails().MXOrders[o.ID] = o
	return o, nil
}

// tickMexico advances MXN KYC (proposed → approved_chain_deploying →
// approved after the hosted verification was launched), orders (funded →
// completed, created → canceled at quote expiry).
func (s *Server) tickMexico(force bool) int {
	n := 0
	now := s.now()
	r := s.rails()
	var users []string
	for id := range r.KYC {
		users = append(users, id)
	}
	sort.Strings(users)
	for _, id := range users {
		k := r.KYC[id]
		u := s.st.Users[id]
		if u == nil || k.MXStatusAt == nil {
			continue
		}
		// Approval needs the hosted verification (spec: "Approval needs the
		// user to complete the provider's hosted verification"): proposed
		// moves on only once the launch payload was fetched.
		if k.MXStatus == mxProposed && k.MXLaunchedAt != nil {
			if due := k.MXStatusAt.Add(mxVerificationDelay); force || !now.Before(due) {
				if force {
					due = now
				}
				s.setMXStatusAt(u, k, mxChainDeploying, due)
				n++
			}
		}
		if k.MXStatus == mxChainDeploying {
			if due := k.MXStatusAt.Add(mxVerificationDelay); force || !now.Before(due) {
				s.setMXStatus(u, k, mxApprovedStatus)
				n++
			}
		}
	}
	var ids []string
	for id := range r.MXOrders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		o := r.MXOrders[id]
		w := s.st.Wallets[o.WalletID]
		if w == nil {
			continue
		}
		switch {
		case o.OrderType == "offramp" && o.Status == "created" && now.After(o.ExpiresAt):
			// spec: "MXN quote validity | until expiresAt"
			o.Status, o.StatusAt = "canceled", now
		case o.Status == "funded" && (force || s.due(&o.StatusAt)):
			n++
			if o.OrderType == "onramp" {
				o.Status, o.StatusAt = "completed", now
				s.credit(w, o.AmountInTokens, "spei", o.ID)
				continue
			}
			if s.takeFailure(railFailMXOfframp) {
				o.Status, o.StatusAt = "refunded", now
				w.Balance = w.Balance.Add(o.AmountInTokens)
				s.withdrawalEvent(w, "failed", o.AmountInTokens, "mexico", o.ID, "The SPEI payout was returned; the tokens were refunded")
				continue
			}
			o.Status, o.StatusAt = "completed", now
			s.withdrawalEvent(w, "completed", o.AmountInTokens, "mexico", o.ID, "")
		}
	}
	return n
}
