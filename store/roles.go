package store

// Role is what a staff member may do in the app.
type Role string

// The four roles of the app (DESIGN.md, "What the product is").
const (
	RoleOwner           Role = "owner"
	RoleHRAdmin         Role = "hr_admin"
	RoleFinanceApprover Role = "finance_approver"
	RoleSupport         Role = "support"
)

// Roles lists every role, owner first.
func Roles() []Role {
	return []Role{RoleOwner, RoleHRAdmin, RoleFinanceApprover, RoleSupport}
}

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleOwner, RoleHRAdmin, RoleFinanceApprover, RoleSupport:
		return true
	}
	return false
}

// Label is the role's name in the users' words.
func (r Role) Label() string {
	switch r {
	case RoleOwner:
		return "Owner"
	case RoleHRAdmin:
		return "HR admin"
	case RoleFinanceApprover:
		return "Finance approver"
	case RoleSupport:
		return "Support"
	}
	return string(r)
}

// Permission names what a route needs. Every route in web's route table
// declares one.
type Permission string

// Permissions. Public and Device need no staff session; SignedIn needs any
// active staff member; the rest follow the role matrix below.
const (
	PermPublic         Permission = "public"
	PermSignedIn       Permission = "signed_in"
	PermEmployeesRead  Permission = "employees.read"
	PermEmployeesWrite Permission = "employees.write"
	PermApprovalsRead  Permission = "approvals.read"
	PermApprovalsAct   Permission = "approvals.act"
	PermTreasury       Permission = "treasury.move"
	PermCardsRead      Permission = "cards.read"
	PermCardsWrite     Permission = "cards.write"
	PermStaffManage    Permission = "staff.manage"
	PermSettings       Permission = "settings.manage"
	PermAuditRead      Permission = "audit.read"
	// PermActivityRead reads the company's money activity (accounting).
	PermActivityRead Permission = "activity.read"
)

// rolePermissions is the matrix: which role holds which permission beyond
// SignedIn. The owner holds every permission.
func rolePermissions(r Role) []Permission {
	switch r {
	case RoleHRAdmin:
		return []Permission{PermEmployeesRead, PermEmployeesWrite}
	case RoleFinanceApprover:
		return []Permission{PermApprovalsRead, PermApprovalsAct, PermTreasury, PermEmployeesRead, PermActivityRead}
	case RoleSupport:
		return []Permission{PermCardsRead, PermCardsWrite, PermEmployeesRead}
	}
	return nil
}

// Can reports whether the role holds permission p.
func (r Role) Can(p Permission) bool {
	if !r.Valid() {
		return false
	}
	switch p {
	case PermPublic, PermSignedIn:
		return true
	}
	if r == RoleOwner {
		return true
	}
	for _, q := range rolePermissions(r) {
		if q == p {
			return true
		}
	}
	return false
}
