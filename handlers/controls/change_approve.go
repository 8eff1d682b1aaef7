package controls

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// ApproveChange records a second owner's approval of a policy change. A
// spending policy or the settings are in force after the cooling-off
// period in force now; an approval mode is sent to the Partner API at once,
// through the ledger.
func (h *Handler) ApproveChange(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, ok := idParam(r)
	if !ok {
		h.NotFound(w, r)
		return
	}
	if !handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
		h.StaleForm(w, r)
		return
	}
	by := handlers.ActorFrom(ctx)
	c, err := h.store.CheckPolicyDecision(ctx, id, by)
	if h.refusedDecision(w, r, err) {
		return
	}
	now := h.clock()
	if c.Kind == store.PolicyApprovalMode {
		h.applyMode(w, r, c, by)
		return
	}
	settings, err := h.store.SettingsInForce(ctx, now)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	c, err = h.store.ApprovePolicyChange(ctx, id, by, now, now.Add(settings.CoolingOff()))
	if h.refusedDecision(w, r, err) {
		return
	}
	h.Flash(r, "ok", c.Kind.Label()+" change approved. It is in force from "+views.DateTime(ctx, *c.EffectiveAt)+".")
	h.Redirect(w, r, "/controls#changes")
}

// refusedDecision answers a decision the store refused (the proposer's
// own, or one already decided) and reports whether it did; a database
// error is a server error.
func (h *Handler) refusedDecision(w http.ResponseWriter, r *http.Request, err error) bool {
	if err == nil {
		return false
	}
	if msg, known := decisionWords(err, "change"); known {
		h.show(w, r, http.StatusConflict, func(v *views.ControlsView) { v.Error = msg })
		return true
	}
	h.ServerError(w, r, err)
	return true
}

// applyMode sends an approved approval-mode change to the Partner API
// once: the change's id is the ledger's key, so two owners approving at
// once make one call.
func (h *Handler) applyMode(w http.ResponseWriter, r *http.Request, c store.PolicyChange, by store.Actor) {
	ctx := r.Context()
	var body store.ApprovalModeBody
	if err := c.Decode(&body); err != nil {
		h.ServerError(w, r, err)
		return
	}
	q := modeRequest{ChangeID: c.ID, UserID: c.Target, Mode: body.Mode, Admins: body.Admins, Threshold: body.Threshold}
	done, err := h.actions.Run(ctx, handlers.Write{Key: "policy_change:" + strconv.FormatInt(c.ID, 10), Kind: kindApprovalMode,
		Target: "policy_change:" + strconv.FormatInt(c.ID, 10), Actor: by, Request: q,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if _, err := h.api.SetApprovalPolicy(ctx, q.UserID, q.policy()); err != nil {
				return handlers.Effect{}, err
			}
			return h.modeEffect(q, by), nil
		}})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Flash(r, "info", "This change was already sent: "+done.Action.Message)
	case done.State() == store.ActionDone:
		h.Flash(r, "ok", "The approval mode is now: "+policyWords(q.policy())+".")
	case done.State() == store.ActionRefused:
		if err := h.store.SettlePolicyChange(ctx, c.ID, by, h.clock(), false); err != nil && !errors.Is(err, store.ErrAlreadyDecided) {
			h.ServerError(w, r, err)
			return
		}
		h.show(w, r, http.StatusBadGateway, func(v *views.ControlsView) {
			v.Error = "The Partner API refused the approval mode: " + done.Problem.Summary + " Propose it again once that is fixed."
		})
		return
	default:
		h.show(w, r, http.StatusBadGateway, func(v *views.ControlsView) { v.Error = done.Action.Message })
		return
	}
	h.Redirect(w, r, "/controls#changes")
}
