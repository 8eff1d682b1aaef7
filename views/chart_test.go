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

// The fixed data sets of the golden files.
func spendChart() Chart {
	return Chart{ID: "spend", Title: "Card spend and declines", Desc: "Card transactions per day over 3 days.",
		Category: "Day", Labels: []string{"Mon", "Tue", "Wed"}, Unit: "transactions",
		Series: []ChartSeries{
			{Name: "Spends", Values: []decimal.Decimal{dec("4"), dec("7"), dec("0")}},
			{Name: "Declines", Tone: "bad", Values: []decimal.Decimal{dec("1"), dec("0"), dec("3")}},
		}}
}

func moneyChart() Chart {
	return Chart{ID: "money", Title: "Money in and out, USD", Desc: "Deposits and withdrawals per day.",
		Category: "Day", Labels: []string{"1 Nov", "2 Nov", "3 Nov", "4 Nov"}, Unit: "USD", Places: 2,
		Series: []ChartSeries{
			{Name: "In", Tone: "in", Values: []decimal.Decimal{dec("1250.50"), dec("0"), dec("980.125"), dec("40")}},
			{Name: "Out", Tone: "out", Values: []decimal.Decimal{dec("300"), dec("1500.75"), dec("0"), dec("12.34")}},
		}}
}

func inviteFunnel() Funnel {
	return Funnel{ID: "invites", Title: "Invite funnel", Desc: "From invited to first deposit.",
		Stages: []FunnelStage{{"Invited", 1000}, {"Linked", 620}, {"KYC submitted", 410}, {"First currency active", 205}, {"First deposit", 0}}}
}

// The charts of a fixed data set, byte for byte: any change to their markup
// shows up here as a diff to review (and -update to accept).
func TestChartGolden(t *testing.T) {
	tests := []struct {
		name string
		c    templ.Component
	}{
		{"bar", BarChart(spendChart())},
		{"area", AreaChart(moneyChart())},
		{"funnel", FunnelChart(inviteFunnel())},
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

// renderDoc renders a component and parses it as a browser would.
func renderDoc(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// texts is the trimmed text of each element sel matches, joined by "|".
func texts(doc *goquery.Document, sel string) string {
	var out []string
	doc.Find(sel).Each(func(_ int, s *goquery.Selection) { out = append(out, strings.TrimSpace(s.Text())) })
	return strings.Join(out, "|")
}

// attrs is attribute a of each element sel matches, joined by "|".
func attrs(doc *goquery.Document, sel, a string) string {
	var out []string
	doc.Find(sel).Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr(a, "?")) })
	return strings.Join(out, "|")
}

// What the golden charts say, read as a browser reads them: names, ids,
// axes, shapes and the table's numbers. The golden files pin the bytes;
// this pins the meaning, whatever the markup's whitespace.
func TestChartContent(t *testing.T) {
	check := func(t *testing.T, doc *goquery.Document, what, sel, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s (%s):\n got %q\nwant %q", what, sel, got, want)
		}
	}
	named := func(t *testing.T, doc *goquery.Document, id, title, desc, viewBox string) {
		t.Helper()
		svg := doc.Find(`figure[data-testid="chart-` + id + `"] > svg[role="img"].chart-svg`)
		if svg.Length() != 1 {
			t.Fatalf("%d svg[role=img] in the figure", svg.Length())
		}
		check(t, doc, "aria-labelledby", "svg", svg.AttrOr("aria-labelledby", ""), id+"-title "+id+"-desc")
		check(t, doc, "viewBox", "svg", svg.AttrOr("viewBox", ""), viewBox)
		check(t, doc, "title", "#"+id+"-title", texts(doc, "svg > title#"+id+"-title"), title)
		check(t, doc, "desc", "#"+id+"-desc", texts(doc, "svg > desc#"+id+"-desc"), desc)
		check(t, doc, "details id", "details.chart-data", attrs(doc, "details.chart-data", "id"), "chart-data-"+id)
		check(t, doc, "summary", "summary", texts(doc, "details.chart-data > summary"), "The numbers: "+title)
		check(t, doc, "table", "table", attrs(doc, "details.chart-data table", "data-testid"), "chart-table-"+id)
	}

	t.Run("bar", func(t *testing.T) {
		doc := renderDoc(t, BarChart(spendChart()))
		check(t, doc, "figure class", "figure", attrs(doc, "figure", "class"), "chart chart-bar")
		named(t, doc, "spend", "Card spend and declines", "Card transactions per day over 3 days.", "0 0 640 220")
		check(t, doc, "gridlines", "line.chart-grid", attrs(doc, "line.chart-grid", "y1"), "192|102|12")
		check(t, doc, "y axis", "text[text-anchor=end]", texts(doc, "text.chart-axis[text-anchor=end]"), "0|5|10")
		check(t, doc, "x axis", "text[text-anchor=middle]", texts(doc, "text.chart-axis[text-anchor=middle]"), "Mon|Tue|Wed")
		check(t, doc, "x axis x", "text[text-anchor=middle]", attrs(doc, "text.chart-axis[text-anchor=middle]", "x"), "152|344|536")
		check(t, doc, "series groups", "svg > g", attrs(doc, "svg > g", "class"), "chart-tone-main|chart-tone-bad")
		check(t, doc, "bars", "rect.chart-bar", attrs(doc, "svg > g > rect.chart-bar", "height"), "72|126|0|18|0|54")
		check(t, doc, "bar x", "rect.chart-bar", attrs(doc, "svg > g > rect.chart-bar", "x"), "75.2|267.2|459.2|152|344|536")
		check(t, doc, "bar y", "rect.chart-bar", attrs(doc, "svg > g > rect.chart-bar", "y"), "120|66|192|174|192|138")
		check(t, doc, "bar width", "rect.chart-bar", attrs(doc, "svg > g > rect.chart-bar", "width"), "76.8|76.8|76.8|76.8|76.8|76.8")
		check(t, doc, "bar tooltips", "rect > title", texts(doc, "rect.chart-bar > title"),
			"Mon, Spends: 4 transactions|Tue, Spends: 7 transactions|Wed, Spends: 0 transactions|"+
				"Mon, Declines: 1 transactions|Tue, Declines: 0 transactions|Wed, Declines: 3 transactions")
		check(t, doc, "key", "ul.chart-key li", texts(doc, "ul.chart-key > li"), "Spends|Declines")
		check(t, doc, "swatches", "span.chart-swatch", attrs(doc, "ul.chart-key span.chart-swatch", "class"),
			"chart-swatch chart-tone-main|chart-swatch chart-tone-bad")
		check(t, doc, "table heads", "thead th", texts(doc, "thead th[scope=col]"), "Day|Spends (transactions)|Declines (transactions)")
		check(t, doc, "row heads", "tbody th", texts(doc, "tbody th[scope=row]"), "Mon|Tue|Wed")
		check(t, doc, "cells", "td.num", texts(doc, "tbody td.num"), "4|1|7|0|0|3")
		check(t, doc, "cell series", "td.num", attrs(doc, "tbody td.num", "data-series"), "0|1|0|1|0|1")
		check(t, doc, "no areas", "path", attrs(doc, "path", "class"), "")
	})

	t.Run("area", func(t *testing.T) {
		doc := renderDoc(t, AreaChart(moneyChart()))
		check(t, doc, "figure class", "figure", attrs(doc, "figure", "class"), "chart chart-area")
		named(t, doc, "money", "Money in and out, USD", "Deposits and withdrawals per day.", "0 0 640 220")
		check(t, doc, "y axis", "text[x=50]", texts(doc, "text.chart-axis[x='50']"), "0|1,000|2,000")
		check(t, doc, "x axis", "text[y=212]", texts(doc, "text.chart-axis[y='212']"), "1 Nov|2 Nov|3 Nov|4 Nov")
		check(t, doc, "x axis x", "text[y=212]", attrs(doc, "text.chart-axis[y='212']", "x"), "56|248|440|632")
		// The first and last points are on the plot's edges: their
		// labels run inward, inside the picture.
		check(t, doc, "x axis anchors", "text[y=212]", attrs(doc, "text.chart-axis[y='212']", "text-anchor"), "start|middle|middle|end")
		check(t, doc, "series groups", "svg > g", attrs(doc, "svg > g", "class"), "chart-tone-in|chart-tone-out")
		check(t, doc, "areas", "path.chart-area", attrs(doc, "svg > g > path.chart-area", "d"),
			"M56 79.5 L248 192 L440 103.8 L632 188.4 L632 192 L56 192 Z|M56 165 L248 57 L440 192 L632 190.9 L632 192 L56 192 Z")
		check(t, doc, "lines", "path.chart-line", attrs(doc, "svg > g > path.chart-line", "d"),
			"M56 79.5 L248 192 L440 103.8 L632 188.4|M56 165 L248 57 L440 192 L632 190.9")
		check(t, doc, "no bars", "rect", attrs(doc, "rect", "class"), "")
		check(t, doc, "key", "ul.chart-key li", texts(doc, "ul.chart-key > li"), "In|Out")
		check(t, doc, "table heads", "thead th", texts(doc, "thead th[scope=col]"), "Day|In (USD)|Out (USD)")
		check(t, doc, "cells", "td.num", texts(doc, "tbody td.num"), "1,250.50|300.00|0.00|1,500.75|980.125|0.00|40.00|12.34")
	})

	t.Run("funnel", func(t *testing.T) {
		doc := renderDoc(t, FunnelChart(inviteFunnel()))
		check(t, doc, "figure class", "figure", attrs(doc, "figure", "class"), "chart chart-funnel")
		named(t, doc, "invites", "Invite funnel", "From invited to first deposit.", "0 0 640 188")
		check(t, doc, "steps", "rect.chart-funnel-step", attrs(doc, "rect.chart-bar.chart-funnel-step", "width"), "392|243|160.7|80.3|0")
		check(t, doc, "step x", "rect.chart-funnel-step", attrs(doc, "rect.chart-funnel-step", "x"), "240|314.5|355.6|395.8|436")
		check(t, doc, "step y", "rect.chart-funnel-step", attrs(doc, "rect.chart-funnel-step", "y"), "4|40|76|112|148")
		check(t, doc, "tooltips", "rect > title", texts(doc, "rect.chart-funnel-step > title"),
			"Invited: 1000|Linked: 620 (62% of the stage before)|KYC submitted: 410 (66% of the stage before)|"+
				"First currency active: 205 (50% of the stage before)|First deposit: 0 (0% of the stage before)")
		check(t, doc, "labels", "text.chart-label", texts(doc, "text.chart-label"),
			"Invited · 1,000|Linked · 620 (62% of the stage before)|KYC submitted · 410 (66% of the stage before)|"+
				"First currency active · 205 (50% of the stage before)|First deposit · 0 (0% of the stage before)")
		check(t, doc, "label y", "text.chart-label", attrs(doc, "text.chart-label", "y"), "24|60|96|132|168")
		check(t, doc, "no key", "ul.chart-key", texts(doc, "ul.chart-key"), "")
		check(t, doc, "table heads", "thead th", texts(doc, "thead th[scope=col]"), "Stage|People|Of the stage before")
		check(t, doc, "row heads", "tbody th", texts(doc, "tbody th[scope=row]"), "Invited|Linked|KYC submitted|First currency active|First deposit")
		check(t, doc, "people", "td[data-series=0]", texts(doc, "tbody td.num[data-series='0']"), "1000|620|410|205|0")
		check(t, doc, "shares", "td:last-child", texts(doc, "tbody td.num:last-child"), "|62%|66%|50%|0%")
	})
}

// A single series needs no key; every nth label shows under the axis.
func TestChartOneSeriesEveryNthLabel(t *testing.T) {
	c := Chart{ID: "h", Title: "Hours", Desc: "d", Category: "Hour", Labels: []string{"0", "1", "2", "3", "4", "5", "6"}, LabelEvery: 3,
		Series: []ChartSeries{{Name: "Received", Values: []decimal.Decimal{dec("1"), dec("2")}}}}
	doc := renderDoc(t, BarChart(c))
	if n := doc.Find("ul.chart-key").Length(); n != 0 {
		t.Errorf("%d keys for one series", n)
	}
	if got := texts(doc, "text.chart-axis[text-anchor=middle]"); got != "0|3|6" {
		t.Errorf("x axis %q", got)
	}
	// Values past the series' end draw and read as zero.
	if got := attrs(doc, "rect.chart-bar", "height"); got != "90|180|0|0|0|0|0" {
		t.Errorf("bar heights %q", got)
	}
	if got := texts(doc, "tbody td"); got != "1|2|0|0|0|0|0" {
		t.Errorf("cells %q", got)
	}
}

// Names and labels are text, never markup.
func TestChartEscapes(t *testing.T) {
	evil := `<b onclick="x">&`
	c := Chart{ID: "e", Title: evil, Desc: evil, Category: evil, Labels: []string{evil}, Unit: evil,
		Series: []ChartSeries{{Name: evil, Values: []decimal.Decimal{dec("1")}}, {Name: "b", Values: []decimal.Decimal{dec("2")}}}}
	f := Funnel{ID: "f", Title: evil, Desc: evil, Stages: []FunnelStage{{evil, 3}}}
	for _, comp := range []templ.Component{BarChart(c), AreaChart(c), FunnelChart(f)} {
		doc := renderDoc(t, comp)
		if n := doc.Find("b").Length(); n != 0 {
			t.Errorf("%d <b> elements from the data", n)
		}
		if got := texts(doc, "svg > title"); got != evil {
			t.Errorf("title %q", got)
		}
	}
}
