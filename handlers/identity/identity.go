// Package identity holds what the BVN and NIN lookups show staff: the
// holder's name beside the employee's, and why a lookup gave no holder.
// Nothing a lookup returns is kept (DESIGN.md 8).
package identity

import (
	"net/http"
	"regexp"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/views"
)

// numberPattern is a BVN or a NIN (spec: "BVN must be exactly 11 digits" /
// "NIN must be exactly 11 digits").
var numberPattern = regexp.MustCompile(`^[0-9]{11}$`)

// ValidNumber reports whether s is 11 digits, the shape of a BVN and a NIN.
func ValidNumber(s string) bool { return numberPattern.MatchString(s) }

// Holder is what staff are shown of a lookup's holder: the name alone,
// compared with the employee's.
func Holder(kind string, e store.Employee, hd *apiclient.IdentityHolder) *views.DirectHolderView {
	name := strings.Join(strings.Fields(hd.FirstName+" "+hd.MiddleName+" "+hd.LastName), " ")
	return &views.DirectHolderView{Kind: kind, Name: name,
		Matches: strings.EqualFold(strings.TrimSpace(hd.FirstName), strings.TrimSpace(e.FirstName)) &&
			strings.EqualFold(strings.TrimSpace(hd.LastName), strings.TrimSpace(e.LastName))}
}

// Problem says why a lookup gave no holder, and the status to answer it
// with: 422 when the API refused the number, 502 when it could not answer.
func Problem(kind string, err error) (string, int) {
	if apiclient.IsNotFound(err) {
		return "The Partner API knows no one with this " + kind + ". Check the number with the employee.", http.StatusUnprocessableEntity
	}
	status := http.StatusBadGateway
	if apiclient.StatusCode(err) == http.StatusBadRequest {
		status = http.StatusUnprocessableEntity
	}
	return "The " + kind + " could not be looked up. " + apiclient.ReadWords(err), status
}
