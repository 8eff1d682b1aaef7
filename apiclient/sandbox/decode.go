package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

const msgNotObject = "body must be a JSON object"

// decode reads the JSON body into v, a pointer to the route's request
// struct. An empty body decodes as {}; a body that is not a JSON object is a
// 400 "body must be a JSON object".
//
// spec: "Request validation failures return message as an array with one
// entry per invalid field; the array is exhaustive." So a field of the wrong
// JSON type does not stop the decoding: the field is left zero, recorded as
// "<path> must be a <type>" (path as the route's own messages spell it, e.g.
// "identificationNumbers.0.type"), and the rest of the body is still read.
// The handler then runs on as usual, so its own field messages can join the
// array; run answers the 400 (typeFailure) and puts the state back as it was
// here, so a request with a mistyped field changes nothing.
func (c *call) decode(v any) error {
	b := bytes.TrimSpace(c.body)
	if len(b) == 0 {
		b = []byte("{}")
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("sandbox: decode into %T, want a non-nil pointer", v)
	}
	if !json.Valid(b) {
		return validation([]string{msgNotObject})
	}
	var d fieldDecoder
	if !d.value(b, rv.Elem(), "") {
		return validation([]string{msgNotObject})
	}
	if len(d.msgs) == 0 {
		return nil
	}
	if c.held == nil {
		held, err := json.Marshal(c.s.st)
		if err != nil {
			return fmt.Errorf("sandbox: hold the state: %w", err)
		}
		c.held = held
	}
	c.typeMsgs = append(c.typeMsgs, d.msgs...)
	return nil
}

// typeFailure ends a call whose body had mistyped fields: the state goes back
// to what it was when decode found them, and the answer is one 400 with the
// type messages followed by the handler's own validation messages (those
// about other fields: a mistyped field was left zero, so what the handler
// says about it, such as "should not be empty", is not news).
func (c *call) typeFailure(handlerErr error) error {
	st, err := decodeState(c.held)
	if err != nil {
		return fmt.Errorf("sandbox: put back the state: %w", err)
	}
	c.s.st = st
	msgs := append([]string(nil), c.typeMsgs...)
	var ae *apiError
	if errors.As(handlerErr, &ae) && ae.Status == http.StatusBadRequest {
		if more, ok := ae.Message.([]string); ok {
			for _, m := range more {
				if !c.aboutMistyped(m) && !slices.Contains(msgs, m) {
					msgs = append(msgs, m)
				}
			}
		}
	}
	return validation(msgs)
}

// aboutMistyped reports whether a validation message names a mistyped field,
// the field under it, or the field by its last name ("amount" for
// "proposal.amount").
func (c *call) aboutMistyped(msg string) bool {
	tok, _, _ := strings.Cut(msg, " ")
	for _, m := range c.typeMsgs {
		p, _, _ := strings.Cut(m, " ")
		if tok == p || strings.HasPrefix(tok, p+".") || strings.HasSuffix(p, "."+tok) {
			return true
		}
	}
	return false
}

// fieldDecoder decodes JSON into a Go value field by field, like
// encoding/json (tags, case-insensitive keys, unknown keys ignored, null
// leaves a value alone or clears a pointer, slice or map), but records every
// value of the wrong JSON type instead of stopping at the first.
type fieldDecoder struct {
	msgs []string
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	numberType      = reflect.TypeFor[json.Number]()
	decimalType     = reflect.TypeFor[decimal.Decimal]()
	timeType        = reflect.TypeFor[time.Time]()
)

// value decodes raw (valid JSON) into v. It reports false, leaving v
// unchanged, when raw is not of v's JSON type; mistyped values inside v are
// recorded and left zero.
func (d *fieldDecoder) value(raw []byte, v reflect.Value, path string) bool {
	t := v.Type()
	if string(raw) == "null" {
		if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType) {
			return d.whole(raw, v) // encoding/json hands null to UnmarshalJSON too
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			v.SetZero()
		}
		return true
	}
	switch {
	case t.Kind() == reflect.Pointer:
		target := v
		if v.IsNil() {
			target = reflect.New(t.Elem())
		}
		if !d.value(raw, target.Elem(), path) {
			return false
		}
		v.Set(target)
		return true
	case t == numberType:
		// spec types such as "estimatedMonthlyVolume | number" take a JSON
		// number, not a string holding one.
		if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return false
		}
		v.SetString(string(raw))
		return true
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return d.whole(raw, v)
	case t.Kind() == reflect.Struct:
		return d.object(raw, v, path)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		return d.array(raw, v, path)
	}
	return d.whole(raw, v)
}

// whole decodes raw into v with encoding/json: scalars, maps, interfaces and
// types with their own UnmarshalJSON.
func (d *fieldDecoder) whole(raw []byte, v reflect.Value) bool {
	p := reflect.New(v.Type())
	if err := json.Unmarshal(raw, p.Interface()); err != nil {
		return false
	}
	v.Set(p.Elem())
	return true
}

func (d *fieldDecoder) object(raw []byte, v reflect.Value, path string) bool {
	if raw[0] != '{' {
		return false
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return false
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, f := range jsonFields(v.Type()) {
		raw, ok := members[f.name]
		if !ok {
			for _, k := range keys {
				if strings.EqualFold(k, f.name) {
					raw, ok = members[k], true
					break
				}
			}
		}
		if !ok {
			continue
		}
		fv := fieldByIndex(v, f.index)
		p := f.name
		if path != "" {
			p = path + "." + f.name
		}
		if !d.value(raw, fv, p) {
			d.fail(p, fv.Type())
		}
	}
	return true
}

func (d *fieldDecoder) array(raw []byte, v reflect.Value, path string) bool {
	if raw[0] != '[' {
		return false
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return false
	}
	s := reflect.MakeSlice(v.Type(), len(elems), len(elems))
	for i, e := range elems {
		p := path + "." + strconv.Itoa(i)
		if !d.value(e, s.Index(i), p) {
			d.fail(p, s.Index(i).Type())
		}
	}
	v.Set(s)
	return true
}

func (d *fieldDecoder) fail(path string, t reflect.Type) {
	d.msgs = append(d.msgs, path+" must be "+jsonTypeName(t))
}

// jsonTypeName is the JSON type a Go type is decoded from, with its article.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case numberType, decimalType:
		return "a number"
	case timeType:
		return "an RFC 3339 date-time string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a valid value"
}

type jsonField struct {
	name  string
	index []int
}

// jsonFields lists the JSON members of struct type t the way encoding/json
// names them: the tag's name, else the Go name; "-" and unexported fields
// skipped; fields of untagged embedded structs promoted unless a shallower
// field has the name; in declaration order.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	taken := map[string]bool{}
	type embedded struct {
		t     reflect.Type
		index []int
	}
	var next []embedded
	walk := func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			idx := append(append([]int(nil), index...), i)
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				next = append(next, embedded{ft, idx})
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if !taken[name] {
				taken[name] = true
				out = append(out, jsonField{name: name, index: idx})
			}
		}
	}
	walk(t, nil)
	for len(next) > 0 {
		level := next
		next = nil
		for _, e := range level {
			walk(e.t, e.index)
		}
	}
	sort.Slice(out, func(i, j int) bool { return slices.Compare(out[i].index, out[j].index) < 0 })
	return out
}

// fieldByIndex is v.FieldByIndex, allocating nil embedded pointers on the
// way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
