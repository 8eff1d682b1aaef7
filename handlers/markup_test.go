package handlers

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"partneradmin/store"
	"partneradmin/views"
)

// tokenForms is a component with a form token in each of n forms and text
// that needs escaping around them.
func tokenForms(n int, label string, token func() string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		for i := range n {
			if _, err := io.WriteString(w, `<form><input type="hidden" name="form_token" value="`+token()+`"><button>`+
				templ.EscapeString(label)+` `+string(rune('a'+i))+`</button></form>`); err != nil {
				return err
			}
		}
		return nil
	})
}

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestKeptWithTokensIsTheRenderWithNewTokens: the kept markup, filled, is
// byte for byte what rendering the component with the same tokens gives;
// each request's tokens are new ones, distinct in every form; the
// component is rendered once per kept read.
func TestKeptWithTokensIsTheRenderWithNewTokens(t *testing.T) {
	d := &store.Derived{}
	renders := 0
	make := func(token string) templ.Component {
		renders++
		return tokenForms(3, `Start <all> & "ready"`, func() string { return token })
	}
	seen := map[string]bool{}
	for range 2 {
		got := render(t, KeptWithTokens(d, "forms", make))
		var tokens []string
		for _, part := range strings.Split(got, `name="form_token" value="`)[1:] {
			tokens = append(tokens, part[:strings.IndexByte(part, '"')])
		}
		if len(tokens) != 3 {
			t.Fatalf("%d tokens in %s", len(tokens), got)
		}
		i := 0
		want := render(t, tokenForms(3, `Start <all> & "ready"`, func() string { i++; return tokens[i-1] }))
		if got != want {
			t.Fatalf("kept markup\n%s\nrendered\n%s", got, want)
		}
		for _, tok := range tokens {
			if seen[tok] || strings.HasPrefix(tok, "form-token-") || len(tok) < 20 {
				t.Fatalf("token %q repeated or not a fresh token", tok)
			}
			seen[tok] = true
		}
	}
	if renders != 1 {
		t.Fatalf("rendered %d times for one kept read", renders)
	}
	if c := KeptWithTokens(d, "broken", func(string) templ.Component {
		return templ.ComponentFunc(func(context.Context, io.Writer) error { return io.ErrUnexpectedEOF })
	}); c != nil {
		t.Fatal("a component that fails to render was kept")
	}
}

// TestSlottedWithoutHoles: markup with no place for a token is written
// as it is.
func TestSlottedWithoutHoles(t *testing.T) {
	s, err := views.RenderSlotted(templ.Raw(`<p>none ready</p>`), "marker")
	if err != nil || s.IsZero() || s.Slots() != 0 {
		t.Fatalf("%v %v %d", err, s.IsZero(), s.Slots())
	}
	if got := render(t, s.Fill(func() string { t.Fatal("filled a hole that is not there"); return "" })); got != `<p>none ready</p>` {
		t.Fatal(got)
	}
}
