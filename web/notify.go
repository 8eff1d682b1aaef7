package web

import (
	"fmt"
	"net/url"

	"github.com/riverqueue/river"

	"partneradmin/handlers"
	"partneradmin/handlers/notify"
)

// newNotify builds the notifications area from SMTP_URL and
// CHAT_WEBHOOK_URL (both checked by ParseConfig) and says in the log which
// channels are on, or that notifications are disabled.
func newNotify(d Deps, hd handlers.Deps) (*notify.Handler, error) {
	var o notify.Options
	if d.Config.SMTPURL != "" {
		cfg, err := notify.ParseSMTPURL(d.Config.SMTPURL.Reveal())
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		host := "localhost"
		if u, err := url.Parse(d.Config.PublicOrigin); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
		o.Mail = notify.NewMailer(cfg, host, nil)
	}
	if d.Config.ChatWebhookURL != "" {
		u, err := notify.ParseChatURL(d.Config.ChatWebhookURL.Reveal())
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		o.Chat = notify.NewChatPoster(u, nil)
	}
	h := notify.New(hd, o)
	h.LogStart()
	return h, nil
}

// addNotifyWorkers registers the scan and the send jobs.
func addNotifyWorkers(workers *river.Workers, h *notify.Handler) error {
	if err := river.AddWorkerSafely(workers, &notify.ScanWorker{H: h}); err != nil {
		return fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &notify.SendWorker{H: h}); err != nil {
		return fmt.Errorf("web: add worker: %w", err)
	}
	return nil
}

// notifyPeriodicJobs is the scan, every minute, once across replicas.
func notifyPeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(notify.ScanInterval),
			func() (river.JobArgs, *river.InsertOpts) { return notify.ScanArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
