package views

import (
	"math"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/shopspring/decimal"
)

// Charts are drawn on the server as SVG: no script, no framework, nothing
// to build. Each is an <svg role="img"> named by its <title> and <desc>,
// followed by a table of the same numbers (in a <details>) for screen
// readers, for copying, and for anyone who reads numbers better than
// shapes. Values are decimals all the way to the pixel: money is never a
// float, and a bar's height is its value scaled in decimal arithmetic.
// Colours and type come from CSS classes (static/app.css): the SVG carries
// geometry only. This file lays a chart out into plain values, every
// coordinate and number written as shown; chart.templ draws them.

// ChartSeries is one named set of values, one per category of its chart.
type ChartSeries struct {
	Name string
	// Tone picks the series' colour class (chart-tone-<Tone>): "in",
	// "out", "bad", "muted"; "" is the first colour.
	Tone   string
	Values []decimal.Decimal
}

// Chart is the data of a bar or area chart: categories along the x axis,
// one value per category in each series.
type Chart struct {
	// ID is unique on the page; the title's and description's ids derive
	// from it, and the figure's data-testid is "chart-<ID>".
	ID    string
	Title string
	// Desc says in one sentence what the chart shows (its <desc>).
	Desc string
	// Category heads the table's first column ("Day", "Hour").
	Category string
	Labels   []string
	Series   []ChartSeries
	// Unit follows each number in the table's headers ("USD",
	// "deliveries"); "" for none.
	Unit string
	// Places is how many decimal places the table shows (money: 2).
	Places int32
	// LabelEvery shows every nth category label under the axis (0 or 1:
	// every one).
	LabelEvery int
}

// FunnelStage is one step of a funnel and how many reached it.
type FunnelStage struct {
	Label string
	N     int
}

// Funnel is the data of a funnel chart: stages in order, each a subset of
// the one before.
type Funnel struct {
	ID     string
	Title  string
	Desc   string
	Stages []FunnelStage
}

// Chart geometry, in SVG user units (the SVG scales to its box).
const (
	chartW      = 640
	chartH      = 220
	chartLeft   = 56 // room for the y axis' numbers
	chartRight  = 8
	chartTop    = 12
	chartBottom = 28 // room for the category labels
	funnelW     = 640
	funnelRowH  = 36
)

// BarChart draws grouped bars: one group per category, one bar per series.
func BarChart(c Chart) templ.Component { return chartFigure(layoutChart(c, "bar")) }

// AreaChart draws each series as a line over a shaded area.
func AreaChart(c Chart) templ.Component { return chartFigure(layoutChart(c, "area")) }

// FunnelChart draws a funnel: one centred bar per stage, as wide as its
// share of the first stage, with the share of the stage before.
func FunnelChart(f Funnel) templ.Component { return funnelFigure(layoutFunnel(f)) }

// chartGeometry is a bar or area chart laid out for chart.templ: every
// coordinate and every number already written as the markup shows it.
type chartGeometry struct {
	ID    string
	Kind  string // "bar" or "area": the figure's class chart-<Kind>
	Title string
	Desc  string
	// ViewBox is the SVG's "0 0 w h".
	ViewBox string
	Grid    []chartGridline
	// Bars holds one group per series (bar charts), Areas one shape per
	// series (area charts).
	Bars   []chartBarGroup
	Areas  []chartArea
	Labels []chartLabel
	// Key names the series by colour; empty for a single series.
	Key   []chartKey
	Table chartTable
}

// chartGridline is a horizontal line of the y axis and its value.
type chartGridline struct {
	X1, X2, Y    string
	TextX, TextY string
	Value        string
}

// chartBarGroup is one series' bars, in the series' colour.
type chartBarGroup struct {
	Tone string
	Bars []chartBar
}

// chartBar is one value's bar; Title is its tooltip ("Mon, Spends: 4").
type chartBar struct {
	X, Y, Width, Height string
	Title               string
}

// chartArea is one series' line and the shaded area under it, as SVG
// path data.
type chartArea struct {
	Tone string
	Area string
	Line string
}

// chartLabel is a category's name under the x axis.
type chartLabel struct {
	X, Y string
	// Anchor is the SVG text-anchor: "middle" under its slot; an area's
	// first and last points sit on the plot's edges, so their labels run
	// inward ("start", "end") instead of past the picture's edge.
	Anchor string
	Text   string
}

// chartKey is a series' swatch and name.
type chartKey struct {
	Tone string
	Name string
}

// chartTable is a chart's numbers as a table, folded under the chart.
type chartTable struct {
	ID    string // the chart's
	Title string
	// Heads are the column heads, the category's first.
	Heads []string
	Rows  []chartRow
}

// chartRow is one category: its name and one number per series.
type chartRow struct {
	Label string
	Cells []string
}

// layoutChart works out a bar or area chart's geometry and numbers.
func layoutChart(c Chart, kind string) chartGeometry {
	g := chartGeometry{ID: c.ID, Kind: kind, Title: c.Title, Desc: c.Desc, ViewBox: viewBox(chartW, chartH)}
	top := newScaler(niceCeiling(maxValue(c.Series)))
	plotW := int64(chartW - chartLeft - chartRight)
	plotH := int64(chartH - chartTop - chartBottom)
	base := int64(chartTop) + plotH
	// y axis: three gridlines with their values.
	for i := int64(0); i <= 2; i++ {
		v := top.top.Mul(decimal.NewFromInt(i)).Div(decimal.NewFromInt(2))
		y := base - top.scale(v, plotH)
		g.Grid = append(g.Grid, chartGridline{X1: coord(chartLeft), X2: coord(chartW - chartRight), Y: coord(y),
			TextX: coord(chartLeft - 6), TextY: coord(y + 4), Value: axisNumber(v)})
	}
	// Each value as the table (and a bar's tooltip) writes it, once.
	numbers := make([][]string, len(c.Series))
	for si, s := range c.Series {
		numbers[si] = make([]string, len(c.Labels))
		for i := range c.Labels {
			numbers[si][i] = tableNumber(valueAt(s, i), c.Places)
		}
	}
	if n := int64(len(c.Labels)); n > 0 {
		if kind == "bar" {
			g.Bars = layoutBars(c, numbers, top, plotW, plotH, base)
		} else {
			g.Areas = layoutAreas(c, top, plotW, plotH, base)
		}
		every := max(c.LabelEvery, 1)
		for i, l := range c.Labels {
			if i%every != 0 {
				continue
			}
			x := int64(chartLeft) + slotCentre(int64(i), n, plotW, kind)
			g.Labels = append(g.Labels, chartLabel{X: coord(x), Y: coord(chartH - 8), Anchor: labelAnchor(int64(i), n, kind), Text: l})
		}
	}
	if len(c.Series) > 1 {
		for _, s := range c.Series {
			g.Key = append(g.Key, chartKey{Tone: toneClass(s.Tone), Name: s.Name})
		}
	}
	g.Table = chartTable{ID: c.ID, Title: c.Title, Heads: []string{c.Category}}
	for _, s := range c.Series {
		g.Table.Heads = append(g.Table.Heads, s.Name+unitSuffixParen(c.Unit))
	}
	for i, l := range c.Labels {
		row := chartRow{Label: l, Cells: make([]string, len(c.Series))}
		for si := range c.Series {
			row.Cells[si] = numbers[si][i]
		}
		g.Table.Rows = append(g.Table.Rows, row)
	}
	return g
}

// layoutBars lays out one group of bars per category.
func layoutBars(c Chart, numbers [][]string, top scaler, plotW, plotH, base int64) []chartBarGroup {
	n := int64(len(c.Labels))
	k := int64(max(len(c.Series), 1))
	unit := unitSuffix(c.Unit)
	groups := make([]chartBarGroup, len(c.Series))
	for si, s := range c.Series {
		g := chartBarGroup{Tone: toneClass(s.Tone), Bars: make([]chartBar, n)}
		for i := range n {
			v := valueAt(s, int(i))
			slot := plotW * 10 / n // tenths of a unit
			bar := slot * 8 / 10 / k
			x := int64(chartLeft)*10 + slot*i + slot/10 + bar*int64(si)
			h := top.scale(v, plotH*10)
			g.Bars[i] = chartBar{X: tenths(x), Y: tenths(base*10 - h), Width: tenths(bar), Height: tenths(h),
				Title: c.Labels[i] + ", " + s.Name + ": " + numbers[si][i] + unit}
		}
		groups[si] = g
	}
	return groups
}

// layoutAreas lays out each series as a shaded area under its line.
func layoutAreas(c Chart, top scaler, plotW, plotH, base int64) []chartArea {
	n := int64(len(c.Labels))
	first := int64(chartLeft)*10 + slotCentre(0, n, plotW*10, "area")
	last := int64(chartLeft)*10 + slotCentre(n-1, n, plotW*10, "area")
	// The area closes the line down to the axis and back.
	closing := " L" + tenths(last) + " " + tenths(base*10) + " L" + tenths(first) + " " + tenths(base*10) + " Z"
	areas := make([]chartArea, len(c.Series))
	for si, s := range c.Series {
		var line strings.Builder
		for i := range n {
			x := int64(chartLeft)*10 + slotCentre(i, n, plotW*10, "area")
			y := base*10 - top.scale(valueAt(s, int(i)), plotH*10)
			if i == 0 {
				line.WriteString("M")
			} else {
				line.WriteString(" L")
			}
			line.WriteString(tenths(x) + " " + tenths(y))
		}
		areas[si] = chartArea{Tone: toneClass(s.Tone), Area: line.String() + closing, Line: line.String()}
	}
	return areas
}

// slotCentre is the x offset of category i's centre: bars sit in equal
// slots; an area's points run from the first edge to the last.
func slotCentre(i, n, width int64, kind string) int64 {
	if kind == "bar" || n < 2 {
		return width*i/n + width/(2*n)
	}
	return width * i / (n - 1)
}

// labelAnchor is the text-anchor of category i's label.
func labelAnchor(i, n int64, kind string) string {
	switch {
	case kind == "bar" || n < 2:
		return "middle"
	case i == 0:
		return "start"
	case i == n-1:
		return "end"
	}
	return "middle"
}

// funnelGeometry is a funnel laid out for chart.templ.
type funnelGeometry struct {
	ID      string
	Title   string
	Desc    string
	ViewBox string
	Steps   []funnelStep
}

// funnelStep is one stage: its bar, its words beside the bar, and its
// row of the table.
type funnelStep struct {
	X, Y, Width, Height string
	Title               string // the bar's tooltip
	TextY               string
	Text                string // the words beside the bar
	Stage               string
	N                   string
	// Share is the stage's share of the stage before; "" for the first.
	Share string
}

// layoutFunnel works out a funnel's geometry and numbers.
func layoutFunnel(f Funnel) funnelGeometry {
	height := int64(len(f.Stages))*funnelRowH + 8
	g := funnelGeometry{ID: f.ID, Title: f.Title, Desc: f.Desc, ViewBox: viewBox(funnelW, height)}
	first := 0
	if len(f.Stages) > 0 {
		first = f.Stages[0].N
	}
	// The bars take the right part; the words the left.
	const labelW, barW = 240, funnelW - 240 - 8
	for i, st := range f.Stages {
		y := int64(i)*funnelRowH + 4
		w := int64(0)
		if first > 0 {
			w = int64(barW) * 10 * int64(st.N) / int64(first)
		}
		x := int64(labelW)*10 + (int64(barW)*10-w)/2
		step := funnelStep{X: tenths(x), Y: coord(y), Width: tenths(w), Height: coord(funnelRowH - 6),
			Title: st.Label + ": " + strconv.Itoa(st.N) + stageShare(f.Stages, i),
			TextY: coord(y + 20), Text: st.Label + " · " + groupThousands(st.N) + stageShare(f.Stages, i),
			Stage: st.Label, N: strconv.Itoa(st.N)}
		if i > 0 {
			step.Share = percent(st.N, f.Stages[i-1].N)
		}
		g.Steps = append(g.Steps, step)
	}
	return g
}

// stageShare is " (62% of the stage before)" for every stage but the first.
func stageShare(stages []FunnelStage, i int) string {
	if i == 0 {
		return ""
	}
	return " (" + percent(stages[i].N, stages[i-1].N) + " of the stage before)"
}

// percent is n of d as a whole percentage, rounded down ("—" when d is 0).
func percent(n, d int) string {
	if d <= 0 {
		return "—"
	}
	return strconv.Itoa(n*100/d) + "%"
}

// viewBox is an SVG's viewBox of w by h units from the origin.
func viewBox(w, h int64) string { return "0 0 " + coord(w) + " " + coord(h) }

func valueAt(s ChartSeries, i int) decimal.Decimal {
	if i < len(s.Values) {
		return s.Values[i]
	}
	return decimal.Zero
}

func maxValue(series []ChartSeries) decimal.Decimal {
	m := decimal.Zero
	for _, s := range series {
		for _, v := range s.Values {
			if v.GreaterThan(m) {
				m = v
			}
		}
	}
	return m
}

// niceCeiling rounds the largest value up to 1, 2 or 5 times a power of
// ten, so the axis reads in round numbers; 1 when every value is zero.
func niceCeiling(m decimal.Decimal) decimal.Decimal {
	if !m.IsPositive() {
		return decimal.NewFromInt(1)
	}
	// The power of ten at or below m.
	exp := int32(len(m.Truncate(0).String())) - 1
	if m.LessThan(decimal.NewFromInt(1)) {
		exp = 0
		for p := decimal.New(1, exp); p.GreaterThan(m); p = decimal.New(1, exp) {
			exp--
		}
	}
	for _, step := range []int64{1, 2, 5, 10} {
		if c := decimal.New(step, exp); c.GreaterThanOrEqual(m) {
			return c
		}
	}
	return decimal.New(10, exp)
}

// scaler maps values in [0, top] to lengths.
type scaler struct {
	top decimal.Decimal
	// step and exp: top is step × 10^exp (niceCeiling's), with step in
	// whole numbers; ok when it is, and small enough for int64.
	step int64
	exp  int32
	ok   bool
}

func newScaler(top decimal.Decimal) scaler {
	s := scaler{top: top}
	if top.IsPositive() && top.Coefficient().IsInt64() {
		s.step, s.exp, s.ok = top.Coefficient().Int64(), top.Exponent(), true
	}
	return s
}

// scale maps v in [0, top] to [0, size], rounded down to whole units of
// size; negative values draw as zero. A chart has a few hundred values:
// the quotient is worked out in int64 when it fits, exactly as the
// decimal division would round it down (top is 1, 2 or 5 times a power
// of ten, so the quotient's decimals end within 16 places, where Div
// rounds, whenever v has fewer than 15 decimals more than top).
func (s scaler) scale(v decimal.Decimal, size int64) int64 {
	if !v.IsPositive() || !s.top.IsPositive() {
		return 0
	}
	if s.ok && v.Coefficient().IsInt64() && size > 0 {
		coef, shift := v.Coefficient().Int64(), v.Exponent()-s.exp
		// v × size / top = coef × size × 10^shift / step.
		num, den := coef, s.step
		ok := shift >= -15 && shift <= 18
		for ; ok && shift > 0; shift-- {
			ok = num <= math.MaxInt64/10
			num *= 10
		}
		for ; ok && shift < 0; shift++ {
			ok = den <= math.MaxInt64/10
			den *= 10
		}
		if ok && num <= math.MaxInt64/size {
			return min(num*size/den, size)
		}
	}
	return min(v.Mul(decimal.NewFromInt(size)).Div(s.top).IntPart(), size)
}

// coord writes a whole-unit coordinate.
func coord(v int64) string { return strconv.FormatInt(v, 10) }

// tenths writes a coordinate held in tenths of a unit: 1234 → "123.4".
func tenths(v int64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	s := sign + strconv.FormatInt(v/10, 10)
	if r := v % 10; r != 0 {
		s += "." + strconv.FormatInt(r, 10)
	}
	return s
}

// axisNumber is a gridline's value, short: 1,500 or 2.5M.
func axisNumber(v decimal.Decimal) string {
	million := decimal.NewFromInt(1_000_000)
	if v.GreaterThanOrEqual(million) {
		return v.Div(million).Round(1).String() + "M"
	}
	return FormatDecimal(v.Round(2), 0)
}

// tableNumber is a value as the table shows it.
func tableNumber(v decimal.Decimal, places int32) string { return FormatDecimal(v, places) }

func groupThousands(n int) string { return FormatDecimal(decimal.NewFromInt(int64(n)), 0) }

func unitSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

func unitSuffixParen(u string) string {
	if u == "" {
		return ""
	}
	return " (" + u + ")"
}

// toneClass keeps a tone to the letters CSS class names may use.
func toneClass(t string) string {
	switch t {
	case "in", "out", "bad", "muted":
		return t
	}
	return "main"
}
