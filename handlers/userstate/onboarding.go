package userstate

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

// Snapshot kinds: one per read of an employee's onboarding.
const (
	SnapOnboarding   = "onboarding_status"
	SnapKYCReadiness = "kyc_readiness"
	SnapUSDReadiness = "usd_readiness"
	SnapVBAUSD       = "vba_usd"
	SnapDepositNGN   = "deposit_NGN"
	SnapDepositMXN   = "deposit_MXN"
	SnapKYCSummary   = "kyc_summary"
	SnapWallets      = "wallets"
)

// OnboardingAPI is what reading an employee's onboarding asks the API (all
// GETs).
type OnboardingAPI interface {
	GetOnboardingStatus(ctx context.Context, userID string) (*apiclient.OnboardingStatus, error)
	GetKYCReadiness(ctx context.Context, userID string) (*apiclient.KYCReadiness, error)
	GetUSDReadiness(ctx context.Context, userID string) (*apiclient.USDReadiness, error)
	GetUSDVirtualAccount(ctx context.Context, userID string) (*apiclient.VirtualAccount, error)
	GetKYC(ctx context.Context, userID string) (*apiclient.KYCProfile, error)
	GetDepositAccounts(ctx context.Context, userID string, currency apiclient.Fiat) ([]apiclient.DepositAccount, error)
	ListWallets(ctx context.Context, userID string) ([]apiclient.Wallet, error)
}

// KYCSummary is what the app keeps of GET /kyc: no identification numbers,
// no BVN (DESIGN.md decision 8), only which kinds of number are present.
type KYCSummary struct {
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

// Summarise keeps what the app may keep of a KYC profile.
func Summarise(p *apiclient.KYCProfile) KYCSummary {
	if p == nil || (p.Profile == nil && p.Address == nil && p.Employment == nil && p.SourceOfFunds == "") {
		return KYCSummary{Empty: true}
	}
	s := KYCSummary{SourceOfFunds: p.SourceOfFunds, HasBVN: p.BVN != ""}
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

// Readings are one read of an employee's onboarding: the API's answers and
// the errors of the reads that failed, keyed by snapshot kind.
type Readings struct {
	At         time.Time
	Onboarding *apiclient.OnboardingStatus
	KYCReady   *apiclient.KYCReadiness
	USDReady   *apiclient.USDReadiness
	VBA        *apiclient.VirtualAccount
	KYC        *apiclient.KYCProfile
	NGN, MXN   []apiclient.DepositAccount
	Wallets    []apiclient.Wallet
	Errs       map[string]error
}

// ReadOnboarding asks the API everything the employee page and the
// readiness cells show, the reads in parallel (GETs only: apiclient retries
// them on faults).
func ReadOnboarding(ctx context.Context, api OnboardingAPI, userID string, at time.Time) Readings {
	rd := Readings{At: at, Errs: map[string]error{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	run := func(kind string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				mu.Lock()
				rd.Errs[kind] = err
				mu.Unlock()
			}
		}()
	}
	run(SnapOnboarding, func() (err error) { rd.Onboarding, err = api.GetOnboardingStatus(ctx, userID); return })
	run(SnapKYCReadiness, func() (err error) { rd.KYCReady, err = api.GetKYCReadiness(ctx, userID); return })
	run(SnapUSDReadiness, func() (err error) { rd.USDReady, err = api.GetUSDReadiness(ctx, userID); return })
	run(SnapVBAUSD, func() (err error) { rd.VBA, err = api.GetUSDVirtualAccount(ctx, userID); return })
	run(SnapKYCSummary, func() (err error) { rd.KYC, err = api.GetKYC(ctx, userID); return })
	run(SnapDepositNGN, func() (err error) { rd.NGN, err = api.GetDepositAccounts(ctx, userID, apiclient.NGN); return })
	run(SnapDepositMXN, func() (err error) { rd.MXN, err = api.GetDepositAccounts(ctx, userID, apiclient.MXN); return })
	run(SnapWallets, func() (err error) { rd.Wallets, err = api.ListWallets(ctx, userID); return })
	wg.Wait()
	return rd
}

// Snapshots turns readings into what the store keeps.
func (rd Readings) Snapshots() []store.Snapshot {
	body := map[string]any{
		SnapOnboarding: rd.Onboarding, SnapKYCReadiness: rd.KYCReady, SnapUSDReadiness: rd.USDReady, SnapVBAUSD: rd.VBA,
		SnapDepositNGN: rd.NGN, SnapDepositMXN: rd.MXN, SnapWallets: rd.Wallets,
	}
	var out []store.Snapshot
	for _, kind := range []string{SnapOnboarding, SnapKYCReadiness, SnapUSDReadiness, SnapVBAUSD, SnapDepositNGN, SnapDepositMXN, SnapWallets, SnapKYCSummary} {
		sn := store.Snapshot{Kind: kind, ReadAt: rd.At}
		if err := rd.Errs[kind]; err != nil {
			sn.Error = apiclient.ReadWords(err)
		} else if kind == SnapKYCSummary {
			sn.Body = mustJSON(Summarise(rd.KYC))
		} else {
			sn.Body = mustJSON(body[kind])
		}
		out = append(out, sn)
	}
	return out
}

// mustJSON encodes the API's own types, which cannot fail short of a bug;
// a failure is kept as an empty body.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Cells derives the readiness cells the readings give evidence for. A
// currency whose reads all failed gets no cell: what was read before (or
// "not read yet") stays, rather than a claim that onboarding has not
// started.
func (rd Readings) Cells(employeeID int64) []store.ReadinessCell {
	var out []store.ReadinessCell
	for _, cur := range store.ReadinessCurrencies() {
		c := store.ReadinessCell{EmployeeID: employeeID, Currency: cur, ReadAt: rd.At}
		rail, hasRail := apiclient.RailStatus{}, false
		if rd.Onboarding != nil {
			rail, hasRail = rd.Onboarding.Currencies[apiclient.Fiat(cur)]
		}
		status := strings.ToLower(rail.Status)
		switch {
		case hasRail && (rail.Active || status == "active" || status == "approved"),
			cur == "EUR" && rd.Onboarding != nil && strings.EqualFold(rd.Onboarding.EURProviderStatus, "active"):
			c.State = store.ReadyActive
		case cur == "USD" && rd.VBA != nil && rd.VBA.Status == "rejected":
			c.State = store.ReadyRejected
			if rd.VBA.Reason != nil {
				c.Detail = *rd.VBA.Reason
			}
		case cur == "USD" && rd.VBA != nil && rd.VBA.Status == "failed":
			c.State, c.Detail = store.ReadyFailed, "USD account set-up failed; it can be retried safely"
		case cur == "USD" && rd.VBA != nil && rd.VBA.Status == "active":
			c.State = store.ReadyActive
		case cur == "USD" && rd.VBA != nil && (rd.VBA.Status == "provisioning" || rd.VBA.Status == "pending"):
			c.State, c.Detail = store.ReadyOnboarding, "USD account "+string(rd.VBA.Status)
		case status == "failed":
			c.State = store.ReadyFailed
		case status == "rejected":
			c.State = store.ReadyRejected
		case hasRail && status != "" && status != "none" && status != "not_started":
			c.State, c.Detail = store.ReadyOnboarding, "rail "+rail.Status
		case cur == "USD" && rd.USDReady != nil:
			if rd.USDReady.Ready {
				c.State = store.ReadyToActivate
			} else {
				c.State, c.Missing = store.ReadyMissing, rd.USDReady.Missing
			}
		case rd.KYCReady != nil:
			if rd.KYCReady.CanActivate {
				c.State = store.ReadyToActivate
			} else {
				c.State, c.Missing = store.ReadyMissing, rd.KYCReady.Missing
			}
		case rd.Onboarding != nil:
			// The rail has not started; what is missing could not be read.
			c.State = store.ReadyNotStarted
		default:
			continue
		}
		if c.State == store.ReadyMissing && len(c.Missing) == 0 {
			c.Detail = "the Partner API says it is not ready but lists nothing missing"
		}
		out = append(out, c)
	}
	return out
}

// NothingAsked reports whether readings are positive evidence that the API
// asks nothing further of the employee, with the words for the audit row.
// Conservative: every read it relies on answered (a USD account may be
// absent), GET /kyc/readiness says canActivate and GET /kyc/usd-readiness
// says ready, both with nothing missing, no currency is missing fields,
// failed, rejected or still onboarding (a rail in progress may be waiting on
// the employee, as a Mexican bank verification does), and a USD account, if
// any, is active. Anything less keeps the flag.
func (rd Readings) NothingAsked(cells []store.ReadinessCell) (string, bool) {
	for _, kind := range []string{SnapOnboarding, SnapKYCReadiness, SnapUSDReadiness} {
		if rd.Errs[kind] != nil {
			return "", false
		}
	}
	if err := rd.Errs[SnapVBAUSD]; err != nil && !apiclient.IsNotFound(err) {
		return "", false
	}
	if rd.Onboarding == nil || rd.KYCReady == nil || rd.USDReady == nil {
		return "", false
	}
	if rd.VBA != nil && rd.VBA.Status != "active" {
		return "", false
	}
	if !rd.KYCReady.CanActivate || len(rd.KYCReady.Missing) > 0 || !rd.USDReady.Ready || len(rd.USDReady.Missing) > 0 {
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

// OnboardingStore is where readings are recorded.
type OnboardingStore interface {
	UpsertWallet(ctx context.Context, w store.Wallet) error
	SaveOnboarding(ctx context.Context, employeeID int64, snaps []store.Snapshot, cells []store.ReadinessCell) error
}

// RecordOnboarding keeps readings: the wallets with their balances, the
// snapshots and the readiness cells, each dated by when they were read.
func RecordOnboarding(ctx context.Context, st OnboardingStore, employeeID int64, rd Readings) ([]store.ReadinessCell, error) {
	for _, w := range rd.Wallets {
		err := st.UpsertWallet(ctx, store.Wallet{
			ID: w.ID, EmployeeID: employeeID, Currency: string(w.Currency), DisplayCurrency: string(w.DisplayCurrency),
			Address: w.Address, Chain: w.Chain, Status: w.Status, OwnerAddress: w.UserOwnerAddress, Legacy: w.Legacy,
			Balance: decimal.NullDecimal{Decimal: w.Balance, Valid: true}, BalanceReadAt: &rd.At,
		})
		if err != nil {
			return nil, fmt.Errorf("userstate: onboarding of employee %d: %w", employeeID, err)
		}
	}
	cells := rd.Cells(employeeID)
	if err := st.SaveOnboarding(ctx, employeeID, rd.Snapshots(), cells); err != nil {
		return nil, fmt.Errorf("userstate: onboarding of employee %d: %w", employeeID, err)
	}
	return cells, nil
}
