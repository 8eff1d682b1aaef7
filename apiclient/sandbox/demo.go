package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

// Demo partner identity. The key is public on purpose: the demo is what the
// app runs with no configuration.
const (
	DemoPartnerID   = "8d6f2a52-5c0e-4c1b-9d0e-6a1f3b2c4d5e"
	DemoPartnerName = "Acme Payroll (demo)"
	DemoAPIKey      = "sbx_demo_acme_payroll_0001"
	// demoTreasuryEmployeeID marks the demo's treasury user.
	demoTreasuryEmployeeID = "ACME-TREASURY"
)

// DemoOptions configure SeedDemo.
type DemoOptions struct {
	// CallbackURL, if set, gets a partner-scoped webhook subscription to
	// every partner-scoped event.
	CallbackURL string
	// KeystorePath, if set, receives the owner keys of the seeded wallets
	// (see README: device keystore file).
	KeystorePath string
}

// DemoEmployee is one seeded employee.
type DemoEmployee struct {
	ServiceUserID string            `json:"serviceUserId,omitempty"` // empty while only invited
	Email         string            `json:"email"`
	FirstName     string            `json:"firstName"`
	LastName      string            `json:"lastName"`
	Country       string            `json:"country"` // ISO 3166-1 alpha-3
	InviteState   string            `json:"inviteState"`
	Onboarding    map[string]string `json:"onboarding,omitempty"`
	Roles         []string          `json:"roles,omitempty"`
}

// DemoInfo describes the seeded demo partner.
type DemoInfo struct {
	PartnerID       string         `json:"partnerId"`
	PartnerName     string         `json:"partnerName"`
	APIKey          string         `json:"apiKey"`
	TreasuryUserID  string         `json:"treasuryUserId"`
	Employees       []DemoEmployee `json:"employees"`
	WebhookSecret   string         `json:"webhookSecret,omitempty"`
	AlreadySeeded   bool           `json:"alreadySeeded"`
	KeystoreEntries int            `json:"keystoreEntries"`
}

// KeystoreFile is the device keystore format written for cmd/device.
type KeystoreFile struct {
	Keys []KeystoreKey `json:"keys"`
}

// KeystoreKey is one owner key of the device keystore.
type KeystoreKey struct {
	Address    string `json:"address"`    // EIP-55
	PrivateKey string `json:"privateKey"` // 0x + 64 hex
	Label      string `json:"label"`
}

// demoStream is a deterministic byte stream (keccak in counter mode), so the
// seed produces the same ids every time.
type demoStream struct {
	seed    []byte
	counter uint64
	buf     []byte
}

func (d *demoStream) Read(p []byte) (int, error) {
	for len(d.buf) < len(p) {
		var c [8]byte
		binary.BigEndian.PutUint64(c[:], d.counter)
		d.counter++
		h := ethsig.Keccak256(d.seed, c[:])
		d.buf = append(d.buf, h[:]...)
	}
	n := copy(p, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}

var _ io.Reader = (*demoStream)(nil)

type demoPerson struct {
	first, last, country, invite string
	onboarding                   map[string]string
}

// demoPeople: 25 employees across NGA, USA, MEX, GBR and DEU, covering the
// invite states (not_invited: created by API; invited; reinvited; linked)
// and the onboarding states of the spec (USD VBA: none, provisioning,
// pending, active, failed, rejected; MXN KYC; EUR provider).
var demoPeople = []demoPerson{
	{"Adaeze", "Okafor", "NGA", "linked", map[string]string{"NGN": "active", "USD": "active"}},
	{"Chinedu", "Eze", "NGA", "linked", map[string]string{"NGN": "active", "USD": "pending"}},
	{"Funke", "Adeyemi", "NGA", "linked", map[string]string{"NGN": "active", "USD": "provisioning"}},
	{"Ibrahim", "Musa", "NGA", "invited", nil},
	{"Ngozi", "Nwosu", "NGA", "not_invited", map[string]string{"NGN": "none"}},
	{"Emily", "Carter", "USA", "linked", map[string]string{"USD": "active"}},
	{"Marcus", "Johnson", "USA", "linked", map[string]string{"USD": "failed"}},
	{"Sophia", "Nguyen", "USA", "reinvited", nil},
	{"Daniel", "Brooks", "USA", "not_invited", map[string]string{"USD": "rejected"}},
	{"Olivia", "Reed", "USA", "invited", nil},
	{"Lucía", "Hernández", "MEX", "linked", map[string]string{"MXN": "approved", "USD": "active"}},
	{"Mateo", "García", "MEX", "linked", map[string]string{"MXN": "proposed"}},
	{"Valentina", "López", "MEX", "linked", map[string]string{"MXN": "approved_chain_deploying"}},
	{"Diego", "Martínez", "MEX", "invited", nil},
	{"Camila", "Torres", "MEX", "not_invited", map[string]string{"MXN": "rejected"}},
	{"Oliver", "Smith", "GBR", "linked", map[string]string{"USD": "active", "GBP": "active"}},
	{"Amelia", "Jones", "GBR", "linked", map[string]string{"USD": "none"}},
	{"Harry", "Taylor", "GBR", "reinvited", nil},
	{"Isla", "Brown", "GBR", "not_invited", map[string]string{"USD": "provisioning"}},
	{"George", "Wilson", "GBR", "invited", nil},
	{"Lena", "Schmidt", "DEU", "linked", map[string]string{"EUR": "active", "eurProviderStatus": "active"}},
	{"Jonas", "Müller", "DEU", "linked", map[string]string{"EUR": "pending", "eurProviderStatus": "pending"}},
	{"Mia", "Weber", "DEU", "linked", map[string]string{"EUR": "none", "eurProviderStatus": "none"}},
	{"Felix", "Wagner", "DEU", "invited", nil},
	{"Hannah", "Becker", "DEU", "not_invited", map[string]string{"EUR": "failed", "eurProviderStatus": "failed"}},
}

var demoCurrency = map[string]string{"NGA": "CNGN", "USA": "USDB", "MEX": "MEXe", "GBR": "GBPe", "DEU": "EURe"}

func demoEmail(p demoPerson) string {
	r := strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ü", "u", "ñ", "n")
	return strings.ToLower(r.Replace(p.first)+"."+r.Replace(p.last)) + "@acme-payroll.example"
}

func demoKey(label string) *secp256k1.PrivateKey {
	h := ethsig.Keccak256([]byte("partneradmin-demo-owner-key:" + label))
	k, err := ethsig.ParsePrivateKey(h.Hex())
	if err != nil {
		// keccak output is a valid scalar with overwhelming probability;
		// derive again from the hash if not.
		h = ethsig.Keccak256(h[:])
		k, _ = ethsig.ParsePrivateKey(h.Hex())
	}
	return k
}

// SeedDemo seeds the demo partner: ~25 employees in every invite and
// onboarding state, a treasury user whose wallets need two admins, open
// proposals in each state, cards in several statuses (one reserved), a
// legacy wallet and, with CallbackURL, a webhook subscription. It is
// deterministic and idempotent: when the demo partner already has data
// (restored state), nothing is added and the existing data is described.
func SeedDemo(s *Server, o DemoOptions) (DemoInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := DemoInfo{PartnerID: DemoPartnerID, PartnerName: DemoPartnerName, APIKey: DemoAPIKey}
	if p := s.st.Partners[DemoPartnerID]; p != nil {
		for _, u := range s.st.Users {
			if u.PartnerID == DemoPartnerID {
				info.AlreadySeeded = true
				break
			}
		}
		info.APIKey = p.APIKey
	}
	if !info.AlreadySeeded {
		if other := s.partnerByKey(DemoAPIKey); other != nil && other.ID != DemoPartnerID {
			return DemoInfo{}, fmt.Errorf("sandbox: demo API key already used by partner %s", other.ID)
		}
		saved := s.opts.Rand
		s.opts.Rand = &demoStream{seed: []byte("partneradmin-demo-seed-v1")}
		keys, err := s.seedDemo(o)
		s.opts.Rand = saved
		if err != nil {
			return DemoInfo{}, err
		}
		if o.KeystorePath != "" {
			if err := writeKeystore(o.KeystorePath, keys); err != nil {
				return DemoInfo{}, err
			}
		}
		info.KeystoreEntries = len(keys)
		s.save()
	} else if o.KeystorePath != "" {
		// The keys are derived from labels, so the file can be rewritten.
		if _, err := os.Stat(o.KeystorePath); err != nil {
			if err := writeKeystore(o.KeystorePath, s.demoKeys()); err != nil {
				return DemoInfo{}, err
			}
		}
	}
	s.describeDemo(&info)
	return info, nil
}

type labelledKey struct {
	label string
	key   *secp256k1.PrivateKey
}

func (s *Server) demoKeys() []labelledKey {
	var out []labelledKey
	for _, p := range demoPeople {
		out = append(out, labelledKey{demoEmail(p), demoKey(demoEmail(p))})
	}
	out = append(out, labelledKey{"treasury", demoKey("treasury")}, labelledKey{"legacy", demoKey("legacy")})
	return out
}

func (s *Server) seedDemo(o DemoOptions) ([]labelledKey, error) {
	st := s.st
	st.Partners[DemoPartnerID] = &partner{ID: DemoPartnerID, Name: DemoPartnerName, APIKey: DemoAPIKey}
	now := s.now()
	var keys []labelledKey
	byName := map[string]*user{}
	wallets := map[string]*wallet{}
	for i, p := range demoPeople {
		email := demoEmail(p)
		if p.invite != "not_invited" {
			tok, _ := s.randomBytes(16)
			code, _ := s.randomDigits(6)
			profile, _ := json.Marshal(map[string]any{
				"personalInfo": map[string]any{"firstName": p.first, "lastName": p.last, "nationality": p.country[:2]},
				"address":      map[string]any{"countryCode": p.country},
			})
			inv := &invite{
				ID: s.newID(), PartnerID: DemoPartnerID, Name: p.first + " " + p.last, Email: email,
				Token: fmt.Sprintf("%x", tok), Code: code, KYC: profile, Sends: 1, Status: "invited",
				CreatedAt: now.Add(-time.Duration(30-i) * 24 * time.Hour), SentAt: now.Add(-time.Duration(30-i) * 24 * time.Hour), Seq: st.next(),
			}
			if p.invite == "reinvited" {
				inv.Sends, inv.SentAt = 2, now.Add(-24*time.Hour)
			}
			st.Invites[inv.ID] = inv
			if p.invite != "linked" {
				continue
			}
			u := s.addUser(DemoPartnerID, email, p.first, p.last, "", fmt.Sprintf("ACME-%03d", i+1))
			linked := inv.SentAt.Add(2 * time.Hour)
			inv.Status, inv.UserID, inv.LinkedAt = "linked", u.ID, &linked
			u.KYC = profile
			byName[p.first] = u
		} else {
			byName[p.first] = s.addUser(DemoPartnerID, email, p.first, p.last, "", fmt.Sprintf("ACME-%03d", i+1))
		}
		u := byName[p.first]
		u.Onboarding = p.onboarding
		k := demoKey(email)
		keys = append(keys, labelledKey{email, k})
		w := s.addWallet(u.ID, demoCurrency[p.country], ethsig.KeyAddress(k), false)
		wallets[p.first] = w
		if i%2 == 0 {
			w.Balance = decimal.NewFromInt(int64(50 + 25*i))
			if w.Currency == "CNGN" {
				w.Balance = w.Balance.Mul(decimal.NewFromInt(1500))
			}
		}
	}

	// Treasury: wallets that need two of three admins.
	tk := demoKey("treasury")
	keys = append(keys, labelledKey{"treasury", tk})
	treasury := s.addUser(DemoPartnerID, "treasury@acme-payroll.example", "Acme", "Treasury", "", demoTreasuryEmployeeID)
	treasury.Policy = approvalPolicy{Mode: modeAdminThreshold, Admins: []string{byName["Emily"].ID, byName["Oliver"].ID, byName["Lena"].ID}, Threshold: 2}
	tUSD := s.addWallet(treasury.ID, "USDB", ethsig.KeyAddress(tk), false)
	tUSD.Balance = decimal.RequireFromString("250000.00")
	tNGN := s.addWallet(treasury.ID, "CNGN", ethsig.KeyAddress(tk), false)
	tNGN.Balance = decimal.RequireFromString("50000000.00")

	// The treasury admins outside the USA also hold a USDB wallet.
	for _, name := range []string{"Oliver", "Lena"} {
		u := byName[name]
		s.addWallet(u.ID, "USDB", ethsig.KeyAddress(demoKey(u.Email)), false)
	}

	// Legacy wallet (pre-multi-signature): cannot hold cards.
	lk := demoKey("legacy")
	keys = append(keys, labelledKey{"legacy", lk})
	s.addWallet(byName["Marcus"].ID, "CADC", ethsig.KeyAddress(lk), true).Balance = decimal.NewFromInt(40)

	// Proposals in each state, from the treasury USDB wallet.
	mk := func(to *user, amount, desc string) *proposal {
		p := s.newProposal(tUSD, typeTransfer)
		p.Amount = decimal.RequireFromString(amount)
		p.ToUserID = to.ID
		p.ToAddress = s.userWallet(to.ID, "USDB").Address
		p.Description = desc
		st.putProposal(p)
		return p
	}
	mk(byName["Emily"], "1200.00", "November stipend")
	half := mk(byName["Oliver"], "350.50", "Travel reimbursement")
	half.Approvals = []string{byName["Emily"].ID}
	sig := mk(byName["Emily"], "75.25", "Team lunch")
	sig.Approvals = []string{byName["Emily"].ID, byName["Oliver"].ID}
	s.enterSigning(sig)
	sub := mk(byName["Oliver"], "20.00", "Book allowance")
	sub.Approvals = []string{byName["Emily"].ID, byName["Lena"].ID}
	sub.Signatures = map[string]string{tUSD.Signers[0]: ethsig.Sign(tk, proposalHash(sub)).Hex()}
	sub.Status, sub.SubmittedAt = statusSubmitted, &now
	done := mk(byName["Emily"], "500.00", "October bonus")
	done.Approvals = []string{byName["Emily"].ID, byName["Oliver"].ID}
	s.settle(done)
	failed := mk(byName["Oliver"], "999999.00", "Mistyped amount")
	failed.Approvals = []string{byName["Emily"].ID, byName["Oliver"].ID}
	failed.Signatures = map[string]string{tUSD.Signers[0]: ethsig.Sign(tk, proposalHash(failed)).Hex()}
	s.settle(failed)
	rej := mk(byName["Emily"], "80.00", "Duplicate request")
	rej.Status, rej.RejectionReason = statusRejected, "Duplicate of the lunch request"
	exp := mk(byName["Oliver"], "15.00", "Old request")
	exp.CreatedAt = now.Add(-8 * 24 * time.Hour)
	exp.Status = statusExpired

	// Cards for Adaeze (NGN): virtual active with spends, physical pending
	// activation, frozen, lost, canceled, and a reserved one.
	ada := byName["Adaeze"]
	ada.CardEnrolled = true
	aw := wallets["Adaeze"]
	aw.Balance = decimal.RequireFromString("250000.00")
	issued := func(name, color, typ, status string) *card {
		p := s.newProposal(aw, typeCardIssuance)
		p.Amount = cardFee("NGN", typ)
		p.Approvals = []string{DemoPartnerID}
		p.Description = "Card issuance: " + name
		st.putProposal(p)
		_, _, daily, single := cardCaps("NGN")
		cd := &card{ID: s.newID(), UserID: ada.ID, WalletID: aw.ID, ProposalID: p.ID, Name: name, Color: color,
			Currency: "NGN", Type: typ, FundingPolicy: "SAFE", FundLifecycle: "REPEATABLE", DailyLimit: daily, SingleLimit: single,
			Ledger: []ledgerEntry{}, Transactions: []cardTx{}, CreatedAt: now, Seq: st.next()}
		st.putCard(cd)
		s.issueCard(p)
		p.Status = statusCompleted
		if status != "" {
			cd.IssuerStatus = status
			cd.Activated = status != "pending"
		}
		return cd
	}
	everyday := issued("Everyday", "#1E88E5", "virtual", "")
	for i, m := range []string{"Shoprite Lekki", "Bolt", "Chicken Republic"} {
		s.spend(everyday, decimal.NewFromInt(int64(2500*(i+1))), decimal.NewFromInt(50), m)
	}
	issued("Office card", "#43A047", "physical", "pending")
	issued("Travel", "#FB8C00", "virtual", "frozen")
	issued("Old card", "#8E24AA", "physical", "lost")
	issued("Closed", "#757575", "virtual", "canceled")
	rp := s.newProposal(aw, typeCardIssuance)
	rp.Amount = cardFee("NGN", "virtual")
	rp.Approvals = []string{DemoPartnerID}
	rp.Description = "Card issuance: Subscriptions"
	s.enterSigning(rp)
	st.putProposal(rp)
	_, _, daily, single := cardCaps("NGN")
	reserved := &card{ID: s.newID(), UserID: ada.ID, WalletID: aw.ID, ProposalID: rp.ID, Name: "Subscriptions", Color: "#E53935",
		Currency: "NGN", Type: "virtual", FundingPolicy: "SAFE", FundLifecycle: "REPEATABLE", DailyLimit: daily, SingleLimit: single,
		Ledger: []ledgerEntry{}, Transactions: []cardTx{}, CreatedAt: now, Seq: st.next()}
	st.putCard(reserved)

	keys = append(keys, s.seedRailDemo(now)...)
	if o.CallbackURL != "" {
		secret, err := s.newSecret()
		if err != nil {
			return nil, err
		}
		events := []string{}
		for name := range moneyEvents {
			events = append(events, name)
		}
		sort.Strings(events)
		events = append(events, otherEvents...)
		w := &webhookConfig{ID: s.newID(), OwnerID: DemoPartnerID, PartnerID: DemoPartnerID, CallbackURL: o.CallbackURL,
			SecretKey: secret, Active: true, Events: events, CreatedAt: now, UpdatedAt: now}
		st.Webhooks[w.ID] = w
	}
	return keys, nil
}

func (s *Server) describeDemo(info *DemoInfo) {
	invites := map[string]*invite{}
	for _, inv := range s.st.Invites {
		if inv.PartnerID == DemoPartnerID {
			invites[strings.ToLower(inv.Email)] = inv
		}
	}
	seen := map[string]bool{}
	var users []*user
	for _, u := range s.st.Users {
		if u.PartnerID == DemoPartnerID {
			users = append(users, u)
		}
	}
	sort.Slice(users, func(i, j int) bool { return users[i].Seq < users[j].Seq })
	// The treasury user is found first: an employee's roles depend on it.
	for _, u := range users {
		if u.EmployeeID == demoTreasuryEmployeeID {
			info.TreasuryUserID = u.ID
		}
	}
	for _, u := range users {
		if u.ID == info.TreasuryUserID {
			continue
		}
		e := DemoEmployee{ServiceUserID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName, InviteState: "not_invited", Onboarding: u.Onboarding}
		if inv := invites[strings.ToLower(u.Email)]; inv != nil {
			e.InviteState = inv.Status
			seen[strings.ToLower(u.Email)] = true
		}
		e.Country = demoCountry(u.Email)
		if t := s.st.Users[info.TreasuryUserID]; t != nil && slices.Contains(t.Policy.Admins, u.ID) {
			e.Roles = []string{"treasury_admin"}
		}
		info.Employees = append(info.Employees, e)
	}
	var pending []*invite
	for email, inv := range invites {
		if !seen[email] && inv.Status != "linked" {
			pending = append(pending, inv)
		}
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Seq < pending[j].Seq })
	for _, inv := range pending {
		state := "invited"
		if inv.Sends > 1 {
			state = "reinvited"
		}
		first, last, _ := strings.Cut(inv.Name, " ")
		info.Employees = append(info.Employees, DemoEmployee{Email: inv.Email, FirstName: first, LastName: last, Country: demoCountry(inv.Email), InviteState: state})
	}
	for _, w := range s.st.Webhooks {
		if w.PartnerID == DemoPartnerID {
			info.WebhookSecret = w.SecretKey
		}
	}
	if info.KeystoreEntries == 0 {
		info.KeystoreEntries = len(s.demoKeys())
	}
}

func demoCountry(email string) string {
	for _, p := range demoPeople {
		if demoEmail(p) == strings.ToLower(email) {
			return p.country
		}
	}
	return ""
}

// writeKeystore writes the device keystore atomically with mode 0600.
func writeKeystore(path string, keys []labelledKey) error {
	f := KeystoreFile{Keys: []KeystoreKey{}}
	for _, k := range keys {
		f.Keys = append(f.Keys, KeystoreKey{Address: ethsig.KeyAddress(k.key).Hex(), PrivateKey: ethsig.PrivateKeyHex(k.key), Label: k.label})
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("sandbox: encode keystore: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sandbox: keystore dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".keystore-*")
	if err != nil {
		return fmt.Errorf("sandbox: keystore temp: %w", err)
	}
	name := tmp.Name()
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("sandbox: keystore chmod: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("sandbox: keystore write: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("sandbox: keystore close: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("sandbox: keystore rename: %w", err)
	}
	return nil
}
