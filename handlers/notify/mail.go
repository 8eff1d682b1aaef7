package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strings"
	"time"
)

// SMTPConfig is where and how mail is sent, from SMTP_URL:
// smtp://user:pass@host:587?from=alerts@example.com (STARTTLS whenever the
// server offers it) or smtps://…:465 (TLS from the first byte).
type SMTPConfig struct {
	Host     string
	Port     string
	Implicit bool // smtps: TLS from the start
	Username string
	password string
	From     *mail.Address
}

// String hides the password.
func (c SMTPConfig) String() string {
	u := url.URL{Scheme: "smtp", Host: net.JoinHostPort(c.Host, c.Port)}
	if c.Implicit {
		u.Scheme = "smtps"
	}
	if c.Username != "" {
		u.User = url.User(c.Username)
	}
	return u.String()
}

// ParseSMTPURL reads SMTP_URL. The message says what is wrong without
// repeating the URL (it may hold a password).
func ParseSMTPURL(raw string) (SMTPConfig, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return SMTPConfig{}, errors.New("SMTP_URL is not a URL: want smtp://user:password@host:587?from=alerts@example.com")
	}
	var c SMTPConfig
	switch u.Scheme {
	case "smtp":
		c.Port = "587"
	case "smtps":
		c.Port, c.Implicit = "465", true
	default:
		return SMTPConfig{}, errors.New("SMTP_URL must start with smtp:// (STARTTLS when offered) or smtps:// (TLS)")
	}
	c.Host = u.Hostname()
	if c.Host == "" {
		return SMTPConfig{}, errors.New("SMTP_URL has no host")
	}
	if p := u.Port(); p != "" {
		c.Port = p
	}
	if u.Path != "" && u.Path != "/" {
		return SMTPConfig{}, errors.New("SMTP_URL takes no path")
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.password, _ = u.User.Password()
	}
	from := u.Query().Get("from")
	if from == "" {
		return SMTPConfig{}, errors.New("SMTP_URL needs ?from=address: the sender of the notifications")
	}
	if c.From, err = mail.ParseAddress(from); err != nil {
		return SMTPConfig{}, fmt.Errorf("SMTP_URL from=%q is not an email address", from)
	}
	return c, nil
}

// outcome is how one delivery ended, as far as the app can know.
type outcome int

const (
	// delivered: the server took the message.
	delivered outcome = iota
	// notDelivered: certainly not taken (no connection, refused before the
	// message was complete, or answered with a temporary error): trying
	// again cannot make a second copy.
	notDelivered
	// refused: the server refused it for good (a 5xx reply, a 4xx from a
	// chat webhook): trying again would be refused again.
	refused
	// uncertain: the message may have been taken (the connection broke
	// after it was complete and before the answer): never sent again.
	uncertain
)

// result is a delivery's outcome and, unless delivered, why (words for
// the notifications list and the log: no credentials, no message body).
type result struct {
	outcome outcome
	why     string
}

// Mailer sends notifications by SMTP (net/smtp: STARTTLS when offered,
// credentials only over TLS or to a local server).
type Mailer struct {
	cfg SMTPConfig
	// hostname is what the client says in EHLO.
	hostname string
	// tlsConfig is used for STARTTLS and smtps (tests give their own roots).
	tlsConfig *tls.Config
}

// NewMailer returns a mailer for the configuration; hostname (the public
// origin's host) is said in EHLO.
func NewMailer(cfg SMTPConfig, hostname string, tlsConfig *tls.Config) *Mailer {
	if tlsConfig == nil {
		tlsConfig = &tls.Config{}
	}
	tlsConfig = tlsConfig.Clone()
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = cfg.Host
	}
	if hostname == "" {
		hostname = "localhost"
	}
	return &Mailer{cfg: cfg, hostname: hostname, tlsConfig: tlsConfig}
}

// message builds the mail: plain text, UTF-8, quoted-printable.
func (m *Mailer) message(to, subject, body string, now time.Time) ([]byte, error) {
	var b bytes.Buffer
	id := make([]byte, 12)
	_, _ = rand.Read(id) // crypto/rand.Read never fails (Go 1.24+)
	h := textproto.MIMEHeader{}
	h.Set("From", m.cfg.From.String())
	h.Set("To", (&mail.Address{Address: to}).String())
	h.Set("Subject", mime.QEncoding.Encode("utf-8", subject))
	h.Set("Date", now.Format(time.RFC1123Z))
	h.Set("Message-ID", "<"+hex.EncodeToString(id)+"@"+m.hostname+">")
	h.Set("MIME-Version", "1.0")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	h.Set("Auto-Submitted", "auto-generated")
	for _, k := range []string{"From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted"} {
		b.WriteString(k + ": " + h.Get(k) + "\r\n")
	}
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n"))); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Send delivers one mail and says how it ended. Everything before the
// message's final dot is sent cannot have delivered it; once the dot is
// sent, only the server's answer tells.
func (m *Mailer) Send(ctx context.Context, to, subject, body string, now time.Time) result {
	if _, err := mail.ParseAddress(to); err != nil || to == "" {
		return result{refused, "the staff member's email address cannot take mail"}
	}
	msg, err := m.message(to, subject, body, now)
	if err != nil {
		return result{refused, "the message could not be built"}
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	addr := net.JoinHostPort(m.cfg.Host, m.cfg.Port)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return result{notDelivered, "cannot reach the mail server: " + netWords(err)}
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	if m.cfg.Implicit {
		tc := tls.Client(conn, m.tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			return result{notDelivered, "TLS with the mail server failed: " + err.Error()}
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, m.cfg.Host)
	if err != nil {
		return before("greeting", err)
	}
	defer c.Close()
	if err := c.Hello(m.hostname); err != nil {
		return before("EHLO", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !m.cfg.Implicit {
		if err := c.StartTLS(m.tlsConfig); err != nil {
			return before("STARTTLS", err)
		}
	}
	if m.cfg.Username != "" {
		// net/smtp's PLAIN refuses to send the password unless the
		// connection is TLS or the server is on this machine.
		if err := c.Auth(smtp.PlainAuth("", m.cfg.Username, m.cfg.password, m.cfg.Host)); err != nil {
			return before("AUTH", err)
		}
	}
	if err := c.Mail(m.cfg.From.Address); err != nil {
		return before("MAIL FROM", err)
	}
	if err := c.Rcpt(to); err != nil {
		return before("RCPT TO", err)
	}
	w, err := c.Data()
	if err != nil {
		return before("DATA", err)
	}
	if _, err := w.Write(msg); err != nil {
		// The message's end (a line with a single dot) was not sent: the
		// server discards what it got.
		return result{notDelivered, "the connection broke while sending the message: " + netWords(err)}
	}
	if err := w.Close(); err != nil {
		var te *textproto.Error
		if errors.As(err, &te) {
			return replied("the message", te)
		}
		return result{uncertain, "the mail server did not answer after the whole message was sent (" + netWords(err) +
			"): it may or may not have taken it"}
	}
	_ = c.Quit() // the message was taken; how the session ends does not change that
	return result{outcome: delivered}
}

// before classifies an error before the message was complete: never
// delivered; a 5xx reply is a refusal for good.
func before(step string, err error) result {
	var te *textproto.Error
	if errors.As(err, &te) {
		return replied(step, te)
	}
	return result{notDelivered, step + ": " + netWords(err)}
}

func replied(step string, te *textproto.Error) result {
	why := fmt.Sprintf("the mail server refused %s: %d %s", step, te.Code, te.Msg)
	if te.Code >= 500 {
		return result{refused, why}
	}
	return result{notDelivered, why}
}

// netWords is a network error's text without anything a URL might carry.
func netWords(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "timed out"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	return err.Error()
}
