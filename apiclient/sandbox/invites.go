package sandbox

import (
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
)

type inviteRequest struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	KYC   *struct {
		Profile json.RawMessage `json:"profile"`
	} `json:"kyc"`
}

func (s *Server) inviteURL(inv *invite) string {
	return strings.TrimRight(s.opts.InviteBaseURL, "/") + "/invite/" + inv.Token
}

// inviteEmployee implements POST /v1/partners/employees/invite.
func (c *call) inviteEmployee() (any, error) {
	var in inviteRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	in.Email = strings.TrimSpace(in.Email)
	var msgs []string
	if strings.TrimSpace(in.Name) == "" {
		msgs = append(msgs, "name should not be empty")
	}
	if !validEmail(in.Email) {
		msgs = append(msgs, "email must be an email")
	}
	var profile json.RawMessage
	if in.KYC != nil && len(in.KYC.Profile) > 0 && string(in.KYC.Profile) != "null" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(in.KYC.Profile, &obj); err != nil {
			msgs = append(msgs, "kyc.profile must be an object")
		}
		profile = in.KYC.Profile
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	now := c.s.now()
	for _, inv := range c.s.st.Invites {
		if inv.PartnerID != c.partner.ID || !strings.EqualFold(inv.Email, in.Email) {
			continue
		}
		if inv.Status == "linked" {
			return map[string]any{"sent": false, "inviteUrl": c.s.inviteURL(inv), "error": "Employee has already linked this invitation"}, nil
		}
		// spec: "Re-inviting the same email reissues the same link (no
		// separate refresh endpoint)."
		inv.Name = strings.TrimSpace(in.Name)
		if profile != nil {
			inv.KYC = profile
		}
		inv.Sends++
		inv.SentAt = now
		return map[string]any{"sent": true, "inviteUrl": c.s.inviteURL(inv)}, nil
	}
	tok, err := c.s.randomBytes(16)
	if err != nil {
		return nil, err
	}
	code, err := c.s.randomDigits(6)
	if err != nil {
		return nil, err
	}
	inv := &invite{
		ID: c.s.newID(), PartnerID: c.partner.ID, Name: strings.TrimSpace(in.Name), Email: in.Email,
		Token: hex.EncodeToString(tok), Code: code, KYC: profile, Sends: 1, Status: "invited",
		CreatedAt: now, SentAt: now, Seq: c.s.st.next(),
	}
	c.s.st.Invites[inv.ID] = inv
	return map[string]any{"sent": true, "inviteUrl": c.s.inviteURL(inv)}, nil
}

func inviteJSON(s *Server, inv *invite) map[string]any {
	return map[string]any{
		"invitationId":  inv.ID,
		"partnerId":     inv.PartnerID,
		"name":          inv.Name,
		"email":         inv.Email,
		"inviteUrl":     s.inviteURL(inv),
		"workEmailCode": inv.Code,
		"status":        inv.Status,
		"sends":         inv.Sends,
		"serviceUserId": nullable(inv.UserID),
		"kycHeld":       len(inv.KYC) > 0,
		"createdAt":     iso(inv.CreatedAt),
		"lastSentAt":    iso(inv.SentAt),
		"linkedAt":      isoPtr(inv.LinkedAt),
	}
}

func (s *Server) invitesInOrder() []*invite {
	var out []*invite
	for _, inv := range s.st.Invites {
		out = append(out, inv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

type linkRequest struct {
	InvitationID string `json:"invitationId"`
	Email        string `json:"email"`
	PartnerID    string `json:"partnerId"`
	Code         string `json:"code"`
	Selfie       bool   `json:"selfie"`
}

// personalInfo reads the names and phone from an employer-held profile.
// The invite's kyc.profile is a KYC profile as PATCH /kyc takes it, whose
// names sit under profile.personalInfo; a flatter kyc.profile.personalInfo
// is read too.
func personalInfo(profile json.RawMessage) (first, last, phone string) {
	type info struct {
		FirstName   string `json:"firstName"`
		LastName    string `json:"lastName"`
		PhoneNumber string `json:"phoneNumber"`
	}
	var p struct {
		PersonalInfo info `json:"personalInfo"`
		Profile      struct {
			PersonalInfo info `json:"personalInfo"`
		} `json:"profile"`
	}
	if len(profile) > 0 {
		_ = json.Unmarshal(profile, &p)
	}
	pi := p.Profile.PersonalInfo
	if pi == (info{}) {
		pi = p.PersonalInfo
	}
	return pi.FirstName, pi.LastName, pi.PhoneNumber
}

// linkInvite plays the employee's side in the mobile app: the work-email code
// (and optionally a selfie) confirms the link, the user is created, the
// employer-held KYC profile is submitted and employee.linked fires. Caller
// holds mu.
func (s *Server) linkInvite(in linkRequest) (map[string]any, error) {
	var inv *invite
	for _, cand := range s.invitesInOrder() {
		switch {
		case in.InvitationID != "" && cand.ID == in.InvitationID:
			inv = cand
		case in.InvitationID == "" && strings.EqualFold(cand.Email, strings.TrimSpace(in.Email)) && (in.PartnerID == "" || cand.PartnerID == in.PartnerID):
			if inv != nil {
				return nil, badRequest("Several partners invited this email: give partnerId or invitationId")
			}
			inv = cand
		}
	}
	if inv == nil {
		return nil, notFound("Invitation not found")
	}
	if inv.Status == "linked" {
		return nil, conflict("Invitation already linked")
	}
	// spec: "The employee confirms by a work-email one-time code in the app"
	if in.Code != inv.Code {
		return nil, badRequest("Invalid work-email code")
	}
	p := s.st.Partners[inv.PartnerID]
	if p == nil {
		return nil, notFound("Partner not found")
	}
	var u *user
	for _, cand := range s.st.Users {
		if cand.PartnerID == inv.PartnerID && strings.EqualFold(cand.Email, inv.Email) {
			u = cand
		}
	}
	if u == nil {
		first, last, phone := personalInfo(inv.KYC)
		if first == "" || last == "" {
			parts := strings.Fields(inv.Name)
			if first == "" && len(parts) > 0 {
				first = parts[0]
			}
			if last == "" && len(parts) > 1 {
				last = strings.Join(parts[1:], " ")
			}
		}
		if last == "" {
			last = "-"
		}
		if phone != "" && s.checkUnique(inv.PartnerID, "\x00", phone, "") != nil {
			phone = "" // keep the link working; the phone stays on the KYC profile
		}
		u = s.addUser(inv.PartnerID, inv.Email, first, last, phone, "")
	}
	now := s.now()
	// spec: "The employer-held KYC in kyc.profile is submitted when the
	// employee links."
	kycSubmitted := len(inv.KYC) > 0
	if kycSubmitted {
		u.KYC = inv.KYC
	}
	s.kycFromInvite(u, inv.KYC, in.Selfie)
	u.Selfie = u.Selfie || in.Selfie
	inv.Status, inv.UserID, inv.LinkedAt = "linked", u.ID, &now
	payload := map[string]any{
		"invitationId":  inv.ID,
		"serviceUserId": u.ID,
		"companyEmail":  inv.Email,
		"partnerName":   p.Name,
		"linkedAt":      iso(now),
		"kycSubmitted":  kycSubmitted,
	}
	s.emit(inv.PartnerID, "employee.linked", payload)
	return map[string]any{"data": payload}, nil
}
