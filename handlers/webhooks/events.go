package webhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const (
	eventPageSize = 50
	// replayLimit bounds one filtered replay.
	replayLimit = 1000
)

// eventFilter is the parsed filter of the event log.
type eventFilter struct {
	form   views.EventFilterForm
	filter store.EventFilter
}

var timeLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.RFC3339, "2006-01-02"}

func parseWhen(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func parseEventFilter(get func(string) string) eventFilter {
	f := eventFilter{form: views.EventFilterForm{
		Type:  strings.TrimSpace(get("type")),
		State: strings.TrimSpace(get("state")),
		From:  strings.TrimSpace(get("from")),
		To:    strings.TrimSpace(get("to")),
	}, filter: store.EventFilter{}}
	f.form.Fields = views.FieldErrors{}
	if len(f.form.Type) > maxIDLen {
		f.form.Fields["type"] = "An event type has at most 200 characters."
	}
	f.filter.EventType = f.form.Type
	if f.form.State != "" && !slices.Contains(store.EventStates(), f.form.State) {
		f.form.Fields["state"] = "Choose one of the listed states."
	}
	f.filter.State = f.form.State
	if f.form.From != "" {
		t, ok := parseWhen(f.form.From)
		if !ok {
			f.form.Fields["from"] = "Enter a date and time like 2026-11-22T14:05 (UTC)."
		}
		f.filter.From = t
	}
	if f.form.To != "" {
		t, ok := parseWhen(f.form.To)
		if !ok {
			f.form.Fields["to"] = "Enter a date and time like 2026-11-22T18:00 (UTC)."
		}
		f.filter.To = t
	}
	if !f.filter.From.IsZero() && !f.filter.To.IsZero() && !f.filter.To.After(f.filter.From) && !f.form.Fields.Any() {
		f.form.Fields["to"] = "The end must be after the start."
	}
	return f
}

func (f eventFilter) query() string {
	q := url.Values{}
	for k, v := range map[string]string{"type": f.form.Type, "state": f.form.State, "from": f.form.From, "to": f.form.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q.Encode()
}

func eventRow(e store.WebhookEvent) views.EventRow {
	return views.EventRow{ID: e.ID, ReceivedAt: e.ReceivedAt, EventType: e.EventType, WebhookID: e.WebhookID,
		SourceEventID: e.SourceEventID, Signature: e.Signature, Duplicates: e.Duplicates, State: e.State,
		Outcome: e.Outcome, Error: e.Error, Attempts: e.Attempts}
}

// EventLog shows the deliveries, filtered, newest first.
func (h *Handler) EventLog(w http.ResponseWriter, r *http.Request) {
	f := parseEventFilter(r.URL.Query().Get)
	if b := r.URL.Query().Get("before"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil || id <= 0 {
			f.form.Fields["before"] = "This page link is not one the log makes; start from the newest deliveries."
		}
		f.filter.BeforeID = id
	}
	h.renderLog(w, r, f, nil)
}

func (h *Handler) renderLog(w http.ResponseWriter, r *http.Request, f eventFilter, preview *views.ReplayPreview) {
	ctx := r.Context()
	v := views.EventLogView{Filter: f.form, States: store.EventStates(), Query: f.query(), Preview: preview}
	if h.BodyRetention > 0 {
		v.Retention = fmt.Sprintf("The body of a processed event is removed after %d days; the event stays listed, so a late duplicate is still recognised.", RetentionDays(h.BodyRetention))
	}
	types, err := h.Store.WebhookEventTypes(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Types = types
	status := http.StatusOK
	if f.form.Fields.Any() {
		status = http.StatusUnprocessableEntity
	} else {
		f.filter.Limit = eventPageSize
		events, err := h.Store.ListWebhookEvents(ctx, f.filter)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		for _, e := range events {
			v.Rows = append(v.Rows, eventRow(e))
		}
		if len(events) == eventPageSize {
			v.NextBefore = events[len(events)-1].ID
		}
	}
	failures, err := h.Store.ListSignatureFailures(ctx, 20)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Failures = failureRows(failures)
	h.Render(w, r, status, "Event log", views.EventLogPage(v), views.ReplayPanel(v))
}

// EventDetail shows one delivery with its payload pretty-printed.
func (h *Handler) EventDetail(w http.ResponseWriter, r *http.Request) {
	ev, ok := h.loadEvent(w, r)
	if !ok {
		return
	}
	v := views.EventDetailView{Row: eventRow(ev), EventTimestamp: ev.EventTimestamp, ProcessedAt: ev.ProcessedAt,
		ServiceUserID: ev.ServiceUserID, Payload: prettyBody(ev.Body), CanReplay: ev.State != store.EventUnparseable}
	if !ev.BodyRemovedAt.IsZero() {
		v.Payload, v.CanReplay = "", false
		v.BodyRemoved = fmt.Sprintf("Body removed after %d days (on %s UTC): processed events keep their body only that long.",
			RetentionDays(h.BodyRetention), ev.BodyRemovedAt.UTC().Format("2006-01-02 15:04"))
		if h.BodyRetention <= 0 {
			v.BodyRemoved = fmt.Sprintf("Body removed on %s UTC by the retention policy.", ev.BodyRemovedAt.UTC().Format("2006-01-02 15:04"))
		}
	}
	if ev.ServiceUserID != "" {
		e, err := h.Store.EmployeeByServiceUserID(r.Context(), ev.ServiceUserID)
		switch {
		case err == nil:
			v.EmployeeName, v.EmployeeHref = e.Name(), "/employees/"+strconv.FormatInt(e.ID, 10)
		case !errors.Is(err, store.ErrNotFound):
			h.ServerError(w, r, err)
			return
		}
	}
	v.BackURL = handlers.BackTo(r, "/events")
	h.Render(w, r, http.StatusOK, "Delivery "+ev.WebhookID, views.EventDetailPage(v), nil)
}

// prettyBody indents JSON; other bodies are shown as text (invalid UTF-8
// replaced).
func prettyBody(body []byte) string {
	var buf bytes.Buffer
	if json.Valid(body) && json.Indent(&buf, body, "", "  ") == nil {
		return buf.String()
	}
	if utf8.Valid(body) {
		return string(body)
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}

func (h *Handler) loadEvent(w http.ResponseWriter, r *http.Request) (store.WebhookEvent, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return store.WebhookEvent{}, false
	}
	ev, err := h.Store.WebhookEventByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return ev, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return ev, false
	}
	return ev, true
}

// ReplayOne runs processing of one delivery again.
func (h *Handler) ReplayOne(w http.ResponseWriter, r *http.Request) {
	ev, ok := h.loadEvent(w, r)
	if !ok {
		return
	}
	to := "/events/" + strconv.FormatInt(ev.ID, 10)
	if !ev.BodyRemovedAt.IsZero() {
		h.Flash(r, "error", "This delivery's body was removed by the retention policy: there is nothing left to process.")
		h.Redirect(w, r, to)
		return
	}
	if ev.State == store.EventUnparseable {
		h.Flash(r, "error", "An unparseable delivery cannot be replayed: there is no event to process.")
		h.Redirect(w, r, to)
		return
	}
	_, err := h.Store.ReplayEvents(r.Context(), []int64{ev.ID}, h.enqueue(true), store.AuditEntry{
		Actor: handlers.ActorFrom(r.Context()), Action: "webhooks.event.replay", Target: "webhook_event:" + ev.WebhookID,
		Outcome: store.OutcomeOK, Detail: ev.EventType + " was " + ev.State,
	})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Replay queued: processing runs again in a moment (it is idempotent).")
	h.Redirect(w, r, to)
}

// ReplayFiltered previews, then (with confirm=yes) replays, the deliveries
// the filter selects.
func (h *Handler) ReplayFiltered(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := parseEventFilter(r.PostFormValue)
	if f.form.Fields.Any() {
		h.renderLog(w, r, f, nil)
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		counts, err := h.Store.CountWebhookEventsByState(ctx, f.filter)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		p := &views.ReplayPreview{Limit: replayLimit}
		for state, n := range counts {
			p.Matching += n
			switch state {
			case store.EventQueued, store.EventDeferred, store.EventFailed:
				p.WouldChange += n
			case store.EventUnparseable:
				p.Unparseable += n
			default:
				p.Unchanged += n
			}
		}
		p.TooMany = p.Matching-p.Unparseable > replayLimit
		h.renderLog(w, r, f, p)
		return
	}
	f.filter.Limit = replayLimit
	events, err := h.Store.ListWebhookEvents(ctx, f.filter)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	ids := make([]int64, 0, len(events))
	for _, e := range events {
		ids = append(ids, e.ID)
	}
	n, err := h.Store.ReplayEvents(ctx, ids, h.enqueue(true), store.AuditEntry{
		Actor: handlers.ActorFrom(ctx), Action: "webhooks.event.replay", Target: "webhook_events",
		Outcome: store.OutcomeOK, Detail: "filter " + f.query(),
	})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", fmt.Sprintf("%d deliveries queued for replay.", n))
	h.Redirect(w, r, "/events?"+f.query())
}

// ExportCSV streams the filtered log as CSV.
func (h *Handler) ExportCSV(w http.ResponseWriter, r *http.Request) {
	f := parseEventFilter(r.URL.Query().Get)
	if f.form.Fields.Any() {
		h.renderLog(w, r, f, nil)
		return
	}
	f.filter.Limit = 500
	cw := handlers.NewCSV(w, r, "webhook-events.csv", "id", "received_at", "event_type", "webhook_id", "source_event_id",
		"signature", "duplicates", "state", "outcome", "error", "attempts", "service_user_id")
	for {
		events, err := h.Store.ListWebhookEvents(r.Context(), f.filter)
		if err != nil {
			h.Logger.ErrorContext(r.Context(), "events export", "err", err)
			break
		}
		for _, e := range events {
			cw.Row(strconv.FormatInt(e.ID, 10), views.ISO(e.ReceivedAt), e.EventType, e.WebhookID, e.SourceEventID, e.Signature,
				strconv.Itoa(e.Duplicates), e.State, e.Outcome, e.Error, strconv.Itoa(e.Attempts), e.ServiceUserID)
		}
		if len(events) < f.filter.Limit {
			break
		}
		f.filter.BeforeID = events[len(events)-1].ID
	}
	cw.Close(h.Logger, r)
}
