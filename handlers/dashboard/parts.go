package dashboard

import (
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/views"
)

// moneyCharts draws one chart per currency that moved in the window: money
// in (completed deposits) and out (completed withdrawals) per day.
func moneyCharts(moves []store.MoneyDay, days []time.Time) []views.Chart {
	byCurrency := map[string][2][]decimal.Decimal{}
	index := dayIndex(days)
	for _, m := range moves {
		i, ok := index[m.Day.UTC()]
		if !ok {
			continue
		}
		cur := fiatOf(m.Currency)
		s, ok := byCurrency[cur]
		if !ok {
			s = [2][]decimal.Decimal{zeros(len(days)), zeros(len(days))}
			byCurrency[cur] = s
		}
		s[0][i] = s[0][i].Add(m.In)
		s[1][i] = s[1][i].Add(m.Out)
	}
	currencies := make([]string, 0, len(byCurrency))
	for c := range byCurrency {
		currencies = append(currencies, c)
	}
	slices.Sort(currencies)
	labels := dayLabels(days)
	var out []views.Chart
	for _, c := range currencies {
		s := byCurrency[c]
		in, outSum := sum(s[0]), sum(s[1])
		out = append(out, views.Chart{ID: "money-" + c, Title: "Money in and out, " + c + ", last 30 days",
			Desc: "Completed deposits and withdrawals per day in " + c + ": " + views.FormatDecimal(in, 2) + " in, " +
				views.FormatDecimal(outSum, 2) + " out.",
			Category: "Day", Labels: labels, Unit: c, Places: 2, LabelEvery: 5,
			Series: []views.ChartSeries{{Name: "In", Tone: "in", Values: s[0]}, {Name: "Out", Tone: "out", Values: s[1]}}})
	}
	return out
}

func support(d store.Dashboard, days []time.Time) *views.DashboardSupport {
	cards, total, spend := d.Stopped, d.StoppedTotal, d.CardDays
	out := &views.DashboardSupport{StoppedTotal: total}
	for _, c := range cards {
		name := c.CardName
		if name == "" {
			name = "Card"
		}
		if c.Last4 != "" {
			name += " ···· " + c.Last4
		}
		out.Stopped = append(out.Stopped, views.DashboardCard{Href: "/cards/" + c.CardID, Employee: c.Employee, Card: name,
			Status: views.CardStatus(c.Status), SeenAt: c.SeenAt})
	}
	index := dayIndex(days)
	spends, declines := zeros(len(days)), zeros(len(days))
	spent := map[string]decimal.Decimal{}
	for _, d := range spend {
		i, ok := index[d.Day.UTC()]
		if !ok {
			continue
		}
		spends[i] = spends[i].Add(decimal.NewFromInt(int64(d.Spends)))
		declines[i] = declines[i].Add(decimal.NewFromInt(int64(d.Declines)))
		out.Spends += d.Spends
		out.Declines += d.Declines
		cur := fiatOf(d.Currency)
		spent[cur] = spent[cur].Add(d.Spent)
	}
	for _, c := range sortedKeys(spent) {
		out.Spent = append(out.Spent, views.Amount{Value: spent[c], Currency: c})
	}
	out.SpendChart = views.Chart{ID: "card-spend", Title: "Card spends and declines, last 7 days",
		Desc:     "Card transactions per day: " + strconv.Itoa(out.Spends) + " spends and " + strconv.Itoa(out.Declines) + " declines in 7 days.",
		Category: "Day", Labels: dayLabels(days), Unit: "transactions",
		Series: []views.ChartSeries{{Name: "Spends", Values: spends}, {Name: "Declines", Tone: "bad", Values: declines}}}
	return out
}

// webhooks is the owner's view of the 24 hours from hours[0].
func webhooks(d store.Dashboard, hours []time.Time) *views.DashboardWebhooks {
	health, runs := d.Webhooks, d.Reconciliations
	out := &views.DashboardWebhooks{Failures: health.Failures, SignatureFailures: health.SignatureFailures, Waiting: health.Waiting,
		LastReceived: health.LastReceived}
	deliveries, failures := zeros(24), zeros(24)
	at := map[time.Time]int{}
	labels := make([]string, 24)
	for i, t := range hours {
		at[t] = i
		labels[i] = t.Format("15h")
	}
	for _, hr := range health.Hours {
		i, ok := at[hr.Hour.UTC()]
		if !ok {
			continue
		}
		deliveries[i] = decimal.NewFromInt(int64(hr.Deliveries))
		failures[i] = decimal.NewFromInt(int64(hr.Failures))
		out.Deliveries += hr.Deliveries
	}
	out.Chart = views.Chart{ID: "webhook-hours", Title: "Webhook deliveries per hour, last 24 hours (UTC)",
		Desc:     strconv.Itoa(out.Deliveries) + " deliveries received in 24 hours, " + strconv.Itoa(out.Failures) + " of them failed to process.",
		Category: "Hour (UTC)", Labels: labels, Unit: "deliveries", LabelEvery: 3,
		Series: []views.ChartSeries{{Name: "Received", Values: deliveries}, {Name: "Failed", Tone: "bad", Values: failures}}}
	for _, r := range runs {
		out.Reconciliations = append(out.Reconciliations, views.DashboardReconciliation{At: r.StartedAt, Checked: r.Checked,
			Corrected: r.Corrected, Notes: r.Notes})
	}
	return out
}

func dayIndex(days []time.Time) map[time.Time]int {
	m := make(map[time.Time]int, len(days))
	for i, d := range days {
		m[d] = i
	}
	return m
}

func dayLabels(days []time.Time) []string {
	out := make([]string, len(days))
	for i, d := range days {
		out[i] = d.Format("2 Jan")
	}
	return out
}

func zeros(n int) []decimal.Decimal {
	out := make([]decimal.Decimal, n)
	for i := range out {
		out[i] = decimal.Zero
	}
	return out
}

func sum(vs []decimal.Decimal) decimal.Decimal {
	s := decimal.Zero
	for _, v := range vs {
		s = s.Add(v)
	}
	return s
}

func sortedKeys(m map[string]decimal.Decimal) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
