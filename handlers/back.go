package handlers

import (
	"net/http"
	"net/url"
)

// BackTo is the way back from a detail page to its list: the list as the
// viewer left it (its filters, from the Referer when that was the list on
// this site), or the list itself.
func BackTo(r *http.Request, list string) string {
	ref, err := url.Parse(r.Referer())
	if err != nil || ref.Path != list || (ref.Host != "" && ref.Host != r.Host) {
		return list
	}
	if ref.RawQuery == "" {
		return list
	}
	return list + "?" + ref.RawQuery
}
