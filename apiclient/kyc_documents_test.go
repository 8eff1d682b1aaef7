package apiclient

import (
	"encoding/json"
	"strings"
	"testing"
)

// GET /kyc's documents are decoded without the identification's number,
// and PATCH /kyc never sends them back.
func TestKYCDocumentsDecodedNotSent(t *testing.T) {
	var p KYCProfile
	body := `{"documents":{"identification":{"type":"passport","documentNumber":"X123","sides":["front"]},"proofOfAddress":true,"biometric":false}}`
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	d := p.Documents
	if d == nil || d.Identification == nil || d.Identification.Type != "passport" || !d.ProofOfAddress || d.Biometric {
		t.Fatalf("documents %+v", d)
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "X123") {
		t.Fatalf("the document number was kept: %s", out)
	}
}
