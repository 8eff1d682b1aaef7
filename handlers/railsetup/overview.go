package railsetup

import (
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/views"
)

// Overview lists each rail with where it stands and its next step, from
// the same reads as the rails' own pages.
func (h *Handler) Overview(w http.ResponseWriter, r *http.Request) {
	t, ok := h.load(w, r)
	if !ok {
		return
	}
	rd := h.reads(r, t)
	var v views.RailsOverviewView
	eur, _ := h.eurView(rd, t, pageOverride{})
	v.Rails = append(v.Rails, summary("eur", "EUR SEPA payouts", railEUR.Page, "/money-out/sepa", "Send a SEPA payout", eur.Steps, eur.Unread))
	mxn := h.mxnView(rd, t, pageOverride{})
	v.Rails = append(v.Rails, summary("mxn", "Mexican offramp (MXN)", railMXN.Page, "/money-out/mexico", "Pay out pesos", mxn.Steps, mxn.Unread))
	usd := h.usdView(rd, t, pageOverride{})
	v.Rails = append(v.Rails, summary("usd", "USD account", railUSD.Page, "/treasury/funding", "See the account", usd.Steps, usd.Unread))
	v.Rails = append(v.Rails, h.ngnSummary(rd))
	h.Render(w, r, http.StatusOK, "Set up the rails", views.RailsOverviewPage(v), nil)
}

// summary is a rail's line on the overview: its first step not done, or
// ready with a link to use it.
func summary(key, name, setup, use, useLabel string, steps []views.RailStep, unread string) views.RailSummary {
	s := views.RailSummary{Key: key, Name: name, Href: setup, HrefLabel: "Set it up"}
	if unread != "" {
		s.State, s.StateLabel, s.Next = "waiting", "Not known", unread
		return s
	}
	for _, st := range steps {
		if st.State == "done" {
			continue
		}
		s.State, s.StateLabel = st.State, st.StateLabel
		s.Next = st.Title
		if st.Words != "" {
			s.Next += ": " + st.Words
		}
		if st.Code != "" {
			// The words end where the step's page shows the value.
			s.Next += " " + views.Shorten(st.Code) + "."
		}
		if st.State == "waiting" {
			s.HrefLabel = "See where it stands"
		}
		return s
	}
	s.State, s.StateLabel, s.Next, s.Href, s.HrefLabel = "ready", "Ready", "Everything is set up.", use, useLabel
	return s
}

// ngnSummary says where the treasury's NGN account stands. The spec opens
// it with start-nigeria, which needs a Nigerian profile (address, phone,
// BVN: "NGA NGN (stage 1)"), so the app offers no start for the treasury;
// its CNGN wallet pays Nigerian bank withdrawals without one.
func (h *Handler) ngnSummary(rd *reads) views.RailSummary {
	s := views.RailSummary{Key: "ngn", Name: "NGN account"}
	st, err := rd.onboarding()
	if err != nil {
		s.State, s.StateLabel, s.Next = "waiting", "Not known", unreadWords("Where the NGN account stands", err)
		return s
	}
	if rs := st.Currencies[apiclient.NGN]; rs.Active || strings.EqualFold(rs.Status, "active") {
		s.State, s.StateLabel, s.Next = "ready", "Ready", "The NGN account is open: naira transfers to it arrive in the CNGN wallet."
		s.Href, s.HrefLabel = "/treasury/funding", "See the account"
		return s
	}
	s.State, s.StateLabel = "blocked", "Not offered"
	s.Next = "An NGN account is opened for a user with a Nigerian address, phone number and BVN; the treasury's identity check has none, so the app does not offer it. " +
		"Naira still leave the treasury's CNGN wallet by Nigerian bank withdrawal."
	s.Href, s.HrefLabel = "/money-out/nigeria", "Send a Nigerian bank withdrawal"
	return s
}
