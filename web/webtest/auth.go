// Sign-in attempts made the way a browser makes them.

package webtest

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// LoginAnswer is what a sign-in attempt got back.
type LoginAnswer struct {
	Status int
	Text   string // the login page's error, or the whole body
}

// PostLogin signs in without failing the test from another goroutine.
func PostLogin(env *Env, c *http.Client, form url.Values, h http.Header) (LoginAnswer, error) {
	req, err := http.NewRequest(http.MethodPost, env.URL("/login"), strings.NewReader(form.Encode()))
	if err != nil {
		return LoginAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		return LoginAnswer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return LoginAnswer{}, err
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		return LoginAnswer{}, err
	}
	text := TestID(doc, "login-error")
	if text == "" {
		text = string(body)
	}
	return LoginAnswer{Status: resp.StatusCode, Text: text}, nil
}
