package employees

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// Snapshot kinds.
const (
	snapOnboarding   = "onboarding_status"
	snapKYCReadiness = "kyc_readiness"
	snapUSDReadiness = "usd_readiness"
	snapVBAUSD       = "vba_usd"
	snapDepositNGN   = "deposit_NGN"
	snapDepositMXN   = "deposit_MXN"
	snapKYCSummary   = "kyc_summary"
	snapWallets      = "wallets"
)

// kycSummary is what the app keeps of GET /kyc: no identification numbers,
// no BVN (DESIGN.md decision 8), only which kinds of number are present.
type kycSummary struct {
	Empty            bool     `json:"empty"`
	FirstName        string   `json:"firstName,omitempty"`
	LastName         string   `json:"lastName,omitempty"`
	DateOfBirth      string   `json:"dateOfBirth,omitempty"`
	Nationality      string   `json:"nationality,omitempty"`
	Street           string   `json:"street,omitempty"`
	City             string   `json:"city,omitempty"`
	State            string   `json:"state,omitempty"`
	PostalCode       string   `json:"postalCode,omitempty"`
	CountryCode      string   `json:"countryCode,omitempty"`
	HasEmployment    bool     `json:"hasEmployment"`
	EmploymentStatus string   `json:"employmentStatus,omitempty"`
	OccupationCode   string   `json:"occupationCode,omitempty"`
	EmployerName     string   `json:"employerName,omitempty"`
	SourceOfFunds    string   `json:"sourceOfFunds,omitempty"`
	IDTypes          []string `json:"idTypes,omitempty"`
	HasBVN           bool     `json:"hasBvn,omitempty"`
}

func summarise(p *apiclient.KYCProfile) kycSummary {
	if p == nil || (p.Profile == nil && p.Address == nil && p.Employment == nil && p.SourceOfFunds == "") {
		return kycSummary{Empty: true}
	}
	s := kycSummary{SourceOfFunds: p.SourceOfFunds, HasBVN: p.BVN != ""}
	if p.Profile != nil && p.Profile.PersonalInfo != nil {
		pi := p.Profile.PersonalInfo
		s.FirstName, s.LastName, s.DateOfBirth, s.Nationality = pi.FirstName, pi.LastName, pi.DateOfBirth, pi.Nationality
	}
	if a := p.Address; a != nil {
		s.Street, s.City, s.State, s.PostalCode, s.CountryCode = a.StreetLine1, a.City, a.State, a.PostalCode, a.CountryCode
	}
	if e := p.Employment; e != nil {
		s.HasEmployment = true
		s.EmploymentStatus, s.OccupationCode, s.EmployerName = e.EmploymentStatus, e.OccupationCode, e.EmployerName
	}
	for _, id := range p.IdentificationNumbers {
		s.IDTypes = append(s.IDTypes, id.Type)
	}
	return s
}

// readings is one refresh's answers from the API.
type readings struct {
	at         time.Time
	onboarding *apiclient.OnboardingStatus
	kycReady   *apiclient.KYCReadiness
	usdReady   *apiclient.USDReadiness
	vba        *apiclient.VirtualAccount
	kyc        *apiclient.KYCProfile
	ngn, mxn   []apiclient.DepositAccount
	wallets    []apiclient.Wallet
	errs       map[string]error
}

// read asks the API everything the employee page shows, in parallel (all
// GETs: retried by apiclient on faults, never a write).
func (h *Handler) read(ctx context.Context, userID string) readings {
	rd := readings{at: h.Now(), errs: map[string]error{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	run := func(kind string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				mu.Lock()
				rd.errs[kind] = err
				mu.Unlock()
			}
		}()
	}
	run(snapOnboarding, func() (err error) { rd.onboarding, err = h.API.GetOnboardingStatus(ctx, userID); return })
	run(snapKYCReadiness, func() (err error) { rd.kycReady, err = h.API.GetKYCReadiness(ctx, userID); return })
	run(snapUSDReadiness, func() (err error) { rd.usdReady, err = h.API.GetUSDReadiness(ctx, userID); return })
	run(snapVBAUSD, func() (err error) { rd.vba, err = h.API.GetUSDVirtualAccount(ctx, userID); return })
	run(snapKYCSummary, func() (err error) { rd.kyc, err = h.API.GetKYC(ctx, userID); return })
	run(snapDepositNGN, func() (err error) { rd.ngn, err = h.API.GetDepositAccounts(ctx, userID, apiclient.NGN); return })
	run(snapDepositMXN, func() (err error) { rd.mxn, err = h.API.GetDepositAccounts(ctx, userID, apiclient.MXN); return })
	run(snapWallets, func() (err error) { rd.wallets, err = h.API.ListWallets(ctx, userID); return })
	wg.Wait()
	return rd
}

// snapshots turns readings into what the store keeps.
func (rd readings) snapshots() []store.Snapshot {
	body := map[string]any{
		snapOnboarding: rd.onboarding, snapKYCReadiness: rd.kycReady, snapUSDReadiness: rd.usdReady, snapVBAUSD: rd.vba,
		snapDepositNGN: rd.ngn, snapDepositMXN: rd.mxn, snapWallets: rd.wallets,
	}
	var out []store.Snapshot
	for _, kind := range []string{snapOnboarding, snapKYCReadiness, snapUSDReadiness, snapVBAUSD, snapDepositNGN, snapDepositMXN, snapWallets, snapKYCSummary} {
		sn := store.Snapshot{Kind: kind, ReadAt: rd.at}
		if err := rd.errs[kind]; err != nil {
			sn.Error = readError(err)
		} else if kind == snapKYCSummary {
			sn.Body = mustJSON(summarise(rd.kyc))
		} else {
			sn.Body = mustJSON(body[kind])
		}
		out = append(out, sn)
	}
	return out
}

// readError says in words why a read failed, without request details.
func readError(err error) string {
	switch {
	case apiclient.IsNotFound(err):
		return "the Partner API has nothing to show here yet (404: " + apiMessage(err) + ")"
	case apiclient.IsForbidden(err):
		return "the Partner API refused: this user belongs to another partner"
	case apiclient.StatusCode(err) == 0:
		return "the Partner API did not answer"
	}
	return "the Partner API failed: " + apiMessage(err)
}

// cells derives one readiness cell per currency from readings.
func (rd readings) cells(employeeID int64) []store.ReadinessCell {
	var out []store.ReadinessCell
	for _, cur := range store.ReadinessCurrencies() {
		c := store.ReadinessCell{EmployeeID: employeeID, Currency: cur, State: store.ReadyNotStarted, ReadAt: rd.at}
		rail, hasRail := apiclient.RailStatus{}, false
		if rd.onboarding != nil {
			rail, hasRail = rd.onboarding.Currencies[apiclient.Fiat(cur)]
		}
		status := strings.ToLower(rail.Status)
		switch {
		case hasRail && (rail.Active || status == "active" || status == "approved"),
			cur == "EUR" && rd.onboarding != nil && strings.EqualFold(rd.onboarding.EURProviderStatus, "active"):
			c.State = store.ReadyActive
		case cur == "USD" && rd.vba != nil && rd.vba.Status == "rejected":
			c.State = store.ReadyRejected
			if rd.vba.Reason != nil {
				c.Detail = *rd.vba.Reason
			}
		case cur == "USD" && rd.vba != nil && rd.vba.Status == "failed":
			c.State, c.Detail = store.ReadyFailed, "USD account set-up failed; it can be retried safely"
		case cur == "USD" && rd.vba != nil && rd.vba.Status == "active":
			c.State = store.ReadyActive
		case cur == "USD" && rd.vba != nil && (rd.vba.Status == "provisioning" || rd.vba.Status == "pending"):
			c.State, c.Detail = store.ReadyOnboarding, "USD account "+string(rd.vba.Status)
		case status == "failed":
			c.State = store.ReadyFailed
		case status == "rejected":
			c.State = store.ReadyRejected
		case hasRail && status != "" && status != "none" && status != "not_started":
			c.State, c.Detail = store.ReadyOnboarding, "rail "+rail.Status
		case cur == "USD" && rd.usdReady != nil:
			if rd.usdReady.Ready {
				c.State = store.ReadyToActivate
			} else {
				c.State, c.Missing = store.ReadyMissing, rd.usdReady.Missing
			}
		case rd.kycReady != nil:
			if rd.kycReady.CanActivate {
				c.State = store.ReadyToActivate
			} else {
				c.State, c.Missing = store.ReadyMissing, rd.kycReady.Missing
			}
		}
		if c.State == store.ReadyMissing && len(c.Missing) == 0 {
			c.Detail = "the Partner API says it is not ready but lists nothing missing"
		}
		out = append(out, c)
	}
	return out
}

// nothingAsked reports whether readings are positive evidence that the API
// asks nothing further of the employee, with the words for the audit row.
// Conservative: every read it relies on answered (a USD account may be
// absent), GET /kyc/readiness says canActivate and GET /kyc/usd-readiness
// says ready, both with nothing missing, no currency is missing fields,
// failed, rejected or still onboarding (a rail in progress may be waiting on
// the employee, as a Mexican bank verification does), and a USD account, if
// any, is active. Anything less keeps the flag.
func (rd readings) nothingAsked(cells []store.ReadinessCell) (string, bool) {
	for _, kind := range []string{snapOnboarding, snapKYCReadiness, snapUSDReadiness} {
		if rd.errs[kind] != nil {
			return "", false
		}
	}
	if err := rd.errs[snapVBAUSD]; err != nil && !apiclient.IsNotFound(err) {
		return "", false
	}
	if rd.onboarding == nil || rd.kycReady == nil || rd.usdReady == nil {
		return "", false
	}
	if rd.vba != nil && rd.vba.Status != "active" {
		return "", false
	}
	if !rd.kycReady.CanActivate || len(rd.kycReady.Missing) > 0 || !rd.usdReady.Ready || len(rd.usdReady.Missing) > 0 {
		return "", false
	}
	for _, c := range cells {
		switch c.State {
		case store.ReadyActive, store.ReadyToActivate, store.ReadyNotStarted:
		default:
			return "", false
		}
		if len(c.Missing) > 0 {
			return "", false
		}
	}
	return "the Partner API reports nothing missing (KYC readiness: can activate; USD readiness: ready) " +
		"and no currency onboarding, failed or rejected", true
}

// Refresh reads an employee's onboarding from the API and records the
// snapshots, readiness and wallets. Used by the employee page, the refresh
// button and the webhooks area (onboarding.* events). When the employee is
// flagged as needing an action and the readings show nothing further asked
// (nothingAsked), the flag is cleared and recorded under by, unless it was
// raised after the reads began.
func (h *Handler) Refresh(ctx context.Context, e store.Employee, by store.Actor) error {
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted {
		return nil
	}
	flagged := e.InviteState == store.InviteActionRequired
	var readFrom time.Time
	if flagged {
		// On the database's clock, the one the flag is dated by.
		t, err := h.Store.DatabaseNow(ctx)
		if err != nil {
			return fmt.Errorf("employees: refresh %d: %w", e.ID, err)
		}
		readFrom = t
	}
	rd := h.read(ctx, e.ServiceUserID)
	for _, w := range rd.wallets {
		err := h.Store.UpsertWallet(ctx, store.Wallet{
			ID: w.ID, EmployeeID: e.ID, Currency: string(w.Currency), DisplayCurrency: string(w.DisplayCurrency),
			Address: w.Address, Chain: w.Chain, Status: w.Status, OwnerAddress: w.UserOwnerAddress, Legacy: w.Legacy,
			Balance: decimal.NullDecimal{Decimal: w.Balance, Valid: true}, BalanceReadAt: &rd.at,
		})
		if err != nil {
			return fmt.Errorf("employees: refresh %d: %w", e.ID, err)
		}
	}
	cells := rd.cells(e.ID)
	if err := h.Store.SaveOnboarding(ctx, e.ID, rd.snapshots(), cells); err != nil {
		return fmt.Errorf("employees: refresh %d: %w", e.ID, err)
	}
	if !flagged {
		return nil
	}
	why, ok := rd.nothingAsked(cells)
	if !ok {
		return nil
	}
	cleared, err := h.Store.ClearActionRequiredAsOf(ctx, e.ID, readFrom, by, "cleared automatically: "+why)
	if err != nil {
		return fmt.Errorf("employees: refresh %d: %w", e.ID, err)
	}
	if cleared {
		h.Logger.InfoContext(ctx, "action required cleared by readiness", "employee", e.ID, "by", by.Email)
	}
	return nil
}

func decodeSnap[T any](snaps map[string]store.Snapshot, kind string) (*T, *store.Snapshot) {
	sn, ok := snaps[kind]
	if !ok {
		return nil, nil
	}
	if sn.Error != "" || len(sn.Body) == 0 || string(sn.Body) == "null" {
		return nil, &sn
	}
	var v T
	if err := json.Unmarshal(sn.Body, &v); err != nil {
		sn.Error = "the stored answer could not be read: refresh"
		return nil, &sn
	}
	return &v, &sn
}
