package sandbox

import "strings"

// country is an entry of the sandbox's country table.
type country struct{ alpha2, alpha3, name string }

var countries = []country{
	{"AR", "ARG", "Argentina"}, {"AU", "AUS", "Australia"}, {"BR", "BRA", "Brazil"}, {"CA", "CAN", "Canada"},
	{"CL", "CHL", "Chile"}, {"CN", "CHN", "China"}, {"CO", "COL", "Colombia"}, {"DE", "DEU", "Germany"},
	{"EC", "ECU", "Ecuador"}, {"EG", "EGY", "Egypt"}, {"ES", "ESP", "Spain"}, {"FR", "FRA", "France"},
	{"GB", "GBR", "United Kingdom"}, {"GH", "GHA", "Ghana"}, {"GT", "GTM", "Guatemala"}, {"IE", "IRL", "Ireland"},
	{"IN", "IND", "India"}, {"IT", "ITA", "Italy"}, {"JP", "JPN", "Japan"}, {"KE", "KEN", "Kenya"},
	{"MX", "MEX", "Mexico"}, {"NG", "NGA", "Nigeria"}, {"NL", "NLD", "Netherlands"}, {"PE", "PER", "Peru"},
	{"PH", "PHL", "Philippines"}, {"PL", "POL", "Poland"}, {"PT", "PRT", "Portugal"}, {"SN", "SEN", "Senegal"},
	{"US", "USA", "United States"}, {"ZA", "ZAF", "South Africa"},
}

// alpha3Of normalises an alpha-2 or alpha-3 code to alpha-3 ("" if unknown).
func alpha3Of(code string) string {
	c := strings.ToUpper(strings.TrimSpace(code))
	for _, x := range countries {
		if x.alpha3 == c || x.alpha2 == c {
			return x.alpha3
		}
	}
	return ""
}

func knownAlpha3(code string) bool {
	for _, x := range countries {
		if x.alpha3 == code {
			return true
		}
	}
	return false
}

func knownAlpha2(code string) bool {
	for _, x := range countries {
		if x.alpha2 == code {
			return true
		}
	}
	return false
}

// nigerianStates are the 36 states and the FCT (spec: "Nigerian address
// with valid state name").
var nigerianStates = []string{
	"Abia", "Adamawa", "Akwa Ibom", "Anambra", "Bauchi", "Bayelsa", "Benue", "Borno", "Cross River", "Delta",
	"Ebonyi", "Edo", "Ekiti", "Enugu", "Federal Capital Territory", "Gombe", "Imo", "Jigawa", "Kaduna", "Kano",
	"Katsina", "Kebbi", "Kogi", "Kwara", "Lagos", "Nasarawa", "Niger", "Ogun", "Ondo", "Osun", "Oyo", "Plateau",
	"Rivers", "Sokoto", "Taraba", "Yobe", "Zamfara",
}

// nigerianState accepts a state name in any case, "FCT" and "Abuja" for the
// Federal Capital Territory, and an optional " State" suffix.
func nigerianState(s string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, " state")
	switch t {
	case "fct", "abuja", "fct abuja", "abuja fct":
		return "Federal Capital Territory", true
	}
	for _, n := range nigerianStates {
		if strings.ToLower(n) == t {
			return n, true
		}
	}
	return "", false
}

// occupation is an entry of the occupations lookup.
type occupation struct {
	Code    string   `json:"code"`
	Name    string   `json:"name"`
	Active  bool     `json:"active"`
	Aliases []string `json:"aliases"`
}

// occupations is the sandbox's occupations list: SOC-like codes, a few
// inactive (retired) entries, and aliases. Some names share words on
// purpose ("Software developer" / "Software tester") so that the resolution
// rule of the spec can be exercised.
var occupations = []occupation{
	{"11-1011", "Chief executive", true, []string{"CEO", "Managing director"}},
	{"11-1021", "General manager", true, []string{"Operations manager"}},
	{"11-2021", "Marketing manager", true, []string{"Head of marketing"}},
	{"11-3031", "Financial manager", true, []string{"Finance manager", "CFO"}},
	{"11-3121", "Human resources manager", true, []string{"HR manager", "People manager"}},
	{"11-9111", "Medical and health services manager", true, []string{"Hospital administrator"}},
	{"13-1071", "Human resources specialist", true, []string{"HR specialist", "Recruiter"}},
	{"13-1111", "Management analyst", true, []string{"Management consultant"}},
	{"13-1161", "Market research analyst", true, nil},
	{"13-2011", "Accountant", true, []string{"Auditor", "Chartered accountant"}},
	{"13-2051", "Financial analyst", true, []string{"Investment analyst"}},
	{"13-2072", "Loan officer", true, nil},
	{"15-1211", "Computer systems analyst", true, []string{"Systems analyst"}},
	{"15-1212", "Information security analyst", true, []string{"Security analyst", "Cybersecurity analyst"}},
	{"15-1242", "Database administrator", true, []string{"DBA"}},
	{"15-1244", "Network administrator", true, []string{"Sysadmin", "Systems administrator"}},
	{"15-1252", "Software developer", true, []string{"Software engineer", "Programmer", "Developer"}},
	{"15-1253", "Software tester", true, []string{"QA engineer", "Quality assurance analyst"}},
	{"15-1254", "Web developer", true, []string{"Frontend developer"}},
	{"15-1255", "Web and digital interface designer", true, []string{"UX designer", "UI designer"}},
	{"15-2051", "Data scientist", true, []string{"Data analyst"}},
	{"17-2051", "Civil engineer", true, nil},
	{"17-2071", "Electrical engineer", true, nil},
	{"17-2141", "Mechanical engineer", true, nil},
	{"19-1042", "Medical scientist", true, []string{"Research scientist"}},
	{"21-1021", "Social worker", true, nil},
	{"23-1011", "Lawyer", true, []string{"Attorney", "Solicitor", "Barrister"}},
	{"23-2011", "Paralegal", true, []string{"Legal assistant"}},
	{"25-1099", "University lecturer", true, []string{"Professor"}},
	{"25-2021", "Primary school teacher", true, []string{"Elementary school teacher"}},
	{"25-2031", "Secondary school teacher", true, []string{"High school teacher"}},
	{"27-1024", "Graphic designer", true, nil},
	{"27-3023", "Journalist", true, []string{"Reporter"}},
	{"29-1141", "Registered nurse", true, []string{"Nurse"}},
	{"29-1215", "Family medicine physician", true, []string{"Doctor", "General practitioner", "GP"}},
	{"29-1051", "Pharmacist", true, nil},
	{"29-1021", "Dentist", true, nil},
	{"31-1131", "Nursing assistant", true, []string{"Care assistant"}},
	{"33-3051", "Police officer", true, nil},
	{"33-9032", "Security guard", true, nil},
	{"35-1011", "Chef", true, []string{"Head cook"}},
	{"35-3031", "Waiter", true, []string{"Waitress", "Server"}},
	{"37-2012", "Housekeeper", true, []string{"Maid", "Cleaner"}},
	{"39-9011", "Childcare worker", true, []string{"Nanny"}},
	{"41-2031", "Retail salesperson", true, []string{"Shop assistant", "Sales associate"}},
	{"41-3091", "Sales representative", true, []string{"Sales executive"}},
	{"43-3071", "Bank teller", true, []string{"Cashier (bank)"}},
	{"43-4051", "Customer service representative", true, []string{"Call centre agent", "Support agent"}},
	{"43-6014", "Administrative assistant", true, []string{"Secretary", "Office assistant"}},
	{"45-2092", "Farmworker", true, []string{"Farmer", "Agricultural worker"}},
	{"47-2031", "Carpenter", true, nil},
	{"47-2111", "Electrician", true, nil},
	{"47-2152", "Plumber", true, nil},
	{"49-3023", "Automotive mechanic", true, []string{"Car mechanic", "Mechanic"}},
	{"51-2090", "Factory worker", true, []string{"Assembler", "Production worker"}},
	{"53-3032", "Truck driver", true, []string{"Lorry driver", "HGV driver"}},
	{"53-3054", "Taxi driver", true, []string{"Ride-hailing driver", "Chauffeur"}},
	{"53-2011", "Airline pilot", true, []string{"Pilot"}},
	{"53-7062", "Warehouse worker", true, []string{"Stock handler", "Picker packer"}},
	{"55-1000", "Military officer", true, []string{"Soldier"}},
	{"99-0001", "Student", true, []string{"Undergraduate"}},
	{"99-0002", "Retired", true, []string{"Pensioner"}},
	{"99-0003", "Homemaker", true, []string{"Stay-at-home parent"}},
	{"99-0004", "Self-employed trader", true, []string{"Trader", "Market trader"}},
	// Retired codes: found by the lookup but never accepted.
	{"15-1131", "Computer programmer (retired code)", false, []string{"Coder"}},
	{"43-9022", "Typist", false, []string{"Word processor operator"}},
	{"43-2011", "Switchboard operator", false, nil},
}

// searchOccupations returns the entries whose name, alias or code contains
// text, ignoring case and surrounding whitespace (empty text: all).
func searchOccupations(text string) []occupation {
	t := strings.ToLower(strings.TrimSpace(text))
	out := []occupation{}
	for _, o := range occupations {
		if t == "" || strings.Contains(strings.ToLower(o.Name), t) || strings.Contains(strings.ToLower(o.Code), t) {
			out = append(out, o)
			continue
		}
		for _, a := range o.Aliases {
			if strings.Contains(strings.ToLower(a), t) {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

// resolveOccupation is the spec's rule for free text: "It accepts an active
// occupation whose display name or alias equals the string ignoring case and
// surrounding whitespace. Otherwise it accepts the single result if exactly
// one active result came back. If neither applies, no code resolves".
func resolveOccupation(text string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" {
		return "", false
	}
	results := searchOccupations(t)
	var active []occupation
	for _, o := range results {
		if !o.Active {
			continue
		}
		active = append(active, o)
		if strings.ToLower(o.Name) == t {
			return o.Code, true
		}
		for _, a := range o.Aliases {
			if strings.ToLower(strings.TrimSpace(a)) == t {
				return o.Code, true
			}
		}
	}
	if len(active) == 1 {
		return active[0].Code, true
	}
	return "", false
}

func occupationByCode(code string) (occupation, bool) {
	for _, o := range occupations {
		if o.Code == code {
			return o, true
		}
	}
	return occupation{}, false
}

type option struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

func optionList(pairs ...string) []option {
	out := []option{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, option{pairs[i], pairs[i+1]})
	}
	return out
}

var (
	genders            = optionList("male", "Male", "female", "Female", "non_binary", "Non-binary", "prefer_not_to_say", "Prefer not to say")
	employmentStatuses = optionList("employed", "Employed", "self_employed", "Self-employed", "unemployed", "Unemployed", "student", "Student", "retired", "Retired")
	sourcesOfFunds     = optionList("salary", "Salary", "savings", "Savings", "business_income", "Business income", "investments", "Investments",
		"inheritance", "Inheritance", "gift", "Gift", "pension", "Pension", "government_benefits", "Government benefits",
		"family_support", "Family support", "scholarship", "Scholarship", "other", "Other")
	accountPurposes = optionList("personal", "Personal", "salary", "Receiving salary", "savings", "Savings", "payments", "Payments to others",
		"investment", "Investment")
	documentTypes = optionList("passport", "Passport", "drivers_license", "Driver's licence", "national_id", "National ID card", "government_id", "Other government ID")
	addressProofs = optionList("utility_bill", "Utility bill", "bank_statement", "Bank statement", "tax_document", "Tax document",
		"tenancy_agreement", "Tenancy agreement", "government_letter", "Government letter")
	idNumberTypes = optionList("ssn", "US Social Security number", "nino", "UK National Insurance number", "bvn", "Nigerian BVN",
		"rfc", "Mexican RFC", "curp", "Mexican CURP")
)

func validOption(list []option, v string) bool {
	for _, o := range list {
		if o.Value == v {
			return true
		}
	}
	return false
}

func optionValues(list []option) string {
	var vs []string
	for _, o := range list {
		vs = append(vs, o.Value)
	}
	return strings.Join(vs, ", ")
}
