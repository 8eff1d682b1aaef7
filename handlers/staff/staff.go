// Package staff lets the owner add staff, change their roles and disable or
// enable their accounts.
package staff

import (
	"context"
	"time"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Store is what the staff handlers need from the store.
type Store interface {
	ListStaff(ctx context.Context) ([]store.Staff, error)
	StaffByID(ctx context.Context, id int64) (store.Staff, error)
	CreateStaff(ctx context.Context, n store.NewStaff, by store.Actor) (store.Staff, error)
	UpdateStaffAccess(ctx context.Context, id int64, role store.Role, disabled bool, by store.Actor) (store.Staff, error)
	IssueSetPasswordLink(ctx context.Context, staffID int64, tokenHash []byte, ttl time.Duration, by store.Actor) (time.Time, error)
}

// Handler serves the staff routes.
type Handler struct {
	*handlers.Base
	Store Store
	// PublicOrigin begins the set-password links.
	PublicOrigin string
}

// New returns the staff handler.
func New(d handlers.Deps) *Handler {
	return &Handler{Base: d.Base, Store: d.Store, PublicOrigin: d.Config.PublicOrigin}
}

func roleOptions() []views.RoleOption {
	var opts []views.RoleOption
	for _, r := range store.Roles() {
		opts = append(opts, views.RoleOption{Value: string(r), Label: r.Label()})
	}
	return opts
}

func staffRow(s store.Staff, viewerID int64) views.StaffRow {
	return views.StaffRow{ID: s.ID, Email: s.Email, Name: s.Name, Role: string(s.Role), RoleLabel: s.Role.Label(),
		Disabled: s.Disabled, IsSelf: s.ID == viewerID, SecondFactor: s.SecondFactor}
}
