package notify

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

func TestParseSMTPURL(t *testing.T) {
	for _, tc := range []struct {
		raw      string
		host     string
		port     string
		implicit bool
		user     string
		from     string
		err      string
	}{
		{raw: "smtp://alerts:s3cret@mail.example.com:2525?from=alerts@partner.example", host: "mail.example.com", port: "2525",
			user: "alerts", from: "alerts@partner.example"},
		{raw: "smtp://mail.example.com?from=Partner%20Admin%20%3Calerts@partner.example%3E", host: "mail.example.com", port: "587",
			from: "alerts@partner.example"},
		{raw: "smtps://u:p@mail.example.com?from=a@b.example", host: "mail.example.com", port: "465", implicit: true, user: "u", from: "a@b.example"},
		{raw: "smtp://u:s3cret@mail.example.com", err: "from="},
		{raw: "http://mail.example.com?from=a@b.example", err: "smtp://"},
		{raw: "smtp://?from=a@b.example", err: "no host"},
		{raw: "smtp://mail.example.com/x?from=a@b.example", err: "no path"},
		{raw: "smtp://u:s3cret@mail.example.com?from=not-an-address", err: "not an email address"},
	} {
		c, err := ParseSMTPURL(tc.raw)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one saying %q", tc.raw, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("%s: the error repeats the password", tc.raw)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		if c.Host != tc.host || c.Port != tc.port || c.Implicit != tc.implicit || c.Username != tc.user || c.From.Address != tc.from {
			t.Errorf("%s: got %+v", tc.raw, c)
		}
		if strings.Contains(c.String(), "s3cret") || strings.Contains(c.String(), ":p@") {
			t.Errorf("%s: String() shows the password: %s", tc.raw, c)
		}
	}
}

// TestChatOutcomes: how each answer of a chat webhook is classified, so
// that only a message certainly not posted is tried again.
func TestChatOutcomes(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   outcome
	}{
		{200, delivered}, {204, delivered}, {429, notDelivered}, {503, notDelivered}, {408, notDelivered},
		{500, uncertain}, {502, uncertain}, {400, refused}, {404, refused},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(tc.status)
		}))
		u, _ := url.Parse(srv.URL)
		if got := NewChatPoster(u, nil).Post(context.Background(), "hello"); got.outcome != tc.want {
			t.Errorf("answer %d: outcome %d (%s), want %d", tc.status, got.outcome, got.why, tc.want)
		}
		srv.Close()
	}

	// Nobody listening: certainly not posted.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	ln.Close()
	if got := NewChatPoster(closed, nil).Post(context.Background(), "hello"); got.outcome != notDelivered {
		t.Errorf("no server: outcome %d (%s), want notDelivered", got.outcome, got.why)
	}

	// The whole request read, then the connection dropped: may have been
	// posted.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/services/T/B/secret-token")
	got := NewChatPoster(u, nil).Post(context.Background(), "hello")
	if got.outcome != uncertain {
		t.Errorf("dropped after the request: outcome %d (%s), want uncertain", got.outcome, got.why)
	}
	if strings.Contains(got.why, "secret-token") {
		t.Errorf("the reason repeats the webhook URL: %s", got.why)
	}
}

// tlsSession records one SMTP session: whether it was over TLS, who
// authenticated, and the message.
type tlsSession struct {
	conn *smtp.Conn
	mu   *sync.Mutex
	got  *[]string
}

func (s *tlsSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *tlsSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != "alerts" || pass != "s3cret" {
			return errors.New("bad credentials")
		}
		s.mu.Lock()
		*s.got = append(*s.got, "auth:"+user)
		s.mu.Unlock()
		return nil
	}), nil
}
func (s *tlsSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *tlsSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *tlsSession) Data(r io.Reader) error {
	_, _ = io.Copy(io.Discard, r)
	_, isTLS := s.conn.TLSConnectionState()
	s.mu.Lock()
	defer s.mu.Unlock()
	if isTLS {
		*s.got = append(*s.got, "data over TLS")
	} else {
		*s.got = append(*s.got, "data in clear")
	}
	return nil
}
func (s *tlsSession) Reset()        {}
func (s *tlsSession) Logout() error { return nil }

// TestMailStartTLS: a server that offers STARTTLS gets the message over TLS,
// and the password only then.
func TestMailStartTLS(t *testing.T) {
	cert, roots := selfSigned(t)
	var mu sync.Mutex
	var got []string
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &tlsSession{conn: c, mu: &mu, got: &got}, nil
	}))
	srv.Domain = "localhost"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	cfg, err := ParseSMTPURL("smtp://alerts:s3cret@" + ln.Addr().String() + "?from=alerts@partner.example")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMailer(cfg, "admin.partner.example", &tls.Config{RootCAs: roots})
	res := m.Send(context.Background(), "approver@partner.example", "Subject", "Body\n", time.Now())
	if res.outcome != delivered {
		t.Fatalf("outcome %d: %s", res.outcome, res.why)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != "auth:alerts,data over TLS" {
		t.Fatalf("server saw %v, want authentication and the message over TLS", got)
	}
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}
