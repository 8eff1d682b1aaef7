package views

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"
)

// Rows of the heavy list pages, written by hand like the badges
// (badges.go): templ turns every { expression } into fmt.Sprint, an
// allocation and a copy, and the activity page alone has about 1,800 of
// them. The markup is the same byte for byte (TestHeavyPagesGolden).

// ShortID shows a long identifier shortened ("0x12ab…9f3c"), the whole
// value in its title, and a button that copies the whole value (shown by
// app.js; without script the value stays selectable in the title).
func ShortID(id, value string) templ.Component { return shortID{id: id, value: value} }

type shortID struct{ id, value string }

func (s shortID) Render(_ context.Context, w io.Writer) error {
	hw := htmlWriter{w: w}
	hw.shortID(elementID{id: s.id}, s.value)
	return hw.done()
}

// elementID is an element's id: id, or prefix, n and suffix
// ("activity-3-user") written without building the string.
type elementID struct {
	id             string
	prefix, suffix string
	n              int
}

func (h *htmlWriter) elementID(e elementID) {
	if e.prefix == "" {
		h.text(e.id)
		return
	}
	h.text(e.prefix)
	h.int(int64(e.n))
	h.text(e.suffix)
}

// shortID writes ShortID's markup; nothing for an empty value.
func (h *htmlWriter) shortID(id elementID, value string) {
	if value == "" {
		return
	}
	h.raw(`<span class="id"><code id="`)
	h.elementID(id)
	h.raw(`" title="`)
	h.text(value)
	h.raw(`" data-full="`)
	h.text(value)
	h.raw(`">`)
	head, tail, short := shortParts(value)
	if !short {
		h.text(value)
		h.raw(`</code> </span>`)
		return
	}
	h.text(head)
	h.raw(`…`)
	h.text(tail)
	h.raw(`</code> <button type="button" class="copy no-print" data-copy="#`)
	h.elementID(id)
	h.raw(`" aria-label="Copy the whole value" hidden>Copy</button></span>`)
}

// shortParts is Shorten without building the string: the first 8 and the
// last 4 characters of a value longer than 16, and whether it is.
func shortParts(id string) (head, tail string, short bool) {
	if len(id) <= 16 || utf8.RuneCountInString(id) <= 16 {
		return "", "", false
	}
	end := 0
	for i := 0; i < 8; i++ {
		_, size := utf8.DecodeRuneInString(id[end:])
		end += size
	}
	start := len(id)
	for i := 0; i < 4; i++ {
		_, size := utf8.DecodeLastRuneInString(id[:start])
		start -= size
	}
	return id[:end], id[start:], true
}

// int writes a number.
func (h *htmlWriter) int(n int64) {
	if h.buffered() {
		h.buf = strconv.AppendInt(h.buf, n, 10)
		return
	}
	h.scratch = strconv.AppendInt(h.scratch[:0], n, 10)
	h.bytes(h.scratch)
}

// time writes an instant in UTC in a layout whose output needs no
// escaping (DateTime's, RFC 3339).
func (h *htmlWriter) time(t time.Time, layout string) {
	if h.buffered() {
		h.buf = t.UTC().AppendFormat(h.buf, layout)
		return
	}
	h.scratch = t.UTC().AppendFormat(h.scratch[:0], layout)
	h.bytes(h.scratch)
}

// dateTime writes DateTime(t).
func (h *htmlWriter) dateTime(t time.Time) {
	if t.IsZero() {
		h.raw("—")
		return
	}
	h.time(t, dateTimeLayout)
}

func (h *htmlWriter) bytes(b []byte) {
	if h.buffered() {
		h.buf = append(h.buf, b...)
		return
	}
	if h.err == nil {
		_, h.err = h.w.Write(b)
	}
}

// ActivityRows are the activity feed's table rows.
func ActivityRows(rows []ActivityRow) templ.Component { return activityRows(rows) }

type activityRows []ActivityRow

func (rows activityRows) Render(_ context.Context, w io.Writer) error {
	hw := newBufferedWriter(w)
	for i := range rows {
		r := &rows[i]
		hw.raw(`<tr data-testid="activity-row" data-kind="`)
		hw.text(r.Kind)
		hw.raw(`"><td>`)
		hw.dateTime(r.At)
		hw.raw(`</td><td>`)
		hw.text(ActivityKindLabel(r.Kind))
		hw.raw(`</td><td>`)
		if r.Employee != "" {
			hw.text(r.Employee)
		} else {
			hw.shortID(elementID{prefix: "activity-", n: i, suffix: "-user"}, r.ServiceUserID)
		}
		hw.raw(`</td><td class="num" data-testid="activity-amount">`)
		if r.Amount != "" {
			hw.text(r.Amount)
			hw.raw(` `)
			hw.text(r.Currency)
		}
		hw.raw(`</td><td class="num">`)
		if r.Fee != "" {
			hw.text(r.Fee)
		}
		hw.raw(`</td><td>`)
		hw.text(StatusLabel("", r.Status))
		hw.raw(`</td><td>`)
		hw.shortID(elementID{prefix: "activity-", n: i, suffix: "-ref"}, r.Reference)
		hw.raw(`</td></tr>`)
	}
	return hw.done()
}

// EmployeeListRows are the employee list's table rows.
func EmployeeListRows(rows []EmployeeRow) templ.Component { return employeeListRows(rows) }

type employeeListRows []EmployeeRow

func (rows employeeListRows) Render(_ context.Context, w io.Writer) error {
	hw := newBufferedWriter(w)
	for i := range rows {
		r := &rows[i]
		hw.raw(`<tr data-testid="employee-row" data-employee-id="`)
		hw.int(r.ID)
		hw.raw(`"><td><a href="/employees/`)
		hw.int(r.ID)
		hw.raw(`" data-testid="employee-name">`)
		hw.text(r.Name)
		hw.raw(`</a></td><td data-testid="employee-email">`)
		hw.text(r.Email)
		hw.raw(`</td><td>`)
		hw.inviteBadge(r.InviteState, r.InviteLabel)
		hw.raw(`</td>`)
		for j := range r.Cells {
			hw.raw(`<td>`)
			hw.readinessCell(&r.Cells[j])
			hw.raw(`</td>`)
		}
		hw.raw(`<td><time datetime="`)
		hw.time(r.LastActivity, time.RFC3339)
		hw.raw(`">`)
		hw.dateTime(r.LastActivity)
		hw.raw(`</time></td></tr>`)
	}
	return hw.done()
}

// ReadinessMatrixRows are the readiness matrix's table rows.
func ReadinessMatrixRows(rows []EmployeeRow) templ.Component { return readinessMatrixRows(rows) }

type readinessMatrixRows []EmployeeRow

func (rows readinessMatrixRows) Render(_ context.Context, w io.Writer) error {
	hw := newBufferedWriter(w)
	for i := range rows {
		r := &rows[i]
		hw.raw(`<tr data-testid="matrix-row" data-employee-id="`)
		hw.int(r.ID)
		hw.raw(`"><th scope="row"><a href="/employees/`)
		hw.int(r.ID)
		hw.raw(`">`)
		hw.text(r.Name)
		hw.raw(`</a></th>`)
		for j := range r.Cells {
			hw.raw(`<td>`)
			hw.readinessCell(&r.Cells[j])
			hw.raw(`</td>`)
		}
		hw.raw(`</tr>`)
	}
	return hw.done()
}

// selectOptions are a select's options, the chosen one (Selected, or
// the value value when it is set) marked selected. Every filter form has
// a few selects of up to a dozen options. (Field writes the space that
// templ put after a "Choose…" option when the options were a loop.)
func selectOptions(options []Option, value string) templ.Component {
	return optionList{options: options, value: value}
}

type optionList struct {
	options []Option
	value   string
}

func (l optionList) Render(_ context.Context, w io.Writer) error {
	hw := htmlWriter{w: w}
	for i := range l.options {
		o := &l.options[i]
		hw.raw(`<option value="`)
		hw.text(o.Value)
		if o.Selected || (l.value != "" && o.Value == l.value) {
			hw.raw(`" selected>`)
		} else {
			hw.raw(`">`)
		}
		hw.text(o.Label)
		hw.raw(`</option>`)
	}
	return hw.done()
}

// Markup is HTML this package rendered earlier (RenderBytes), written as
// it is: a page derived from a kept read reuses its rows' markup instead
// of rendering them again.
type Markup []byte

// Render writes the markup.
func (m Markup) Render(_ context.Context, w io.Writer) error {
	_, err := w.Write(m)
	return err
}

// Slotted is markup rendered earlier with holes for values that must be
// new on every request, such as form tokens: the kept parts are written
// as they are and a fresh value fills each hole. It is made by
// RenderSlotted.
type Slotted struct{ parts []Markup }

// RenderSlotted renders c with marker wherever a value is to be filled
// later and keeps the markup around those places. marker must be text
// the component cannot otherwise produce (a random one is) and must not
// change when escaped.
func RenderSlotted(c templ.Component, marker string) (Slotted, error) {
	m, err := RenderBytes(c)
	if err != nil {
		return Slotted{}, err
	}
	parts := bytes.Split(m, []byte(marker))
	out := Slotted{parts: make([]Markup, len(parts))}
	for i, p := range parts {
		out.parts[i] = Markup(p)
	}
	return out, nil
}

// IsZero is true of a Slotted that RenderSlotted did not make.
func (s Slotted) IsZero() bool { return s.parts == nil }

// Slots is how many values the markup takes.
func (s Slotted) Slots() int { return max(len(s.parts)-1, 0) }

// Fill is the markup with value() written, escaped, into each hole in
// turn; value is called once per hole at render time.
func (s Slotted) Fill(value func() string) templ.Component {
	return filled{parts: s.parts, value: value}
}

type filled struct {
	parts []Markup
	value func() string
}

func (f filled) Render(_ context.Context, w io.Writer) error {
	hw := htmlWriter{w: w}
	for i, p := range f.parts {
		if i > 0 {
			hw.text(f.value())
		}
		if hw.err == nil {
			_, hw.err = w.Write(p)
		}
	}
	return hw.done()
}

// RenderBytes renders c into a new Markup.
func RenderBytes(c templ.Component) (Markup, error) {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		return nil, err
	}
	return Markup(b.Bytes()), nil
}
