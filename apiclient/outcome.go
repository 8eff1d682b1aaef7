package apiclient

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// OutcomeKind is what a state-changing call is known to have done.
type OutcomeKind int

const (
	// Done: the API answered 2xx; the write took effect.
	Done OutcomeKind = iota
	// Refused: the API answered and did not take the write (or it was
	// never sent: a local validation failure). Sending it again as it is
	// cannot succeed.
	Refused
	// Unknown: no answer, or an answer that does not say whether the write
	// was recorded (a timeout, a reset, most 5xx). Read it back; never send
	// it again blindly.
	Unknown
)

// String names the kind for logs.
func (k OutcomeKind) String() string {
	switch k {
	case Done:
		return "done"
	case Refused:
		return "refused"
	}
	return "unknown"
}

// Outcome classifies the error of a state-changing call (nil is Done). It
// matches on status and operation, never on message wording, which the spec
// calls unstable.
func Outcome(err error) OutcomeKind {
	if err == nil {
		return Done
	}
	var fe FieldErrors
	if errors.As(err, &fe) {
		return Refused // refused locally; nothing was sent
	}
	var ae *Error
	if !errors.As(err, &ae) {
		if errors.Is(err, ErrValidation) {
			return Refused // a bad path or body: nothing was sent
		}
		return Unknown
	}
	switch s := ae.StatusCode; {
	case s == http.StatusRequestTimeout:
		return Unknown
	case s < 500:
		return Refused
	case definiteServerRefusal(ae):
		return Refused
	}
	return Unknown
}

// definiteServerRefusal reports the 5xx answers the spec says record
// nothing: a signature the API cannot decode ("Point is not on curve",
// "Invalid yParityOrV"), a card transition the issuer refused ("retrying
// cannot succeed"), and an account deletion whose balances could not be
// verified ("retry, nothing deleted").
func definiteServerRefusal(ae *Error) bool {
	switch {
	case ae.StatusCode == http.StatusInternalServerError && isSignatureOp(ae.Op):
		return true
	case ae.StatusCode == http.StatusInternalServerError && isCardStatusOp(ae.Op):
		return true
	case ae.StatusCode == http.StatusServiceUnavailable && ae.Op == "DeleteUser":
		return true
	}
	return false
}

func isSignatureOp(op string) bool { return op == "SignProposal" || op == "SubmitSignature" }

func isCardStatusOp(op string) bool {
	switch op {
	case "SetCardStatus", "DeactivateCard":
		return true
	}
	return false
}

// Problem is an upstream failure explained for a person.
type Problem struct {
	Kind OutcomeKind
	// Status is the HTTP status, 0 when there was no answer.
	Status int
	// Summary is one or two sentences for the person who acted: what
	// happened and what to do. It never contains the API key or a request
	// body.
	Summary string
	// Fields are the API's per-field messages (validation), keyed by the
	// request field's JSON path; "" holds messages that name no field.
	Fields FieldErrors
}

// Explain turns an error from the API into words for a person. It is the one
// mapping of the app, covering every row of the spec's Errors table; areas
// add only what their own screen means ("the proposal", "the card").
func Explain(err error) Problem {
	p := Problem{Kind: Outcome(err), Status: StatusCode(err)}
	var fe FieldErrors
	if errors.As(err, &fe) {
		p.Fields = fe
		p.Summary = "Nothing was sent: " + fe.List() + "."
		return p
	}
	var ae *Error
	if !errors.As(err, &ae) {
		if p.Kind == Refused {
			p.Summary = "Nothing was sent: the request was not valid."
			return p
		}
		p.Summary = "The Partner API did not answer in time, so it is not known whether it recorded the request. " +
			"The app reads it back before anything is sent again."
		return p
	}
	msg := ae.Message()
	said := ""
	if msg != "" {
		said = " (the API said: " + msg + ")"
	}
	switch s := ae.StatusCode; {
	case s == http.StatusBadRequest && ae.Op == "DeleteUser":
		p.Summary = "The account still holds balances, so it cannot be deleted: move or withdraw them first" + said + "."
	case s == http.StatusBadRequest && ae.Op == "CreateCard":
		p.Summary = "The card owner is not enrolled for cards: give their NIN to enrol them with this card" + said + "."
	case s == http.StatusBadRequest && ae.Op == "ReactivateUser":
		p.Summary = "The account was deleted over 90 days ago and can no longer be reactivated" + said + "."
	case s == http.StatusBadRequest && ae.Op == "ActivateMexicoKYC":
		p.Summary = "Mexico cannot be activated yet: the profile is not approved or its RFC is missing" + said + "."
	case s == http.StatusBadRequest && (ae.Op == "GetMexicoAgreementsLaunch" || ae.Op == "GetMexicoIDVLaunch"):
		p.Summary = "The Mexican KYC cannot be opened yet: activate it first from the employee's page" + said + "."
	case s == http.StatusBadRequest && (ae.Op == "CreateTransferProposal" || ae.Op == "Send"):
		p.Fields = ae.Fields()
		p.Summary = "The API refused the transfer: the recipient must be given and must have an active account in the currency" + said + "."
	case s == http.StatusBadRequest && isCardStatusOp(ae.Op):
		p.Summary = "The API takes only BLOCKED or ACTIVE as a card status" + said + "."
	case s == http.StatusBadRequest || s == http.StatusUnprocessableEntity:
		p.Fields = ae.Fields()
		p.Summary = "The API refused the request as invalid" + said + ". Correct the fields named and send it again."
	case s == http.StatusUnauthorized:
		p.Summary = "The Partner API refused the app's API key (missing, malformed or revoked). The owner must check the API connection."
	case s == http.StatusForbidden && ae.Op == "ApproveProposal" || s == http.StatusForbidden && ae.Op == "RejectProposal":
		p.Summary = "The API refused: the wallet admin you act as is not an admin of this wallet" + said + "."
	case s == http.StatusForbidden:
		p.Summary = "The API refused: this user or resource does not belong to this partner" + said + "."
	case s == http.StatusNotFound && ae.Op == "DeleteWebhookConfig" || s == http.StatusNotFound && ae.Op == "UpdateWebhookConfig":
		p.Summary = "The API has no webhook subscription for this partner."
	case s == http.StatusNotFound && strings.Contains(ae.Op, "Nigerian"):
		p.Summary = "No Nigerian bank account matches these details" + said + "."
	case s == http.StatusNotFound:
		p.Summary = "The API does not know it (any more): a deleted user, or a resource that is gone or not yet in a state this action serves" + said + "."
	case s == http.StatusConflict && ae.Op == "CreateUser":
		p.Summary = "The API already has a user with this email, phone number or employee identifier" + said + "."
	case s == http.StatusConflict && ae.Op == "CreateWebhookConfig":
		p.Summary = "The API already has a webhook subscription for this partner: update it instead."
	case s == http.StatusConflict:
		p.Summary = "The API refused: it changed state meanwhile" + said + ". The page shows its current state."
	case s == http.StatusTooManyRequests:
		p.Summary = "The Partner API is limiting requests. Nothing was recorded; try again in a minute."
	case s == http.StatusInternalServerError && isSignatureOp(ae.Op):
		p.Summary = "The API could not use the signature: it must be 65 bytes as 0x and 130 hex characters, in r, s, v order, with v 27 or 28" + said + "."
	case s == http.StatusInternalServerError && isCardStatusOp(ae.Op):
		p.Summary = "The card issuer does not allow this change in the card's current status; retrying cannot succeed. The card's status is read again" + said + "."
	case s == http.StatusServiceUnavailable && ae.Op == "DeleteUser":
		p.Summary = "The API could not verify the account's balances, so nothing was deleted. Try again in a moment."
	default:
		p.Summary = "The Partner API failed (" + http.StatusText(s) + ") without saying whether it recorded the request. " +
			"The app reads it back before anything is sent again."
	}
	return p
}

// Words is Explain's summary.
func Words(err error) string { return Explain(err).Summary }

// ReadWords says in one or two sentences why a read of the API failed. A
// read changes nothing, so unlike Words it never speaks of whether the API
// recorded anything; the caller says what could not be read.
func ReadWords(err error) string {
	var fe FieldErrors
	if errors.As(err, &fe) {
		return "Nothing was asked: " + fe.List() + "."
	}
	var ae *Error
	if !errors.As(err, &ae) {
		return "The Partner API did not answer. Try again in a moment."
	}
	said := ""
	if msg := ae.Message(); msg != "" {
		said = " (the API said: " + msg + ")"
	}
	switch s := ae.StatusCode; {
	case s == http.StatusUnauthorized:
		return "The Partner API refused the app's API key. An owner can check the API connection in the settings."
	case s == http.StatusForbidden:
		return "The Partner API refused: this user or resource belongs to another partner" + said + "."
	case s == http.StatusNotFound:
		return "The Partner API has nothing to show here yet" + said + "."
	case s == http.StatusTooManyRequests:
		return "The Partner API is limiting requests. Try again in a minute."
	case s < 500:
		return "The Partner API refused the request" + said + "."
	}
	return "The Partner API failed (" + strconv.Itoa(ae.StatusCode) + " " + http.StatusText(ae.StatusCode) + "). Try again in a moment."
}
