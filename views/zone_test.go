package views

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestTimesInThePersonsZone(t *testing.T) {
	lagos, err := time.LoadLocation("Africa/Lagos")
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithZone(context.Background(), lagos)
	at := time.Date(2026, 11, 22, 14, 5, 0, 0, time.UTC)
	if got := DateTime(ctx, at); got != "22 Nov 2026 15:05 WAT" {
		t.Errorf("DateTime in Lagos = %q", got)
	}
	if got := Clock(ctx, at); got != "15:05 WAT" {
		t.Errorf("Clock in Lagos = %q", got)
	}
	if got := DateTime(context.Background(), at); got != "22 Nov 2026 14:05 UTC" {
		t.Errorf("DateTime without a zone = %q", got)
	}
	// Relative words near now, the absolute time in the zone for a hover.
	now := at.Add(-9*time.Minute - 10*time.Second)
	var b strings.Builder
	if err := TimeUntil(at, now).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	want := `<time class="nowrap" datetime="2026-11-22T14:05:00Z" title="22 Nov 2026 15:05 WAT">in 9 minutes</time>`
	if b.String() != want {
		t.Errorf("TimeUntil\n got %s\nwant %s", b.String(), want)
	}
	b.Reset()
	if err := TimeAgo(at, at.Add(3*time.Minute+5*time.Second)).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ">3 min ago</time>") || !strings.Contains(b.String(), `title="22 Nov 2026 15:05 WAT"`) {
		t.Errorf("TimeAgo %s", b.String())
	}
}

func TestZoneFromTheRequest(t *testing.T) {
	for value, want := range map[string]string{
		"America/Mexico_City":            "America/Mexico_City",
		"Etc/GMT+5":                      "Etc/GMT+5",
		"":                               "UTC",
		"Local":                          "UTC",
		"../../etc/passwd":               "UTC",
		"/etc/localtime":                 "UTC",
		"Mars/Olympus_Mons":              "UTC",
		"America/Argentina/Buenos_Aires": "America/Argentina/Buenos_Aires",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if value != "" {
			r.Header.Set("Cookie", ZoneCookie+"="+value)
		}
		if got := ZoneOf(r).String(); got != want {
			t.Errorf("cookie %q: zone %s, want %s", value, got, want)
		}
	}
	var seen *time.Location
	h := Zoned(httpHandlerFunc(func(ctx context.Context) { seen = Zone(ctx) }))
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Cookie", ZoneCookie+"=Europe/Berlin")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if seen == nil || seen.String() != "Europe/Berlin" {
		t.Errorf("the middleware gave %v", seen)
	}
}

type httpHandlerFunc func(ctx context.Context)

func (f httpHandlerFunc) ServeHTTP(_ http.ResponseWriter, r *http.Request) { f(r.Context()) }
