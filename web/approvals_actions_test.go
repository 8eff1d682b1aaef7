package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers/sign"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// approvalWrite is one form of the approval area: where it posts, the
// upstream call it makes, its ledger kind, and a filled-in form (without
// its token).
type approvalWrite struct {
	name, proposal, path, method, route, kind string
	fields                                    url.Values
	// refusal is a status the API answers that records nothing and that
	// the client does not retry.
	refusal int
}

func approvalWrites(t *testing.T, env *webtest.Env) []approvalWrite {
	approve := webtest.ProposalID(t, env, "November stipend")
	reject := webtest.ProposalID(t, env, "Travel reimbursement")
	sign := webtest.ProposalID(t, env, "Team lunch")
	return []approvalWrite{
		{"approve", approve, "/approvals/" + approve + "/approve", "POST", webtest.ApproveRoute, "proposal.approve", url.Values{"confirm": {"1"}},
			http.StatusTooManyRequests},
		{"reject", reject, "/approvals/" + reject + "/reject", "POST", webtest.RejectRoute, "proposal.reject",
			url.Values{"reason": {"Paid twice"}, "confirm": {"1"}}, http.StatusTooManyRequests},
		// A read: the client retries a 429 on it.
		{"sign link", sign, "/approvals/" + sign + "/sign-requests", "GET", webtest.SignPayloadRoute, "sign_request.create", url.Values{},
			http.StatusForbidden},
	}
}

// Every form of the area: five concurrent posts of one form make one
// upstream call and one audit row (here refused by the API, so nothing is
// recorded); a second form for the same intent is a new action, and five
// concurrent posts of it make one more call, done once.
func TestApprovalFormsSendOnceForOneToken(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[1]) // Emily (admins[0]) approved the travel reimbursement in the demo
	webtest.SyncQueue(t, env, c)
	writes := approvalWrites(t, env)
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			calls := env.Sandbox.RequestCount(w.method, w.route)
			webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": w.method, "route": w.route,
				"status": w.refusal, "latencyMs": 300, "times": 1})

			first := webtest.WithFormToken(w.fields)
			env.PostFormAtOnce(c, w.path, first, 5)
			if n := env.Sandbox.RequestCount(w.method, w.route) - calls; n != 1 {
				t.Fatalf("%d upstream calls for one form, want 1", n)
			}
			if got := webtest.AuditOutcomes(t, env, w.kind); got[store.OutcomeRefused] != 1 || got[store.OutcomeOK] != 0 {
				t.Fatalf("audit after the refused form: %v", got)
			}
			// The same form once more: it was used, nothing is sent.
			resp := env.PostForm(c, w.path, first)
			resp.Body.Close()
			if n := env.Sandbox.RequestCount(w.method, w.route) - calls; resp.StatusCode != http.StatusSeeOther || n != 1 {
				t.Fatalf("the used form again: %d, %d calls", resp.StatusCode, n)
			}

			// A new form for the same intent is a new action.
			webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": w.method, "route": w.route,
				"latencyMs": 300, "times": 1})

			second := webtest.WithFormToken(w.fields)
			codes := env.PostFormAtOnce(c, w.path, second, 5)
			if n := env.Sandbox.RequestCount(w.method, w.route) - calls; n != 2 {
				t.Fatalf("%d upstream calls after the second form, want 2 (answers %v)", n, codes)
			}
			if got := webtest.AuditOutcomes(t, env, w.kind); got[store.OutcomeOK] != 1 {
				t.Fatalf("audit after the second form: %v", got)
			}
			if w.kind != "proposal.approve" {
				// The form's token is its key (an approval's key is the
				// approval itself).
				if a, err := env.Store.ActionByKey(ctx, "form:"+second.Get("form_token")); err != nil || a.State != store.ActionDone || a.Kind != w.kind {
					t.Fatalf("action %+v %v", a, err)
				}
			}
		})
	}
	// The sign link was issued once, for the second form.
	var links int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM sign_requests`).Scan(&links); err != nil || links != 1 {
		t.Fatalf("%d sign requests (%v)", links, err)
	}
	// Without a token nothing is sent.
	for _, w := range writes {
		before := env.Sandbox.RequestCount(w.method, w.route)
		resp := env.PostForm(c, w.path, w.fields)
		resp.Body.Close()
		if n := env.Sandbox.RequestCount(w.method, w.route) - before; resp.StatusCode != http.StatusBadRequest || n != 0 {
			t.Fatalf("%s without a token: %d, %d calls", w.name, resp.StatusCode, n)
		}
	}
}

// The API records the write and its answer is lost: the action is read back
// with GetProposal and finishes done, with no second POST.
func TestApprovalWritesWithALostAnswerAreReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	ws := approvalWrites(t, env)
	for _, w := range ws[:2] {
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": w.route,
			"drop": true, "after": true, "times": 1})

		resp := env.PostForm(c, w.path, webtest.WithFormToken(w.fields))
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/approvals/"+w.proposal {
			t.Fatalf("%s with a lost answer: %d %q", w.name, resp.StatusCode, resp.Header.Get("Location"))
		}
		if n := env.Sandbox.RequestCount("POST", w.route); n != 1 {
			t.Fatalf("%s: %d calls, want 1", w.name, n)
		}
		rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: w.kind})
		if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK || !strings.Contains(rows[0].Detail, "reading it back") {
			t.Fatalf("%s: audit %+v", w.name, rows)
		}
	}
	p, _ := env.Store.ProposalByID(ctx, ws[0].proposal)
	if len(p.Approvals) != 1 || p.Approvals[0] != admins[1] {
		t.Fatalf("approval read back: %+v", p.Approvals)
	}
	staffBy, _ := env.Store.ApprovalStaff(ctx, p.ID)
	if staffBy[admins[1]] == "" {
		t.Fatalf("approved by: %v", staffBy)
	}
	if p, _ := env.Store.ProposalByID(ctx, ws[1].proposal); p.Status != store.ProposalRejected {
		t.Fatalf("rejection read back: %s", p.Status)
	}

	// The device's signature: recorded, answer lost, read back: the device
	// is told it was submitted, and posting again sends nothing.
	key := webtest.OwnerKey(t, env, "treasury")
	l := webtest.IssueSignLink(t, env, c, ws[2].proposal)
	_, req := webtest.DeviceGet(t, env, l.Path)
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.SignRoute,
		"drop": true, "after": true, "times": 1})

	sig := webtest.SignHash(t, key, req["hashToSign"]).Hex()
	code, ans := webtest.DevicePost(t, env, l.Path, sig)
	if code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("device post with a lost answer: %d %v", code, ans)
	}
	if code, _ := webtest.DevicePost(t, env, l.Path, sig); code != http.StatusGone {
		t.Fatalf("second post: %d", code)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SignRoute); n != 1 || webtest.CollectedSignatures(t, env, ws[2].proposal) != 1 {
		t.Fatalf("%d sign calls, %d signatures", n, webtest.CollectedSignatures(t, env, ws[2].proposal))
	}
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignSubmitted && st != store.SignCompleted {
		t.Fatalf("approver sees %q", st)
	}
}

// The API refuses: the action is refused and the page says so in the API's
// words; nothing changes in the mirror.
func TestApprovalRefusalsShowTheAPIsWords(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	ws := approvalWrites(t, env)
	cases := []struct {
		w       approvalWrite
		status  int
		message string
	}{
		{ws[0], http.StatusForbidden, "Acting user is not an admin of this wallet"},
		{ws[1], http.StatusConflict, "Proposal is being migrated"},
	}
	for _, tc := range cases {
		before, _ := env.Store.ProposalByID(ctx, tc.w.proposal)
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": tc.w.route,
			"status": tc.status, "message": tc.message, "times": 1})

		form := webtest.WithFormToken(tc.w.fields)
		resp := env.PostForm(c, tc.w.path, form)
		doc := webtest.Doc(t, resp)
		if msg := webtest.TestID(doc, "action-error"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(msg, tc.message) {
			t.Fatalf("%s refused: %d %q", tc.w.name, resp.StatusCode, msg)
		}
		if got := webtest.AuditOutcomes(t, env, tc.w.kind); got[store.OutcomeRefused] != 1 || got[store.OutcomeOK] != 0 {
			t.Fatalf("%s: audit %v", tc.w.name, got)
		}
		after, _ := env.Store.ProposalByID(ctx, tc.w.proposal)
		if after.Status != before.Status || len(after.Approvals) != len(before.Approvals) {
			t.Fatalf("%s: mirror %s %v → %s %v", tc.w.name, before.Status, before.Approvals, after.Status, after.Approvals)
		}
		// A new form is offered (the refused one was used).
		if tok, _ := doc.Find(`form[action="` + tc.w.path + `"] input[name="form_token"]`).Attr("value"); tok == "" || tok == form.Get("form_token") {
			t.Fatalf("%s: the form after a refusal has token %q", tc.w.name, tok)
		}
		// The timeline names the refused attempt.
		if doc.Find(`[data-testid="timeline-entry"][data-kind="`+tc.w.kind+` refused"]`).Length() != 1 ||
			!strings.Contains(doc.Find(`[data-testid="timeline"]`).Text(), "refused") {
			t.Fatalf("%s: timeline %q", tc.w.name, doc.Find(`[data-testid="timeline"]`).Text())
		}
	}
	// The sign link: no payload, nothing issued; the proposal's page says why.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET", "route": webtest.SignPayloadRoute,
		"status": 403, "message": "User does not belong to this partner", "times": 1})

	resp := env.PostForm(c, ws[2].path, webtest.WithFormToken(nil))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("refused sign link: %d", resp.StatusCode)
	}
	if flash := webtest.TestID(webtest.Doc(t, env.Get(c, "/approvals/"+ws[2].proposal)), "flash"); !strings.Contains(flash, "User does not belong to this partner") {
		t.Fatalf("flash %q", flash)
	}
	var links int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM sign_requests`).Scan(&links); err != nil || links != 0 {
		t.Fatalf("%d sign requests (%v)", links, err)
	}
}

// A process that died between beginning an action and its call leaves a
// begun row; the recovery job reads the proposal back and resolves it: an
// approval, rejection or signature the API has is finished as done (mirror
// and audit row), one it has not as not done.
func TestApprovalBegunActionsAreResolvedByTheRecoveryJob(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	c, staff := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	ws := approvalWrites(t, env)
	approveP, _ := env.Store.ProposalByID(ctx, ws[0].proposal)
	rejectP, _ := env.Store.ProposalByID(ctx, ws[1].proposal)
	begin := func(key, kind, target string, req any) {
		t.Helper()
		if _, fresh, err := env.Store.BeginAction(ctx, store.NewAction{Key: key, Kind: kind, Target: target, Actor: staff.Actor(),
			Request: req}); err != nil || !fresh {
			t.Fatalf("begin %s: %v %v", key, fresh, err)
		}
	}
	// Recorded upstream before the crash: the approval (made here through
	// the API as the process would have), and the rejection.
	approveKey := "approve:" + approveP.ID + ":" + strconv.Itoa(approveP.Round) + ":" + admins[1]
	begin(approveKey, "proposal.approve", "proposal:"+approveP.ID, map[string]any{"proposalId": approveP.ID,
		"ownerUserId": approveP.OwnerUserID, "round": approveP.Round, "identity": admins[1], "approvalsBefore": 0})
	if _, err := env.API.ApproveProposal(apiclient.WithActingUser(ctx, admins[1]), approveP.OwnerUserID, approveP.ID); err != nil {
		t.Fatal(err)
	}
	begin("form:crashed-reject", "proposal.reject", "proposal:"+rejectP.ID, map[string]any{"proposalId": rejectP.ID,
		"ownerUserId": rejectP.OwnerUserID, "reason": "Paid twice", "actingAs": admins[1]})
	if _, err := env.API.RejectProposal(apiclient.WithActingUser(ctx, admins[1]), rejectP.OwnerUserID, rejectP.ID,
		apiclient.RejectProposalRequest{Reason: "Paid twice"}); err != nil {
		t.Fatal(err)
	}
	// Not recorded: an approval by another admin that never left.
	lostKey := "approve:" + approveP.ID + ":" + strconv.Itoa(approveP.Round) + ":" + admins[2]
	begin(lostKey, "proposal.approve", "proposal:"+approveP.ID, map[string]any{"proposalId": approveP.ID,
		"ownerUserId": approveP.OwnerUserID, "round": approveP.Round, "identity": admins[2], "approvalsBefore": 0})

	// A device's signature recorded upstream before the crash.
	key := webtest.OwnerKey(t, env, "treasury")
	l := webtest.IssueSignLink(t, env, c, ws[2].proposal)
	_, req := webtest.DeviceGet(t, env, l.Path)
	sr, err := env.Store.SignRequestByTokenHash(ctx, hashOfLink(l))
	if err != nil {
		t.Fatal(err)
	}
	signP, _ := env.Store.ProposalByID(ctx, ws[2].proposal)
	if _, _, err := env.Store.BeginAction(ctx, store.NewAction{Key: store.SignActionKey(sr.ID), Kind: "sign_request.submit",
		Target: "proposal:" + signP.ID, Actor: store.Actor{Email: "device"}, Request: map[string]any{"signRequestId": sr.ID,
			"kind": "proposal", "userId": signP.OwnerUserID, "proposalId": signP.ID, "ownerAddress": sr.OwnerAddress, "collectedBefore": 0}}); err != nil {
		t.Fatal(err)
	}
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignRelaying {
		t.Fatalf("a begun relay shows %q", st)
	}
	if _, err := env.API.SignProposal(ctx, signP.OwnerUserID, signP.ID, apiclient.SignProposalRequest{
		Signature: webtest.SignHash(t, key, req["hashToSign"]).Hex()}); err != nil {
		t.Fatal(err)
	}

	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]store.ActionState{approveKey: store.ActionDone, "form:crashed-reject": store.ActionDone,
		lostKey: store.ActionRefused, store.SignActionKey(sr.ID): store.ActionDone} {
		if a, err := env.Store.ActionByKey(ctx, k); err != nil || a.State != want {
			t.Fatalf("%s after recovery: %+v %v, want %s", k, a.State, err, want)
		}
	}
	if p, _ := env.Store.ProposalByID(ctx, approveP.ID); len(p.Approvals) != 1 || p.Approvals[0] != admins[1] {
		t.Fatalf("approval mirrored: %v", p.Approvals)
	}
	if by, _ := env.Store.ApprovalStaff(ctx, approveP.ID); by[admins[1]] != staff.Email {
		t.Fatalf("approved by %v", by)
	}
	if p, _ := env.Store.ProposalByID(ctx, rejectP.ID); p.Status != store.ProposalRejected {
		t.Fatalf("rejection mirrored: %s", p.Status)
	}
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignSubmitted && st != store.SignCompleted {
		t.Fatalf("recovered relay shows %q", st)
	}
	if got := webtest.AuditOutcomes(t, env, "proposal.approve"); got[store.OutcomeOK] != 1 || got[store.OutcomeRefused] != 1 {
		t.Fatalf("approve audit %v", got)
	}
	if got := webtest.AuditOutcomes(t, env, "sign_request.submit"); got[store.OutcomeOK] != 1 {
		t.Fatalf("sign audit %v", got)
	}
	// Nothing was sent by the recovery.
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) + env.Sandbox.RequestCount("POST", webtest.RejectRoute); n != 2 {
		t.Fatalf("%d approve and reject calls, want the 2 made before the crash", n)
	}
}

// hashOfLink is the stored hash of a link's token.
func hashOfLink(l webtest.SignLink) []byte {
	return sign.HashToken(strings.TrimPrefix(l.Path, "/sign/"))
}

// A write whose audit row cannot be written changes nothing here: the
// mirror stays as it was.
func TestApprovalWritesFailWithTheirAuditRow(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	ws := approvalWrites(t, env)
	key := webtest.OwnerKey(t, env, "treasury")
	l := webtest.IssueSignLink(t, env, c, ws[2].proposal)
	_, req := webtest.DeviceGet(t, env, l.Path)

	if _, err := env.Store.Pool().Exec(ctx, `
		CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'audit refused'; END $$;
		CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit();`); err != nil {
		t.Fatal(err)
	}
	snapshot := func(id string) string {
		p, err := env.Store.ProposalByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal([]any{p.Status, p.Approvals, p.CollectedSignatures, p.RejectionReason})
		return string(b)
	}
	for _, w := range ws {
		before := snapshot(w.proposal)
		resp := env.PostForm(c, w.path, webtest.WithFormToken(w.fields))
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError {
			t.Fatalf("%s without its audit row: %d", w.name, resp.StatusCode)
		}
		if after := snapshot(w.proposal); after != before {
			t.Fatalf("%s changed the mirror without its audit row: %s → %s", w.name, before, after)
		}
	}
	var links int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM sign_requests`).Scan(&links); err != nil || links != 1 {
		t.Fatalf("%d sign requests, want the one issued before (%v)", links, err)
	}
	before := snapshot(ws[2].proposal)
	code, _ := webtest.DevicePost(t, env, l.Path, webtest.SignHash(t, key, req["hashToSign"]).Hex())
	if code != http.StatusInternalServerError {
		t.Fatalf("device post without its audit row: %d", code)
	}
	if after := snapshot(ws[2].proposal); after != before {
		t.Fatalf("the signature changed the mirror without its audit row: %s → %s", before, after)
	}
	if sr, _ := env.Store.SignRequestByTokenHash(ctx, hashOfLink(l)); sr.State == store.SignSubmitted || sr.State == store.SignCompleted {
		t.Fatalf("sign request %s without its audit row", sr.State)
	}
}
