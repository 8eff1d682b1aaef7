package views

import (
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
)

// BenchmarkDashboardCharts renders the owner's start page's charts: money
// in and out over 30 days in three currencies, a week of card spends, a
// day of webhook deliveries per hour, and the invite funnel.
func BenchmarkDashboardCharts(b *testing.B) {
	series := func(n int, unit string, money bool) []decimal.Decimal {
		out := make([]decimal.Decimal, n)
		for i := range out {
			if money {
				out[i] = decimal.New(int64(1234567+i*7919), -2)
			} else {
				out[i] = decimal.NewFromInt(int64(400 + i*13))
			}
		}
		return out
	}
	labels := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strconv.Itoa(i+1) + " Nov"
		}
		return out
	}
	var charts []Chart
	for _, c := range []string{"EUR", "NGN", "USD"} {
		charts = append(charts, Chart{ID: "money-" + c, Title: "Money in and out, " + c, Desc: "d", Category: "Day", Labels: labels(30),
			Unit: c, Places: 2, LabelEvery: 5,
			Series: []ChartSeries{{Name: "In", Tone: "in", Values: series(30, c, true)}, {Name: "Out", Tone: "out", Values: series(30, c, true)}}})
	}
	bars := []Chart{
		{ID: "card-spend", Title: "Card spends", Desc: "d", Category: "Day", Labels: labels(7), Unit: "transactions",
			Series: []ChartSeries{{Name: "Spends", Values: series(7, "", false)}, {Name: "Declines", Tone: "bad", Values: series(7, "", false)}}},
		{ID: "webhook-hours", Title: "Webhook deliveries", Desc: "d", Category: "Hour (UTC)", Labels: labels(24), Unit: "deliveries", LabelEvery: 3,
			Series: []ChartSeries{{Name: "Received", Values: series(24, "", false)}, {Name: "Failed", Tone: "bad", Values: series(24, "", false)}}},
	}
	funnel := Funnel{ID: "invite-funnel", Title: "Invite funnel", Desc: "d",
		Stages: []FunnelStage{{"Invited", 10000}, {"Linked", 7000}, {"KYC submitted", 5000}, {"First currency active", 2000}, {"First deposit", 500}}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range charts {
			if err := AreaChart(c).Render(ctx, io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		for _, c := range bars {
			if err := BarChart(c).Render(ctx, io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		if err := FunnelChart(funnel).Render(ctx, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
