package onboard

import "testing"

// Only an https address without credentials or quoting characters becomes
// the origin a form may post to.
func TestLaunchOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"https://kyc.example.com/launch?x=1": "https://kyc.example.com",
		"https://kyc.example.com:8443/a":     "https://kyc.example.com:8443",
		"http://kyc.example.com/launch":      "",
		"https://user:pw@kyc.example.com/":   "",
		"https:///nohost":                    "",
		"javascript:alert(1)":                "",
		"https://a.example.com';script-src":  "",
	} {
		got, ok := launchOrigin(raw)
		if got != want || ok != (want != "") {
			t.Errorf("launchOrigin(%q) = %q %v, want %q", raw, got, ok, want)
		}
	}
}
