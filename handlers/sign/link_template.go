package sign

import (
	"errors"
	"net/url"
	"strings"
	"unicode/utf8"
)

// DefaultLinkTemplate puts the sign link itself in the QR code.
const DefaultLinkTemplate = "{link}"

// linkPlaceholder is where the link goes in a template.
const linkPlaceholder = "{link}"

// CheckLinkTemplate validates SIGN_LINK_TEMPLATE: it must hold {link}, and
// with the link in place be an absolute URL (a partner's wallet app
// registers its own scheme, such as myapp://sign?link={link}).
func CheckLinkTemplate(tpl string) error {
	if tpl == "" || tpl == DefaultLinkTemplate {
		return nil
	}
	if len(tpl) > 500 || !utf8.ValidString(tpl) {
		return errors.New("want at most 500 characters of text")
	}
	if !strings.Contains(tpl, linkPlaceholder) {
		return errors.New("must contain {link}, where the sign link goes (URL-encoded)")
	}
	for _, r := range tpl {
		if r <= ' ' || r == 0x7f {
			return errors.New("must not contain spaces or control characters")
		}
	}
	u, err := url.Parse(LinkContent(tpl, "https://example.com/sign/token"))
	if err != nil || u.Scheme == "" {
		return errors.New("must be an absolute URL with a scheme, such as myapp://sign?link={link}")
	}
	return nil
}

// LinkContent is what the QR code of link carries under the template: the
// link itself for the default, else the template with {link} replaced by
// the link URL-encoded.
func LinkContent(tpl, link string) string {
	if tpl == "" || tpl == DefaultLinkTemplate {
		return link
	}
	return strings.ReplaceAll(tpl, linkPlaceholder, url.QueryEscape(link))
}
