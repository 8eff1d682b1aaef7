// Package dashboard serves the start page after signing in: what needs the
// viewer now, per role, refreshed live.
package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/mirror"
	"partneradmin/store"
	"partneradmin/views"
)

// Upstream reports which Partner API the app talks to and whether it answers.
type Upstream interface {
	Status(ctx context.Context) views.UpstreamStatus
}

// Handler serves the dashboard.
type Handler struct {
	*handlers.Base
	store    *store.Store
	upstream Upstream
	clock    func() time.Time
	// areas describes the areas by path; only those in the viewer's
	// navigation are listed.
	areas map[string]string

	// probe keeps the API's status for a while: the page polls every 10
	// seconds per open tab, and the API need not be asked that often.
	probeMu    sync.Mutex
	probe      views.UpstreamStatus
	probedAt   time.Time
	probeFresh time.Duration
}

// New builds the dashboard. upstream says whether the Partner API answers;
// areas describes the areas by path.
func New(d handlers.Deps, upstream Upstream, areas map[string]string) *Handler {
	return &Handler{Base: d.Base, store: d.Store, upstream: upstream, clock: d.Clock, areas: areas, probeFresh: 30 * time.Second}
}

// List lengths: a single role's page, and the owner's brief one.
const (
	fullList  = 10
	briefList = 5
)

// Windows the page reads.
const (
	moneyDays   = 30
	cardDays    = 7
	webhookSpan = 24 * time.Hour
)

// Home shows the dashboard; an htmx poll gets its live part alone.
func (h *Handler) Home(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	v, err := h.build(ctx, viewer)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Start", views.DashboardPage(v), views.DashboardLive(v))
}

// build reads what the viewer's role may see. Parts are chosen by
// permission: HR's by employees.write, finance's by treasury.move,
// support's by cards.write, webhook health and the API's status by
// settings.manage (the owner, who holds them all and gets brief lists).
func (h *Handler) build(ctx context.Context, viewer *handlers.Viewer) (views.DashboardView, error) {
	now := h.clock()
	v := views.DashboardView{Name: viewer.Staff.Name, RoleLabel: viewer.Staff.Role.Label(), LiveURL: "/", Now: now,
		Brief: viewer.Staff.Role == store.RoleOwner}
	if v.Name == "" {
		v.Name = viewer.Staff.Email
	}
	for _, item := range viewer.Nav {
		if d, ok := h.areas[item.Href]; ok {
			v.Areas = append(v.Areas, views.AreaLink{Label: item.Label, Href: item.Href, Description: d})
		}
	}
	limit := fullList
	if v.Brief {
		limit = briefList
	}
	// The parts, and the API's status (a network call), are read side by
	// side, each on its own connection; each part writes only its field.
	g, gctx := errgroup.WithContext(ctx)
	if viewer.Can(store.PermSettings) {
		g.Go(func() error {
			st := h.upstreamStatus(gctx)
			v.Upstream = &st
			return nil
		})
		g.Go(func() (err error) {
			v.Webhooks, err = h.webhooks(gctx, now)
			return err
		})
	}
	if viewer.Can(store.PermTreasury) {
		g.Go(func() (err error) {
			v.Finance, err = h.finance(gctx, viewer, now, limit)
			return err
		})
	}
	if viewer.Can(store.PermEmployeesWrite) {
		g.Go(func() (err error) {
			v.HR, err = h.hr(gctx, now, limit)
			return err
		})
	}
	if viewer.Can(store.PermCardsWrite) {
		g.Go(func() (err error) {
			v.Support, err = h.support(gctx, now, limit)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return v, err
	}
	return v, nil
}

func (h *Handler) upstreamStatus(ctx context.Context) views.UpstreamStatus {
	h.probeMu.Lock()
	defer h.probeMu.Unlock()
	// Elapsed real time, not the app's clock (which tests may stop).
	if !h.probedAt.IsZero() && time.Since(h.probedAt) < h.probeFresh {
		return h.probe
	}
	h.probe, h.probedAt = h.upstream.Status(ctx), time.Now()
	return h.probe
}

// Reasons in words, most urgent first.
var needWords = []views.DashboardCount{
	{Key: store.NeedActionRequired, Label: "the Partner API asks for something"},
	{Key: store.NeedOnboardingStop, Label: "a currency failed or was rejected"},
	{Key: store.NeedNotLinked, Label: "invited a week ago or more, not linked"},
}

// readinessColumns are the states the readiness table counts, in order.
var readinessColumns = []string{store.ReadyActive, store.ReadyOnboarding, store.ReadyToActivate, store.ReadyMissing,
	store.ReadyFailed, store.ReadyRejected, store.ReadyNotStarted, store.ReadyNotRead}

func (h *Handler) hr(ctx context.Context, now time.Time, limit int) (*views.DashboardHR, error) {
	currencies := store.ReadinessCurrencies()
	d, err := h.store.HRDashboard(ctx, now, limit, currencies)
	if err != nil {
		return nil, err
	}
	f := d.Funnel
	out := &views.DashboardHR{Funnel: views.Funnel{ID: "invite-funnel", Title: "Invite funnel",
		Desc: "Employees by how far they got, each stage a part of the one before: " + strconv.Itoa(f.Invited) + " invited, " +
			strconv.Itoa(f.FirstDeposit) + " with a first deposit.",
		Stages: []views.FunnelStage{{Label: "Invited", N: f.Invited}, {Label: "Linked", N: f.Linked},
			{Label: "KYC submitted", N: f.KYCSubmitted}, {Label: "First currency active", N: f.CurrencyActive},
			{Label: "First deposit", N: f.FirstDeposit}}}}
	for _, c := range needWords {
		c.N = d.NeedCounts[c.Key]
		out.NeedCounts = append(out.NeedCounts, c)
	}
	out.NeedsTotal = d.NeedTotal
	for _, n := range d.Needs {
		out.Needs = append(out.Needs, views.DashboardNeed{Href: "/employees/" + strconv.FormatInt(n.EmployeeID, 10), Name: n.Name,
			Email: n.Email, Reason: n.Reason, Words: needInWords(n), Since: n.Since})
	}
	for _, s := range readinessColumns {
		out.Readiness.States = append(out.Readiness.States, views.DashboardCount{Key: s, Label: views.StatusLabel(views.StatusReadiness, s)})
	}
	for _, c := range currencies {
		row := views.DashboardReadinessRow{Currency: c}
		for _, s := range readinessColumns {
			row.Counts = append(row.Counts, d.Readiness[c][s])
		}
		out.Readiness.Currencies = append(out.Readiness.Currencies, row)
	}
	return out, nil
}

// needInWords says why an employee needs action.
func needInWords(n store.EmployeeNeed) string {
	switch n.Reason {
	case store.NeedActionRequired:
		if n.Detail != "" {
			return "The Partner API asks: " + n.Detail
		}
		return "The Partner API asks for something: open the employee to see what."
	case store.NeedOnboardingStop:
		return "Onboarding " + n.Detail + ": open the employee to see why."
	case store.NeedNotLinked:
		return "Invited, not linked yet: send the invite again?"
	}
	return n.Reason
}

func (h *Handler) finance(ctx context.Context, viewer *handlers.Viewer, now time.Time, limit int) (*views.DashboardFinance, error) {
	out := &views.DashboardFinance{Linked: viewer.Staff.ServiceUserID != ""}
	var (
		page    store.QueuePage
		links   []store.OpenSignLink
		wallets []store.Wallet
		moves   []store.MoneyDay
		runs    []store.PayrollInProgress
	)
	days := dayRange(now, moneyDays)
	// Five reads, each on its own connection.
	g, gctx := errgroup.WithContext(ctx)
	if out.Linked {
		// The approval queue's "mine": waiting for this admin's approval,
		// not created by this viewer.
		g.Go(func() (err error) {
			page, err = h.store.ListQueuePage(gctx, store.QueueFilter{NeedsApprovalBy: viewer.Staff.ServiceUserID,
				ExcludeCreator: viewer.Staff.ID, Limit: limit, ExactTotal: true})
			return err
		})
	}
	g.Go(func() (err error) {
		links, out.SignLinksTotal, err = h.store.OpenSignLinks(gctx, now, limit)
		return err
	})
	g.Go(func() error {
		_, ws, err := h.store.Treasury(gctx)
		switch {
		case errors.Is(err, store.ErrNoTreasury):
			out.NoTreasury = true
		case err != nil:
			return err
		}
		wallets = ws
		return nil
	})
	g.Go(func() (err error) {
		moves, err = h.store.MoneyInOut(gctx, days[0], days[len(days)-1])
		return err
	})
	g.Go(func() (err error) {
		runs, err = h.store.PayrollRunsInProgress(gctx, limit)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if out.Linked {
		names := mirror.Names(page.Names)
		out.WaitingTotal = page.Total
		for _, p := range page.Rows {
			out.Waiting = append(out.Waiting, views.DashboardProposal{ID: p.ID, Href: "/approvals/" + p.ID, What: mirror.TypeLabel(p),
				Amount: mirror.Money(p), From: names.Of(p.OwnerUserID), To: names.Recipient(p), Created: p.CreatedAt})
		}
	}
	for _, l := range links {
		out.SignLinks = append(out.SignLinks, signLinkView(l))
	}
	for _, w := range wallets {
		b := views.DashboardBalance{Amount: tokenAmount(w.Balance.Decimal, w.Currency), Known: w.Balance.Valid && w.BalanceReadAt != nil,
			Stale: w.BalanceStaleSince != nil}
		if w.BalanceReadAt != nil {
			b.ReadAt = *w.BalanceReadAt
		}
		out.Balances = append(out.Balances, b)
	}
	out.MoneyCharts = moneyCharts(moves, days)
	for _, r := range runs {
		state := "proposals sent, " + strconv.Itoa(r.Open) + " still open"
		if r.State == store.PayrollSending {
			state = "sending its proposals"
		}
		out.Payroll = append(out.Payroll, views.DashboardPayroll{Href: "/payroll/" + strconv.FormatInt(r.ID, 10), Name: r.Name,
			State: state, Rows: r.Rows, Open: r.Open})
	}
	return out, nil
}

// signLinkView names what a link is for, and where it is followed.
func signLinkView(l store.OpenSignLink) views.DashboardSignLink {
	state := views.StatusLabel(views.StatusSign, store.SignWaiting)
	if l.Opened {
		state = views.StatusLabel(views.StatusSign, store.SignOpened)
	}
	v := views.DashboardSignLink{State: state, ExpiresAt: l.ExpiresAt, CreatedBy: l.CreatedBy}
	switch l.Kind {
	case "batch":
		v.What = strconv.Itoa(l.Items) + " proposals in one link"
		v.Href = "/approvals/sign-batch/" + strconv.FormatInt(l.ID, 10)
	case store.SignKindProposal:
		v.What = "Proposal " + l.ProposalID
		v.Href = "/approvals/" + l.ProposalID
	case store.SignKindOwnerProof:
		v.What = "Owner proof for a new wallet"
	default:
		v.What = "A money-out signature"
	}
	return v
}

// tokenAmount shows a token amount with its fiat code first (USD beside
// USDB).
func tokenAmount(d decimal.Decimal, coin string) views.Amount {
	if f, ok := apiclient.Stablecoin(coin).Fiat(); ok {
		return views.Amount{Value: d, Currency: string(f), Token: coin}
	}
	return views.Amount{Value: d, Currency: coin}
}

// dayRange is the n UTC days ending with today's, oldest first.
func dayRange(now time.Time, n int) []time.Time {
	today := now.UTC().Truncate(24 * time.Hour)
	out := make([]time.Time, n)
	for i := range n {
		out[i] = today.AddDate(0, 0, i-n+1)
	}
	return out
}

// fiatOf is the fiat code of a currency as events spell it (a token code
// or a fiat code).
func fiatOf(c string) string {
	if f, ok := apiclient.Stablecoin(c).Fiat(); ok {
		return string(f)
	}
	return c
}
