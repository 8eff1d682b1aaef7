package apiclient

import (
	"context"
	"net/http"
	"strings"
)

// InviteKYC is the employer-held KYC of an invite. spec: it "is submitted
// when the employee links"; document images and the selfie are never part
// of it.
type InviteKYC struct {
	Profile KYCProfile `json:"profile"`
}

// InviteEmployeeRequest invites an employee to onboard in the service's own
// app.
type InviteEmployeeRequest struct {
	Name  string     `json:"name"`
	Email string     `json:"email"`
	KYC   *InviteKYC `json:"kyc,omitempty"`
}

// Validate checks the name, email and the KYC fields that are set.
func (r InviteEmployeeRequest) Validate() error {
	c := newChecker()
	c.required("name", r.Name)
	if c.required("email", r.Email) && !strings.Contains(r.Email, "@") {
		c.fail("email", "must be an email address")
	}
	if r.KYC != nil {
		r.KYC.Profile.check(c, "kyc.profile.")
	}
	return c.err()
}

// InviteResult is the answer to InviteEmployee.
type InviteResult struct {
	Sent      bool   `json:"sent"`
	InviteURL string `json:"inviteUrl"`
	// Error explains why the email was not sent, when Sent is false.
	Error string `json:"error,omitempty"`
}

// InviteEmployee sends the co-branded invite
// (POST /v1/partners/employees/invite). spec: "Re-inviting the same email
// reissues the same link", so this is also the re-invite.
func (c *Client) InviteEmployee(ctx context.Context, req InviteEmployeeRequest) (*InviteResult, error) {
	req.Email = strings.TrimSpace(req.Email)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if req.KYC != nil {
		req.KYC = &InviteKYC{Profile: req.KYC.Profile.normalised()}
	}
	var out InviteResult
	if err := c.do(ctx, request{op: "InviteEmployee", method: http.MethodPost, path: pathOf("partners", "employees", "invite"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
