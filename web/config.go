// Package web assembles the app: configuration, the chi router with every
// route and its permission, middleware, static files, and starting and
// stopping the background workers.
package web

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"partneradmin/handlers/notify"
	"partneradmin/handlers/sign"
)

// Secret is a configuration value that must never be printed or logged.
type Secret string

// String hides the value.
func (Secret) String() string { return "[redacted]" }

// LogValue hides the value from slog.
func (Secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// Reveal returns the value, for the one place that must use it.
func (s Secret) Reveal() string { return string(s) }

// Config is the validated configuration of partner-admin.
type Config struct {
	Addr              string
	DataDir           string
	DatabaseURL       Secret
	PublicOrigin      string
	PartnerAPIBaseURL string
	PartnerAPIKey     Secret
	OwnerEmail        string
	OwnerPassword     Secret
	// EncryptionKey encrypts webhook secrets at rest (hex, 32 bytes). When
	// empty a key is generated and kept in the data directory.
	EncryptionKey Secret
	LogLevel      slog.Level
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client; with none, forwarded headers are ignored.
	TrustedProxies []netip.Prefix
	// SignLinkTemplate is what a sign link's QR code carries: {link} alone
	// is the link itself; in anything else {link} is the link URL-encoded
	// (myapp://sign?link={link}), for a wallet app's own scheme.
	SignLinkTemplate string
	// MetricsAddr, when set, is a second listener serving /metrics (and
	// the probes) without a session, for a Prometheus scraper.
	MetricsAddr string
	// WebhookBodyRetention is how long a processed webhook event keeps its
	// body; the row stays (deduplication). 0 keeps bodies for ever.
	WebhookBodyRetention time.Duration
	// SMTPURL is where notification mail is sent
	// (smtp://user:pass@host:587?from=…); ChatWebhookURL is the team's
	// Slack-compatible incoming webhook. Either unset turns its channel off.
	SMTPURL        Secret
	ChatWebhookURL Secret
	// StepUpMaxAge is how long a second factor counts for approving,
	// signing, moving money and card actions (STEP_UP_MAX_AGE, default
	// 15m); older, it is asked again.
	StepUpMaxAge time.Duration
	// OIDCIssuer, OIDCClientID and OIDCClientSecret let staff sign in with
	// the company's identity provider (OpenID Connect); all three or none.
	// OIDCProviderName is its name on the sign-in page (default: the
	// issuer's host).
	OIDCIssuer       string
	OIDCClientID     string
	OIDCClientSecret Secret
	OIDCProviderName string
}

// DefaultWebhookBodyRetention is WEBHOOK_BODY_RETENTION's default.
const DefaultWebhookBodyRetention = 30 * 24 * time.Hour

// OIDCEnabled reports whether sign-in with an identity provider is set up.
func (c Config) OIDCEnabled() bool { return c.OIDCIssuer != "" }

// Local reports whether the app runs against its own PostgreSQL and sandbox.
func (c Config) Local() bool { return c.DatabaseURL == "" }

// UsesSandbox reports whether the in-process sandbox stands in for the API.
func (c Config) UsesSandbox() bool { return c.PartnerAPIBaseURL == "" }

// SecureCookies reports whether cookies must be marked Secure: whenever the
// public origin is HTTPS.
func (c Config) SecureCookies() bool { return strings.HasPrefix(c.PublicOrigin, "https://") }

// ParseConfig reads flags, then environment variables for what the flags did
// not set, and validates the result.
func ParseConfig(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	c, fl, err := parseFlags(args, getenv, stderr)
	if err != nil {
		return Config{}, err
	}
	errs := stepUpFromEnv(&c, getenv)
	readEnv(&c, getenv)
	errs = append(errs, validateConfig(&c, fl)...)
	return c, errors.Join(errs...)
}

// flagText holds the flags that are read as text and checked later.
type flagText struct {
	logLevel, trustedProxies, retention string
}

// parseFlags reads the flags, each defaulting to its environment variable.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (Config, flagText, error) {
	fs := flag.NewFlagSet("partner-admin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := func(env, fallback string) string {
		if v := getenv(env); v != "" {
			return v
		}
		return fallback
	}
	var c Config
	var fl flagText
	fs.StringVar(&c.Addr, "addr", def("ADDR", "127.0.0.1:8080"), "listen address (ADDR)")
	fs.StringVar(&c.DataDir, "data-dir", def("DATA_DIR", "./.data"), "directory for the private PostgreSQL and sandbox state (DATA_DIR)")
	fs.StringVar(&c.PublicOrigin, "public-origin", def("PUBLIC_ORIGIN", ""), "origin used in links and QR codes (PUBLIC_ORIGIN); default http://ADDR")
	fs.StringVar(&fl.logLevel, "log-level", def("LOG_LEVEL", "info"), "debug, info, warn or error (LOG_LEVEL)")
	fs.StringVar(&fl.trustedProxies, "trusted-proxies", def("TRUSTED_PROXIES", ""), "comma-separated addresses or CIDR blocks of the reverse proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES)")
	fs.StringVar(&c.SignLinkTemplate, "sign-link-template", def("SIGN_LINK_TEMPLATE", sign.DefaultLinkTemplate), "what a sign link's QR code carries, with {link} for the link (SIGN_LINK_TEMPLATE), e.g. myapp://sign?link={link}")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", def("METRICS_ADDR", ""), "optional host:port of a listener serving /metrics, /readyz and /healthz without sign-in, for a scraper (METRICS_ADDR)")
	fs.StringVar(&fl.retention, "webhook-body-retention", def("WEBHOOK_BODY_RETENTION", "30d"), "how long processed webhook events keep their body: days (30d) or hours (720h); 0 keeps them (WEBHOOK_BODY_RETENTION)")
	fs.DurationVar(&c.StepUpMaxAge, "step-up-max-age", 0, "how long a second factor counts for value-moving and card actions (STEP_UP_MAX_AGE, default 15m)")
	fs.StringVar(&c.OIDCIssuer, "oidc-issuer", def("OIDC_ISSUER", ""), "issuer URL of the identity provider staff sign in with (OIDC_ISSUER); OIDC_CLIENT_SECRET is read from the environment only")
	fs.StringVar(&c.OIDCClientID, "oidc-client-id", def("OIDC_CLIENT_ID", ""), "this app's client id at the identity provider (OIDC_CLIENT_ID)")
	fs.StringVar(&c.OIDCProviderName, "oidc-provider-name", def("OIDC_PROVIDER_NAME", ""), "the identity provider's name on the sign-in page (OIDC_PROVIDER_NAME), default the issuer's host")
	if len(args) > 0 {
		args = args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, flagText{}, err
	}
	return c, fl, nil
}

// stepUpFromEnv reads STEP_UP_MAX_AGE when the flag did not set it.
func stepUpFromEnv(c *Config, getenv func(string) string) []error {
	var errs []error
	if v := getenv("STEP_UP_MAX_AGE"); v != "" && c.StepUpMaxAge == 0 {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("STEP_UP_MAX_AGE %q: want a duration such as 15m", v))
		}
		c.StepUpMaxAge = d
	}
	if c.StepUpMaxAge < 0 {
		errs = append(errs, errors.New("-step-up-max-age must be positive"))
	}
	return errs
}

// readEnv reads the settings that come only from the environment: the
// secrets, and what goes with them.
func readEnv(c *Config, getenv func(string) string) {
	c.DatabaseURL = Secret(getenv("DATABASE_URL"))
	c.PartnerAPIBaseURL = strings.TrimRight(getenv("PARTNER_API_BASE_URL"), "/")
	c.PartnerAPIKey = Secret(getenv("PARTNER_API_KEY"))
	c.OwnerEmail = getenv("OWNER_EMAIL")
	c.OwnerPassword = Secret(getenv("OWNER_PASSWORD"))
	c.EncryptionKey = Secret(getenv("ENCRYPTION_KEY"))
	c.SMTPURL = Secret(getenv("SMTP_URL"))
	c.ChatWebhookURL = Secret(getenv("CHAT_WEBHOOK_URL"))
	c.OIDCClientSecret = Secret(getenv("OIDC_CLIENT_SECRET"))
}

// validateConfig checks everything read and fills in what follows from it
// (the public origin's default, the parsed proxies and retention).
func validateConfig(c *Config, fl flagText) []error {
	var errs []error
	if err := c.LogLevel.UnmarshalText([]byte(fl.logLevel)); err != nil {
		errs = append(errs, fmt.Errorf("LOG_LEVEL %q: use debug, info, warn or error", fl.logLevel))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("ADDR %q: want host:port", c.Addr))
	}
	if c.PublicOrigin == "" {
		c.PublicOrigin = "http://" + c.Addr
	}
	c.PublicOrigin = strings.TrimRight(c.PublicOrigin, "/")
	if u, err := url.Parse(c.PublicOrigin); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		errs = append(errs, fmt.Errorf("PUBLIC_ORIGIN %q: want an origin such as https://admin.example.com (no path)", c.PublicOrigin))
	}
	if (c.PartnerAPIBaseURL == "") != (c.PartnerAPIKey == "") {
		errs = append(errs, errors.New("PARTNER_API_BASE_URL and PARTNER_API_KEY go together: set both to use the real API, or neither for the sandbox"))
	}
	if (c.OwnerEmail == "") != (c.OwnerPassword == "") {
		errs = append(errs, errors.New("OWNER_EMAIL and OWNER_PASSWORD go together"))
	}
	if c.EncryptionKey != "" {
		if k, err := hex.DecodeString(c.EncryptionKey.Reveal()); err != nil || len(k) != 32 {
			errs = append(errs, errors.New("ENCRYPTION_KEY must be 64 hex characters (32 bytes); leave it unset to have one generated into the data directory"))
		}
	}
	if err := sign.CheckLinkTemplate(c.SignLinkTemplate); err != nil {
		errs = append(errs, fmt.Errorf("SIGN_LINK_TEMPLATE %q: %w", c.SignLinkTemplate, err))
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			errs = append(errs, fmt.Errorf("METRICS_ADDR %q: want host:port", c.MetricsAddr))
		}
	}
	if d, err := parseRetention(fl.retention); err != nil {
		errs = append(errs, fmt.Errorf("WEBHOOK_BODY_RETENTION %q: %w", fl.retention, err))
	} else {
		c.WebhookBodyRetention = d
	}
	if c.SMTPURL != "" {
		if _, err := notify.ParseSMTPURL(c.SMTPURL.Reveal()); err != nil {
			errs = append(errs, err)
		}
	}
	if c.ChatWebhookURL != "" {
		if _, err := notify.ParseChatURL(c.ChatWebhookURL.Reveal()); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, checkOIDC(c)...)
	var err error
	if c.TrustedProxies, err = parseTrustedProxies(fl.trustedProxies); err != nil {
		errs = append(errs, err)
	}
	if c.OwnerPassword != "" && len(c.OwnerPassword) < 12 {
		errs = append(errs, errors.New("OWNER_PASSWORD must have at least 12 characters"))
	}
	return errs
}

// parseTrustedProxies reads a comma-separated list of IP addresses and CIDR
// blocks ("10.0.0.0/8, 192.0.2.7"). IPv4-mapped IPv6 forms are kept as IPv4,
// the form client addresses are compared in.
func parseTrustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		var p netip.Prefix
		var err error
		if strings.Contains(item, "/") {
			p, err = netip.ParsePrefix(item)
		} else {
			var ip netip.Addr
			if ip, err = netip.ParseAddr(item); err == nil && ip.Zone() != "" {
				err = errors.New("zoned address")
			} else if err == nil {
				p = netip.PrefixFrom(ip, ip.BitLen())
			}
		}
		if err == nil && p.Addr().Is4In6() {
			if p.Bits() < 96 {
				err = errors.New("mapped prefix shorter than /96")
			} else {
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
		}
		if err != nil || !p.IsValid() {
			return nil, fmt.Errorf("TRUSTED_PROXIES %q: want IP addresses or CIDR blocks separated by commas, such as 10.0.0.0/8,192.0.2.7", item)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// parseRetention reads a retention: whole days ("30d" or "30"), or a Go
// duration of at least an hour ("720h"); "0" keeps bodies for ever.
func parseRetention(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	const bad = "want days such as 30d, or hours such as 720h (at least 1h), or 0 to keep bodies"
	if v == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(v, "d"); ok || !strings.ContainsAny(v, "hms") {
		n, err := strconv.Atoi(days)
		if err != nil || n < 1 || n > 3650 {
			return 0, errors.New(bad)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Hour || d > 3650*24*time.Hour {
		return 0, errors.New(bad)
	}
	return d, nil
}

// checkOIDC validates the identity provider settings and fills in its
// display name.
func checkOIDC(c *Config) []error {
	c.OIDCIssuer = strings.TrimSpace(c.OIDCIssuer)
	if c.OIDCIssuer == "" && c.OIDCClientID == "" && c.OIDCClientSecret == "" {
		return nil
	}
	if c.OIDCIssuer == "" || c.OIDCClientID == "" || c.OIDCClientSecret == "" {
		return []error{errors.New("OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three to sign in with the identity provider, or none")}
	}
	u, err := url.Parse(c.OIDCIssuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname()))) {
		return []error{fmt.Errorf("OIDC_ISSUER %q: want the provider's https URL, such as https://login.example.com", c.OIDCIssuer)}
	}
	if len(c.OIDCClientID) > 255 {
		return []error{errors.New("OIDC_CLIENT_ID has at most 255 characters")}
	}
	if c.OIDCProviderName == "" {
		c.OIDCProviderName = u.Hostname()
	}
	if len(c.OIDCProviderName) > 60 {
		return []error{errors.New("OIDC_PROVIDER_NAME has at most 60 characters")}
	}
	return nil
}

// isLoopback reports whether host is this machine (plain http is allowed
// to a provider there, for development).
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
