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
