package views

import (
	"context"
	"net/http"
	"time"
	// The image is built FROM scratch, without /usr/share/zoneinfo: the
	// zones the browsers name come with the binary.
	_ "time/tzdata"
)

// ZoneCookie names the cookie in which static/app.js sends, once, the
// browser's time zone (an IANA name such as "Africa/Lagos").
const ZoneCookie = "tz"

type zoneKey struct{}

// WithZone is ctx with the time zone in which its pages show times.
func WithZone(ctx context.Context, loc *time.Location) context.Context {
	return context.WithValue(ctx, zoneKey{}, loc)
}

// Zone is the time zone of the person the page is for: the one WithZone
// put in ctx, else UTC.
func Zone(ctx context.Context) *time.Location {
	if loc, ok := ctx.Value(zoneKey{}).(*time.Location); ok && loc != nil {
		return loc
	}
	return time.UTC
}

// ZoneOf reads the time zone from the request's cookie, at each request:
// nothing is kept in the process. A missing or unknown name is UTC.
func ZoneOf(r *http.Request) *time.Location {
	c, err := r.Cookie(ZoneCookie)
	if err != nil || !zoneName(c.Value) {
		return time.UTC
	}
	loc, err := time.LoadLocation(c.Value)
	if err != nil {
		return time.UTC
	}
	return loc
}

// zoneName accepts the characters of IANA zone names ("America/Port-au-Prince",
// "Etc/GMT+5") and nothing that could name a file elsewhere.
func zoneName(s string) bool {
	if s == "" || len(s) > 64 || s == "Local" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-' || c == '+'
		if !ok || (c == '/' && (i == 0 || s[i-1] == '/')) {
			return false
		}
	}
	return true
}

// Zoned is the middleware that gives every page the person's time zone.
func Zoned(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(WithZone(r.Context(), ZoneOf(r))))
	})
}
