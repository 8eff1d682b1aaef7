package views

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

// Field's block class and its control's attributes, in every variant: the
// class words in order, the attributes in name order, further attributes
// replacing the field's own.
func TestFieldMarkup(t *testing.T) {
	for _, tc := range []struct {
		f    FieldSpec
		want []string
	}{
		{FieldSpec{Name: "q", Label: "Search"},
			[]string{`<div class="field"><label for="f-q">Search</label> <input type="text" value="" data-testid="field-q" id="f-q" name="q">`}},
		{FieldSpec{Name: "q", Label: "Search", Error: "Too long", Hint: "A hint"},
			[]string{`<div class="field field-invalid">`,
				`<input type="text" value="" aria-describedby="f-q-hint f-q-error" aria-invalid="true" data-testid="field-q" id="f-q" name="q">`}},
		{FieldSpec{Name: "note", Label: "Note", Type: "textarea", Value: "a<b"},
			[]string{`<div class="field field-wide">`, `<textarea data-testid="field-note" id="f-note" name="note">a&lt;b</textarea>`}},
		{FieldSpec{ID: "x", Name: "n", Label: "N", Wide: true, Error: "Bad", TestID: "t", Attrs: templ.Attributes{"maxlength": "5", "required": true, "id": "y", "disabled": false}},
			[]string{`<div class="field field-invalid field-wide">`,
				`<input type="text" value="" aria-describedby="x-error" aria-invalid="true" data-testid="t" id="y" maxlength="5" name="n" required>`}},
	} {
		var b strings.Builder
		if err := Field(tc.f).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%+v:\n%s\nwant it to contain\n%s", tc.f, b.String(), w)
			}
		}
	}
}
