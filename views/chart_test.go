package views

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/shopspring/decimal"
)

// update rewrites the golden files: go test ./views -run TestChartGolden -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// The charts of a fixed data set, byte for byte: any change to their markup
// shows up here as a diff to review (and -update to accept).
func TestChartGolden(t *testing.T) {
	tests := []struct {
		name string
		c    templ.Component
	}{
		{"bar", BarChart(Chart{ID: "spend", Title: "Card spend and declines", Desc: "Card transactions per day over 3 days.",
			Category: "Day", Labels: []string{"Mon", "Tue", "Wed"}, Unit: "transactions",
			Series: []ChartSeries{
				{Name: "Spends", Values: []decimal.Decimal{dec("4"), dec("7"), dec("0")}},
				{Name: "Declines", Tone: "bad", Values: []decimal.Decimal{dec("1"), dec("0"), dec("3")}},
			}})},
		{"area", AreaChart(Chart{ID: "money", Title: "Money in and out, USD", Desc: "Deposits and withdrawals per day.",
			Category: "Day", Labels: []string{"1 Nov", "2 Nov", "3 Nov", "4 Nov"}, Unit: "USD", Places: 2,
			Series: []ChartSeries{
				{Name: "In", Tone: "in", Values: []decimal.Decimal{dec("1250.50"), dec("0"), dec("980.125"), dec("40")}},
				{Name: "Out", Tone: "out", Values: []decimal.Decimal{dec("300"), dec("1500.75"), dec("0"), dec("12.34")}},
			}})},
		{"funnel", FunnelChart(Funnel{ID: "invites", Title: "Invite funnel", Desc: "From invited to first deposit.",
			Stages: []FunnelStage{{"Invited", 1000}, {"Linked", 620}, {"KYC submitted", 410}, {"First currency active", 205}, {"First deposit", 0}}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.c.Render(context.Background(), &buf); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "chart_"+tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s differs from %s:\n got: %s\nwant: %s", tt.name, path, buf.String(), want)
			}
		})
	}
}

// A chart names itself to assistive technology and carries its numbers in
// a table: the same numbers the bars are drawn from.
func TestChartAccessibleAndTabled(t *testing.T) {
	c := Chart{ID: "money", Title: "Money in and out", Desc: "Per day.", Category: "Day", Labels: []string{"a", "b"}, Places: 2,
		Series: []ChartSeries{{Name: "In", Values: []decimal.Decimal{dec("1234.5"), dec("0.01")}}}}
	var buf bytes.Buffer
	if err := BarChart(c).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	svg := doc.Find(`svg[role="img"]`)
	if svg.Length() != 1 || svg.AttrOr("aria-labelledby", "") != "money-title money-desc" {
		t.Fatalf("svg: %d %q", svg.Length(), svg.AttrOr("aria-labelledby", ""))
	}
	if got := doc.Find("#money-title").Text(); got != "Money in and out" {
		t.Errorf("title %q", got)
	}
	if got := doc.Find("#money-desc").Text(); got != "Per day." {
		t.Errorf("desc %q", got)
	}
	var cells []string
	doc.Find(`details table[data-testid="chart-table-money"] td`).Each(func(_ int, s *goquery.Selection) { cells = append(cells, s.Text()) })
	if strings.Join(cells, "|") != "1,234.50|0.01" {
		t.Errorf("table cells %q", cells)
	}
	// 1,234.50 of an axis topped at 2,000: 0.61725 of the 180 units.
	var heights []string
	doc.Find("rect.chart-bar").Each(func(_ int, s *goquery.Selection) { heights = append(heights, s.AttrOr("height", "")) })
	if len(heights) != 2 || heights[0] != "111.1" || heights[1] != "0" {
		t.Errorf("bar heights %q", heights)
	}
}

func TestNiceCeiling(t *testing.T) {
	for in, want := range map[string]string{"0": "1", "1": "1", "1.5": "2", "7": "10", "1234.5": "2000", "0.37": "0.5", "5000": "5000", "5001": "10000"} {
		if got := niceCeiling(dec(in)); !got.Equal(dec(want)) {
			t.Errorf("niceCeiling(%s) = %s, want %s", in, got, want)
		}
	}
}

// The int64 path of scale gives what the decimal division gives, for
// money and counts of every size, and for values past int64's reach.
func TestScaleMatchesDecimalDivision(t *testing.T) {
	values := []string{"0", "1", "3", "7", "9.99", "10", "12.34", "99.995", "1250.50", "980.125", "1500.75", "123456789.01",
		"0.001", "0.3333333", "5e-20", "92233720368547758.07", "123456789012345678901234567890", "-5", "1e18", "4.5e-15"}
	sizes := []int64{0, 1, 180, 1800, 5840}
	for _, vs := range values {
		v := dec(vs)
		for _, top := range []decimal.Decimal{niceCeiling(v), niceCeiling(v.Mul(dec("3"))), dec("1"), dec("0.5"), dec("2e30")} {
			s := newScaler(top)
			for _, size := range sizes {
				want := int64(0)
				if v.IsPositive() && top.IsPositive() {
					want = min(v.Mul(decimal.NewFromInt(size)).Div(top).IntPart(), size)
				}
				if got := s.scale(v, size); got != want {
					t.Errorf("scale(%s, top %s, size %d) = %d, want %d", vs, top, size, got, want)
				}
			}
		}
	}
}
