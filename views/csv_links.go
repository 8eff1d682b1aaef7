package views

import "strings"

// CSVFormKey and CSVForSpreadsheet are the query by which a CSV download
// is asked for its spreadsheet form (a UTF-8 byte-order mark first);
// without it a download is plain UTF-8, for scripts.
const (
	CSVFormKey        = "for"
	CSVForSpreadsheet = "spreadsheet"
)

// CSVLink is a list's CSV download, offered in both forms.
type CSVLink struct {
	Href, TestID, Label string
	// Button draws the links as buttons, as in a page's toolbar.
	Button bool
}

// SpreadsheetCSVURL is href asking for the spreadsheet form.
func SpreadsheetCSVURL(href string) string {
	sep := "?"
	if strings.Contains(href, "?") {
		sep = "&"
	}
	return href + sep + CSVFormKey + "=" + CSVForSpreadsheet
}
