package controls

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// modeWords is an approval mode in people's words.
func modeWords(m apiclient.ApprovalMode) string {
	switch m {
	case apiclient.ApprovalAnyAdmin:
		return "Any one approver"
	case apiclient.ApprovalAdminThreshold:
		return "A number of approvers"
	case apiclient.ApprovalOwner:
		return "The owner alone"
	}
	return "Unknown"
}

// policyWords is an account's approval policy in words.
func policyWords(p apiclient.ApprovalPolicy) string {
	s := modeWords(p.Mode)
	if p.Mode == apiclient.ApprovalAdminThreshold {
		s += " (" + strconv.Itoa(p.Threshold) + " of " + strconv.Itoa(len(p.Admins)) + ")"
	}
	return s
}

// currentMode is the treasury account's approval mode as the Partner API
// reports it now, in words.
func (h *Handler) currentMode(ctx context.Context) string {
	user, _, err := h.store.Treasury(ctx)
	if err != nil || h.api == nil {
		return "The approval mode cannot be shown: the treasury account is not known."
	}
	p, err := h.api.GetApprovalPolicy(ctx, user.ServiceUserID)
	if err != nil {
		h.Logger.WarnContext(ctx, "controls: read approval policy", "err", err)
		return "The Partner API did not answer with the approval mode just now."
	}
	return "Now: " + policyWords(*p) + "."
}

// ProposeApprovalMode records an owner's proposed approval mode of the
// treasury account; it is sent to the Partner API when a second owner
// approves it. The approvers stay those the API lists now.
func (h *Handler) ProposeApprovalMode(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
		h.StaleForm(w, r)
		return
	}
	f := views.ApprovalModeForm{Token: r.PostFormValue(handlers.FormTokenField), Mode: r.PostFormValue("mode"),
		Threshold: strings.TrimSpace(r.PostFormValue("threshold")), Fields: views.FieldErrors{}}
	user, _, err := h.store.Treasury(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	now, err := h.api.GetApprovalPolicy(ctx, user.ServiceUserID)
	if err != nil {
		h.show(w, r, http.StatusBadGateway, func(v *views.ControlsView) {
			v.ApprovalMode.Mode, v.ApprovalMode.Threshold = f.Mode, f.Threshold
			v.Error = "The Partner API did not answer with the account's approval mode, so nothing was proposed. Try again in a moment."
		})
		return
	}
	p := apiclient.ApprovalPolicy{Mode: apiclient.ApprovalMode(f.Mode), Admins: now.Admins}
	switch p.Mode {
	case apiclient.ApprovalAnyAdmin, apiclient.ApprovalOwner:
	case apiclient.ApprovalAdminThreshold:
		n, err := strconv.Atoi(f.Threshold)
		if err != nil || n < 1 || n > len(p.Admins) {
			f.Fields["threshold"] = "Give a number from 1 to " + strconv.Itoa(len(p.Admins)) + " (the account's approvers)."
		}
		p.Threshold = n
	default:
		f.Fields["mode"] = "Choose who must approve."
	}
	if !f.Fields.Any() {
		if err := p.Validate(); err != nil {
			f.Fields["mode"] = "The Partner API would not take this mode with the account's approvers: " + apiclient.Explain(err).Summary
		}
	}
	if f.Fields.Any() {
		h.show(w, r, http.StatusUnprocessableEntity, func(v *views.ControlsView) {
			f.Current, f.Options = v.ApprovalMode.Current, v.ApprovalMode.Options
			v.ApprovalMode = f
		})
		return
	}
	body := store.ApprovalModeBody{Mode: string(p.Mode), Admins: p.Admins, Threshold: p.Threshold}
	if _, err := h.store.ProposePolicyChange(ctx, store.NewPolicyChange{Kind: store.PolicyApprovalMode, Target: user.ServiceUserID,
		Body: body, Summary: policyWords(p) + " must approve each proposal", By: handlers.ActorFrom(ctx), At: h.clock()}); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "The approval mode was proposed. It is sent to the Partner API when a second owner approves it.")
	h.Redirect(w, r, "/controls#changes")
}

// modeRequest is what an approval-mode change asks the API, as the ledger
// keeps it.
type modeRequest struct {
	ChangeID  int64    `json:"changeId"`
	UserID    string   `json:"userId"`
	Mode      string   `json:"mode"`
	Admins    []string `json:"admins"`
	Threshold int      `json:"threshold,omitempty"`
}

func (q modeRequest) policy() apiclient.ApprovalPolicy {
	return apiclient.ApprovalPolicy{Mode: apiclient.ApprovalMode(q.Mode), Admins: q.Admins, Threshold: q.Threshold}
}

// modeEffect records the applied change in the ledger's finishing
// transaction.
func (h *Handler) modeEffect(q modeRequest, by store.Actor) handlers.Effect {
	return handlers.Effect{Target: "policy_change:" + strconv.FormatInt(q.ChangeID, 10), Result: map[string]string{"mode": q.Mode},
		Detail: "approval mode set: " + policyWords(q.policy()),
		Apply: func(ctx context.Context, tx *store.Store) error {
			err := tx.SettlePolicyChange(ctx, q.ChangeID, by, h.clock(), true)
			if errors.Is(err, store.ErrAlreadyDecided) {
				return nil
			}
			return err
		}}
}

// readBackApprovalMode learns whether an approval-mode change the API did
// not answer took effect: the account's mode and threshold are what was
// asked.
func (h *Handler) readBackApprovalMode(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var q modeRequest
	if err := a.DecodeRequest(&q); err != nil {
		return handlers.Effect{}, false, err
	}
	p, err := h.api.GetApprovalPolicy(ctx, q.UserID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	if string(p.Mode) != q.Mode || p.Mode == apiclient.ApprovalAdminThreshold && p.Threshold != q.Threshold {
		return handlers.Effect{}, false, nil
	}
	return h.modeEffect(q, a.Actor), true, nil
}
