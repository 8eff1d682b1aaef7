// The owner's signing device, played by tests: its keys, its requests to
// a sign link, and the QR codes that carry the link.

package webtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/png" // DecodeQR reads PNG codes
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"partneradmin/apiclient/ethsig"
	"partneradmin/apiclient/sandbox"
)

// OwnerKey reads the demo treasury's owner key from the device keystore the
// sandbox writes.
func OwnerKey(t testing.TB, env *Env, label string) *secp256k1.PrivateKey {
	t.Helper()
	path := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: path}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ks sandbox.KeystoreFile
	if err := json.Unmarshal(b, &ks); err != nil {
		t.Fatal(err)
	}
	for _, k := range ks.Keys {
		if k.Label == label {
			key, err := ethsig.ParsePrivateKey(k.PrivateKey)
			if err != nil {
				t.Fatal(err)
			}
			return key
		}
	}
	t.Fatalf("no key %q in the keystore", label)
	return nil
}

// SignHash signs a device request's hashToSign with k.
func SignHash(t testing.TB, k *secp256k1.PrivateKey, hashHex any) ethsig.Signature {
	t.Helper()
	s, _ := hashHex.(string)
	h, err := ethsig.ParseHash(s)
	if err != nil {
		t.Fatalf("hashToSign %q: %v", s, err)
	}
	return ethsig.Sign(k, h)
}

// DeviceGet is a minimal signing device reading a sign link: a GET as
// JSON, returning the status and the decoded body.
func DeviceGet(t testing.TB, env *Env, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.URL(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	return deviceDo(t, req)
}

// DevicePost is the device's answer to a sign link: it POSTs a
// signature and returns the status and the decoded body.
func DevicePost(t testing.TB, env *Env, path, signature string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"signature": signature})
	req, err := http.NewRequest(http.MethodPost, env.URL(path), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return deviceDo(t, req)
}

// deviceDo sends a device's request without cookies and decodes the JSON
// answer (nil when it is not JSON).
func deviceDo(t testing.TB, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// SignOnDevice plays the owner's device on a link: GET it as JSON, sign
// its hash with the keystore key named label, POST the signature. It
// returns the device's answer.
func SignOnDevice(t testing.TB, env *Env, link string, label string) (int, map[string]any) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	code, req := DeviceGet(t, env, u.Path)
	if code != http.StatusOK || req["kind"] != "workflow" {
		t.Fatalf("device get %s: %d %v", link, code, req)
	}
	return DevicePost(t, env, u.Path, SignHash(t, OwnerKey(t, env, label), req["hashToSign"]).Hex())
}

// DecodeQR reads the text of a PNG QR code.
func DecodeQR(t testing.TB, png []byte) string {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	// A generated code is a pure barcode; a screenshot may need the
	// harder search.
	res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
	if err != nil {
		res, err = qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
	}
	if err != nil {
		t.Fatalf("decode qr: %v", err)
	}
	return res.GetText()
}

// DecodeQRDataURL decodes a data:image/png;base64 QR code to its text.
func DecodeQRDataURL(t testing.TB, src string) string {
	t.Helper()
	b64, ok := strings.CutPrefix(src, "data:image/png;base64,")
	if !ok {
		t.Fatalf("QR src is not a PNG data URL: %.40q", src)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return DecodeQR(t, raw)
}

// SignLink is a sign request's link, as its page shows it.
type SignLink struct {
	URL    string // absolute link from the QR code
	Path   string // /sign/<token>
	PollID string
}

// IssueSignLink creates a sign request for a proposal and returns its link,
// checking that the QR code carries the same link.
func IssueSignLink(t testing.TB, env *Env, c *http.Client, proposal string) SignLink {
	t.Helper()
	resp := env.PostForm(c, "/approvals/"+proposal+"/sign-requests", WithFormToken(url.Values{}))
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("create sign request: %d %s", resp.StatusCode, b)
	}
	doc := Doc(t, resp)
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	src, _ := doc.Find(`[data-testid="sign-qr"]`).Attr("src")
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil || !strings.HasPrefix(src, "data:image/png;base64,") {
		t.Fatalf("qr src %.40q: %v", src, err)
	}
	if got := DecodeQR(t, png); got != link {
		t.Fatalf("qr says %q, link is %q", got, link)
	}
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(link, env.Config.PublicOrigin+"/sign/") || len(strings.TrimPrefix(u.Path, "/sign/")) != 43 {
		t.Fatalf("link %q", link)
	}
	poll, _ := doc.Find(`#sign-state`).Attr("hx-get")
	return SignLink{URL: link, Path: u.Path, PollID: poll}
}

// SignState is a sign request's state and error, as its page polls them.
func SignState(t testing.TB, env *Env, c *http.Client, l SignLink) (string, string) {
	t.Helper()
	doc := Doc(t, env.Do(c, http.MethodGet, l.PollID, nil, http.Header{"HX-Request": {"true"}}))
	st, _ := doc.Find(`[data-testid="sign-state"]`).Attr("data-state")
	return st, TestID(doc, "sign-error")
}

// CollectedSignatures is the proposal's signature count upstream.
func CollectedSignatures(t testing.TB, env *Env, proposal string) int {
	t.Helper()
	p, err := env.Store.ProposalByID(context.Background(), proposal)
	if err != nil {
		t.Fatal(err)
	}
	up, err := env.API.GetProposal(context.Background(), p.OwnerUserID, proposal)
	if err != nil {
		t.Fatal(err)
	}
	return up.CollectedSignatures
}
