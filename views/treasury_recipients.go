package views

// RecipientMinQuery is how many characters the recipient search needs
// before it searches.
const RecipientMinQuery = 2

// Recipient is an employee value can be sent to.
type Recipient struct {
	ServiceUserID string
	Name          string // "" when the chosen id is no longer a linked employee
	Email         string
}

// RecipientPicker is the recipient field of a treasury form: a search box
// and the people found as radio buttons named to_user_id. htmx swaps the
// results (RecipientResults) as the search is typed.
type RecipientPicker struct {
	ID      string // "transfer-to" or "send-to": the search box's id and the prefix of the others
	Search  string // what is in the search box
	Query   string // the search that ran; "" when fewer than RecipientMinQuery characters were typed
	Chosen  *Recipient
	Results []Recipient // in name order, Chosen among them or not
	More    bool        // the search found more than Results
	Problem string      // why the search typed was not run, "" when it was or was too short
}

// Others are the results without the chosen person, who is shown first.
func (p RecipientPicker) Others() []Recipient {
	var out []Recipient
	for _, r := range p.Results {
		if p.Chosen == nil || r.ServiceUserID != p.Chosen.ServiceUserID {
			out = append(out, r)
		}
	}
	return out
}
