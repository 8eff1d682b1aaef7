package views

import (
	"context"
	"strings"
	"testing"

	"partneradmin/apiclient/sandbox"
)

// The sandbox's test values are listed only when the app runs on the
// sandbox: against the real Partner API they would mislead.
func TestSandboxHintOnlyOnTheSandbox(t *testing.T) {
	for _, kind := range []string{HintNigerianAccounts, HintBVN} {
		var off, on strings.Builder
		if err := SandboxHint(kind).Render(context.Background(), &off); err != nil {
			t.Fatal(err)
		}
		if off.Len() != 0 {
			t.Errorf("%s off the sandbox: %q", kind, off.String())
		}
		if err := SandboxHint(kind).Render(WithSandbox(context.Background(), true), &on); err != nil {
			t.Fatal(err)
		}
		want := sandbox.TestBVN
		if kind == HintNigerianAccounts {
			want = sandbox.NigerianTestAccounts()[0].Number
		}
		if !strings.Contains(on.String(), want) {
			t.Errorf("%s on the sandbox does not list %s: %q", kind, want, on.String())
		}
	}
}
