package views

import (
	"context"
	"io"
	"math"
	"strconv"

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
// geometry only.

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
func BarChart(c Chart) templ.Component { return chartComponent{c: c, kind: "bar"} }

// AreaChart draws each series as a line over a shaded area.
func AreaChart(c Chart) templ.Component { return chartComponent{c: c, kind: "area"} }

// FunnelChart draws a funnel: one centred bar per stage, as wide as its
// share of the first stage, with the share of the stage before.
func FunnelChart(f Funnel) templ.Component { return funnelComponent{f} }

type chartComponent struct {
	c    Chart
	kind string
}

func (cc chartComponent) Render(_ context.Context, w io.Writer) error {
	c := cc.c
	hw := &chartBuf{b: make([]byte, 0, 4096+len(c.Labels)*len(c.Series)*256)}
	hw.raw(`<figure class="chart chart-` + cc.kind + `" data-testid="chart-`)
	hw.text(c.ID)
	hw.raw(`">`)
	svgOpen(hw, c.ID, c.Title, c.Desc, chartW, chartH)
	top := newScaler(niceCeiling(maxValue(c.Series)))
	plotW := int64(chartW - chartLeft - chartRight)
	plotH := int64(chartH - chartTop - chartBottom)
	base := int64(chartTop) + plotH
	// y axis: three gridlines with their values.
	for i := int64(0); i <= 2; i++ {
		v := top.top.Mul(decimal.NewFromInt(i)).Div(decimal.NewFromInt(2))
		y := base - top.scale(v, plotH)
		hw.raw(`<line class="chart-grid" x1="`)
		hw.coord(chartLeft)
		hw.raw(`" x2="`)
		hw.coord(chartW - chartRight)
		hw.raw(`" y1="`)
		hw.coord(y)
		hw.raw(`" y2="`)
		hw.coord(y)
		hw.raw(`"/><text class="chart-axis" text-anchor="end" x="`)
		hw.coord(chartLeft - 6)
		hw.raw(`" y="`)
		hw.coord(y + 4)
		hw.raw(`">`)
		hw.text(axisNumber(v))
		hw.raw(`</text>`)
	}
	// Each value as the table (and a bar's tooltip) writes it, once.
	numbers := make([][]string, len(c.Series))
	for si, s := range c.Series {
		numbers[si] = make([]string, len(c.Labels))
		for i := range c.Labels {
			numbers[si][i] = tableNumber(valueAt(s, i), c.Places)
		}
	}
	n := int64(len(c.Labels))
	if n > 0 {
		switch cc.kind {
		case "bar":
			drawBars(hw, c, numbers, top, plotW, plotH, base)
		default:
			drawAreas(hw, c, top, plotW, plotH, base)
		}
		every := max(c.LabelEvery, 1)
		for i, l := range c.Labels {
			if i%every != 0 {
				continue
			}
			x := int64(chartLeft) + slotCentre(int64(i), n, plotW, cc.kind)
			hw.raw(`<text class="chart-axis" text-anchor="middle" x="`)
			hw.coord(x)
			hw.raw(`" y="`)
			hw.coord(chartH - 8)
			hw.raw(`">`)
			hw.text(l)
			hw.raw(`</text>`)
		}
	}
	hw.raw(`</svg>`)
	if len(c.Series) > 1 {
		hw.raw(`<ul class="chart-key">`)
		for _, s := range c.Series {
			hw.raw(`<li><span class="chart-swatch chart-tone-`)
			hw.raw(toneClass(s.Tone))
			hw.raw(`"></span>`)
			hw.text(s.Name)
			hw.raw(`</li>`)
		}
		hw.raw(`</ul>`)
	}
	chartTable(hw, c, numbers)
	hw.raw(`</figure>`)
	_, err := w.Write(hw.b)
	return err
}

// drawBars draws one group of bars per category.
func drawBars(hw *chartBuf, c Chart, numbers [][]string, top scaler, plotW, plotH, base int64) {
	n := int64(len(c.Labels))
	k := int64(max(len(c.Series), 1))
	name := make([]string, len(c.Series))
	for si, s := range c.Series {
		name[si] = templ.EscapeString(s.Name)
	}
	unit := templ.EscapeString(unitSuffix(c.Unit))
	for si, s := range c.Series {
		hw.raw(`<g class="chart-tone-`)
		hw.raw(toneClass(s.Tone))
		hw.raw(`">`)
		for i := range n {
			v := valueAt(s, int(i))
			slot := plotW * 10 / n // tenths of a unit
			bar := slot * 8 / 10 / k
			x := int64(chartLeft)*10 + slot*i + slot/10 + bar*int64(si)
			h := top.scale(v, plotH*10)
			hw.raw(`<rect class="chart-bar" x="`)
			hw.tenths(x)
			hw.raw(`" y="`)
			hw.tenths(base*10 - h)
			hw.raw(`" width="`)
			hw.tenths(bar)
			hw.raw(`" height="`)
			hw.tenths(h)
			hw.raw(`"><title>`)
			// The parts escaped one by one read as the whole escaped:
			// escaping replaces characters, never across them.
			hw.text(c.Labels[i])
			hw.raw(", ")
			hw.raw(name[si])
			hw.raw(": ")
			hw.text(numbers[si][i])
			hw.raw(unit)
			hw.raw(`</title></rect>`)
		}
		hw.raw(`</g>`)
	}
}

// drawAreas draws each series as a shaded area under its line.
func drawAreas(hw *chartBuf, c Chart, top scaler, plotW, plotH, base int64) {
	n := int64(len(c.Labels))
	line := &chartBuf{}
	for _, s := range c.Series {
		line.b = line.b[:0]
		for i := range n {
			x := int64(chartLeft)*10 + slotCentre(i, n, plotW*10, "area")
			y := base*10 - top.scale(valueAt(s, int(i)), plotH*10)
			if i == 0 {
				line.raw("M")
			} else {
				line.raw(" L")
			}
			line.tenths(x)
			line.raw(" ")
			line.tenths(y)
		}
		first := int64(chartLeft)*10 + slotCentre(0, n, plotW*10, "area")
		last := int64(chartLeft)*10 + slotCentre(n-1, n, plotW*10, "area")
		hw.raw(`<g class="chart-tone-`)
		hw.raw(toneClass(s.Tone))
		hw.raw(`"><path class="chart-area" d="`)
		hw.b = append(hw.b, line.b...)
		hw.raw(" L")
		hw.tenths(last)
		hw.raw(" ")
		hw.tenths(base * 10)
		hw.raw(" L")
		hw.tenths(first)
		hw.raw(" ")
		hw.tenths(base * 10)
		hw.raw(` Z"/><path class="chart-line" d="`)
		hw.b = append(hw.b, line.b...)
		hw.raw(`"/></g>`)
	}
}

// slotCentre is the x offset of category i's centre: bars sit in equal
// slots; an area's points run from the first edge to the last.
func slotCentre(i, n, width int64, kind string) int64 {
	if kind == "bar" || n < 2 {
		return width*i/n + width/(2*n)
	}
	return width * i / (n - 1)
}

// chartTable is the chart's numbers as a table, folded under the chart.
func chartTable(hw *chartBuf, c Chart, numbers [][]string) {
	detailsOpen(hw, c.ID)
	hw.text(c.Title)
	hw.raw(`</summary><table data-testid="chart-table-`)
	hw.text(c.ID)
	hw.raw(`"><thead><tr><th scope="col">`)
	hw.text(c.Category)
	hw.raw(`</th>`)
	for _, s := range c.Series {
		hw.raw(`<th scope="col" class="num">`)
		hw.text(s.Name + unitSuffixParen(c.Unit))
		hw.raw(`</th>`)
	}
	hw.raw(`</tr></thead><tbody>`)
	for i, l := range c.Labels {
		hw.raw(`<tr><th scope="row">`)
		hw.text(l)
		hw.raw(`</th>`)
		for si := range c.Series {
			hw.raw(`<td class="num" data-series="`)
			hw.coord(int64(si))
			hw.raw(`">`)
			hw.text(numbers[si][i])
			hw.raw(`</td>`)
		}
		hw.raw(`</tr>`)
	}
	hw.raw(`</tbody></table></details>`)
}

// detailsOpen starts the table's <details>. Its id lets the page keep it
// open when the live part it sits in is reloaded (static/app.js).
func detailsOpen(hw *chartBuf, id string) {
	hw.raw(`<details class="chart-data" id="`)
	hw.text("chart-data-" + id)
	hw.raw(`"><summary>The numbers: `)
}

type funnelComponent struct{ f Funnel }

func (fc funnelComponent) Render(_ context.Context, w io.Writer) error {
	f := fc.f
	hw := &chartBuf{b: make([]byte, 0, 4096)}
	hw.raw(`<figure class="chart chart-funnel" data-testid="chart-`)
	hw.text(f.ID)
	hw.raw(`">`)
	height := int64(len(f.Stages))*funnelRowH + 8
	svgOpen(hw, f.ID, f.Title, f.Desc, funnelW, height)
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
		hw.raw(`<rect class="chart-bar chart-funnel-step" x="`)
		hw.tenths(x)
		hw.raw(`" y="`)
		hw.coord(y)
		hw.raw(`" width="`)
		hw.tenths(w)
		hw.raw(`" height="`)
		hw.coord(funnelRowH - 6)
		hw.raw(`"><title>`)
		hw.text(st.Label + ": " + strconv.Itoa(st.N) + stageShare(f.Stages, i))
		hw.raw(`</title></rect>`)
		hw.raw(`<text class="chart-label" x="0" y="` + coord(y+20) + `">`)
		hw.text(st.Label + " · " + groupThousands(st.N) + stageShare(f.Stages, i))
		hw.raw(`</text>`)
	}
	hw.raw(`</svg>`)
	detailsOpen(hw, f.ID)
	hw.text(f.Title)
	hw.raw(`</summary><table data-testid="chart-table-`)
	hw.text(f.ID)
	hw.raw(`"><thead><tr><th scope="col">Stage</th><th scope="col" class="num">People</th><th scope="col" class="num">Of the stage before</th></tr></thead><tbody>`)
	for i, st := range f.Stages {
		hw.raw(`<tr><th scope="row">`)
		hw.text(st.Label)
		hw.raw(`</th><td class="num" data-series="0">`)
		hw.text(strconv.Itoa(st.N))
		hw.raw(`</td><td class="num">`)
		if i > 0 {
			hw.text(percent(st.N, f.Stages[i-1].N))
		}
		hw.raw(`</td></tr>`)
	}
	hw.raw(`</tbody></table></details></figure>`)
	_, err := w.Write(hw.b)
	return err
}

// stageShare is ", 62% of the stage before" for every stage but the first.
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

// svgOpen starts an accessible SVG named by its title and description.
func svgOpen(hw *chartBuf, id, title, desc string, w, h int64) {
	hw.raw(`<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart-svg" viewBox="0 0 ` + coord(w) + ` ` + coord(h) +
		`" aria-labelledby="`)
	hw.text(id + "-title " + id + "-desc")
	hw.raw(`"><title id="`)
	hw.text(id + "-title")
	hw.raw(`">`)
	hw.text(title)
	hw.raw(`</title><desc id="`)
	hw.text(id + "-desc")
	hw.raw(`">`)
	hw.text(desc)
	hw.raw(`</desc>`)
}

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

// chartBuf collects a chart's markup, written to the page at once.
type chartBuf struct{ b []byte }

// raw appends trusted markup (constants of this file, numbers).
func (c *chartBuf) raw(s string) { c.b = append(c.b, s...) }

// text appends a value as escaped text, safe in element content and in a
// double-quoted attribute value.
func (c *chartBuf) text(s string) { c.b = append(c.b, templ.EscapeString(s)...) }

// coord appends a whole-unit coordinate.
func (c *chartBuf) coord(v int64) { c.b = strconv.AppendInt(c.b, v, 10) }

// tenths appends a coordinate held in tenths of a unit: 1234 → "123.4".
func (c *chartBuf) tenths(v int64) {
	if v < 0 {
		c.b = append(c.b, '-')
		v = -v
	}
	c.b = strconv.AppendInt(c.b, v/10, 10)
	if r := v % 10; r != 0 {
		c.b = append(c.b, '.', byte('0'+r))
	}
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
