package views

import (
	"os"
	"strings"
	"testing"
)

// Every readiness state has its colour in the chart and its legend: a
// state without a .seg- rule is drawn black.
func TestEveryReadinessStateHasAColour(t *testing.T) {
	css, err := os.ReadFile("../static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	for state := range statusWords[StatusReadiness] {
		if !strings.Contains(string(css), ".seg-"+state+" {") {
			t.Errorf("no .seg-%s rule in static/app.css", state)
		}
	}
}
