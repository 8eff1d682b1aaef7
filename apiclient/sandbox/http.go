package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"strings"
	"time"
)

// apiError is an error answered with the spec's error body: { statusCode,
// message (string or string[]), error } or, for upstream pass-through errors,
// { statusCode, message, code } without error.
type apiError struct {
	Status  int
	Message any
	Code    string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d: %v", e.Status, e.Message) }

func (e *apiError) body() map[string]any {
	b := map[string]any{"statusCode": e.Status, "message": e.Message}
	if e.Code != "" {
		b["code"] = e.Code
	} else {
		b["error"] = http.StatusText(e.Status)
	}
	return b
}

func errStatus(status int, msg string) *apiError { return &apiError{Status: status, Message: msg} }
func badRequest(msg string) *apiError            { return errStatus(http.StatusBadRequest, msg) }
func notFound(msg string) *apiError              { return errStatus(http.StatusNotFound, msg) }
func conflict(msg string) *apiError              { return errStatus(http.StatusConflict, msg) }
func forbidden(msg string) *apiError             { return errStatus(http.StatusForbidden, msg) }
func internal(msg string) *apiError              { return errStatus(http.StatusInternalServerError, msg) }

// spec: "Request validation failures return message as an array with one
// entry per invalid field; the array is exhaustive."
func validation(msgs []string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Message: msgs}
}

// e101 is an upstream pass-through validation error (spec: "may instead carry
// a code (for example E101) and lack error").
func e101(msg string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Message: msg, Code: "E101"}
}

// Messages the spec names.
const (
	msgUnauthorized   = "Unauthorized"
	msgNotYourUser    = "User does not belong to this partner"
	msgUserNotFound   = "User not found"
	msgItemNotFound   = "requested item could not be found"
	msgNoWebhook      = "No webhook config found"
	msgWebhookExists  = "Webhook config already exists for this partner scope. Use PATCH to update."
	msgNotOnCurve     = "Point is not on curve"
	msgInvalidV       = "Invalid yParityOrV"
	msgStatusNotAllow = "The current status does not allow it"
)

type authKind int

const (
	authPartner authKind = iota // x-api-key
	authUser                    // x-api-key and a {userId} of this partner, not deleted
	authUserAny                 // as authUser but deleted users pass (reactivate)
	authControl                 // control API, no key
)

type handlerFunc func(c *call) (any, error)

type route struct {
	method  string
	pattern string
	segs    []string
	auth    authKind
	h       handlerFunc
}

func (r *route) match(method string, segs []string) (map[string]string, bool) {
	if r.method != method || len(segs) != len(r.segs) {
		return nil, false
	}
	var params map[string]string
	for i, s := range r.segs {
		if strings.HasPrefix(s, "{") {
			if segs[i] == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[strings.Trim(s, "{}")] = segs[i]
			continue
		}
		if s != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// call is one request being handled, with the lock held.
type call struct {
	s       *Server
	r       *http.Request
	route   *route
	params  map[string]string
	body    []byte
	partner *partner
	user    *user
	status  int

	// typeMsgs are decode's "<field> must be a <type>" messages; held is the
	// state when decode found them, put back after the handler (typeFailure).
	typeMsgs []string
	held     []byte
}

func (c *call) param(name string) string { return c.params[name] }

func (s *Server) route(method, pattern string, auth authKind, h handlerFunc) *route {
	return &route{method: method, pattern: pattern, segs: strings.Split(strings.Trim(pattern, "/"), "/"), auth: auth, h: h}
}

func (s *Server) buildRoutes() []*route {
	u := "/v1/users/{userId}"
	sw := u + "/smart-wallets"
	rs := []*route{
		// Users.
		s.route("POST", "/v1/users", authPartner, (*call).createUser),
		s.route("GET", "/v1/users/lookup", authPartner, (*call).lookupUser),
		s.route("DELETE", u, authUser, (*call).deleteUser),
		s.route("POST", u+"/reactivate", authUserAny, (*call).reactivateUser),
		s.route("GET", u+"/kyc", authUser, (*call).kycGet),
		s.route("GET", u+"/onboarding/status", authUser, (*call).onboardingStatusGet),

		// Smart wallets and owner proof.
		s.route("GET", "/v1/smart-wallets/supported-currencies", authPartner, (*call).supportedCurrencies),
		s.route("POST", sw+"/owner-proof-challenges", authUser, (*call).createChallenge),
		s.route("POST", sw+"/create-managed", authUser, (*call).createManaged),
		s.route("GET", sw+"/account/wallets", authUser, (*call).listWallets),
		s.route("GET", sw+"/account/balances", authUser, (*call).listBalances),
		s.route("GET", sw+"/account/approval-policy", authUser, (*call).getPolicy),
		s.route("PATCH", sw+"/account/approval-policy", authUser, (*call).setPolicy),
		s.route("POST", sw+"/account/send", authUser, (*call).accountSend),
		s.route("POST", sw+"/fund", authUser, (*call).fund),

		// Proposals (literal "proposals" routes first: they win over {smartWalletId}).
		s.route("GET", sw+"/proposals/{proposalId}", authUser, (*call).getProposal),
		s.route("POST", sw+"/proposals/{proposalId}/approve", authUser, (*call).approveProposal),
		s.route("GET", sw+"/proposals/{proposalId}/sign-payload", authUser, (*call).signPayload),
		s.route("POST", sw+"/proposals/{proposalId}/sign", authUser, (*call).signProposal),
		s.route("POST", sw+"/proposals/{proposalId}/reject", authUser, (*call).rejectProposal),
		s.route("POST", sw+"/{smartWalletId}/proposals", authUser, (*call).createProposal),
		s.route("GET", sw+"/{smartWalletId}/proposals", authUser, (*call).listProposals),
		s.route("GET", sw+"/{smartWalletId}", authUser, (*call).getWallet),

		// Cards.
		s.route("POST", u+"/cards", authUser, (*call).createCard),
		s.route("GET", sw+"/{smartWalletId}/cards", authUser, (*call).listCards),
		s.route("GET", sw+"/{smartWalletId}/cards/{cardId}", authUser, (*call).cardDetail),
		s.route("GET", sw+"/{smartWalletId}/cards/{cardId}/sensitive", authUser, (*call).cardSensitive),
		s.route("POST", u+"/cards/sensitive-data", authUser, (*call).sensitiveData),
		s.route("GET", u+"/cards/{cardId}/sign-payload", authUser, (*call).cardSignPayload),
		s.route("GET", u+"/cards/{cardId}", authUser, (*call).getCard),
		s.route("POST", u+"/cards/{cardId}/activate/request", authUser, (*call).activateRequest),
		s.route("POST", u+"/cards/{cardId}/activate/confirm", authUser, (*call).activateConfirm),
		s.route("PUT", u+"/cards/{cardId}/status", authUser, (*call).setCardStatus),
		s.route("PUT", u+"/cards/{cardId}/pin", authUser, (*call).setPIN),
		s.route("POST", u+"/cards/{cardId}/reset", authUser, (*call).setPIN),
		s.route("PUT", u+"/cards/{cardId}/set-limit", authUser, (*call).setLimits),
		s.route("GET", u+"/cards/{cardId}/limits", authUser, (*call).getLimits),
		s.route("GET", u+"/cards/{cardId}/transactions", authUser, (*call).cardTransactions),
		s.route("PUT", u+"/cards/{cardId}/deactivate", authUser, (*call).deactivateCard),

		// Webhooks.
		s.route("POST", "/v1/webhooks/config", authPartner, (*call).createWebhook),
		s.route("GET", "/v1/webhooks/config", authPartner, (*call).getWebhook),
		s.route("PATCH", "/v1/webhooks/config", authPartner, (*call).patchWebhook),
		s.route("DELETE", "/v1/webhooks/config", authPartner, (*call).deleteWebhook),
		s.route("POST", "/v1/webhooks/config/rotate-secret", authPartner, (*call).rotateWebhook),
		s.route("GET", "/v1/webhooks/deliveries", authPartner, (*call).listDeliveries),

		// Employer invite.
		s.route("POST", "/v1/partners/employees/invite", authPartner, (*call).inviteEmployee),
	}
	return s.withRails(append(rs, s.controlRoutes()...))
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var rt *route
	var params map[string]string
	for _, cand := range s.routes {
		if p, ok := cand.match(r.Method, segs); ok {
			rt, params = cand, p
			break
		}
	}
	if rt == nil || (rt.auth == authControl && !s.opts.Control) {
		writeError(w, notFound(fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path)))
		return
	}
	if rt.auth != authControl {
		s.requests.add(r.Method, rt.pattern)
	}
	// The body is read before any fault: only then does net/http notice a
	// client that hangs up during an injected latency (r.Context is done).
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		writeError(w, badRequest("could not read request body"))
		return
	}
	var f *fault
	if rt.auth != authControl {
		f = s.pickFault(r, rt)
		if f != nil && !f.After && s.applyFault(w, r, rt, f) {
			return
		}
	}
	c := &call{s: s, r: r, route: rt, params: params, body: body, status: http.StatusOK}

	s.mu.Lock()
	s.tick()
	out, err := s.run(c)
	var encoded []byte
	if err == nil {
		if r.Method != http.MethodGet {
			s.save()
		}
		// Encode while holding the lock: responses may point into the state.
		if out == nil {
			out = map[string]any{}
		}
		encoded, err = json.Marshal(out)
	}
	s.mu.Unlock()

	var ae *apiError
	if err != nil {
		if !errors.As(err, &ae) {
			s.log.Error("sandbox: handler failed", "route", rt.pattern, "err", err)
			ae = internal("Internal server error")
		}
		s.log.Debug("sandbox: request", "method", r.Method, "route", rt.pattern, "status", ae.Status)
	} else {
		s.log.Debug("sandbox: request", "method", r.Method, "route", rt.pattern, "status", c.status)
	}
	// An after-fault acts once the request was handled and its change saved.
	if f != nil && f.After && s.applyFault(w, r, rt, f) {
		return
	}
	if ae != nil {
		writeError(w, ae)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(c.status)
	_, _ = w.Write(append(encoded, '\n'))
}

func (s *Server) run(c *call) (any, error) {
	if err := s.authorize(c); err != nil {
		return nil, err
	}
	out, err := c.route.h(c)
	if len(c.typeMsgs) > 0 {
		return nil, c.typeFailure(err)
	}
	return out, err
}

// authorize resolves the partner (x-api-key) and the path user the route
// needs.
func (s *Server) authorize(c *call) error {
	if c.route.auth == authControl {
		return nil
	}
	key := c.r.Header.Get("x-api-key")
	p := s.partnerByKey(key)
	if p == nil {
		// spec: "A missing, malformed or revoked key returns 401."
		return errStatus(http.StatusUnauthorized, msgUnauthorized)
	}
	c.partner = p
	if c.route.auth == authUser || c.route.auth == authUserAny {
		u, err := s.userFor(p, c.param("userId"), c.route.auth == authUserAny)
		if err != nil {
			return err
		}
		c.user = u
	}
	return nil
}

func (s *Server) partnerByKey(key string) *partner {
	key = strings.TrimSpace(key)
	if key == "" {
		return nil
	}
	for _, p := range s.st.Partners {
		if p.APIKey == key {
			return p
		}
	}
	return nil
}

// userFor resolves a path user for partner p.
func (s *Server) userFor(p *partner, id string, allowDeleted bool) (*user, error) {
	u := s.st.Users[id]
	if u == nil {
		return nil, notFound(msgUserNotFound)
	}
	if u.PartnerID != p.ID {
		// spec: "Another partner's user returns 403 with 'User does not
		// belong to this partner'."
		return nil, forbidden(msgNotYourUser)
	}
	if u.DeletedAt != nil && !allowDeleted {
		// spec: "deleted (deactivated, data retained; all user-scoped
		// endpoints return 404)"
		return nil, notFound(msgUserNotFound)
	}
	return u, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if v == nil {
		v = map[string]any{}
	}
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *apiError) { writeJSON(w, e.Status, e.body()) }

// pickFault takes the first fault matching the request (a copy), using up
// one of its times.
func (s *Server) pickFault(r *http.Request, rt *route) *fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, cand := range s.st.Faults {
		if cand.Method != "" && !strings.EqualFold(cand.Method, r.Method) {
			continue
		}
		if !faultMatches(cand.Route, rt, r) {
			continue
		}
		if cand.Rate < 1 && s.randomFloat() >= cand.Rate {
			continue
		}
		f := *cand
		if cand.Remaining > 0 {
			cand.Remaining--
			if cand.Remaining == 0 {
				s.st.Faults = append(s.st.Faults[:i:i], s.st.Faults[i+1:]...)
			}
			s.save()
		}
		return &f
	}
	return nil
}

// applyFault applies f's latency, then its drop, reset or status. It reports
// whether the response was written (or the connection dropped, or the client
// gave up during the latency); false means the real answer is still to be
// written. Before the handler (f.After false) a written fault means the
// request was never handled; after it (f.After true), the handler's change
// is already saved: spec: "No idempotency keys exist. A timed-out
// create-user must be recovered through the 409 rule above."
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, rt *route, f *fault) bool {
	if f.LatencyMs > 0 {
		t := time.NewTimer(time.Duration(f.LatencyMs) * time.Millisecond)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return true
		}
	}
	if f.Drop || f.Reset {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				if tc, ok := conn.(*net.TCPConn); ok && f.Reset {
					// Linger 0: close discards unsent data and sends an
					// RST, so the client reads "connection reset by peer".
					_ = tc.SetLinger(0)
				}
				conn.Close()
				return true
			}
		}
		// Without a hijackable connection (HTTP/2) the closest is a bare 502.
		writeError(w, errStatus(http.StatusBadGateway, "connection dropped"))
		return true
	}
	if f.Status != 0 {
		msg := f.Message
		if msg == "" {
			msg = http.StatusText(f.Status)
			if !f.After && rt.pattern == "/v1/users/{userId}" && r.Method == http.MethodDelete && f.Status == http.StatusServiceUnavailable {
				// spec: "503 when balances cannot be verified (nothing deleted, retry)"
				msg = "Balances could not be verified. Nothing was deleted; retry."
			}
		}
		writeError(w, errStatus(f.Status, msg))
		return true
	}
	return false
}

// faultMatches matches a fault's route against the route pattern
// ("/v1/users/{userId}/cards") or, as a glob (path.Match), the request path.
func faultMatches(pattern string, rt *route, r *http.Request) bool {
	if pattern == "" || pattern == "*" {
		return true
	}
	if pattern == rt.pattern {
		return true
	}
	ok, err := path.Match(pattern, r.URL.Path)
	return err == nil && ok
}
