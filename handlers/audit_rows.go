package handlers

import (
	"net/url"
	"strings"

	"partneradmin/store"
	"partneradmin/views"
)

// AuditRows turns audit entries into the rows the views show, each actor
// and target linked to its page.
func AuditRows(entries []store.AuditEntry) []views.AuditRow {
	rows := make([]views.AuditRow, 0, len(entries))
	for _, e := range entries {
		actor, actorHref := e.Actor.Email, ""
		switch {
		case actor == "":
			actor = "system"
		case e.Actor.StaffID != 0:
			actorHref = "/staff"
		}
		rows = append(rows, views.AuditRow{ID: e.ID, At: e.At, Actor: actor, Action: e.Action, Target: e.Target, Outcome: e.Outcome,
			Detail: e.Detail, ActorHref: actorHref, TargetHref: AuditTargetHref(e.Target)})
	}
	return rows
}

// AuditTargetHref is the page of an audit target ("" when the app has
// none). Targets are "kind:id", as the areas write them (employeeTarget,
// the cards' target, store.SignTarget, ...).
func AuditTargetHref(target string) string {
	kind, id, _ := strings.Cut(target, ":")
	esc := url.PathEscape(id)
	if id == "" {
		switch kind {
		case "cards":
			return "/cards"
		case "webhook_events":
			return "/events"
		case "reconciliation":
			return "/settings/webhooks"
		}
		return ""
	}
	switch kind {
	case "employee":
		return "/employees/" + esc
	case "proposal":
		return "/approvals/" + esc
	case "card":
		return "/cards/" + esc
	case "staff":
		return "/staff"
	case "payroll":
		return "/payroll/" + esc
	case "sign_batch":
		return "/approvals/sign-batch/" + esc
	case "crypto_withdrawal":
		return "/treasury/withdrawal/" + esc
	case "bank_payout":
		return "/money-out/payouts/" + esc
	case "sepa_payout":
		return "/money-out/sepa/" + esc
	case "mx_offramp":
		return "/money-out/mexico/" + esc
	case "cash_order":
		return "/money-out/cash/" + esc
	case "ngn_withdrawal_account":
		return "/money-out/nigeria"
	case "bulk_invite":
		run, _, _ := strings.Cut(id, "/")
		return "/employees/invite/bulk/" + url.PathEscape(run)
	case "invite", "user", "owner":
		// An email or a serviceUserId: the employee list finds the person.
		return "/employees?q=" + url.QueryEscape(id)
	case "wallet":
		return "/approvals/history?wallet=" + url.QueryEscape(id)
	case "webhook":
		return "/settings/webhooks"
	case "webhook_event":
		return "/events"
	}
	return ""
}
