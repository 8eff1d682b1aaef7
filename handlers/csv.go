package handlers

import (
	"encoding/csv"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"partneradmin/views"
)

// CSVWriter streams a CSV download row by row.
type CSVWriter struct {
	w   *csv.Writer
	err error
}

// utf8BOM is the byte-order mark by which a spreadsheet opened with a
// double click knows the file is UTF-8 (without it, Excel reads it in the
// machine's legacy code page and "Martínez" shows as "MartÃ­nez"). Scripts
// get the plain form: to most CSV readers the mark is part of the first
// column's name.
const utf8BOM = "\uFEFF"

// SpreadsheetCSV reports whether the request asks for the spreadsheet form
// (views.CSVLinks offers it beside the plain one).
func SpreadsheetCSV(r *http.Request) bool {
	return r.URL.Query().Get(views.CSVFormKey) == views.CSVForSpreadsheet
}

// StartCSV sets a CSV download's headers and, for the spreadsheet form,
// writes the byte-order mark: the one way every download of the app starts.
func StartCSV(w http.ResponseWriter, r *http.Request, filename string) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	if SpreadsheetCSV(r) {
		_, _ = io.WriteString(w, utf8BOM) // a failed write shows again in the rows' writes
	}
}

// NewCSV starts the download (StartCSV) and writes the header row.
func NewCSV(w http.ResponseWriter, r *http.Request, filename string, header ...string) *CSVWriter {
	StartCSV(w, r, filename)
	cw := &CSVWriter{w: csv.NewWriter(w)}
	cw.Row(header...)
	return cw
}

// Row writes one row. Cells that a spreadsheet would run as a formula are
// prefixed with a quote (CSV injection).
func (c *CSVWriter) Row(cells ...string) {
	if c.err != nil {
		return
	}
	for i, v := range cells {
		if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) && !isNumber(v) {
			cells[i] = "'" + v
		}
	}
	c.err = c.w.Write(cells)
}

// Close flushes the rows and logs a failure (headers are gone by then, so
// the client sees a truncated file).
func (c *CSVWriter) Close(logger *slog.Logger, r *http.Request) {
	c.w.Flush()
	if err := c.w.Error(); err != nil && c.err == nil {
		c.err = err
	}
	if c.err != nil {
		logger.ErrorContext(r.Context(), "csv export failed", "path", LogPath(r), "err", c.err)
	}
}

// isNumber reports whether v is a plain signed decimal number, which is safe
// to leave unquoted (a negative amount is not a formula).
func isNumber(v string) bool {
	if v[0] == '-' || v[0] == '+' {
		v = v[1:]
	}
	digits, dot := 0, false
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// ExportPages streams a CSV export read a page at a time; it is the one
// way a list's export is written. The first page is read before the
// download starts, so a read that fails there answers an error page, never
// a file with only its header that would say there was nothing. A later
// failure ends the file, and the log says why (the status is sent by then).
// read returns the page after the one it returned before and whether
// another follows; write writes its rows.
func ExportPages[P any](b *Base, w http.ResponseWriter, r *http.Request, filename string, header []string,
	read func() (page P, more bool, err error), write func(cw *CSVWriter, page P)) {
	page, more, err := read()
	if err != nil {
		b.ServerError(w, r, err)
		return
	}
	cw := NewCSV(w, r, filename, header...)
	for {
		write(cw, page)
		if !more {
			break
		}
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		if page, more, err = read(); err != nil {
			b.Logger.ErrorContext(r.Context(), "csv export: next page", "path", LogPath(r), "err", err)
			break
		}
	}
	cw.Close(b.Logger, r)
}
