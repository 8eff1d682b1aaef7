package opstest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/shopspring/decimal"

	"partneradmin/handlers/notify"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// mailbox is what the test's SMTP server received.
type mailbox struct {
	mu   sync.Mutex
	msgs []receivedMail
	// refuseRcpt answers the next RCPTs with a temporary error (451).
	refuseRcpt int
}

type receivedMail struct {
	From    string
	To      []string
	Subject string
	Body    string
}

func (b *mailbox) all() []receivedMail {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]receivedMail(nil), b.msgs...)
}

type smtpBackend struct{ box *mailbox }

func (b smtpBackend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &smtpSession{box: b.box}, nil
}

type smtpSession struct {
	box  *mailbox
	from string
	to   []string
}

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error { s.from = from; return nil }

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.box.mu.Lock()
	defer s.box.mu.Unlock()
	if s.box.refuseRcpt > 0 {
		s.box.refuseRcpt--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(quotedprintable.NewReader(m.Body))
	if err != nil {
		return err
	}
	s.box.mu.Lock()
	defer s.box.mu.Unlock()
	s.box.msgs = append(s.box.msgs, receivedMail{From: s.from, To: s.to, Subject: subject, Body: string(body)})
	return nil
}

func (s *smtpSession) Reset()        { s.from, s.to = "", nil }
func (s *smtpSession) Logout() error { return nil }

// startSMTP starts an SMTP server on the loopback and returns its mailbox
// and the SMTP_URL that sends to it.
func startSMTP(t *testing.T) (*mailbox, string) {
	t.Helper()
	box := &mailbox{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := smtp.NewServer(smtpBackend{box: box})
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return box, "smtp://" + ln.Addr().String() + "?from=alerts@partner.example"
}

// chatHook is a Slack-compatible incoming webhook that records the texts.
type chatHook struct {
	mu    sync.Mutex
	texts []string
}

func (c *chatHook) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.texts...)
}

func startChat(t *testing.T) (*chatHook, string) {
	t.Helper()
	hook := &chatHook{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			Text string `json:"text"`
		}
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&m) != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		hook.mu.Lock()
		hook.texts = append(hook.texts, m.Text)
		hook.mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return hook, srv.URL + "/services/T000/B000/secret"
}

// waitingProposal adds a proposal waiting for approvals to the mirror.
func waitingProposal(t *testing.T, env *webtest.Env, id string, approvals []string, createdBy int64) {
	t.Helper()
	now := time.Now()
	_, err := env.Store.UpsertProposal(context.Background(), store.Proposal{ID: id, WalletID: "w-notify", OwnerUserID: "u-owner",
		Type: "TRANSFER", Status: store.ProposalPendingApprovals, Currency: "USDB", Amount: decimal.RequireFromString("1250.5"),
		Approvals: approvals, RequiredApprovals: 2, CreatedByStaffID: createdBy, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
}

// linkedApprover is a finance approver acting as wallet admin admin.
func linkedApprover(t *testing.T, env *webtest.Env, role store.Role, admin string) (*http.Client, webtest.Staff) {
	t.Helper()
	c, s := env.SignedIn(role)
	if err := env.Store.SetApproverLink(context.Background(), s.ID, admin, store.Actor{Email: "test"}); err != nil {
		t.Fatal(err)
	}
	return c, s
}

type sentRow struct {
	ID        int64
	Kind      string
	Recipient string
	Channel   string
	State     string
}

func notificationRows(t *testing.T, env *webtest.Env) []sentRow {
	t.Helper()
	rows, err := env.Store.Pool().Query(context.Background(), `SELECT id, kind, recipient, channel, state FROM notifications ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []sentRow
	for rows.Next() {
		var r sentRow
		if err := rows.Scan(&r.ID, &r.Kind, &r.Recipient, &r.Channel, &r.State); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// runSend runs the send job of one notification as river would on the
// given attempt.
func runSend(t *testing.T, env *webtest.Env, id int64, attempt int) error {
	t.Helper()
	w := &notify.SendWorker{H: env.App.Notify()}
	return w.Work(context.Background(), &river.Job[notify.SendArgs]{
		JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: 6}, Args: notify.SendArgs{ID: id}})
}

var linkRE = regexp.MustCompile(`https?://\S+`)

// TestNotifyApprovalOnce: a proposal waiting for approvals is mailed, once,
// to the linked approver who has not approved it, through the river job;
// not to its creator, nor to an approver who already approved, nor to one
// who opted out, nor to a support user even when linked. The mail names
// the type and amount and links to the proposal's page; the chat channel
// gets one message with the link and no amount. Scanning again and running
// the job again (river's retry) send nothing more.
func TestNotifyApprovalOnce(t *testing.T) {
	t.Parallel()
	box, smtpURL := startSMTP(t)
	hook, chatURL := startChat(t)
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, StartWorkers: true, SMTPURL: smtpURL, ChatWebhookURL: chatURL})
	ctx := context.Background()

	approver, a := linkedApprover(t, env, store.RoleFinanceApprover, "admin-a")
	optedOut, b := linkedApprover(t, env, store.RoleFinanceApprover, "admin-b")
	_, creator := linkedApprover(t, env, store.RoleFinanceApprover, "admin-c")
	_, already := linkedApprover(t, env, store.RoleFinanceApprover, "admin-d")
	_, support := linkedApprover(t, env, store.RoleSupport, "admin-s")

	// b turns approval mail off on the preferences page (chat stays on).
	tok := env.FormToken(optedOut, "/account/notifications", `[data-testid="notifications-form"]`)
	resp := env.PostForm(optedOut, "/account/notifications", url.Values{"form_token": {tok},
		"chat:" + notify.KindProposalApproval: {"on"}, "email:" + notify.KindSignLinkExpiring: {"on"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save preferences: %d", resp.StatusCode)
	}

	waitingProposal(t, env, "p-notify-1", []string{"admin-d"}, creator.ID)
	n, err := env.App.Notify().Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 { // a's email and the team chat's message
		t.Fatalf("scan recorded %d notifications, want 2: %+v", n, notificationRows(t, env))
	}
	webtest.WaitFor(t, "the mail and the chat message", 30*time.Second, func() bool {
		rows := notificationRows(t, env)
		return len(rows) == 2 && rows[0].State == store.NotificationSent && rows[1].State == store.NotificationSent
	})

	msgs := box.all()
	if len(msgs) != 1 {
		t.Fatalf("got %d mails, want 1: %+v", len(msgs), msgs)
	}
	m := msgs[0]
	if len(m.To) != 1 || m.To[0] != a.Email || m.From != "alerts@partner.example" {
		t.Fatalf("mail from %s to %v, want from alerts@partner.example to %s", m.From, m.To, a.Email)
	}
	for _, s := range []webtest.Staff{b, creator, already, support} {
		for _, mm := range msgs {
			if strings.Contains(strings.Join(mm.To, ","), s.Email) {
				t.Errorf("%s (%s) was mailed", s.Email, s.Role)
			}
		}
	}
	if !strings.Contains(m.Subject, "1,250.50 USD") || !strings.Contains(strings.ToLower(m.Body), "transfer") {
		t.Errorf("mail says %q / %q, want the type and the amount", m.Subject, m.Body)
	}
	links := linkRE.FindAllString(m.Body, -1)
	if len(links) != 1 || links[0] != env.URL("/approvals/p-notify-1") {
		t.Fatalf("links in the mail: %v, want %s", links, env.URL("/approvals/p-notify-1"))
	}
	// The link opens the proposal for the approver it was sent to.
	u, _ := url.Parse(links[0])
	page := env.Get(approver, u.Path)
	page.Body.Close()
	if page.StatusCode != http.StatusOK {
		t.Fatalf("the mail's link answered %d", page.StatusCode)
	}
	texts := hook.all()
	if len(texts) != 1 || !strings.HasSuffix(texts[0], env.URL("/approvals/p-notify-1")) || strings.Contains(texts[0], "1,250") {
		t.Fatalf("chat got %q, want one message with the link and no amount", texts)
	}

	// Found again by the scan: nothing new. Its job run again (a retry
	// river might make): nothing sent again.
	if n, err := env.App.Notify().Scan(ctx); err != nil || n != 0 {
		t.Fatalf("second scan: %d, %v", n, err)
	}
	for _, r := range notificationRows(t, env) {
		if err := runSend(t, env, r.ID, 2); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(box.all()); got != 1 {
		t.Fatalf("after a retry: %d mails, want 1", got)
	}
	if got := len(hook.all()); got != 1 {
		t.Fatalf("after a retry: %d chat messages, want 1", got)
	}
	for _, r := range notificationRows(t, env) {
		if r.State != store.NotificationSent {
			t.Errorf("notification %d is %s after a retry, want sent", r.ID, r.State)
		}
	}
}

// TestNotifyRetryAndUncertain: a mail the server refused for now (451) is
// tried again and arrives once; a notification left "sending" (the
// process died mid-send) is marked uncertain, not sent again, and shown to
// owners; the scan's sweep does the same for one whose job is gone.
func TestNotifyRetryAndUncertain(t *testing.T) {
	t.Parallel()
	box, smtpURL := startSMTP(t)
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, SMTPURL: smtpURL})
	ctx := context.Background()
	_, a := linkedApprover(t, env, store.RoleFinanceApprover, "admin-a")

	box.mu.Lock()
	box.refuseRcpt = 1
	box.mu.Unlock()
	waitingProposal(t, env, "p-retry", nil, 0)
	if n, err := env.App.Notify().Scan(ctx); err != nil || n != 1 {
		t.Fatalf("scan: %d, %v", n, err)
	}
	first := notificationRows(t, env)[0]
	if err := runSend(t, env, first.ID, 1); err == nil {
		t.Fatal("a mail the server refused for now: the job must fail so river tries again")
	}
	if got := notificationRows(t, env)[0].State; got != store.NotificationPending || len(box.all()) != 0 {
		t.Fatalf("after a 451: state %s, %d mails; want pending, 0", got, len(box.all()))
	}
	for attempt := 2; attempt <= 3; attempt++ {
		if err := runSend(t, env, first.ID, attempt); err != nil {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	if msgs := box.all(); len(msgs) != 1 || msgs[0].To[0] != a.Email {
		t.Fatalf("got %+v, want one mail to %s", msgs, a.Email)
	}

	// A process claimed the next one and died before recording the outcome.
	waitingProposal(t, env, "p-crash", nil, 0)
	if n, err := env.App.Notify().Scan(ctx); err != nil || n != 1 {
		t.Fatalf("scan: %d, %v", n, err)
	}
	crashed := notificationRows(t, env)[1]
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE notifications SET state = 'sending', claimed_at = now(), attempts = 1 WHERE id = $1`, crashed.ID); err != nil {
		t.Fatal(err)
	}
	if err := runSend(t, env, crashed.ID, 2); err != nil {
		t.Fatal(err)
	}
	if got := notificationRows(t, env)[1].State; got != store.NotificationUncertain || len(box.all()) != 1 {
		t.Fatalf("after a crash mid-send: state %s, %d mails; want uncertain, still 1", got, len(box.all()))
	}

	// One left sending whose job is gone: the scan's sweep.
	waitingProposal(t, env, "p-swept", nil, 0)
	if _, err := env.App.Notify().Scan(ctx); err != nil {
		t.Fatal(err)
	}
	swept := notificationRows(t, env)[2]
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE notifications SET state = 'sending', claimed_at = now() - interval '10 minutes' WHERE id = $1`, swept.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.App.Notify().Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if got := notificationRows(t, env)[2].State; got != store.NotificationUncertain || len(box.all()) != 1 {
		t.Fatalf("swept: state %s, %d mails; want uncertain, still 1", got, len(box.all()))
	}
	if !strings.Contains(env.Logs.String(), "notification outcome unknown") {
		t.Error("an uncertain notification is not reported in the log")
	}

	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/account/notifications"))
	if got := doc.Find(`[data-testid="notification-problem-state"]`).Length(); got != 2 {
		t.Fatalf("owner's page lists %d problem notifications, want 2", got)
	}
	if !strings.Contains(webtest.TestID(doc, "notification-problems-total"), "2 notifications") {
		t.Errorf("problems total: %q", webtest.TestID(doc, "notification-problems-total"))
	}
}

// TestNotifyEmployeeActionHR: HR admins are told an employee needs action,
// with the link to the employee's page and nothing else about them; a
// finance approver and support are not told.
func TestNotifyEmployeeActionHR(t *testing.T) {
	t.Parallel()
	box, smtpURL := startSMTP(t)
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, SMTPURL: smtpURL})
	ctx := context.Background()
	hr, h := env.SignedIn(store.RoleHRAdmin)
	env.CreateStaff(store.RoleFinanceApprover)
	env.CreateStaff(store.RoleSupport)
	e, err := env.Store.UpsertEmployee(ctx, store.Employee{Email: "flagged.person@partner.example", FirstName: "Ngozi",
		LastName: "Okafor", ServiceUserID: "u-flag", InviteState: store.InviteKYCSubmitted, KYCSubmitted: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.FlagActionRequired(ctx, "u-flag", "a new ID document", store.Actor{Email: "webhook"}); err != nil {
		t.Fatal(err)
	}
	if n, err := env.App.Notify().Scan(ctx); err != nil || n != 1 {
		t.Fatalf("scan: %d, %v (%+v)", n, err, notificationRows(t, env))
	}
	if err := runSend(t, env, notificationRows(t, env)[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	msgs := box.all()
	if len(msgs) != 1 || msgs[0].To[0] != h.Email {
		t.Fatalf("got %+v, want one mail to %s", msgs, h.Email)
	}
	want := env.URL(fmt.Sprintf("/employees/%d", e.ID))
	if links := linkRE.FindAllString(msgs[0].Body, -1); len(links) != 1 || links[0] != want {
		t.Fatalf("links %v, want %s", links, want)
	}
	all := msgs[0].Subject + msgs[0].Body
	for _, private := range []string{"Ngozi", "Okafor", "flagged.person", "ID document", "u-flag"} {
		if strings.Contains(all, private) {
			t.Errorf("the mail says %q", private)
		}
	}
	page := env.Get(hr, strings.TrimPrefix(want, env.URL("")))
	page.Body.Close()
	if page.StatusCode != http.StatusOK {
		t.Fatalf("the link answered %d", page.StatusCode)
	}
}

// TestNotificationPreferences: every signed-in role has the page, offered
// only the kinds its role may receive; a choice is saved with its audit
// row; a kind outside the role is not stored even when posted; a post
// without the form's token, or from an anonymous visitor, changes nothing.
func TestNotificationPreferences(t *testing.T) {
	t.Parallel()
	_, smtpURL := startSMTP(t)
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, SMTPURL: smtpURL})
	ctx := context.Background()

	finance, f := env.SignedIn(store.RoleFinanceApprover)
	doc := webtest.Doc(t, env.Get(finance, "/account/notifications"))
	for kind, offered := range map[string]bool{notify.KindProposalApproval: true, notify.KindSignLinkExpiring: true,
		notify.KindPayrollFailed: true, notify.KindWebhookFailing: false, notify.KindEmployeeAction: false} {
		if got := doc.Find(`[data-testid="kind-`+kind+`"]`).Length() == 1; got != offered {
			t.Errorf("finance approver offered %s: %v, want %v", kind, got, offered)
		}
	}
	if doc.Find(`input[name="chat:`+notify.KindProposalApproval+`"]`).Length() != 0 {
		t.Error("chat is offered without CHAT_WEBHOOK_URL")
	}
	if _, on := doc.Find(`input[name="email:` + notify.KindProposalApproval + `"]`).Attr("checked"); !on {
		t.Error("a kind never chosen is not on by default")
	}

	tok := env.FormToken(finance, "/account/notifications", `[data-testid="notifications-form"]`)
	resp := env.PostForm(finance, "/account/notifications", url.Values{"form_token": {tok},
		"email:" + notify.KindSignLinkExpiring: {"on"}, "email:" + notify.KindWebhookFailing: {"on"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	prefs, err := env.Store.NotificationPreferences(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if on, set := prefs[store.PreferenceKey(notify.KindProposalApproval, "email")]; !set || on {
		t.Errorf("proposal mail: %v %v, want stored off", on, set)
	}
	if !prefs[store.PreferenceKey(notify.KindSignLinkExpiring, "email")] {
		t.Error("sign link mail not stored on")
	}
	if _, set := prefs[store.PreferenceKey(notify.KindWebhookFailing, "email")]; set {
		t.Error("a kind outside the role was stored")
	}
	var audits int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'notifications.preferences' AND actor_id = $1`, f.ID).Scan(&audits); err != nil || audits != 1 {
		t.Fatalf("audit rows: %d, %v; want 1", audits, err)
	}
	doc = webtest.Doc(t, env.Get(finance, "/account/notifications"))
	if _, on := doc.Find(`input[name="email:` + notify.KindProposalApproval + `"]`).Attr("checked"); on {
		t.Error("the page does not show the saved choice")
	}

	// Without the form's token: refused, nothing stored.
	resp = env.PostForm(finance, "/account/notifications", url.Values{"email:" + notify.KindProposalApproval: {"on"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("post without a token: %d, want 400", resp.StatusCode)
	}
	if prefs, _ := env.Store.NotificationPreferences(ctx, f.ID); prefs[store.PreferenceKey(notify.KindProposalApproval, "email")] {
		t.Error("a post without a token changed the choice")
	}
	// Anonymous: to the sign-in page.
	anon := env.Client()
	resp = env.Get(anon, "/account/notifications")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("anonymous: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}

	// Support: the page says nothing is sent to the role; a crafted post
	// stores nothing.
	support, s := env.SignedIn(store.RoleSupport)
	doc = webtest.Doc(t, env.Get(support, "/account/notifications"))
	if doc.Find(`[data-testid="notifications-none"]`).Length() != 1 || doc.Find(`[data-testid="notifications-form"]`).Length() != 0 {
		t.Fatal("support is offered notifications")
	}
	resp = env.PostForm(support, "/account/notifications", url.Values{"form_token": {tok}, "email:" + notify.KindProposalApproval: {"on"}})
	resp.Body.Close()
	if prefs, _ := env.Store.NotificationPreferences(ctx, s.ID); len(prefs) != 0 {
		t.Fatalf("support's post stored %v", prefs)
	}
}

// TestNotificationsDisabled: with neither SMTP_URL nor CHAT_WEBHOOK_URL the
// log says so at start, the page says so, and the scan records nothing.
func TestNotificationsDisabled(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	if !strings.Contains(env.Logs.String(), "Notifications are disabled") {
		t.Error("no line in the log saying notifications are disabled")
	}
	c, _ := linkedApprover(t, env, store.RoleFinanceApprover, "admin-a")
	doc := webtest.Doc(t, env.Get(c, "/account/notifications"))
	if !strings.Contains(webtest.TestID(doc, "notifications-disabled"), "SMTP_URL") {
		t.Errorf("page says %q", webtest.TestID(doc, "notifications-disabled"))
	}
	waitingProposal(t, env, "p-off", nil, 0)
	if n, err := env.App.Notify().Scan(context.Background()); err != nil || n != 0 {
		t.Fatalf("scan with notifications off: %d, %v", n, err)
	}
}

// TestNotifySources: a signing link about to expire is told to whoever
// issued it; a payroll run with refused rows to finance approvers and
// owners; failing webhook deliveries to owners, once an hour — each by its
// page's link, and to no other role.
func TestNotifySources(t *testing.T) {
	t.Parallel()
	box, smtpURL := startSMTP(t)
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, SMTPURL: smtpURL})
	ctx := context.Background()
	issuer := env.CreateStaff(store.RoleFinanceApprover)
	other := env.CreateStaff(store.RoleFinanceApprover)
	owner := env.CreateStaff(store.RoleOwner)
	env.CreateStaff(store.RoleHRAdmin)
	env.CreateStaff(store.RoleSupport)

	// A proposal that needs nobody's approval any more (no one is linked),
	// with a signing link issued by issuer, expiring in three minutes.
	waitingProposal(t, env, "p-sign", nil, 0)
	_, err := env.Store.CreateSignRequest(ctx, store.SignRequest{Kind: store.SignKindProposal, ProposalID: "p-sign", UserID: "u-owner",
		WalletID: "w-notify", OwnerAddress: "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", ExpiresAt: time.Now().Add(3 * time.Minute)},
		[]byte("notify-test-token-hash"), issuer.Actor())
	if err != nil {
		t.Fatal(err)
	}
	// A payroll run that finished with one refused row.
	var runID int64
	if err := env.Store.Pool().QueryRow(ctx, `INSERT INTO payroll_runs (name, source, state, created_by_id, started_at, finished_at)
		VALUES ('March salaries', 'csv', 'sent', $1, now(), now()) RETURNING id`, other.ID).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Pool().Exec(ctx, `INSERT INTO payroll_rows (run_id, line, recipient, amount_text, amount, currency_text, currency)
		VALUES ($1, 1, 'someone@partner.example', '10', 10, 'USD', 'USDB'), ($1, 2, 'other@partner.example', '20', 20, 'USD', 'USDB')`, runID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Pool().Exec(ctx, `INSERT INTO actions (key, kind, state) VALUES ($1, 'payroll.row', 'refused'), ($2, 'payroll.row', 'done')`,
		fmt.Sprintf("payroll:%d:1", runID), fmt.Sprintf("payroll:%d:2", runID)); err != nil {
		t.Fatal(err)
	}
	// Two failed deliveries in this hour.
	for _, id := range []string{"wh-fail-1", "wh-fail-2"} {
		if _, err := env.Store.Pool().Exec(ctx, `INSERT INTO webhook_events (webhook_id, body, state, error) VALUES ($1, '{}', 'failed', 'boom')`, id); err != nil {
			t.Fatal(err)
		}
	}

	if _, err := env.App.Notify().Scan(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range notificationRows(t, env) {
		if err := runSend(t, env, r.ID, 1); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := env.App.Notify().Scan(ctx); err != nil || n != 0 {
		t.Fatalf("second scan: %d, %v", n, err)
	}
	got := map[string][]string{} // recipient → links
	for _, m := range box.all() {
		got[m.To[0]] = append(got[m.To[0]], linkRE.FindAllString(m.Body, -1)...)
	}
	want := map[string][]string{
		issuer.Email: {env.URL("/approvals/p-sign"), env.URL(fmt.Sprintf("/payroll/%d", runID))},
		other.Email:  {env.URL(fmt.Sprintf("/payroll/%d", runID))},
		owner.Email:  {env.URL(fmt.Sprintf("/payroll/%d", runID)), env.URL("/events?state=failed")},
	}
	if len(got) != len(want) {
		t.Fatalf("mailed %v, want %v", got, want)
	}
	for to, links := range want {
		slices.Sort(links)
		slices.Sort(got[to])
		if !slices.Equal(links, got[to]) {
			t.Errorf("%s got links %v, want %v", to, got[to], links)
		}
	}
}

// TestNotifyRoleChangedBeforeSend: a staff member made support between
// the scan and the send is not mailed about a proposal.
func TestNotifyRoleChangedBeforeSend(t *testing.T) {
	t.Parallel()
	box, smtpURL := startSMTP(t)
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, SMTPURL: smtpURL})
	ctx := context.Background()
	_, a := linkedApprover(t, env, store.RoleFinanceApprover, "admin-a")
	waitingProposal(t, env, "p-role", nil, 0)
	if n, err := env.App.Notify().Scan(ctx); err != nil || n != 1 {
		t.Fatalf("scan: %d, %v", n, err)
	}
	if _, err := env.Store.UpdateStaffAccess(ctx, a.ID, store.RoleSupport, false, store.Actor{Email: "test"}); err != nil {
		t.Fatal(err)
	}
	row := notificationRows(t, env)[0]
	if err := runSend(t, env, row.ID, 1); err != nil {
		t.Fatal(err)
	}
	if got := notificationRows(t, env)[0].State; got != store.NotificationFailed || len(box.all()) != 0 {
		t.Fatalf("state %s, %d mails; want failed and none", got, len(box.all()))
	}
}
