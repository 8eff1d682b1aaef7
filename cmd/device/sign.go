package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	_ "image/jpeg" // screenshots may be JPEG
	_ "image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"partneradmin/apiclient/ethsig"
)

// signRequest is the server's GET answer (DESIGN.md decision 5).
type signRequest struct {
	Kind         string    `json:"kind"`
	HashToSign   string    `json:"hashToSign"`
	Message      string    `json:"message"`
	Deadline     time.Time `json:"deadline"`
	OwnerAddress string    `json:"ownerAddress"`
	Summary      struct {
		Title       string `json:"title"`
		Amount      string `json:"amount"`
		Currency    string `json:"currency"`
		From        string `json:"from"`
		To          string `json:"to"`
		Description string `json:"description"`
	} `json:"summary"`
	// Items are a batch's proposals (kind "batch").
	Items []batchItem `json:"items"`
	Error string      `json:"error"`
}

type signAnswer struct {
	State          string `json:"state"`
	ProposalStatus string `json:"proposalStatus"`
	Error          string `json:"error"`
}

// eurAuthorizationPrefix is how apiclient.EURProviderAuthorizationMessage
// begins: the text the EUR provider checks.
const eurAuthorizationPrefix = "EUR provider authorization: "

var httpClient = &http.Client{Timeout: 30 * time.Second}

func (e *env) sign(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("device sign", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	path := fs.String("keystore", e.defaultKeystore(), "keystore file")
	yes := fs.Bool("yes", false, "sign without asking (for scripts)")
	qr := fs.String("qr", "", "read the link from a QR code image (PNG or JPEG)")
	wrongPrefix := fs.Bool("wrong-prefix", false, "deliberately sign a proposal hash with the signed-message prefix, to see the server refuse it")
	pos, err := parse(fs, args)
	if err != nil {
		return exitError
	}
	link, ok := e.readLink(*qr, pos)
	if !ok {
		return exitError
	}
	ks, err := loadKeystore(*path)
	if err != nil {
		fmt.Fprintln(e.stderr, "device:", err)
		return exitError
	}

	req, code := e.fetch(ctx, link)
	if code != exitOK {
		return code
	}
	if req.Kind == "batch" {
		return e.signBatch(ctx, link, req, ks, *path, *yes, *wrongPrefix)
	}
	e.showRequest(req)
	key, ok := ks.find(req.OwnerAddress)
	if !ok {
		fmt.Fprintf(e.stderr, "device: no key for owner %s in %s\n", req.OwnerAddress, *path)
		return exitNoKey
	}
	if !*yes && !e.confirm("Sign this request?") {
		fmt.Fprintln(e.stderr, "device: declined, nothing signed")
		return exitDeclined
	}
	sig, ok := e.signature(req, key, *wrongPrefix)
	if !ok {
		return exitError
	}
	return e.post(ctx, link, sig)
}

// readLink takes the signing link from the one argument or from the QR
// code image, and says on stderr what is wrong when neither gives one.
func (e *env) readLink(qr string, pos []string) (string, bool) {
	var raw string
	switch {
	case qr != "" && len(pos) == 0:
		var err error
		if raw, err = decodeQRFile(qr); err != nil {
			fmt.Fprintln(e.stderr, "device:", err)
			return "", false
		}
	case qr == "" && len(pos) == 1:
		raw = pos[0]
	default:
		fmt.Fprintln(e.stderr, "device: give a link, or --qr with an image of its QR code")
		return "", false
	}
	link, ok := signLink(raw)
	if !ok {
		fmt.Fprintf(e.stderr, "device: %q is not a signing link (want http(s)://host/sign/<token>, or an app link carrying one)\n", redactLink(raw))
		return "", false
	}
	if qr != "" {
		fmt.Fprintf(e.stdout, "QR code: %s\n", redactLink(link))
	}
	return link, true
}

// showRequest prints what is about to be signed.
func (e *env) showRequest(req *signRequest) {
	fmt.Fprintf(e.stdout, "%s\n", req.Summary.Title)
	if req.Summary.Amount != "" {
		fmt.Fprintf(e.stdout, "  amount:      %s %s\n", req.Summary.Amount, req.Summary.Currency)
	}
	for _, l := range [][2]string{{"from", req.Summary.From}, {"to", req.Summary.To}, {"description", req.Summary.Description}} {
		if l[1] != "" {
			fmt.Fprintf(e.stdout, "  %-12s %s\n", l[0]+":", l[1])
		}
	}
	fmt.Fprintf(e.stdout, "  deadline:    %s\n", req.Deadline.UTC().Format(time.RFC3339))
	fmt.Fprintf(e.stdout, "  signing key: %s\n", req.OwnerAddress)
}

// signature signs the request in the way its kind asks, or says on stderr
// why it will not.
func (e *env) signature(req *signRequest, key *secp256k1.PrivateKey, wrongPrefix bool) (ethsig.Signature, bool) {
	var sig ethsig.Signature
	switch req.Kind {
	case "proposal", "workflow":
		hash, err := ethsig.ParseHash(req.HashToSign)
		if err != nil {
			fmt.Fprintf(e.stderr, "device: the server sent a hash that cannot be signed: %v\n", err)
			return sig, false
		}
		if wrongPrefix {
			// The mistake the spec warns about: a message-signing method on
			// a proposal hash recovers to a different address.
			fmt.Fprintln(e.stdout, "signing WITH the signed-message prefix (--wrong-prefix): the server should refuse this")
			sig = ethsig.SignMessage(key, hash[:])
		} else {
			sig = ethsig.Sign(key, hash)
		}
	case "owner_proof":
		sig = ethsig.SignMessage(key, []byte(req.Message))
	case "eur_authorization":
		// The EUR provider's authorization: the code is signed as a
		// message, and only in the text the provider expects, so a link
		// cannot make this device sign something else under this name.
		if !strings.HasPrefix(req.Message, eurAuthorizationPrefix) || len(req.Message) == len(eurAuthorizationPrefix) {
			fmt.Fprintf(e.stderr, "device: an EUR provider authorization must read %q followed by the code; refusing to sign %q\n", eurAuthorizationPrefix, req.Message)
			return sig, false
		}
		fmt.Fprintf(e.stdout, "  message:     %s\n", req.Message)
		sig = ethsig.SignMessage(key, []byte(req.Message))
	default:
		fmt.Fprintf(e.stderr, "device: unknown request kind %q\n", req.Kind)
		return sig, false
	}
	return sig, true
}

func (e *env) fetch(ctx context.Context, link string) (*signRequest, int) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		fmt.Fprintln(e.stderr, "device:", err)
		return nil, exitError
	}
	hr.Header.Set("Accept", "application/json")
	resp, err := httpClient.Do(hr)
	if err != nil {
		fmt.Fprintf(e.stderr, "device: cannot reach the server: %v\n", err)
		return nil, exitError
	}
	defer resp.Body.Close()
	var req signRequest
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&req); err != nil {
		fmt.Fprintf(e.stderr, "device: the server answered %d without a request: %v\n", resp.StatusCode, err)
		return nil, exitError
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		fmt.Fprintf(e.stderr, "device: %s\n", req.Error)
		return nil, exitGone
	case resp.StatusCode != http.StatusOK:
		fmt.Fprintf(e.stderr, "device: the server answered %d: %s\n", resp.StatusCode, req.Error)
		return nil, exitUpstream
	}
	return &req, exitOK
}

func (e *env) post(ctx context.Context, link string, sig ethsig.Signature) int {
	body, _ := json.Marshal(map[string]string{"signature": sig.Hex()})
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, link, bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(e.stderr, "device:", err)
		return exitError
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	// Never retried: a signature is not idempotent upstream.
	resp, err := httpClient.Do(hr)
	if err != nil {
		fmt.Fprintf(e.stderr, "device: the signature may or may not have arrived (%v); check with the approver before signing again\n", err)
		return exitUpstream
	}
	defer resp.Body.Close()
	var ans signAnswer
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&ans)
	switch resp.StatusCode {
	case http.StatusOK:
		fmt.Fprintf(e.stdout, "signed: %s (proposal %s)\n", ans.State, ans.ProposalStatus)
		return exitOK
	case http.StatusUnprocessableEntity:
		fmt.Fprintf(e.stderr, "device: refused, nothing was sent to the wallet service: %s\n", ans.Error)
		return exitRefused
	case http.StatusNotFound, http.StatusGone:
		fmt.Fprintf(e.stderr, "device: %s\n", ans.Error)
		return exitGone
	}
	fmt.Fprintf(e.stderr, "device: the wallet service did not accept it (%d): %s\n", resp.StatusCode, ans.Error)
	return exitUpstream
}

// signLink finds the http(s) sign link in what was scanned or given: the
// link itself, or a wallet app's own link carrying it URL-encoded in a
// query parameter (partner-admin's SIGN_LINK_TEMPLATE, such as
// myapp://sign?link=<link>).
func signLink(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	if isSignURL(u) {
		return raw, true
	}
	q := u.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range q[k] {
			if inner, err := url.Parse(v); err == nil && isSignURL(inner) {
				return v, true
			}
		}
	}
	return "", false
}

func isSignURL(u *url.URL) bool {
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && strings.HasPrefix(u.Path, "/sign/") &&
		len(u.Path) > len("/sign/")
}

// decodeQRFile reads the text of a QR code in an image.
func decodeQRFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open QR image: %w", err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return "", fmt.Errorf("QR image %s: %w", path, err)
	}
	return decodeQR(img)
}

func decodeQR(img image.Image) (string, error) {
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", fmt.Errorf("QR image: %w", err)
	}
	reader := qrcode.NewQRCodeReader()
	// A generated code is a pure barcode; a photo or screenshot may need
	// the harder search.
	res, err := reader.Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
	if err != nil {
		res, err = reader.Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
	}
	if err != nil {
		return "", fmt.Errorf("no QR code found in the image: %w", err)
	}
	return res.GetText(), nil
}

// redactLink hides most of a link's token (it is a credential) in output.
func redactLink(link string) string {
	i := strings.Index(link, "/sign/")
	if i < 0 || len(link) < i+6+8 {
		return link
	}
	return link[:i+6+6] + "…"
}
