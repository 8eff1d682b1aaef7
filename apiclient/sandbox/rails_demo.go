package sandbox

import (
	"time"

	"github.com/shopspring/decimal"
)

// seedRailDemo puts the demo employees in the middle of each currency's
// journey, consistent with the onboarding status part 1 seeded for them
// (called by seedDemo, under mu, with the demo's deterministic randomness):
//
//	Adaeze   NGA  NGN account, a withdrawal account, an offramp awaiting approval
//	Chinedu  NGA  NGN account; USD account pending (goes active with the clock)
//	Funke    NGA  NGN account; USD account provisioning
//	Ngozi    NGA  NGN stage 1 profile complete: next is activate, then start-nigeria
//	Emily    USA  USD account active; a bank payout awaiting the owner signature
//	Marcus   USA  USD account failed (start-usa retry is safe); CAD onboarding pending on his CADC wallet
//	Daniel   USA  USD account rejected (terminal, with reason)
//	Amelia   GBR  KYC uploaded and submitted, readiness checked: next is POST /kyc/activate
//	Isla     GBR  USD account provisioning
//	Lucía    MEX  MXN approved with a CLABE; a legacy MXNe balance from before the token migration
//	Mateo    MEX  MXN KYC proposed and launched (approves with the clock)
//	Valentina, Camila  MEX  approved_chain_deploying, rejected
//	Lena     DEU  EUR provider active with an IBAN
//	Jonas    DEU  EUR provider pending: waiting for POST /eu/kyc
//	Hannah   DEU  EUR provider failed
//	treasury MEX  KYC submitted and readiness checked: next is POST /kyc/activate per rail
//
// It returns no new keys: every wallet it uses was seeded by part 1.
func (s *Server) seedRailDemo(now time.Time) []labelledKey {
	byFirst := map[string]*user{}
	for _, u := range s.st.Users {
		if u.PartnerID == DemoPartnerID {
			byFirst[u.FirstName] = u
		}
	}
	at := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	zero := 0
	code := "15-1252"
	kyc := func(u *user, country string, docs bool) *kycRecord {
		k := s.kycOf(u.ID)
		k.OptionsAt, k.OccupationsAt = at(3*time.Hour), at(3*time.Hour)
		if docs {
			k.Identification = &kycIdentification{Type: "passport", DocumentNumber: "P" + digitsFrom("demo-doc:"+u.ID, 8), IssuingCountry: country,
				Sides: []string{"front"}, ContentTypes: []string{"image/jpeg"}, UploadedAt: now.Add(-2 * time.Hour)}
			k.ProofOfAddress = &kycFile{Type: "utility_bill", ContentType: "image/png", Size: 2048, UploadedAt: now.Add(-2 * time.Hour)}
			k.Biometric = &kycFile{ContentType: "image/jpeg", Size: 4096, UploadedAt: now.Add(-2 * time.Hour)}
		}
		k.PatchedAt, k.ChangedAt, k.ReadinessAt = at(90*time.Minute), at(90*time.Minute), at(80*time.Minute)
		k.ChangeSeq, k.ReadinessSeq = s.st.next(), s.st.next()
		return k
	}
	global := func(u *user, street, city, state, postal, country string) *kycRecord {
		k := kyc(u, country, true)
		k.Profile = storedProfile{
			Profile:       &kycPersonal{PersonalInfo: &kycPersonalInfo{FirstName: u.FirstName, LastName: u.LastName, DateOfBirth: "1991-06-12"}},
			Address:       &kycAddress{StreetLine1: street, City: city, State: state, PostalCode: postal, CountryCode: country},
			Employment:    &kycEmployment{EmploymentStatus: "employed", OccupationCode: &code, EmployerName: "Acme Payroll"},
			SourceOfFunds: "salary",
		}
		return k
	}
	nigerian := func(u *user, street, city, state, postal, phone string) *kycRecord {
		k := kyc(u, "NGA", false)
		k.Profile = storedProfile{
			Profile: &kycPersonal{PersonalInfo: &kycPersonalInfo{FirstName: u.FirstName, LastName: u.LastName, DateOfBirth: "1992-03-04", PhoneNumber: phone}},
			Address: &kycAddress{StreetLine1: street, City: city, State: state, PostalCode: postal, CountryCode: "NGA"},
			BVN:     sandboxBVN,
		}
		return k
	}
	activated := func(k *kycRecord, path, level, country, usedBy string) {
		a := &kycActivation{Path: path, IdentityLevelName: level, Country: country, At: now.Add(-time.Hour)}
		if usedBy != "" {
			a.UsedBy, a.UsedAt = usedBy, at(50*time.Minute)
		}
		k.Activations = append(k.Activations, a)
		if path == pathGlobal {
			k.Approved = true
		}
	}
	ngnActive := func(u *user) *wallet {
		w := s.userWallet(u.ID, "CNGN")
		o := s.onboardingOf(u.ID)
		o.NGNWalletAddress, o.NGNWalletIndex, o.NGNStatus = w.Address, &zero, "active"
		o.USDWalletAddress, o.USDWalletIndex, o.USDMirrored = w.Address, &zero, true
		s.issueNGNAccount(u)
		return w
	}
	usdAccount := func(u *user, status string, since time.Duration) *virtualAccount {
		a := s.newAccount(u.ID, "USD")
		a.Status, a.StatusAt, a.WorkflowID, a.Registered = status, now.Add(-since), s.newID(), true
		if w := s.userWallet(u.ID, "USDB"); w != nil {
			o := s.onboardingOf(u.ID)
			o.USDWalletID, o.USDWalletAddress, o.USDWalletIndex = w.ID, w.Address, &zero
		}
		return a
	}

	// Nigeria.
	if u := byFirst["Adaeze"]; u != nil {
		k := nigerian(u, "12 Admiralty Way", "Lekki", "Lagos", "106104", "08031234567")
		activated(k, pathNGN, "", "NGA", "NGN")
		w := ngnActive(u)
		a := usdAccount(u, vbaActive, 72*time.Hour)
		s.fillUSDAccount(u, a)
		wa := &withdrawalAccount{ID: s.newID(), UserID: u.ID, AccountNumber: "0690000031", BankCode: "044", BankName: "Access Bank",
			AccountHolderName: "ADAEZE NKEM OKAFOR", CreatedAt: now.Add(-2 * time.Hour), Seq: s.st.next()}
		s.rails().WithdrawalAccounts[wa.ID] = wa
		p := s.newProposal(w, typeNigerianOfframp)
		p.Amount = decimal.RequireFromString("20000")
		p.ToAddress = addressFrom("sandbox-ngn-offramp-settlement")
		p.Description = "Bank withdrawal to Access Bank ****0031"
		s.st.putProposal(p)
		s.rails().Offramps[p.ID] = &ngnOfframp{ProposalID: p.ID, UserID: u.ID, WalletID: w.ID, BankAccountID: wa.ID, FromCurrency: "CNGN",
			FromAmount: p.Amount, NGNAmount: p.Amount.Sub(ngnPayoutFee), Fee: ngnPayoutFee, Rate: decimal.NewFromInt(1), PayoutStatus: "awaiting_chain", CreatedAt: now}
	}
	for _, x := range [][2]string{{"Chinedu", vbaPending}, {"Funke", vbaProvisioning}} {
		name, status := x[0], x[1]
		if u := byFirst[name]; u != nil {
			k := nigerian(u, "3 Broad Street", "Lagos Island", "Lagos", "102273", "08098765432")
			activated(k, pathNGN, "", "NGA", "NGN")
			ngnActive(u)
			usdAccount(u, status, 30*time.Second)
		}
	}
	if u := byFirst["Ngozi"]; u != nil {
		nigerian(u, "4 Awolowo Road", "Ikoyi", "Lagos", "101233", "08031234568")
	}

	// USA and GBR.
	if u := byFirst["Emily"]; u != nil {
		k := global(u, "1 Congress Ave", "Austin", "TX", "73301", "USA")
		k.Profile.IdentificationNumbers = []kycIDNumber{{Type: "ssn", Number: "123-45-6701", IssuingCountryCode: "USA"}}
		activated(k, pathGlobal, "id-and-liveness", "USA", "USD")
		a := usdAccount(u, vbaActive, 48*time.Hour)
		s.fillUSDAccount(u, a)
		if w := s.userWallet(u.ID, "USDB"); w != nil && w.Balance.GreaterThanOrEqual(decimal.NewFromInt(120)) {
			bank, _ := payoutBankByID("mex-bbva")
			source := decimal.RequireFromString("120.00")
			fee := payoutFee(source)
			po := &payout{ID: s.newID(), UserID: u.ID, WalletID: w.ID, AmountMinor: 12000, SourceAmount: source, Fee: fee, Rate: payoutRates["MXN"],
				DestinationAmount: source.Sub(fee).Mul(payoutRates["MXN"]).RoundDown(2), Country: "MEX", Currency: "MXN", BankID: bank.ID,
				AccountNumber: "012180001234567897", AccountHolderName: "MARIA GONZALEZ", Note: "Family support", Status: "awaiting_signature", CreatedAt: now}
			wf := s.newWorkflow(w, wfPayout, po.ID, source, bank.ID+":"+po.AccountNumber)
			// A demo runs for hours: this request stays signable for a day.
			wf.Deadline = now.Add(24 * time.Hour)
			po.WorkflowID, po.ExpiresAt = wf.ID, wf.Deadline
			s.rails().Payouts[po.ID] = po
		}
	}
	if u := byFirst["Marcus"]; u != nil {
		k := global(u, "500 Market St", "San Francisco", "CA", "94105", "USA")
		k.Profile.IdentificationNumbers = []kycIDNumber{{Type: "ssn", Number: "123-45-6702", IssuingCountryCode: "USA"}}
		activated(k, pathGlobal, "id-and-liveness", "USA", "USD")
		usdAccount(u, vbaFailed, time.Hour)
		activated(k, pathCAD, "", "USA", "CAD")
		if w := s.userWallet(u.ID, "CADC"); w != nil {
			o := s.onboardingOf(u.ID)
			o.CADWalletAddress, o.CADWalletIndex, o.CADStatus, o.CADStatusAt = w.Address, &zero, "pending", at(time.Minute)
		}
	}
	if u := byFirst["Daniel"]; u != nil {
		k := global(u, "77 Lake Shore Dr", "Chicago", "IL", "60611", "USA")
		activated(k, pathGlobal, "id-only", "USA", "USD")
		usdAccount(u, vbaRejected, 24*time.Hour).Reason = "Identity could not be verified by the partner bank"
	}
	if u := byFirst["Amelia"]; u != nil {
		k := global(u, "10 Downing Lane", "London", "Greater London", "SW1A 2AA", "GBR")
		k.Profile.IdentificationNumbers = []kycIDNumber{{Type: "nino", Number: "QQ123456C", IssuingCountryCode: "GBR"}}
	}
	if u := byFirst["Isla"]; u != nil {
		k := global(u, "5 Princes Street", "Edinburgh", "Scotland", "EH2 2AN", "GBR")
		k.Profile.IdentificationNumbers = []kycIDNumber{{Type: "nino", Number: "QQ123457C", IssuingCountryCode: "GBR"}}
		activated(k, pathGlobal, "id-and-liveness", "GBR", "USD")
		usdAccount(u, vbaProvisioning, 30*time.Second)
	}

	// Mexico.
	for _, x := range [][2]string{{"Lucía", mxApprovedStatus}, {"Mateo", mxProposed}, {"Valentina", mxChainDeploying}, {"Camila", mxRejected}} {
		name, status := x[0], x[1]
		u := byFirst[name]
		if u == nil {
			continue
		}
		k := global(u, "Av. Reforma 100", "Ciudad de México", "CDMX", "06600", "MEX")
		k.Profile.IdentificationNumbers = []kycIDNumber{{Type: "rfc", Number: "XAXX010101" + digitsFrom("rfc:"+u.ID, 3), IssuingCountryCode: "MEX"}}
		activated(k, pathGlobal, "idv-and-phone-verification", "MEX", "MXN")
		if w := s.userWallet(u.ID, "MEXe"); w != nil {
			o := s.onboardingOf(u.ID)
			o.MXNStarted, o.MXNWalletAddress, o.MXNWalletIndex = true, w.Address, &zero
		}
		k.MXStatus, k.MXStatusAt, k.MXLaunchedAt = status, at(time.Minute), at(time.Minute)
		if mxApproved(status) {
			a := s.mexicoAccount(u)
			a.Registered = true
		}
		if name == "Lucía" {
			s.addLegacyMXNe(u, decimal.RequireFromString("125.40"))
		}
	}

	// EUR.
	for _, x := range [][2]string{{"Lena", "active"}, {"Jonas", "pending"}, {"Hannah", "failed"}} {
		name, status := x[0], x[1]
		u := byFirst[name]
		if u == nil {
			continue
		}
		k := global(u, "Kastanienallee 12", "Berlin", "Berlin", "10435", "DEU")
		activated(k, pathGlobal, "id-only", "DEU", "EUR")
		o := s.onboardingOf(u.ID)
		if w := s.userWallet(u.ID, "EURe"); w != nil {
			o.EURWalletAddress, o.EURWalletIndex = w.Address, &zero
		}
		o.EURStatus = status
		if status == "active" {
			k.EUAuthorizedAt = at(24 * time.Hour)
			a := s.newAccount(u.ID, "EUR")
			a.Status, a.AccountName, a.BankName, a.Registered = vbaActive, accountHolder(u), "Sandbox Bank Europe", true
			a.IBAN = sandboxIBAN("DE", "50099999", digitsFrom("eur-account:"+a.ID, 10))
			a.SwiftCode, a.AccountType = "SBXBDEB1", "current"
		}
	}

	// The treasury: the company's KYC was submitted when the partner was
	// set up (documents as JPEG and PNG, a Mexico City office, its RFC) and
	// readiness was checked; nothing is activated, so each rail starts
	// with POST /kyc/activate for its currency (spec rule 4).
	for _, u := range s.st.Users {
		if u.PartnerID != DemoPartnerID || u.EmployeeID != demoTreasuryEmployeeID {
			continue
		}
		k := global(u, "Paseo de la Reforma 222", "Ciudad de México", "CDMX", "06600", "MEX")
		k.Profile.Employment = &kycEmployment{EmploymentStatus: "self_employed", OccupationCode: &code, EmployerName: "Acme Payroll"}
		k.Profile.SourceOfFunds = "business_income"
		k.Profile.IdentificationNumbers = []kycIDNumber{{Type: "rfc", Number: "APA010101AB1", IssuingCountryCode: "MEX"}}
	}
	return nil
}
