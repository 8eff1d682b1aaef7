package handlers

import (
	"encoding/base64"
	"fmt"

	qrcode "github.com/skip2/go-qrcode"
)

// QRDataURL encodes text (a link, an address) as a PNG QR code of size
// pixels in a data: URL: the CSP allows img-src data:, and nothing is
// fetched. It is the one QR encoder of the app.
func QRDataURL(text string, size int) (string, error) {
	png, err := qrcode.Encode(text, qrcode.Medium, size)
	if err != nil {
		return "", fmt.Errorf("handlers: qr code: %w", err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png), nil
}
