package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/handlers/employees"
	"partneradmin/handlers/payroll"
)

// payrollResult is a payroll run uploaded as a file, checked, and sent.
type payrollResult struct {
	// Want is the rows asked for; Rows those in the file (the app's limit
	// of a file may be lower); Valid the rows the check found payable.
	Want, Rows, Valid int
	// Check is the upload's answer time: the file read and every row
	// checked, and the run stored for preview.
	Check time.Duration
	// Proposals were created in Send, from the send's answer until the
	// last of them was seen; State is the run's state when the bench
	// stopped looking (every proposal made, or the deadline passed).
	Proposals int
	Send      time.Duration
	State     string
}

// ProposalRate is the proposals created a second.
func (p payrollResult) ProposalRate() float64 {
	if p.Send <= 0 {
		return 0
	}
	return float64(p.Proposals) / p.Send.Seconds()
}

// fileCheck is one file uploaded for its check.
type fileCheck struct {
	Rows int
	Took time.Duration
}

// fileResult is each kind of file checked at two sizes, a tenth and the
// whole.
type fileResult struct {
	Want          int // the larger file's rows asked for
	Payroll, Bulk [2]fileCheck
	PayrollMax    int // the app's limits of a file
	BulkMax       int
}

// measurePayrollAndFiles uploads payroll files and bulk invite files of a
// tenth and of cfg.FileRows rows, and a payroll run of cfg.PayrollRows rows
// that it then sends, timing each as the owner's browser would see it. The
// company has n employees, the first holders of them with a wallet.
func measurePayrollAndFiles(ctx context.Context, c *http.Client, base string, pool *pgxpool.Pool, n, holders int, cfg config,
	say func(string, ...any)) (*payrollResult, *fileResult, error) {
	var files *fileResult
	if cfg.wants(fileRow) {
		var err error
		if files, err = measureFiles(ctx, c, base, n, cfg, say); err != nil {
			return nil, nil, err
		}
	}
	if !cfg.wants(payrollRow) {
		return nil, files, nil
	}
	p, err := measurePayroll(ctx, c, base, pool, n, holders, cfg, say)
	if err != nil {
		return nil, nil, err
	}
	return p, files, nil
}

// measureFiles checks a payroll file and a bulk invite file of the largest
// size the app takes, and of a tenth of it.
func measureFiles(ctx context.Context, c *http.Client, base string, n int, cfg config, say func(string, ...any)) (*fileResult, error) {
	files := &fileResult{Want: cfg.FileRows, PayrollMax: payroll.MaxRows, BulkMax: employees.MaxBulkRows}
	// The smaller file is a tenth of the larger one the app takes.
	pmax, bmax := min(cfg.FileRows, payroll.MaxRows), min(cfg.FileRows, employees.MaxBulkRows)
	for i, div := range []int{10, 1} {
		pr := max(1, pmax/div)
		took, _, err := uploadPayroll(ctx, c, base, payrollCSV(pr, n), fmt.Sprintf("Bench file check %d", pr))
		if err != nil {
			return nil, err
		}
		files.Payroll[i] = fileCheck{Rows: pr, Took: took}
		br := max(1, bmax/div)
		bulk, err := bulkCSV(ctx, c, base, br)
		if err != nil {
			return nil, err
		}
		if took, err = uploadBulk(ctx, c, base, bulk); err != nil {
			return nil, err
		}
		files.Bulk[i] = fileCheck{Rows: br, Took: took}
		say("file check: payroll %d rows in %s, bulk invite %d rows in %s", pr, files.Payroll[i].Took.Round(time.Millisecond),
			br, took.Round(time.Millisecond))
	}
	return files, nil
}

// measurePayroll uploads a payroll run, sends it as its page offers, and
// measures the check and the proposals' creation.
func measurePayroll(ctx context.Context, c *http.Client, base string, pool *pgxpool.Pool, n, holders int, cfg config,
	say func(string, ...any)) (*payrollResult, error) {
	p := &payrollResult{Want: cfg.PayrollRows, Rows: min(cfg.PayrollRows, payroll.MaxRows)}
	took, id, err := uploadPayroll(ctx, c, base, payrollCSV(p.Rows, n), "Bench payroll run")
	if err != nil {
		return nil, err
	}
	p.Check = took
	if err := pool.QueryRow(ctx, `SELECT rows_valid FROM payroll_runs WHERE id = $1`, id).Scan(&p.Valid); err != nil {
		return nil, fmt.Errorf("payroll run %d: %w", id, err)
	}
	if p.Valid != min(p.Rows, holders) {
		return nil, fmt.Errorf("payroll run %d: %d of %d rows valid, want %d (the wallet holders)", id, p.Valid, p.Rows, min(p.Rows, holders))
	}
	// Send, as the run's page offers it.
	body, _, err := capture(ctx, c, fmt.Sprintf("%s/payroll/%d", base, id))
	if err != nil {
		return nil, err
	}
	form, err := formValues(body, `form[data-testid="payroll-send-form"]`)
	if err != nil {
		return nil, fmt.Errorf("payroll run %d: %w", id, err)
	}
	t0 := time.Now()
	resp, err := postForm(ctx, c, fmt.Sprintf("%s/payroll/%d/send", base, id), form)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("send payroll run %d: status %d", id, resp.StatusCode)
	}
	// Long enough for the budget's rate and a margin; past it, the rate so
	// far is the figure (the run still sending).
	deadline := t0.Add(cfg.PayrollWait + time.Duration(p.Valid)*time.Second/budgetProposals)
	// Polled every 100 ms: Send is when the last proposal counted was
	// first seen. The run is marked sent only once every row has an
	// outcome, which may come later than its proposals.
	if err := waitSent(ctx, pool, id, p, t0, deadline); err != nil {
		return nil, err
	}
	say("payroll run of %d rows: checked in %s; %d proposals created in %s (%s)", p.Rows, p.Check.Round(time.Millisecond), p.Proposals,
		p.Send.Round(time.Millisecond), p.State)
	return p, nil
}

// waitSent follows the run's proposals until it is sent or the deadline
// passes, keeping in p their count and when the last was first seen after
// t0, the send.
func waitSent(ctx context.Context, pool *pgxpool.Pool, id int64, p *payrollResult, t0, deadline time.Time) error {
	for {
		var state string
		var n int
		err := pool.QueryRow(ctx, `SELECT r.state, (SELECT count(*) FROM payroll_rows WHERE run_id = r.id AND proposal_id IS NOT NULL)
			FROM payroll_runs r WHERE r.id = $1`, id).Scan(&state, &n)
		if err != nil {
			return fmt.Errorf("payroll run %d: %w", id, err)
		}
		if n != p.Proposals || p.Send == 0 {
			p.Proposals, p.Send = n, time.Since(t0)
		}
		p.State = state
		if state != "sending" || n >= p.Valid || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// payrollCSV is a payroll file paying person 1 … rows of a company of n
// (the first of them hold a wallet; the others are refused by the check).
func payrollCSV(rows, n int) []byte {
	var b bytes.Buffer
	b.WriteString("employee,amount,currency,description\n")
	for i := range rows {
		fmt.Fprintf(&b, "%s,1.00,USD,Bench salary\n", personEmail(1+i%n))
	}
	return b.Bytes()
}

// bulkCSV is a bulk invite file of rows new people: the app's template
// with its example row copied under a new email each time.
func bulkCSV(ctx context.Context, c *http.Client, base string, rows int) ([]byte, error) {
	tpl, _, err := capture(ctx, c, base+"/employees/invite/bulk/template.csv")
	if err != nil {
		return nil, err
	}
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(tpl, []byte("\ufeff")))).ReadAll()
	if err != nil || len(recs) < 2 {
		return nil, fmt.Errorf("bulk invite template: %d records, %v", len(recs), err)
	}
	email := -1
	for i, h := range recs[0] {
		if strings.EqualFold(strings.TrimSpace(h), "email") {
			email = i
		}
	}
	if email < 0 {
		return nil, errors.New("bulk invite template: no email column")
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(recs[0])
	for i := range rows {
		r := append([]string(nil), recs[1]...)
		r[email] = fmt.Sprintf("invitee%06d@load.example", i+1)
		_ = w.Write(r)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

var runPath = regexp.MustCompile(`^/payroll/([0-9]+)$`)

// uploadPayroll posts a payroll file as the new run's form does and
// returns the answer's time and the run it made.
func uploadPayroll(ctx context.Context, c *http.Client, base string, file []byte, name string) (time.Duration, int64, error) {
	took, loc, err := upload(ctx, c, base+"/payroll/csv", map[string]string{"name": name}, "payroll.csv", file)
	if err != nil {
		return 0, 0, fmt.Errorf("payroll upload: %w", err)
	}
	m := runPath.FindStringSubmatch(loc)
	if m == nil {
		return 0, 0, fmt.Errorf("payroll upload: sent to %q, not a run", loc)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return took, id, nil
}

// uploadBulk posts a bulk invite file and returns the answer's time.
func uploadBulk(ctx context.Context, c *http.Client, base string, file []byte) (time.Duration, error) {
	took, loc, err := upload(ctx, c, base+"/employees/invite/bulk", nil, "invite.csv", file)
	if err != nil {
		return 0, fmt.Errorf("bulk invite upload: %w", err)
	}
	if !strings.HasPrefix(loc, "/employees/invite/bulk/") {
		return 0, fmt.Errorf("bulk invite upload: sent to %q, not a run", loc)
	}
	return took, nil
}

// upload posts a multipart form with a file and wants a redirect (the
// checked file's page); it returns the time to the answer and where it
// leads.
func upload(ctx context.Context, c *http.Client, u string, fields map[string]string, filename string, file []byte) (time.Duration, string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			return 0, "", err
		}
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		return 0, "", err
	}
	if _, err := fw.Write(file); err != nil {
		return 0, "", err
	}
	if err := mw.Close(); err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, &body)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var page bytes.Buffer
	_, _ = page.ReadFrom(resp.Body)
	took := time.Since(t0)
	if resp.StatusCode != http.StatusSeeOther {
		msg := ""
		if doc, err := goquery.NewDocumentFromReader(&page); err == nil {
			msg = strings.Join(strings.Fields(doc.Find(`[role="alert"], .field-error, .error-summary`).Text()), " ")
		}
		return 0, "", fmt.Errorf("status %d: %s", resp.StatusCode, msg)
	}
	return took, resp.Header.Get("Location"), nil
}

// formValues are the hidden fields of the form sel finds in page.
func formValues(page []byte, sel string) (url.Values, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return nil, err
	}
	form := doc.Find(sel)
	if form.Length() == 0 {
		return nil, fmt.Errorf("no %s on the page", sel)
	}
	v := url.Values{}
	form.Find(`input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		val, _ := s.Attr("value")
		if name != "" {
			v.Add(name, val)
		}
	})
	return v, nil
}
