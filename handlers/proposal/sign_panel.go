package proposal

import (
	"time"

	"partneradmin/store"
	"partneradmin/views"
)

// Panel states of a workflow whose withdrawal reached its outcome on the
// rail (a withdrawal webhook recorded it).
const (
	PanelCompleted = store.SignCompleted
	PanelFailed    = "failed"
)

// WithdrawalPanel is SignPanelOf for the sign request that carries a crypto
// withdrawal's signature. Once the withdrawal's outcome on the rail is
// recorded, the panel shows it — completed, or failed with the rail's
// reason in words — whatever step the request itself last recorded (the
// relay's answer may land after the webhook, or never, when the API did not
// answer it). cw is the withdrawal of sr (nil: none).
func WithdrawalPanel(sr store.SignRequest, cw *store.CryptoWithdrawal, now time.Time) views.SignPanel {
	p := SignPanelOf(sr, now)
	if cw == nil || cw.SignRequestID != sr.ID || !cw.Settled() {
		return p
	}
	p.Final = true
	for i := range p.Steps {
		p.Steps[i].Done = true
	}
	if cw.State == store.WithdrawalCompleted {
		p.State, p.Label, p.Error = PanelCompleted, "completed", ""
		return p
	}
	if n := len(p.Steps); n > 0 {
		p.Steps[n-1].Done = false
	}
	p.State, p.Label, p.Error = PanelFailed, "failed", views.WithdrawalFailureWords(cw.FailureReason)
	return p
}
