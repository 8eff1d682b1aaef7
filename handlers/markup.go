package handlers

import (
	"github.com/a-h/templ"

	"partneradmin/store"
	"partneradmin/views"
)

// KeptMarkup is the markup of c kept in d under key: rendered once per
// kept read (store.Derived), however many requests are served it. On an
// error it is nil, and the page renders the component itself.
func KeptMarkup(d *store.Derived, key string, c func() templ.Component) views.Markup {
	m, _ := d.Get(key, func() any {
		m, err := views.RenderBytes(c())
		if err != nil {
			return views.Markup(nil)
		}
		return m
	}).(views.Markup)
	return m
}

// KeptWithTokens is the markup of c kept in d under key, with a new form
// token in each of its forms on every request: c is rendered once with a
// random marker where each token goes (the token it is given), and every
// request writes the kept markup with fresh tokens in those places. It is
// nil on an error, and the page renders its forms itself.
func KeptWithTokens(d *store.Derived, key string, c func(token string) templ.Component) templ.Component {
	s, _ := d.Get(key, func() any {
		marker := "form-token-" + NewFormToken()
		s, err := views.RenderSlotted(c(marker), marker)
		if err != nil {
			return views.Slotted{}
		}
		return s
	}).(views.Slotted)
	if s.IsZero() {
		return nil
	}
	return s.Fill(NewFormToken)
}
