package employees

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// maxDocumentBytes bounds one uploaded file. The spec names no size; a
// phone photo of a document is a few megabytes.
const maxDocumentBytes = 10 << 20

// maxUploadBody bounds a whole upload: two sides of a document and the
// text fields.
const maxUploadBody = 2*maxDocumentBytes + 64<<10

// document is one of the three KYC uploads.
type document struct {
	Path  string // the route's and the API's last segment
	Words string
	// Files are the form's file fields.
	Files []string
	// PDF: a PDF is taken (outside Mexico); never for a selfie.
	PDF bool
}

var documents = map[string]document{
	"identification":   {Path: "identification", Words: "identity document", Files: []string{"front", "back"}, PDF: true},
	"proof-of-address": {Path: "proof-of-address", Words: "proof of address", Files: []string{"file"}, PDF: true},
	"biometric":        {Path: "biometric", Words: "selfie", Files: []string{"selfie"}},
}

// docUpload is what the ledger keeps of an upload: which document, its
// kind and sides, never the file, its name or the document's number.
type docUpload struct {
	EmployeeID     int64    `json:"employeeId"`
	ServiceUserID  string   `json:"serviceUserId"`
	Document       string   `json:"document"`
	Type           string   `json:"type,omitempty"`
	IssuingCountry string   `json:"issuingCountry,omitempty"`
	Sides          []string `json:"sides,omitempty"`
}

// uploadForm is a parsed multipart upload: the text fields and the files,
// held in memory for the one call and never written anywhere.
type uploadForm struct {
	fields map[string]string
	files  map[string]*apiclient.File
	// problems are per-field refusals found while reading (too large, not
	// an image).
	problems views.FieldErrors
}

// readUpload reads a multipart body part by part into memory: files are
// not spooled to disk as ParseMultipartForm would, and each is bounded.
func readUpload(w http.ResponseWriter, r *http.Request, doc document) (uploadForm, error) {
	u := uploadForm{fields: map[string]string{}, files: map[string]*apiclient.File{}, problems: views.FieldErrors{}}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "multipart/form-data" {
		return u, errNotMultipart
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return u, errNotMultipart
	}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return u, nil
		}
		if err != nil {
			return u, err
		}
		name := p.FormName()
		if p.FileName() == "" {
			b, err := io.ReadAll(io.LimitReader(p, 4<<10))
			if err != nil {
				return u, err
			}
			u.fields[name] = strings.TrimSpace(string(b))
			continue
		}
		wanted := false
		for _, f := range doc.Files {
			wanted = wanted || f == name
		}
		data, err := io.ReadAll(io.LimitReader(p, maxDocumentBytes+1))
		if err != nil {
			return u, err
		}
		switch {
		case !wanted || len(data) == 0:
			// Not one of this form's files, or no file chosen.
		case len(data) > maxDocumentBytes:
			u.problems[name] = "This file is larger than 10 MB: send a smaller photo or scan."
		default:
			kind := http.DetectContentType(data)
			ok := kind == "image/jpeg" || kind == "image/png" || (doc.PDF && kind == "application/pdf")
			if !ok {
				if doc.PDF {
					u.problems[name] = "This file is not a JPEG or PNG photo or a PDF: send one of those."
				} else {
					u.problems[name] = "This file is not a JPEG or PNG photo: send one of those."
				}
				break
			}
			// The person's file name is not passed on: it may name them.
			u.files[name] = &apiclient.File{Name: name + extensionOf(kind), ContentType: kind, Data: data}
		}
		if _, err := io.Copy(io.Discard, p); err != nil {
			return u, err
		}
	}
}

var errNotMultipart = errors.New("employees: upload is not multipart/form-data")

func extensionOf(kind string) string {
	switch kind {
	case "image/jpeg":
		return ".jpg"
	case "image/png":
		return ".png"
	}
	return ".pdf"
}

// DirectUpload sends one KYC document to the Partner API, once per form:
// the file goes from the request to the API in memory and is never
// stored, logged or cached. Size and type are checked first, with words
// next to the field; a refused form asks for the file (and the document
// number) again.
func (h *Handler) DirectUpload(w http.ResponseWriter, r *http.Request) {
	doc, ok := documents[chi.URLParam(r, "document")]
	if !ok {
		h.NotFound(w, r)
		return
	}
	e, ok := h.directEmployee(w, r)
	if !ok {
		return
	}
	u, ok := h.readDocument(w, r, doc)
	if !ok {
		return
	}
	token := u.fields[handlers.FormTokenField]
	if !handlers.ValidFormToken(token) {
		h.StaleForm(w, r)
		return
	}
	key := "form:" + token
	page := fmt.Sprintf("/employees/%d/kyc", e.ID)
	if h.seen(w, r, key, kindKYCDocument, page) {
		return
	}
	req, call := h.documentCall(r.Context(), e, doc, u)
	fields := u.problems
	if fields.Any() {
		h.refuseDocument(w, r, http.StatusUnprocessableEntity, e, doc, u, req, "")
		return
	}
	by := handlers.ActorFrom(r.Context())
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindKYCDocument, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if err := call(ctx); err != nil {
				return handlers.Effect{}, err
			}
			return docEffect(req, ""), nil
		}})
	// The files' bytes are not kept past the call, nor shown again.
	kept := uploadForm{problems: fields}
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	switch d.State() {
	case store.ActionDone:
		if err := h.Refresh(r.Context(), e, by); err != nil {
			h.Logger.WarnContext(r.Context(), "read onboarding after a KYC upload", "employee", e.ID, "err", err)
		}
		h.Flash(r, "ok", "The "+doc.Words+" was sent to the Partner API. It is not kept here.")
		h.Redirect(w, r, page)
	case store.ActionRefused:
		for k, msg := range d.Problem.Fields {
			if f := uploadFieldOf(k); f != "" {
				fields[f] = sentence(FieldInWords(k), msg)
			}
		}
		h.refuseDocument(w, r, problemStatus(d), e, doc, kept, req, d.Problem.Summary)
	default:
		h.refuseDocument(w, r, problemStatus(d), e, doc, kept, req, "The Partner API did not confirm the upload, so it is not known whether it arrived; the app reads it back "+
			"and this page shows it on file once known. Do not send it again meanwhile.")
	}
}

// readDocument reads the upload, or answers why it could not be read.
func (h *Handler) readDocument(w http.ResponseWriter, r *http.Request, doc document) (uploadForm, bool) {
	u, err := readUpload(w, r, doc)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		h.ErrorPage(w, r, http.StatusRequestEntityTooLarge, "Files too large",
			"The files sent are larger than 10 MB each, so nothing was sent to the Partner API. Go back and choose smaller photos or scans.")
		return u, false
	case errors.Is(err, errNotMultipart):
		h.ErrorPage(w, r, http.StatusBadRequest, "Not an upload", "This form sends files: go back, reload the page and send it again.")
		return u, false
	case err != nil:
		h.ErrorPage(w, r, http.StatusBadRequest, "Upload interrupted", "The upload did not arrive whole, so nothing was sent. Send it again.")
		return u, false
	}
	return u, true
}

// documentCall checks the upload's fields for doc (problems go into
// u.problems) and returns what is recorded of it and the upstream call.
func (h *Handler) documentCall(ctx context.Context, e store.Employee, doc document, u uploadForm) (docUpload, func(context.Context) error) {
	req := docUpload{EmployeeID: e.ID, ServiceUserID: e.ServiceUserID, Document: doc.Path, Type: u.fields["type"]}
	fields := u.problems
	switch doc.Path {
	case "identification":
		up := apiclient.IdentificationUpload{Type: req.Type, DocumentNumber: u.fields["document_number"], IssuingCountry: u.fields["issuing_country"],
			ExpirationDate: u.fields["expiration_date"], Front: u.files["front"], Back: u.files["back"]}
		h.checkIdentification(ctx, e, up, fields)
		req.IssuingCountry = up.IssuingCountry
		for _, s := range []string{"front", "back"} {
			if u.files[s] != nil {
				req.Sides = append(req.Sides, s)
			}
		}
		return req, func(ctx context.Context) error { return h.API.UploadIdentification(ctx, e.ServiceUserID, up) }
	case "proof-of-address":
		up := apiclient.ProofOfAddressUpload{Type: req.Type, File: u.files["file"]}
		if !optionValid(defaultPOATypes, up.Type) {
			fields["type"] = "Choose the kind of document from the list."
		}
		if up.File == nil && !fields.Has("file") {
			fields["file"] = "Choose the file of the proof of address."
		}
		h.checkMexico(ctx, e, "", fields, u.files, "file")
		return req, func(ctx context.Context) error { return h.API.UploadProofOfAddress(ctx, e.ServiceUserID, up) }
	default:
		up := apiclient.BiometricUpload{Selfie: u.files["selfie"]}
		if up.Selfie == nil && !fields.Has("selfie") {
			fields["selfie"] = "Choose the selfie's photo."
		}
		req.Type = ""
		return req, func(ctx context.Context) error { return h.API.UploadBiometric(ctx, e.ServiceUserID, up) }
	}
}

// refuseDocument shows the KYC page again with the document's form, its
// messages and problem; files (and a document number) are never kept, so
// the form says which to choose again.
func (h *Handler) refuseDocument(w http.ResponseWriter, r *http.Request, status int, e store.Employee, doc document, u uploadForm, req docUpload, problem string) {
	fields := u.problems
	h.renderDirect(w, r, status, e, func(v *views.DirectKYCView) {
		f := v.DocForm(doc.Path)
		f.Token, f.Fields, f.Problem = handlers.NewFormToken(), fields, problem
		f.Type, f.Issuing = req.Type, req.IssuingCountry
		if doc.Path == "identification" && u.fields["document_number"] != "" && !fields.Has("document_number") {
			fields["document_number"] = "The document number was not kept: type it again."
		}
		for _, name := range doc.Files {
			if u.files[name] != nil && !fields.Has(name) {
				fields[name] = "The file was not kept: choose it again."
			}
		}
	})
}

// uploadFieldOf maps the API's multipart field names to the form's.
func uploadFieldOf(api string) string {
	switch api {
	case "type", "front", "back", "file", "selfie":
		return api
	case "documentNumber":
		return "document_number"
	case "issuingCountry":
		return "issuing_country"
	case "expirationDate":
		return "expiration_date"
	}
	return ""
}

func (h *Handler) checkIdentification(ctx context.Context, e store.Employee, up apiclient.IdentificationUpload, fields views.FieldErrors) {
	if !optionValid(defaultIDTypes, up.Type) {
		fields["type"] = "Choose the kind of document from the list."
	}
	if up.DocumentNumber == "" {
		fields["document_number"] = "Enter the document's number."
	} else if msg := handlers.CheckText(up.DocumentNumber, 40, false); msg != "" {
		fields["document_number"] = msg + " It was not kept: type it again."
	}
	if _, ok := countryByAlpha3(up.IssuingCountry); !ok {
		fields["issuing_country"] = "Choose the issuing country from the list."
	}
	if up.ExpirationDate != "" {
		t, err := time.Parse(time.DateOnly, up.ExpirationDate)
		switch {
		case err != nil:
			fields["expiration_date"] = "Enter the date as YYYY-MM-DD."
		case !t.After(h.Clock()):
			fields["expiration_date"] = "The document has expired: upload one that is still valid."
		}
	}
	if up.Front == nil && !fields.Has("front") {
		fields["front"] = "Choose a photo of the front of the document."
	}
	h.checkMexico(ctx, e, up.IssuingCountry, fields, map[string]*apiclient.File{"front": up.Front, "back": up.Back}, "front", "back")
}

// checkMexico applies spec: "Mexico: documents must be JPEG or PNG", for a
// Mexican document or an employee living in Mexico.
func (h *Handler) checkMexico(ctx context.Context, e store.Employee, issuing string, fields views.FieldErrors, files map[string]*apiclient.File, names ...string) {
	pdf := false
	for _, n := range names {
		if f := files[n]; f != nil && !f.IsJPEGOrPNG() {
			pdf = true
		}
	}
	if !pdf {
		return
	}
	mexico := strings.EqualFold(issuing, "MEX") || strings.EqualFold(e.Country, "MEX")
	if !mexico {
		if p, err := h.API.GetKYC(ctx, e.ServiceUserID); err == nil && p.Address != nil {
			mexico = strings.EqualFold(p.Address.CountryCode, "MEX")
		}
	}
	if !mexico {
		return
	}
	for _, n := range names {
		if f := files[n]; f != nil && !f.IsJPEGOrPNG() {
			fields[n] = "For Mexico the Partner API takes only JPEG or PNG photos: send a photo, not a PDF."
		}
	}
}

func docEffect(req docUpload, how string) handlers.Effect {
	detail := strings.ReplaceAll(req.Document, "-", " ") + " uploaded"
	if req.Type != "" {
		detail += " (" + strings.ReplaceAll(req.Type, "_", " ")
		if len(req.Sides) > 0 {
			detail += ", " + strings.Join(req.Sides, " and ")
		}
		detail += ")"
	}
	detail += "; the file is not kept"
	if how != "" {
		detail += " (" + how + ")"
	}
	return handlers.Effect{Target: employeeTarget(req.EmployeeID), Detail: detail}
}

// registerDirectReadBacks tells the runner how the direct onboarding's
// writes are read back: the user by email, a document from GET /kyc's
// documents, the profile from GET /kyc.
func registerDirectReadBacks(x *handlers.Actions, api *apiclient.Client) {
	x.ReadBackFor(kindDirectCreate, readBackDirect(api))
	x.ReadBackFor(kindKYCDocument, func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req docUpload
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		if api == nil {
			return handlers.Effect{}, false, errNoAPI
		}
		p, err := api.GetKYC(ctx, req.ServiceUserID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		d := p.Documents
		onFile := d != nil && (req.Document == "identification" && d.Identification != nil && d.Identification.Type == req.Type ||
			req.Document == "proof-of-address" && d.ProofOfAddress || req.Document == "biometric" && d.Biometric)
		if !onFile {
			return handlers.Effect{}, false, nil
		}
		return docEffect(req, "GET /kyc shows it on file"), true, nil
	})
	x.ReadBackFor(kindKYCProfile, readBackProfile(api))
}
