package sandbox

import (
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"time"
)

// reactivationWindow is the spec's "Reactivation window | 90 days from deletion".
const reactivationWindow = 90 * 24 * time.Hour

var phonePattern = regexp.MustCompile(`^\+?[0-9][0-9 ()-]{6,19}$`)

type createUserRequest struct {
	Email       string  `json:"email"`
	FirstName   string  `json:"firstName"`
	LastName    string  `json:"lastName"`
	PhoneNumber *string `json:"phoneNumber"`
	EmployeeID  *string `json:"employeeId"`
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".")
}

func normalPhone(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '+' || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func userJSON(u *user) map[string]any {
	status := "active"
	if u.DeletedAt != nil {
		status = "deleted"
	}
	return map[string]any{
		"serviceUserId": u.ID,
		"email":         u.Email,
		"firstName":     u.FirstName,
		"lastName":      u.LastName,
		"phoneNumber":   nullable(u.PhoneNumber),
		"employeeId":    nullable(u.EmployeeID),
		"createdAt":     iso(u.CreatedAt),
		"status":        status,
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func isoPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return iso(*t)
}

// createUser implements POST /v1/users.
func (c *call) createUser() (any, error) {
	var in createUserRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	in.Email = strings.TrimSpace(in.Email)
	in.FirstName = strings.TrimSpace(in.FirstName)
	in.LastName = strings.TrimSpace(in.LastName)
	var msgs []string
	switch {
	case in.Email == "":
		msgs = append(msgs, "email should not be empty")
	case !validEmail(in.Email):
		msgs = append(msgs, "email must be an email")
	}
	if in.FirstName == "" {
		msgs = append(msgs, "firstName should not be empty")
	}
	if in.LastName == "" {
		msgs = append(msgs, "lastName should not be empty")
	}
	phone, employeeID := "", ""
	if in.PhoneNumber != nil && strings.TrimSpace(*in.PhoneNumber) != "" {
		phone = strings.TrimSpace(*in.PhoneNumber)
		if !phonePattern.MatchString(phone) {
			msgs = append(msgs, "phoneNumber must be a valid phone number")
		}
	}
	if in.EmployeeID != nil {
		employeeID = strings.TrimSpace(*in.EmployeeID)
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	if err := c.s.checkUnique(c.partner.ID, in.Email, phone, employeeID); err != nil {
		return nil, err
	}
	u := c.s.addUser(c.partner.ID, in.Email, in.FirstName, in.LastName, phone, employeeID)
	c.status = http.StatusCreated
	return userJSON(u), nil
}

// checkUnique applies spec: "Uniqueness is enforced on email, phone number and
// employee identifier" and the 409 whose message "names each colliding field
// joined by and".
func (s *Server) checkUnique(partnerID, email, phone, employeeID string) error {
	var email1, phone1, emp1 bool
	for _, u := range s.st.Users {
		if u.PartnerID != partnerID {
			continue
		}
		if strings.EqualFold(u.Email, email) {
			email1 = true
		}
		if phone != "" && normalPhone(u.PhoneNumber) == normalPhone(phone) {
			phone1 = true
		}
		if employeeID != "" && u.EmployeeID == employeeID {
			emp1 = true
		}
	}
	var fields []string
	if email1 {
		fields = append(fields, "email")
	}
	if phone1 {
		fields = append(fields, "phoneNumber")
	}
	if emp1 {
		fields = append(fields, "employeeId")
	}
	if len(fields) == 0 {
		return nil
	}
	return conflict("User already exists with this " + strings.Join(fields, " and "))
}

func (s *Server) addUser(partnerID, email, first, last, phone, employeeID string) *user {
	u := &user{
		ID:          s.newID(),
		PartnerID:   partnerID,
		Email:       email,
		FirstName:   first,
		LastName:    last,
		PhoneNumber: phone,
		EmployeeID:  employeeID,
		CreatedAt:   s.now(),
		Policy:      approvalPolicy{Mode: modeOwnerApproval, Admins: []string{}},
		Seq:         s.st.next(),
	}
	s.st.Users[u.ID] = u
	return u
}

// lookupUser implements the sandbox extension GET /v1/users/lookup?email=,
// so a client can recover a 409 as its own earlier attempt.
func (c *call) lookupUser() (any, error) {
	email := strings.TrimSpace(c.r.URL.Query().Get("email"))
	for _, u := range c.s.st.Users {
		if u.PartnerID == c.partner.ID && strings.EqualFold(u.Email, email) {
			return userJSON(u), nil
		}
	}
	return nil, notFound(msgUserNotFound)
}

// deleteUser implements DELETE /v1/users/{userId}.
func (c *call) deleteUser() (any, error) {
	for _, w := range c.s.userWallets(c.user.ID) {
		if w.Balance.IsPositive() {
			// spec: "DELETE returns 400 (code E101, statusCode 400) when any
			// wallet holds a balance"
			return nil, e101("Balances exist in wallets. Move or withdraw the funds before deleting the account.")
		}
	}
	now := c.s.now()
	c.user.DeletedAt = &now
	return map[string]any{"success": true, "message": "User deleted"}, nil
}

// reactivateUser implements POST /v1/users/{userId}/reactivate and the spec's
// table of results.
func (c *call) reactivateUser() (any, error) {
	u := c.user
	if u.DeletedAt == nil {
		// spec: "never deleted | 200 with message that the user is already active"
		return map[string]any{"success": true, "message": "User is already active"}, nil
	}
	if c.s.now().Sub(*u.DeletedAt) > reactivationWindow {
		// spec: "over 90 days | 400 with a support-handoff message; not retryable"
		return nil, badRequest("User was deleted more than 90 days ago and cannot be reactivated. Contact support.")
	}
	u.DeletedAt = nil
	return map[string]any{"success": true, "message": "User reactivated"}, nil
}
