// Package dashboard serves the start page after signing in.
package dashboard

import (
	"context"
	"net/http"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Upstream reports which Partner API the app talks to and whether it answers.
type Upstream interface {
	Status(ctx context.Context) views.UpstreamStatus
}

// Store is what the dashboard needs from the store.
type Store interface {
	ListAudit(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, error)
}

// Handler serves the dashboard.
type Handler struct {
	*handlers.Base
	Store    Store
	Upstream Upstream
	// Areas describes the dashboard tiles by path; only those in the
	// viewer's navigation are shown.
	Areas map[string]string
}

// New builds the dashboard. upstream says whether the Partner API answers;
// areas describes the tiles by path.
func New(d handlers.Deps, upstream Upstream, areas map[string]string) *Handler {
	return &Handler{Base: d.Base, Store: d.Store, Upstream: upstream, Areas: areas}
}

// Home shows the dashboard.
func (h *Handler) Home(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	v := views.DashboardView{
		Name:      viewer.Staff.Name,
		RoleLabel: viewer.Staff.Role.Label(),
		Upstream:  h.Upstream.Status(ctx),
		ShowAudit: viewer.Can(store.PermAuditRead),
	}
	if v.Name == "" {
		v.Name = viewer.Staff.Email
	}
	for _, item := range viewer.Nav {
		if d, ok := h.Areas[item.Href]; ok {
			v.Areas = append(v.Areas, views.AreaLink{Label: item.Label, Href: item.Href, Description: d})
		}
	}
	if v.ShowAudit {
		entries, err := h.Store.ListAudit(ctx, store.AuditFilter{Limit: 10})
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.RecentAudit = handlers.AuditRows(entries)
	}
	h.Render(w, r, http.StatusOK, "Start", views.DashboardPage(v), nil)
}
