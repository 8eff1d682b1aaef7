// Package dashboard serves the start page after signing in: what needs the
// viewer now, per role, refreshed live.
package dashboard

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
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
	moneyDays = 30
	cardDays  = 7
	// reconciliationsShown is how many of the latest runs the owner sees.
	reconciliationsShown = 3
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
	req := store.DashboardRequest{Now: now, Limit: limit, HR: viewer.Can(store.PermEmployeesWrite),
		Finance: viewer.Can(store.PermTreasury), Support: viewer.Can(store.PermCardsWrite), Webhooks: viewer.Can(store.PermSettings)}
	if req.HR {
		req.Currencies = store.ReadinessCurrencies()
	}
	moneyRange, cardRange, hours := dayRange(now, moneyDays), dayRange(now, cardDays), hourRange(now)
	req.MoneyFirst, req.MoneyLast = moneyRange[0], moneyRange[len(moneyRange)-1]
	req.CardFirst, req.CardLast = cardRange[0], cardRange[len(cardRange)-1]
	req.WebhooksSince, req.ReconciliationsToShow = hours[0], reconciliationsShown
	linked := req.Finance && viewer.Staff.ServiceUserID != ""
	// Every part the mirror holds is one batch on one connection; the
	// approval queue's page (the queue's own read) and the API's status
	// (a network call) go side by side with it.
	var (
		d     store.Dashboard
		queue store.QueuePage
	)
	g, gctx := errgroup.WithContext(ctx)
	if req.Webhooks {
		g.Go(func() error {
			st := h.upstreamStatus(gctx)
			v.Upstream = &st
			return nil
		})
	}
	if linked {
		// The approval queue's "mine": waiting for this admin's approval,
		// not created by this viewer.
		g.Go(func() (err error) {
			queue, err = h.store.ListQueuePage(gctx, store.QueueFilter{NeedsApprovalBy: viewer.Staff.ServiceUserID,
				ExcludeCreator: viewer.Staff.ID, Limit: limit, ExactTotal: true})
			return err
		})
	}
	g.Go(func() (err error) {
		d, err = h.store.Dashboard(gctx, req)
		return err
	})
	if err := g.Wait(); err != nil {
		return v, err
	}
	if req.Webhooks {
		v.Webhooks = webhooks(d, hours)
	}
	if req.Finance {
		v.Finance = finance(d, linked, queue, moneyRange)
	}
	if req.HR {
		v.HR = hr(d.HR, req.Currencies)
	}
	if req.Support {
		v.Support = support(d, cardRange)
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

func hr(d store.HRDashboard, currencies []string) *views.DashboardHR {
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
	return out
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

func finance(d store.Dashboard, linked bool, page store.QueuePage, days []time.Time) *views.DashboardFinance {
	out := &views.DashboardFinance{Linked: linked, SignLinksTotal: d.SignLinksTotal, NoTreasury: d.NoTreasury}
	links, wallets, moves, runs := d.SignLinks, d.Wallets, d.Money, d.Payroll
	if out.Linked {
		names := proposal.Names(page.Names)
		out.WaitingTotal = page.Total
		for _, p := range page.Rows {
			out.Waiting = append(out.Waiting, views.DashboardProposal{ID: p.ID, Href: "/approvals/" + p.ID, What: proposal.TypeLabel(p),
				Amount: proposal.Money(p), From: names.Of(p.OwnerUserID), To: names.Recipient(p), Created: p.CreatedAt})
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
	return out
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
	case store.SignKindEURAuthorization:
		v.What = "EUR provider authorization"
		v.Href = "/treasury/rails/eur"
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

// hourRange is 24 whole UTC hours, the current one last.
func hourRange(now time.Time) []time.Time {
	hours := make([]time.Time, 24)
	current := now.UTC().Truncate(time.Hour)
	for i := range hours {
		hours[i] = current.Add(time.Duration(i-23) * time.Hour)
	}
	return hours
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
