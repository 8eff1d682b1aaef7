package apiclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// CreateUserRequest is the body of POST /v1/users.
type CreateUserRequest struct {
	Email       string `json:"email"`
	FirstName   string `json:"firstName"`
	LastName    string `json:"lastName"`
	PhoneNumber string `json:"phoneNumber,omitempty"`
	EmployeeID  string `json:"employeeId,omitempty"`
}

// Validate checks the required fields.
func (r CreateUserRequest) Validate() error {
	c := newChecker()
	if c.required("email", r.Email) && !strings.Contains(r.Email, "@") {
		c.fail("email", "must be an email address")
	}
	c.required("firstName", r.FirstName)
	c.required("lastName", r.LastName)
	return c.err()
}

// User is the user record returned by create and lookup. ServiceUserID is
// the path parameter of every user-scoped endpoint; persist it.
type User struct {
	ServiceUserID string    `json:"serviceUserId"`
	Email         string    `json:"email"`
	FirstName     string    `json:"firstName"`
	LastName      string    `json:"lastName"`
	PhoneNumber   string    `json:"phoneNumber"`
	EmployeeID    string    `json:"employeeId"`
	CreatedAt     time.Time `json:"createdAt"`
	// Status is "active" or "deleted" where the API reports it.
	Status string `json:"status,omitempty"`
}

// UserConflictError is CreateUser's answer to a 409 that is not the caller's
// own earlier attempt: another user already holds the email, phone number or
// employee identifier. It matches ErrConflict.
type UserConflictError struct {
	// Fields are the colliding fields named by the API (email, phoneNumber,
	// employeeId).
	Fields []string
	// Mismatched are the request fields that differ from the existing user
	// found by email; empty when no user has that email.
	Mismatched []string
	// Existing is the user found by email, if any.
	Existing *User
	// Err is the API's 409.
	Err *Error
}

// Error names the fields, never their values (personal data).
func (e *UserConflictError) Error() string {
	msg := "apiclient: CreateUser: a different user already exists with the same " + strings.Join(e.Fields, " and ")
	if len(e.Mismatched) > 0 {
		msg += " (existing user differs in " + strings.Join(e.Mismatched, ", ") + ")"
	}
	return msg
}

// Unwrap returns the API's 409.
func (e *UserConflictError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrConflict) true.
func (e *UserConflictError) Is(target error) bool { return target == ErrConflict }

// CreateUser creates a user (POST /v1/users).
//
// spec: "No idempotency keys exist. A timed-out create-user must be recovered
// through the 409 rule", and a 409 is to be treated "as success of a prior
// attempt". So an attempt that fails in transit is repeated, and a 409 is
// resolved by looking the user up by email: when the existing user has
// exactly the requested fields, it is the caller's own earlier attempt and is
// returned as success; otherwise the result is a *UserConflictError.
func (c *Client) CreateUser(ctx context.Context, req CreateUserRequest) (*User, error) {
	req.Email = strings.TrimSpace(req.Email)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	r := request{op: "CreateUser", method: http.MethodPost, path: pathOf("users"), body: req}
	var err error
	for attempt := 1; ; attempt++ {
		var u User
		err = c.do(ctx, r, &u)
		if err == nil {
			return &u, nil
		}
		if ctx.Err() != nil || attempt >= c.retry.MaxAttempts || !isTransient(err) {
			break
		}
		// The attempt may have created the user; repeating it is safe because
		// a duplicate answers 409, which is recovered below.
		c.logger.WarnContext(ctx, "apiclient: repeating create user after a failed attempt", "attempt", attempt, "error", err)
		if werr := sleepCtx(ctx, c.backoff(attempt)); werr != nil {
			return nil, fmt.Errorf("apiclient: CreateUser: %w (last error: %w)", werr, err)
		}
	}
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusConflict {
		return nil, err
	}
	return c.recoverUserConflict(ctx, req, apiErr)
}

func (c *Client) recoverUserConflict(ctx context.Context, req CreateUserRequest, apiErr *Error) (*User, error) {
	fields := collidingFields(apiErr.Message())
	existing, err := c.LookupUserByEmail(ctx, req.Email)
	if IsNotFound(err) {
		// Nobody has this email: the collision is on the phone number or
		// employee id, so it is someone else.
		if len(fields) == 0 {
			fields = []string{"phoneNumber or employeeId"}
		}
		return nil, &UserConflictError{Fields: fields, Err: apiErr}
	}
	if err != nil {
		return nil, fmt.Errorf("apiclient: CreateUser: 409, then looking up the existing user failed: %w", errors.Join(apiErr, err))
	}
	mismatched := userMismatch(req, existing)
	if len(mismatched) == 0 {
		c.logger.InfoContext(ctx, "apiclient: create user answered 409 for an earlier attempt; using the existing user")
		return existing, nil
	}
	if len(fields) == 0 {
		fields = []string{"email"}
	}
	return nil, &UserConflictError{Fields: fields, Mismatched: mismatched, Existing: existing, Err: apiErr}
}

// collidingFields reads "User already exists with this email and
// phoneNumber". spec: "the message names each colliding field joined by and".
func collidingFields(msg string) []string {
	re := regexp.MustCompile(`(?i)exists with (?:this|the same) ([A-Za-z ,]+)`)
	m := re.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	var out []string
	for _, part := range regexp.MustCompile(`\s*(?:,|\band\b)\s*`).Split(m[1], -1) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// userMismatch lists the request fields the existing user does not share.
func userMismatch(req CreateUserRequest, u *User) []string {
	var out []string
	if !strings.EqualFold(strings.TrimSpace(req.Email), strings.TrimSpace(u.Email)) {
		out = append(out, "email")
	}
	for _, f := range []struct{ name, want, got string }{
		{"firstName", req.FirstName, u.FirstName},
		{"lastName", req.LastName, u.LastName},
		{"phoneNumber", req.PhoneNumber, u.PhoneNumber},
		{"employeeId", req.EmployeeID, u.EmployeeID},
	} {
		if strings.TrimSpace(f.want) != strings.TrimSpace(f.got) {
			out = append(out, f.name)
		}
	}
	return out
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// LookupUserByEmail finds a user of this partner by email
// (GET /v1/users/lookup?email=...). The spec does not show a user lookup;
// this is the sandbox's decision, used by CreateUser's 409 recovery.
func (c *Client) LookupUserByEmail(ctx context.Context, email string) (*User, error) {
	var u User
	err := c.do(ctx, request{op: "LookupUserByEmail", method: http.MethodGet, path: pathOf("users", "lookup"),
		query: url.Values{"email": {strings.TrimSpace(email)}}}, &u)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// DeleteUser deactivates a user (DELETE /v1/users/{userId}). spec: 400 with
// code E101 when any wallet holds a balance; 503 when balances could not be
// verified (nothing deleted, retry).
func (c *Client) DeleteUser(ctx context.Context, userID string) (*StatusMessage, error) {
	var out StatusMessage
	if err := c.do(ctx, request{op: "DeleteUser", method: http.MethodDelete, path: userPath(userID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ReactivateUser restores a deleted user within 90 days of deletion
// (POST /v1/users/{userId}/reactivate). After 90 days the API answers 400,
// which is not retryable.
func (c *Client) ReactivateUser(ctx context.Context, userID string) (*StatusMessage, error) {
	var out StatusMessage
	if err := c.do(ctx, request{op: "ReactivateUser", method: http.MethodPost, path: userPath(userID, "reactivate")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
