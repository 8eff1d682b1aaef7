package web

import (
	"net/http"

	"partneradmin/handlers/webhooks"
	"partneradmin/store"
)

// Route is one entry of the route table: every URL the app serves, with the
// permission it needs. Stateless routes get no session (static files, the
// health check, webhook deliveries).
type Route struct {
	Method     string
	Pattern    string
	Permission store.Permission
	Stateless  bool
	Handler    http.HandlerFunc
}

// routes is the one table of every route. A reader finds any URL here.
func (a *App) routes() []Route {
	return []Route{
		// Health and static files.
		{Method: "GET", Pattern: "/healthz", Permission: store.PermPublic, Stateless: true, Handler: a.healthz},
		{Method: "GET", Pattern: "/readyz", Permission: store.PermPublic, Stateless: true, Handler: a.readyz},
		// Prometheus metrics for the owner (a scraper uses --metrics-addr).
		{Method: "GET", Pattern: "/metrics", Permission: store.PermSettings, Handler: a.metricsPage},
		{Method: "GET", Pattern: "/static/*", Permission: store.PermPublic, Stateless: true, Handler: a.static.ServeHTTP},

		// Signing in and out, and one's own password.
		{Method: "GET", Pattern: "/login", Permission: store.PermPublic, Handler: a.auth.LoginForm},
		{Method: "POST", Pattern: "/login", Permission: store.PermPublic, Handler: a.auth.Login},
		{Method: "POST", Pattern: "/logout", Permission: store.PermSignedIn, Handler: a.auth.Logout},
		{Method: "GET", Pattern: "/account/password", Permission: store.PermSignedIn, Handler: a.auth.PasswordForm},
		{Method: "POST", Pattern: "/account/password", Permission: store.PermSignedIn, Handler: a.auth.ChangePassword},
		// What one is notified of (each staff member their own).
		{Method: "GET", Pattern: "/account/notifications", Permission: store.PermSignedIn, Handler: a.notify.Preferences},
		{Method: "POST", Pattern: "/account/notifications", Permission: store.PermSignedIn, Handler: a.notify.SavePreferences},
		// Second factors: the sign-in's second step, step-up, one's own
		// passkeys, authenticator app, recovery codes and sessions; the
		// owner's policy, reset and ending a staff member's sessions.
		{Method: "GET", Pattern: "/login/second-factor", Permission: store.PermPublic, Handler: a.auth.SecondFactorForm},
		{Method: "POST", Pattern: "/login/second-factor", Permission: store.PermPublic, Handler: a.auth.SecondFactor},
		{Method: "POST", Pattern: "/login/second-factor/passkey/begin", Permission: store.PermPublic, Handler: a.auth.SecondFactorPasskeyBegin},
		{Method: "GET", Pattern: "/account/verify", Permission: store.PermSignedIn, Handler: a.auth.VerifyForm},
		{Method: "POST", Pattern: "/account/verify", Permission: store.PermSignedIn, Handler: a.auth.Verify},
		{Method: "POST", Pattern: "/account/verify/passkey/begin", Permission: store.PermSignedIn, Handler: a.auth.VerifyPasskeyBegin},
		{Method: "GET", Pattern: "/account/security", Permission: store.PermSignedIn, Handler: a.auth.Security},
		{Method: "POST", Pattern: "/account/security/totp/start", Permission: store.PermSignedIn, Handler: a.auth.TOTPStart},
		{Method: "POST", Pattern: "/account/security/totp", Permission: store.PermSignedIn, Handler: a.auth.TOTPConfirm},
		{Method: "POST", Pattern: "/account/security/passkey/begin", Permission: store.PermSignedIn, Handler: a.auth.PasskeyBegin},
		{Method: "POST", Pattern: "/account/security/passkey", Permission: store.PermSignedIn, Handler: a.auth.PasskeyFinish},
		{Method: "POST", Pattern: "/account/security/passkeys/{id}/remove", Permission: store.PermSignedIn, Handler: a.auth.PasskeyRemove},
		{Method: "POST", Pattern: "/account/security/recovery-codes", Permission: store.PermSignedIn, Handler: a.auth.RecoveryCodes},
		{Method: "GET", Pattern: "/account/sessions", Permission: store.PermSignedIn, Handler: a.auth.SessionList},
		{Method: "POST", Pattern: "/account/sessions/end", Permission: store.PermSignedIn, Handler: a.auth.EndSession},
		{Method: "POST", Pattern: "/account/sessions/end-others", Permission: store.PermSignedIn, Handler: a.auth.EndOtherSessions},
		{Method: "GET", Pattern: "/settings/security", Permission: store.PermSettings, Handler: a.auth.SecurityPolicy},
		{Method: "POST", Pattern: "/settings/security", Permission: store.PermSettings, Handler: a.auth.SetSecurityPolicy},
		// Single sign-on with the company's identity provider (OpenID
		// Connect) and the owner's settings of it.
		{Method: "GET", Pattern: "/login/oidc", Permission: store.PermPublic, Handler: a.auth.OIDCStart},
		{Method: "GET", Pattern: "/login/oidc/callback", Permission: store.PermPublic, Handler: a.auth.OIDCCallback},
		{Method: "GET", Pattern: "/settings/sign-in", Permission: store.PermSettings, Handler: a.auth.SignInSettings},
		{Method: "POST", Pattern: "/settings/sign-in", Permission: store.PermSettings, Handler: a.auth.SetSignInSettings},
		{Method: "POST", Pattern: "/staff/{id}/second-factor/reset", Permission: store.PermStaffManage, Handler: a.auth.ResetSecondFactor},
		{Method: "POST", Pattern: "/staff/{id}/sessions/end", Permission: store.PermStaffManage, Handler: a.auth.EndStaffSessions},
		// A one-time set-password link an owner issued: the token in the
		// path is the credential.
		{Method: "GET", Pattern: "/set-password/{token}", Permission: store.PermPublic, Handler: a.auth.SetPasswordForm},
		{Method: "POST", Pattern: "/set-password/{token}", Permission: store.PermPublic, Handler: a.auth.SetPassword},

		// Start page.
		{Method: "GET", Pattern: "/", Permission: store.PermSignedIn, Handler: a.dashboard.Home},

		// Staff accounts and roles (owner).
		{Method: "GET", Pattern: "/staff", Permission: store.PermStaffManage, Handler: a.staff.List},
		{Method: "GET", Pattern: "/staff.csv", Permission: store.PermStaffManage, Handler: a.staff.ExportCSV},
		{Method: "POST", Pattern: "/staff", Permission: store.PermStaffManage, Handler: a.staff.Create},
		{Method: "POST", Pattern: "/staff/{id}/role", Permission: store.PermStaffManage, Handler: a.staff.ChangeRole},
		{Method: "POST", Pattern: "/staff/{id}/disable", Permission: store.PermStaffManage, Handler: a.staff.Disable},
		{Method: "POST", Pattern: "/staff/{id}/enable", Permission: store.PermStaffManage, Handler: a.staff.Enable},
		{Method: "POST", Pattern: "/staff/{id}/set-password-link", Permission: store.PermStaffManage, Handler: a.staff.IssueSetPasswordLink},

		// Cards: find, status, freeze and unfreeze, limits,
		// transactions, cancel, activation, issuance. Support and owner.
		{Method: "GET", Pattern: "/cards", Permission: store.PermCardsRead, Handler: a.cards.Search},
		{Method: "GET", Pattern: "/cards.csv", Permission: store.PermCardsRead, Handler: a.cards.ExportCSV},
		{Method: "POST", Pattern: "/cards/refresh", Permission: store.PermCardsRead, Handler: a.cards.Refresh},
		{Method: "GET", Pattern: "/cards/issue", Permission: store.PermCardsWrite, Handler: a.cards.IssueForm},
		{Method: "POST", Pattern: "/cards/issue", Permission: store.PermCardsWrite, Handler: a.cards.Issue},
		{Method: "POST", Pattern: "/cards/issue/nin-lookup", Permission: store.PermCardsWrite, Handler: a.cards.LookupNIN},
		{Method: "GET", Pattern: "/cards/{id}", Permission: store.PermCardsRead, Handler: a.cards.Detail},
		{Method: "GET", Pattern: "/cards/{id}/status", Permission: store.PermCardsRead, Handler: a.cards.Status},
		{Method: "GET", Pattern: "/cards/{id}/activity", Permission: store.PermCardsRead, Handler: a.cards.Activity},
		{Method: "GET", Pattern: "/cards/{id}/panels", Permission: store.PermCardsRead, Handler: a.cards.Panels},
		{Method: "GET", Pattern: "/cards/{id}/transactions", Permission: store.PermCardsRead, Handler: a.cards.Transactions},
		{Method: "GET", Pattern: "/cards/{id}/transactions.csv", Permission: store.PermCardsRead, Handler: a.cards.TransactionsCSV},
		{Method: "POST", Pattern: "/cards/{id}/freeze", Permission: store.PermCardsWrite, Handler: a.cards.Freeze},
		{Method: "POST", Pattern: "/cards/{id}/unfreeze", Permission: store.PermCardsWrite, Handler: a.cards.Unfreeze},
		{Method: "POST", Pattern: "/cards/{id}/limits", Permission: store.PermCardsWrite, Handler: a.cards.SetLimits},
		{Method: "POST", Pattern: "/cards/{id}/cancel", Permission: store.PermCardsWrite, Handler: a.cards.Cancel},
		{Method: "POST", Pattern: "/cards/{id}/activation/request", Permission: store.PermCardsWrite, Handler: a.cards.RequestActivation},
		{Method: "POST", Pattern: "/cards/{id}/activation/confirm", Permission: store.PermCardsWrite, Handler: a.cards.ConfirmActivation},

		// Audit log (owner).
		{Method: "GET", Pattern: "/audit", Permission: store.PermAuditRead, Handler: a.audit.List},
		{Method: "GET", Pattern: "/audit.csv", Permission: store.PermAuditRead, Handler: a.audit.ExportCSV},
		// The requests sent to the Partner API, and settling by hand one
		// whose outcome the app could not learn.
		{Method: "GET", Pattern: "/actions", Permission: store.PermAuditRead, Handler: a.audit.Actions},
		{Method: "GET", Pattern: "/actions.csv", Permission: store.PermAuditRead, Handler: a.audit.ActionsCSV},
		{Method: "POST", Pattern: "/actions/{id}/resolve", Permission: store.PermSettings, Handler: a.audit.ResolveAction},

		// Webhooks: the Partner API's deliveries (no session, no CSRF token:
		// authenticated by their HMAC signature), the owner's subscription
		// settings, and the event log with replay (owner).
		{Method: "POST", Pattern: webhooks.ReceiverPath, Permission: store.PermPublic, Stateless: true, Handler: a.webhooks.Receive},
		{Method: "GET", Pattern: "/settings/webhooks", Permission: store.PermSettings, Handler: a.webhooks.Settings},
		{Method: "POST", Pattern: "/settings/webhooks", Permission: store.PermSettings, Handler: a.webhooks.CreateSubscription},
		{Method: "POST", Pattern: "/settings/webhooks/update", Permission: store.PermSettings, Handler: a.webhooks.UpdateSubscription},
		{Method: "POST", Pattern: "/settings/webhooks/rotate", Permission: store.PermSettings, Handler: a.webhooks.RotateSecret},
		{Method: "POST", Pattern: "/settings/webhooks/reconcile", Permission: store.PermSettings, Handler: a.webhooks.ReconcileNow},
		{Method: "GET", Pattern: "/events", Permission: store.PermSettings, Handler: a.webhooks.EventLog},
		{Method: "GET", Pattern: "/events.csv", Permission: store.PermSettings, Handler: a.webhooks.ExportCSV},
		{Method: "POST", Pattern: "/events/replay", Permission: store.PermSettings, Handler: a.webhooks.ReplayFiltered},
		{Method: "GET", Pattern: "/events/{id}", Permission: store.PermSettings, Handler: a.webhooks.EventDetail},
		{Method: "POST", Pattern: "/events/{id}/replay", Permission: store.PermSettings, Handler: a.webhooks.ReplayOne},

		// Approvals (finance approver, owner): the queue from the mirror,
		// proposal detail, approve / approve again / reject, and the link
		// of a staff account to the wallet admin it approves as.
		{Method: "GET", Pattern: "/approvals", Permission: store.PermApprovalsRead, Handler: a.approvals.Queue},
		{Method: "GET", Pattern: "/approvals.csv", Permission: store.PermApprovalsRead, Handler: a.approvals.ExportCSV},
		{Method: "POST", Pattern: "/approvals/refresh", Permission: store.PermApprovalsRead, Handler: a.approvals.Refresh},
		// History: completed, rejected, failed and expired proposals.
		{Method: "GET", Pattern: "/approvals/history", Permission: store.PermApprovalsRead, Handler: a.approvals.History},
		{Method: "GET", Pattern: "/approvals/history.csv", Permission: store.PermApprovalsRead, Handler: a.approvals.HistoryCSV},
		{Method: "GET", Pattern: "/approvals/link", Permission: store.PermApprovalsAct, Handler: a.approvals.LinkForm},
		{Method: "POST", Pattern: "/approvals/link", Permission: store.PermApprovalsAct, Handler: a.approvals.Link},
		{Method: "GET", Pattern: "/approvals/{id}", Permission: store.PermApprovalsRead, Handler: a.approvals.Detail},
		{Method: "POST", Pattern: "/approvals/{id}/approve", Permission: store.PermApprovalsAct, Handler: a.approvals.Approve},
		{Method: "POST", Pattern: "/approvals/{id}/reject", Permission: store.PermApprovalsAct, Handler: a.approvals.Reject},

		// Sign requests: the approver issues a link for the owner's device
		// and watches its state; the device routes are public and stateless
		// (the token in the path is the credential; rate-limited).
		{Method: "POST", Pattern: "/approvals/{id}/sign-requests", Permission: store.PermApprovalsAct, Handler: a.sign.Create},
		{Method: "GET", Pattern: "/approvals/{id}/sign-requests/{rid}", Permission: store.PermApprovalsRead, Handler: a.sign.State},
		// One link for many proposals of one owner (the queue's selection,
		// a payroll run): proposal_id (repeated), form_token, return_to.
		{Method: "POST", Pattern: "/approvals/sign-batch", Permission: store.PermApprovalsAct, Handler: a.sign.CreateBatch},
		{Method: "GET", Pattern: "/approvals/sign-batch/{rid}", Permission: store.PermApprovalsRead, Handler: a.sign.BatchPage},
		{Method: "GET", Pattern: "/sign/{token}", Permission: store.PermPublic, Stateless: true, Handler: a.sign.DeviceGet},
		{Method: "POST", Pattern: "/sign/{token}", Permission: store.PermPublic, Stateless: true, Handler: a.sign.DevicePost},

		// Treasury proposals (finance approver, owner): transfer, swap and
		// account/send from the partner's treasury wallets, their recipient
		// found by search; crypto withdrawals, signed on the owner's device.
		// Money out: every rail value leaves the treasury by. Each rail's
		// routes are in its own block.
		// Activity: the company's money events, for accounting.
		{Method: "GET", Pattern: "/activity", Permission: store.PermActivityRead, Handler: a.activity.Feed},
		{Method: "GET", Pattern: "/activity.csv", Permission: store.PermActivityRead, Handler: a.activity.CSV},
		{Method: "GET", Pattern: "/money-out", Permission: store.PermTreasury, Handler: a.moneyout.Index},
		// Money out: Nigerian bank withdrawal.
		{Method: "GET", Pattern: "/money-out/nigeria", Permission: store.PermTreasury, Handler: a.nigeria.Form},
		{Method: "POST", Pattern: "/money-out/nigeria/verify", Permission: store.PermTreasury, Handler: a.nigeria.Verify},
		{Method: "POST", Pattern: "/money-out/nigeria/account", Permission: store.PermTreasury, Handler: a.nigeria.Account},
		{Method: "POST", Pattern: "/money-out/nigeria/offramp", Permission: store.PermTreasury, Handler: a.nigeria.Offramp},
		{Method: "GET", Pattern: "/money-out/nigeria/offramps/{id}", Permission: store.PermTreasury, Handler: a.nigeria.OfframpDetail},
		// Money out: bank payout.
		{Method: "GET", Pattern: "/money-out/payout", Permission: store.PermTreasury, Handler: a.payout.Form},
		{Method: "POST", Pattern: "/money-out/payout", Permission: store.PermTreasury, Handler: a.payout.Step},
		{Method: "POST", Pattern: "/money-out/payout/confirm", Permission: store.PermTreasury, Handler: a.payout.Confirm},
		{Method: "GET", Pattern: "/money-out/payouts/{id}", Permission: store.PermTreasury, Handler: a.payout.Detail},
		{Method: "POST", Pattern: "/money-out/payouts/{id}/sign-request", Permission: store.PermTreasury, Handler: a.payout.Link},
		// Money out: EUR SEPA payout.
		{Method: "GET", Pattern: "/money-out/sepa", Permission: store.PermTreasury, Handler: a.sepa.Form},
		{Method: "POST", Pattern: "/money-out/sepa", Permission: store.PermTreasury, Handler: a.sepa.Post},
		{Method: "GET", Pattern: "/money-out/sepa/{id}", Permission: store.PermTreasury, Handler: a.sepa.Order},
		{Method: "POST", Pattern: "/money-out/sepa/{id}/sign-request", Permission: store.PermTreasury, Handler: a.sepa.Link},
		// Money out: Mexican offramp.
		{Method: "GET", Pattern: "/money-out/mexico", Permission: store.PermTreasury, Handler: a.mexico.Form},
		{Method: "POST", Pattern: "/money-out/mexico", Permission: store.PermTreasury, Handler: a.mexico.Quote},
		{Method: "GET", Pattern: "/money-out/mexico/{id}", Permission: store.PermTreasury, Handler: a.mexico.Order},
		{Method: "POST", Pattern: "/money-out/mexico/{id}/sign-request", Permission: store.PermTreasury, Handler: a.mexico.Link},
		// Money out: LATAM cash.
		{Method: "GET", Pattern: "/money-out/cash", Permission: store.PermTreasury, Handler: a.cash.Page},
		{Method: "GET", Pattern: "/money-out/cash.csv", Permission: store.PermTreasury, Handler: a.cash.CSV},
		{Method: "POST", Pattern: "/money-out/cash/fund", Permission: store.PermTreasury, Handler: a.cash.Fund},
		{Method: "POST", Pattern: "/money-out/cash/send", Permission: store.PermTreasury, Handler: a.cash.Send},
		{Method: "GET", Pattern: "/money-out/cash/{id}", Permission: store.PermTreasury, Handler: a.cash.Order},
		// Money out: crypto offramp.
		{Method: "GET", Pattern: "/treasury", Permission: store.PermTreasury, Handler: a.treasury.Form},
		{Method: "GET", Pattern: "/treasury/balances", Permission: store.PermTreasury, Handler: a.treasury.BalancesPanel},
		{Method: "GET", Pattern: "/treasury/balances.csv", Permission: store.PermTreasury, Handler: a.treasury.BalancesCSV},
		{Method: "POST", Pattern: "/treasury/balances/refresh", Permission: store.PermTreasury, Handler: a.treasury.RefreshBalances},
		{Method: "POST", Pattern: "/treasury/transfer", Permission: store.PermTreasury, Handler: a.treasury.Transfer},
		{Method: "GET", Pattern: "/treasury/recipients", Permission: store.PermTreasury, Handler: a.treasury.Recipients},
		{Method: "POST", Pattern: "/treasury/swap", Permission: store.PermTreasury, Handler: a.treasury.Swap},
		{Method: "POST", Pattern: "/treasury/swap/quote", Permission: store.PermTreasury, Handler: a.treasury.SwapQuote},
		{Method: "POST", Pattern: "/treasury/send", Permission: store.PermTreasury, Handler: a.treasury.Send},
		{Method: "POST", Pattern: "/treasury/wallets", Permission: store.PermTreasury, Handler: a.treasury.CreateWallet},
		{Method: "GET", Pattern: "/treasury/withdrawal", Permission: store.PermTreasury, Handler: a.treasury.WithdrawalForm},
		{Method: "POST", Pattern: "/treasury/withdrawal", Permission: store.PermTreasury, Handler: a.treasury.Withdraw},
		{Method: "GET", Pattern: "/treasury/withdrawal/routes", Permission: store.PermTreasury, Handler: a.treasury.WithdrawalRoutes},
		{Method: "GET", Pattern: "/treasury/withdrawal/{id}", Permission: store.PermTreasury, Handler: a.treasury.WithdrawalDetail},
		{Method: "POST", Pattern: "/treasury/withdrawal/{id}/sign-request", Permission: store.PermTreasury, Handler: a.treasury.WithdrawalLink},
		{Method: "GET", Pattern: "/sign-requests/{rid}", Permission: store.PermTreasury, Handler: a.sign.State},
		// Funding the treasury, more: opening its EUR and NGN accounts and
		// asking for deposit addresses (one upstream write each), and the
		// lists they add as CSV.
		{Method: "POST", Pattern: "/treasury/funding/eur/provision", Permission: store.PermTreasury, Handler: a.treasury.ProvisionEUR},
		{Method: "POST", Pattern: "/treasury/funding/ngn/provision", Permission: store.PermTreasury, Handler: a.treasury.ProvisionNGN},
		{Method: "POST", Pattern: "/treasury/funding/deposit-address", Permission: store.PermTreasury, Handler: a.treasury.CreateDepositAddress},
		{Method: "GET", Pattern: "/treasury/funding/deposit-addresses.csv", Permission: store.PermTreasury, Handler: a.treasury.DepositAddressesCSV},
		{Method: "GET", Pattern: "/treasury/funding/routes.csv", Permission: store.PermTreasury, Handler: a.treasury.RoutesCSV},
		// Routing an admin's issued USD or NGN account into a treasury
		// wallet: an owner's decision, like the approval mode it rests on.
		{Method: "POST", Pattern: "/treasury/funding/routes", Permission: store.PermSettings, Handler: a.treasury.RouteDeposits},
		{Method: "POST", Pattern: "/treasury/funding/routes/remove", Permission: store.PermSettings, Handler: a.treasury.UnrouteDeposits},

		// Funding the treasury: its bank accounts and deposit addresses
		// (reads), and starting its USD account (one upstream write).
		{Method: "GET", Pattern: "/treasury/funding", Permission: store.PermTreasury, Handler: a.treasury.Funding},
		// Setting up the rails: one task page per rail, its state read from
		// the API; each start, the Mexico KYC activation and the EUR
		// provider's authorization (a QR code for the owner's device) are
		// one write each.
		{Method: "GET", Pattern: "/treasury/rails", Permission: store.PermTreasury, Handler: a.rails.Overview},
		{Method: "GET", Pattern: "/treasury/rails/eur", Permission: store.PermTreasury, Handler: a.rails.EUR},
		{Method: "POST", Pattern: "/treasury/rails/eur/start", Permission: store.PermTreasury, Handler: a.rails.StartEUR},
		{Method: "POST", Pattern: "/treasury/rails/eur/authorize", Permission: store.PermTreasury, Handler: a.rails.EURAuthorize},
		{Method: "GET", Pattern: "/treasury/rails/mxn", Permission: store.PermTreasury, Handler: a.rails.MXN},
		{Method: "POST", Pattern: "/treasury/rails/mxn/start", Permission: store.PermTreasury, Handler: a.rails.StartMXN},
		{Method: "POST", Pattern: "/treasury/rails/mxn/kyc", Permission: store.PermTreasury, Handler: a.rails.MXNKYC},
		{Method: "GET", Pattern: "/treasury/rails/mxn/launch", Permission: store.PermTreasury, Handler: a.rails.MXNLaunch},
		{Method: "GET", Pattern: "/treasury/rails/usd", Permission: store.PermTreasury, Handler: a.rails.USD},
		{Method: "POST", Pattern: "/treasury/rails/usd/start", Permission: store.PermTreasury, Handler: a.rails.StartUSD},

		// Money controls: the address book (finance approvers and owners
		// add; another person confirms), spending policies, settings and
		// the account's approval mode (one owner proposes, a second
		// approves).
		{Method: "GET", Pattern: "/controls", Permission: store.PermTreasury, Handler: a.controls.Page},
		{Method: "GET", Pattern: "/controls.csv", Permission: store.PermTreasury, Handler: a.controls.CSV},
		{Method: "POST", Pattern: "/controls/destinations", Permission: store.PermTreasury, Handler: a.controls.AddDestination},
		{Method: "POST", Pattern: "/controls/destinations/{id}/confirm", Permission: store.PermApprovalsAct, Handler: a.controls.ConfirmDestination},
		{Method: "POST", Pattern: "/controls/destinations/{id}/remove", Permission: store.PermTreasury, Handler: a.controls.RemoveDestination},
		{Method: "POST", Pattern: "/controls/limits", Permission: store.PermSettings, Handler: a.controls.ProposeLimits},
		{Method: "POST", Pattern: "/controls/settings", Permission: store.PermSettings, Handler: a.controls.ProposeSettings},
		{Method: "POST", Pattern: "/controls/approval-mode", Permission: store.PermSettings, Handler: a.controls.ProposeApprovalMode},
		{Method: "POST", Pattern: "/controls/changes/{id}/approve", Permission: store.PermSettings, Handler: a.controls.ApproveChange},
		{Method: "POST", Pattern: "/controls/changes/{id}/reject", Permission: store.PermSettings, Handler: a.controls.RejectChange},
		// An approval in the app that a step-up tier asks for (another
		// person than the proposal's creator).
		{Method: "POST", Pattern: "/controls/proposals/{id}/step-up", Permission: store.PermApprovalsAct, Handler: a.controls.StepUpApprove},

		// Payroll runs (finance approver, owner): many transfers from the
		// treasury, checked and previewed, sent as one proposal per row by a
		// background job, approved in one action, canceled before signing.
		{Method: "GET", Pattern: "/payroll", Permission: store.PermTreasury, Handler: a.payroll.List},
		{Method: "GET", Pattern: "/payroll.csv", Permission: store.PermTreasury, Handler: a.payroll.ListCSV},
		{Method: "GET", Pattern: "/payroll/new", Permission: store.PermTreasury, Handler: a.payroll.NewForm},
		{Method: "GET", Pattern: "/payroll/template.csv", Permission: store.PermTreasury, Handler: a.payroll.Template},
		{Method: "POST", Pattern: "/payroll/csv", Permission: store.PermTreasury, Handler: a.payroll.UploadCSV},
		{Method: "POST", Pattern: "/payroll/employees", Permission: store.PermTreasury, Handler: a.payroll.FromEmployees},
		{Method: "GET", Pattern: "/payroll/{id}", Permission: store.PermTreasury, Handler: a.payroll.Run},
		{Method: "GET", Pattern: "/payroll/{id}.csv", Permission: store.PermTreasury, Handler: a.payroll.ResultCSV},
		{Method: "GET", Pattern: "/payroll/{id}/progress", Permission: store.PermTreasury, Handler: a.payroll.Progress},
		{Method: "POST", Pattern: "/payroll/{id}/send", Permission: store.PermTreasury, Handler: a.payroll.Send},
		{Method: "POST", Pattern: "/payroll/{id}/approve", Permission: store.PermApprovalsAct, Handler: a.payroll.Approve},
		{Method: "POST", Pattern: "/payroll/{id}/cancel", Permission: store.PermTreasury, Handler: a.payroll.Cancel},
		{Method: "POST", Pattern: "/payroll/{id}/again", Permission: store.PermTreasury, Handler: a.payroll.Again},

		// Employees (HR admin): the list with search and readiness,
		// single and bulk invites, linking, the employee page, the readiness
		// matrix and the account lifecycle.
		{Method: "GET", Pattern: "/employees", Permission: store.PermEmployeesRead, Handler: a.employees.List},
		{Method: "GET", Pattern: "/employees.csv", Permission: store.PermEmployeesRead, Handler: a.employees.ExportCSV},
		{Method: "POST", Pattern: "/employees/reconcile", Permission: store.PermEmployeesWrite, Handler: a.employees.Reconcile},
		{Method: "GET", Pattern: "/employees/readiness", Permission: store.PermEmployeesRead, Handler: a.employees.Matrix},
		{Method: "GET", Pattern: "/employees/readiness.csv", Permission: store.PermEmployeesRead, Handler: a.employees.MatrixCSV},
		{Method: "GET", Pattern: "/employees/invite", Permission: store.PermEmployeesWrite, Handler: a.employees.InviteForm},
		{Method: "POST", Pattern: "/employees/invite", Permission: store.PermEmployeesWrite, Handler: a.employees.Invite},
		{Method: "GET", Pattern: "/employees/occupations", Permission: store.PermEmployeesWrite, Handler: a.employees.Occupations},
		// Direct onboarding (partners whose own app onboards their people):
		// add the user, then walk the KYC in the spec's fixed order.
		{Method: "GET", Pattern: "/employees/direct", Permission: store.PermEmployeesWrite, Handler: a.employees.DirectForm},
		{Method: "POST", Pattern: "/employees/direct", Permission: store.PermEmployeesWrite, Handler: a.employees.DirectCreate},
		{Method: "GET", Pattern: "/employees/{id}/kyc", Permission: store.PermEmployeesWrite, Handler: a.employees.DirectKYC},
		{Method: "POST", Pattern: "/employees/{id}/kyc/profile", Permission: store.PermEmployeesWrite, Handler: a.employees.DirectProfile},
		{Method: "POST", Pattern: "/employees/{id}/kyc/bvn-lookup", Permission: store.PermEmployeesWrite, Handler: a.employees.LookupBVN},
		{Method: "POST", Pattern: "/employees/{id}/kyc/nin-lookup", Permission: store.PermEmployeesWrite, Handler: a.employees.LookupNIN},
		{Method: "POST", Pattern: "/employees/{id}/kyc/nigeria/start", Permission: store.PermEmployeesWrite, Handler: a.employees.DirectStartNigeria},
		{Method: "POST", Pattern: "/employees/{id}/kyc/{document}", Permission: store.PermEmployeesWrite, Handler: a.employees.DirectUpload},
		{Method: "GET", Pattern: "/employees/invite/bulk", Permission: store.PermEmployeesWrite, Handler: a.employees.BulkForm},
		{Method: "POST", Pattern: "/employees/invite/bulk", Permission: store.PermEmployeesWrite, Handler: a.employees.BulkUpload},
		{Method: "GET", Pattern: "/employees/invite/bulk/template.csv", Permission: store.PermEmployeesWrite, Handler: a.employees.BulkTemplate},
		{Method: "GET", Pattern: "/employees/invite/bulk/{run}", Permission: store.PermEmployeesWrite, Handler: a.employees.BulkRun},
		{Method: "GET", Pattern: "/employees/invite/bulk/{run}/progress", Permission: store.PermEmployeesWrite, Handler: a.employees.BulkProgress},
		{Method: "POST", Pattern: "/employees/invite/bulk/{run}/send", Permission: store.PermEmployeesWrite, Handler: a.employees.BulkStart},
		{Method: "GET", Pattern: "/employees/invite/bulk/{run}/result.csv", Permission: store.PermEmployeesWrite, Handler: a.employees.BulkResultCSV},
		{Method: "GET", Pattern: "/employees/{id}", Permission: store.PermEmployeesRead, Handler: a.employees.Detail},
		{Method: "POST", Pattern: "/employees/{id}/refresh", Permission: store.PermEmployeesRead, Handler: a.employees.RefreshDetail},
		{Method: "POST", Pattern: "/employees/{id}/reinvite", Permission: store.PermEmployeesWrite, Handler: a.employees.Reinvite},
		{Method: "POST", Pattern: "/employees/{id}/occupation", Permission: store.PermEmployeesWrite, Handler: a.employees.FixOccupation},
		{Method: "POST", Pattern: "/employees/{id}/usd/retry", Permission: store.PermEmployeesWrite, Handler: a.employees.RetryUSD},
		{Method: "GET", Pattern: "/employees/{id}/delete", Permission: store.PermEmployeesWrite, Handler: a.employees.DeleteCheck},
		{Method: "POST", Pattern: "/employees/{id}/delete", Permission: store.PermEmployeesWrite, Handler: a.employees.Delete},
		{Method: "POST", Pattern: "/employees/{id}/reactivate", Permission: store.PermEmployeesWrite, Handler: a.employees.Reactivate},
		{Method: "POST", Pattern: "/employees/{id}/action-required/resolve", Permission: store.PermEmployeesWrite, Handler: a.employees.ResolveAction},
		// Per-currency onboarding starts, one employee or everyone ready,
		// and the Mexican KYC's next steps.
		{Method: "POST", Pattern: "/employees/{id}/onboarding/{currency}/start", Permission: store.PermEmployeesWrite, Handler: a.employees.StartRail},
		{Method: "POST", Pattern: "/employees/{id}/onboarding/mxn/kyc-activate", Permission: store.PermEmployeesWrite, Handler: a.employees.ActivateMexicoKYC},
		{Method: "POST", Pattern: "/employees/{id}/onboarding/mxn/launch", Permission: store.PermEmployeesWrite, Handler: a.employees.OpenMexicoKYC},
		{Method: "POST", Pattern: "/employees/readiness/start", Permission: store.PermEmployeesWrite, Handler: a.employees.StartOnboardingRun},
		{Method: "GET", Pattern: "/employees/onboarding-runs/{run}", Permission: store.PermEmployeesWrite, Handler: a.employees.OnboardingRun},
		{Method: "GET", Pattern: "/employees/onboarding-runs/{run}/progress", Permission: store.PermEmployeesWrite, Handler: a.employees.OnboardingRunProgress},
		{Method: "GET", Pattern: "/employees/onboarding-runs/{run}/result.csv", Permission: store.PermEmployeesWrite, Handler: a.employees.OnboardingRunCSV},
	}
}
