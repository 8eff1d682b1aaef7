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

// Previous is the page of this site the request came from (its path and
// query, from the Referer, kept on this site by SafeLocalPath), or ""
// when it came from elsewhere, from nowhere, or from the very page asked
// for.
func Previous(r *http.Request) string {
	ref, err := url.Parse(r.Referer())
	if err != nil || r.Referer() == "" || (ref.Host != "" && ref.Host != r.Host) {
		return ""
	}
	back := ref.EscapedPath()
	if ref.RawQuery != "" {
		back += "?" + ref.RawQuery
	}
	if back = SafeLocalPath(back); back == r.URL.RequestURI() {
		return ""
	}
	return back
}

// WithQuery is path with the query v, or path alone when v is empty.
func WithQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}
