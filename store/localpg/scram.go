package localpg

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it: without
// channel binding (the cluster has no TLS) and with the user name taken
// from the startup message, so the SCRAM one is left empty.

const (
	scramMechanism = "SCRAM-SHA-256"
	// scramIterations is what PostgreSQL 15 uses for the verifiers it
	// makes itself; verifiers made here use the same.
	scramIterations = 4096
	// maxSCRAMIterations refuses a server that asks for absurd work before
	// it has proved it knows the password: not one of ours.
	maxSCRAMIterations = 1 << 20
	// The authentication request codes of an 'R' message.
	authOK           = 0
	authSASL         = 10
	authSASLContinue = 11
	authSASLFinal    = 12
)

// scramKeys derives the keys of RFC 5802 section 3 from a password.
func scramKeys(password string, salt []byte, iterations int) (clientKey, storedKey, serverKey []byte, err error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("scram: derive key: %w", err)
	}
	clientKey = hmacSHA256(salted, "Client Key")
	sum := sha256.Sum256(clientKey)
	return clientKey, sum[:], hmacSHA256(salted, "Server Key"), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// scramVerifier is what PostgreSQL stores in pg_authid for password, in the
// form ALTER ROLE ... PASSWORD accepts as already hashed, so that the
// password itself never reaches the server (nor its log, which quotes a
// failed statement).
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("scram: salt: %w", err)
	}
	_, storedKey, serverKey, err := scramKeys(password, salt, scramIterations)
	if err != nil {
		return "", err
	}
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("%s$%d:%s$%s:%s", scramMechanism, scramIterations, b64(salt), b64(storedKey), b64(serverKey)), nil
}

// scramClient is one exchange from the client's side.
type scramClient struct {
	password        string
	clientFirstBare string
	clientNonce     string
	serverSignature []byte // expected in the server's final message
}

func newSCRAMClient(password string) (*scramClient, error) {
	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("scram: nonce: %w", err)
	}
	return newSCRAMClientWithNonce(password, "", base64.StdEncoding.EncodeToString(nonce)), nil
}

// newSCRAMClientWithNonce takes the nonce and user name from the caller, so
// that the exchange can be checked against the RFC's example.
func newSCRAMClientWithNonce(password, user, nonce string) *scramClient {
	return &scramClient{password: password, clientNonce: nonce, clientFirstBare: "n=" + user + ",r=" + nonce}
}

// firstMessage is client-first-message: no channel binding, no authzid.
func (s *scramClient) firstMessage() string { return "n,," + s.clientFirstBare }

// finalMessage answers server-first-message with client-final-message.
func (s *scramClient) finalMessage(serverFirst string) (string, error) {
	attrs := scramAttributes(serverFirst)
	nonce, salt64, iter := attrs["r"], attrs["s"], attrs["i"]
	if !strings.HasPrefix(nonce, s.clientNonce) || len(nonce) == len(s.clientNonce) {
		return "", errors.New("scram: the server's nonce does not extend ours")
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil || len(salt) == 0 {
		return "", fmt.Errorf("scram: salt %q is not base64", salt64)
	}
	iterations, err := strconv.Atoi(iter)
	if err != nil || iterations < 1 || iterations > maxSCRAMIterations {
		return "", fmt.Errorf("scram: iteration count %q refused", iter)
	}
	clientKey, storedKey, serverKey, err := scramKeys(s.password, salt, iterations)
	if err != nil {
		return "", err
	}
	withoutProof := "c=biws,r=" + nonce // biws: base64 of "n,,"
	authMessage := s.clientFirstBare + "," + serverFirst + "," + withoutProof
	proof := hmacSHA256(storedKey, authMessage)
	for i := range proof {
		proof[i] ^= clientKey[i]
	}
	s.serverSignature = hmacSHA256(serverKey, authMessage)
	return withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof), nil
}

// verifyServer checks server-final-message: only a server that knows the
// password's verifier can sign the exchange.
func (s *scramClient) verifyServer(serverFinal string) error {
	attrs := scramAttributes(serverFinal)
	if e, ok := attrs["e"]; ok {
		return fmt.Errorf("scram: server refused: %s", e)
	}
	got, err := base64.StdEncoding.DecodeString(attrs["v"])
	if err != nil || s.serverSignature == nil || !hmac.Equal(got, s.serverSignature) {
		return errors.New("scram: the server's signature is wrong: it does not know the password")
	}
	return nil
}

// scramAttributes splits "a=1,b=2" into its attributes.
func scramAttributes(msg string) map[string]string {
	attrs := map[string]string{}
	for part := range strings.SplitSeq(msg, ",") {
		if k, v, ok := strings.Cut(part, "="); ok && len(k) == 1 {
			attrs[k] = v
		}
	}
	return attrs
}

// authenticateSCRAM runs the exchange that an AuthenticationSASL request
// (whose mechanism list is mechanisms) begins.
func (c *wireConn) authenticateSCRAM(mechanisms []byte, password string) error {
	if !mechanismOffered(mechanisms, scramMechanism) {
		return fmt.Errorf("server offers SASL mechanisms %q, not %s", strings.ReplaceAll(strings.TrimRight(string(mechanisms), "\x00"), "\x00", ", "), scramMechanism)
	}
	if password == "" {
		return errors.New("server asks for a password and none is known")
	}
	s, err := newSCRAMClient(password)
	if err != nil {
		return err
	}
	// SASLInitialResponse: mechanism, then the length of the data.
	first := s.firstMessage()
	body := append([]byte(scramMechanism), 0)
	body = binary.BigEndian.AppendUint32(body, uint32(len(first)))
	body = append(body, first...)
	if err := c.send('p', body); err != nil {
		return err
	}
	serverFirst, err := c.readSASL(authSASLContinue)
	if err != nil {
		return err
	}
	final, err := s.finalMessage(serverFirst)
	if err != nil {
		return err
	}
	if err := c.send('p', []byte(final)); err != nil {
		return err
	}
	serverFinal, err := c.readSASL(authSASLFinal)
	if err != nil {
		return err
	}
	return s.verifyServer(serverFinal)
}

// readSASL reads the next authentication request, which must have code
// want, and returns its data.
func (c *wireConn) readSASL(want uint32) (string, error) {
	typ, payload, err := c.read()
	if err != nil {
		return "", err
	}
	switch {
	case typ == 'E':
		return "", parseError(payload)
	case typ != 'R' || len(payload) < 4:
		return "", fmt.Errorf("protocol: message %q during SCRAM", typ)
	case binary.BigEndian.Uint32(payload) != want:
		return "", fmt.Errorf("protocol: authentication request %d during SCRAM, want %d", binary.BigEndian.Uint32(payload), want)
	}
	return string(payload[4:]), nil
}

func mechanismOffered(list []byte, name string) bool {
	for m := range strings.SplitSeq(string(list), "\x00") {
		if m == name {
			return true
		}
	}
	return false
}
