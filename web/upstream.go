package web

import (
	"context"
	"time"

	"partneradmin/views"
)

// Upstream describes the Partner API the app is connected to, and probes it
// for the dashboard.
type Upstream struct {
	Sandbox bool
	BaseURL string
	// Probe makes one cheap read call; nil means no API client is configured.
	Probe func(ctx context.Context) error
}

// Status probes the API with a short deadline.
func (u Upstream) Status(ctx context.Context) views.UpstreamStatus {
	st := views.UpstreamStatus{Mode: "partner-api", BaseURL: u.BaseURL}
	if u.Sandbox {
		st.Mode = "sandbox"
	}
	if u.Probe == nil {
		st.Note = "no API client is configured."
		return st
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	start := time.Now()
	if err := u.Probe(ctx); err != nil {
		st.Note = "the last call failed. Pages that need the API will say so; nothing is lost."
		return st
	}
	st.Available = true
	if d := time.Since(start); d < time.Millisecond {
		st.Note = "Answered in under 1 ms."
	} else {
		st.Note = "Answered in " + d.Round(time.Millisecond).String() + "."
	}
	return st
}
