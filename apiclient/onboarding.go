package apiclient

import (
	"context"
	"net/http"
)

// RailStatus is one currency's entry of the onboarding status.
type RailStatus struct {
	// Active is true when the rail is active.
	Active bool `json:"active"`
	// Status is the rail's onboarding state (value set not shown in the
	// spec; the sandbox starts at "none").
	Status string `json:"status"`
}

// OnboardingStatus is the per-currency onboarding state (shape beyond the
// named fields not shown in the spec; README).
type OnboardingStatus struct {
	// Currencies maps a fiat code to its rail.
	Currencies map[Fiat]RailStatus `json:"currencies"`
	// EURProviderStatus is "active" when EUR onboarding is complete.
	EURProviderStatus string `json:"eurProviderStatus"`
}

// GetOnboardingStatus reports onboarding per currency
// (GET /v1/users/{userId}/onboarding/status).
func (c *Client) GetOnboardingStatus(ctx context.Context, userID string) (*OnboardingStatus, error) {
	var out OnboardingStatus
	if err := c.do(ctx, request{op: "GetOnboardingStatus", method: http.MethodGet, path: userPath(userID, "onboarding", "status")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OnboardingStarted is the answer to a rail start: start-usa returns
// { workflowId }; the other starts' responses are not shown (README).
type OnboardingStarted struct {
	WorkflowID string `json:"workflowId,omitempty"`
	Status     string `json:"status,omitempty"`
}

// StartUSARequest starts the USD rail.
type StartUSARequest struct {
	SmartWalletID string `json:"smartWalletId"`
}

// Validate checks the wallet id.
func (r StartUSARequest) Validate() error {
	c := newChecker()
	c.required("smartWalletId", r.SmartWalletID)
	return c.err()
}

// StartUSA starts USD onboarding (POST /v1/users/{userId}/onboarding/start-usa).
// spec: "idempotent", and a failed account is moved on by a "start-usa retry
// (safe)": this is the one write the client retries on transient failures.
func (c *Client) StartUSA(ctx context.Context, userID string, req StartUSARequest) (*OnboardingStarted, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out OnboardingStarted
	if err := c.do(ctx, request{op: "StartUSA", method: http.MethodPost, path: userPath(userID, "onboarding", "start-usa"), body: req, idempotent: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// StartCanadaRequest starts the CAD rail.
type StartCanadaRequest struct {
	CADWalletAddress string `json:"cadWalletAddress"`
	CADWalletIndex   int    `json:"cadWalletIndex"`
}

// Validate checks the wallet address and index.
func (r StartCanadaRequest) Validate() error {
	c := newChecker()
	c.address("cadWalletAddress", r.CADWalletAddress)
	c.walletIndex("cadWalletIndex", r.CADWalletIndex)
	return c.err()
}

func (c *checker) walletIndex(field string, i int) {
	if i < 0 {
		c.fail(field, "must not be negative")
	}
}

// StartCanada starts CAD onboarding
// (POST /v1/users/{userId}/onboarding/start-canada).
func (c *Client) StartCanada(ctx context.Context, userID string, req StartCanadaRequest) (*OnboardingStarted, error) {
	return startRail(ctx, c, "StartCanada", userID, "start-canada", req)
}

// StartEURProviderRequest starts the EUR rail; both fields are required.
type StartEURProviderRequest struct {
	EURWalletAddress string `json:"eurWalletAddress"`
	EURWalletIndex   int    `json:"eurWalletIndex"`
}

// Validate checks the wallet address and index.
func (r StartEURProviderRequest) Validate() error {
	c := newChecker()
	c.address("eurWalletAddress", r.EURWalletAddress)
	c.walletIndex("eurWalletIndex", r.EURWalletIndex)
	return c.err()
}

// StartEURProvider starts EUR onboarding
// (POST /v1/users/{userId}/onboarding/start-eur-provider).
func (c *Client) StartEURProvider(ctx context.Context, userID string, req StartEURProviderRequest) (*OnboardingStarted, error) {
	return startRail(ctx, c, "StartEURProvider", userID, "start-eur-provider", req)
}

// StartNigeriaRequest starts the NGN rail, which issues the NGN virtual
// account.
type StartNigeriaRequest struct {
	BVN              string `json:"bvn"`
	NGNWalletAddress string `json:"ngnWalletAddress"`
	NGNWalletIndex   int    `json:"ngnWalletIndex"`
}

// Validate checks the BVN, wallet address and index.
func (r StartNigeriaRequest) Validate() error {
	c := newChecker()
	c.bvn("bvn", r.BVN)
	c.address("ngnWalletAddress", r.NGNWalletAddress)
	c.walletIndex("ngnWalletIndex", r.NGNWalletIndex)
	return c.err()
}

// StartNigeria starts NGN onboarding
// (POST /v1/users/{userId}/onboarding/start-nigeria).
func (c *Client) StartNigeria(ctx context.Context, userID string, req StartNigeriaRequest) (*OnboardingStarted, error) {
	req.BVN = trim(req.BVN)
	return startRail(ctx, c, "StartNigeria", userID, "start-nigeria", req)
}

// StartMexicoRequest starts the MXN rail.
type StartMexicoRequest struct {
	MXNWalletAddress string `json:"mxnWalletAddress"`
	MXNWalletIndex   int    `json:"mxnWalletIndex"`
}

// Validate checks the wallet address and index.
func (r StartMexicoRequest) Validate() error {
	c := newChecker()
	c.address("mxnWalletAddress", r.MXNWalletAddress)
	c.walletIndex("mxnWalletIndex", r.MXNWalletIndex)
	return c.err()
}

// StartMexico starts MXN onboarding
// (POST /v1/users/{userId}/onboarding/start-mexico).
func (c *Client) StartMexico(ctx context.Context, userID string, req StartMexicoRequest) (*OnboardingStarted, error) {
	return startRail(ctx, c, "StartMexico", userID, "start-mexico", req)
}

type validator interface{ Validate() error }

// startRail posts a non-retried rail start.
func startRail(ctx context.Context, c *Client, op, userID, seg string, req validator) (*OnboardingStarted, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out OnboardingStarted
	if err := c.do(ctx, request{op: op, method: http.MethodPost, path: userPath(userID, "onboarding", seg), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
