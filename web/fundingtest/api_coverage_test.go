package fundingtest

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// repoRoot is the module's root, two levels up from this package.
const repoRoot = "../.."

// coverageDoc is the list of apiclient's methods the app does not call,
// and where it calls the others.
const coverageDoc = "docs/api-coverage.md"

// appDirs hold the app's code: a method referenced there is called by the
// app. Packages named *test (webtest, pgtest, the theme test packages)
// are test support, not the app.
var appDirs = []string{"handlers", "web", "store", "cmd"}

// clientMethods are the exported methods of apiclient.Client, parsed from
// apiclient/*.go.
func clientMethods(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(repoRoot, "apiclient", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 || !fn.Name.IsExported() {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.Name == "Client" {
				out = append(out, fn.Name.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// references maps each name used as a method, outside test code under
// appDirs, to the package directories that use it: called
// (x.Name(...)), or taken as a value (passed, assigned or returned, as
// `create := h.api.CreateCryptoWithdrawal` is). A field read or written
// (v.Fund = ...) is not a use of a method of that name.
func references(t *testing.T) map[string][]string {
	t.Helper()
	refs := map[string]map[string]bool{}
	add := func(name, dir string) {
		if refs[name] == nil {
			refs[name] = map[string]bool{}
		}
		refs[name][dir] = true
	}
	fset := token.NewFileSet()
	for _, top := range appDirs {
		err := filepath.WalkDir(filepath.Join(repoRoot, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if strings.HasSuffix(d.Name(), "test") || d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(repoRoot, filepath.Dir(path))
			if err != nil {
				return err
			}
			dir := filepath.ToSlash(rel)
			imports := map[string]bool{}
			for _, im := range f.Imports {
				name := strings.Trim(im.Path.Value, `"`)
				name = name[strings.LastIndex(name, "/")+1:]
				if im.Name != nil {
					name = im.Name.Name
				}
				imports[name] = true
			}
			method := func(e ast.Expr) {
				sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
				if !ok {
					return
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && imports[pkg.Name] {
					return // a package's function or type, not a method
				}
				add(sel.Sel.Name, dir)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					method(n.Fun)
					for _, a := range n.Args {
						method(a)
					}
				case *ast.AssignStmt:
					for _, e := range n.Rhs {
						method(e)
					}
				case *ast.ValueSpec:
					for _, e := range n.Values {
						method(e)
					}
				case *ast.ReturnStmt:
					for _, e := range n.Results {
						method(e)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	out := map[string][]string{}
	for name, dirs := range refs {
		for d := range dirs {
			out[name] = append(out[name], d)
		}
		sort.Strings(out[name])
	}
	return out
}

// docRow is one row of the coverage table.
type docRow struct {
	line     int
	method   string
	calledIn []string // the directories named as callers
	notWhy   string   // the reason, for a method the app does not call
}

var (
	rowMethod = regexp.MustCompile("^\\|\\s*`([A-Za-z0-9]+)`\\s*\\|(.*)\\|\\s*$")
	rowDir    = regexp.MustCompile("`((?:handlers|web|store|cmd)(?:/[a-z0-9_-]+)*)`")
)

// coverageRows parses the doc's table: | `Method` | where, or why not |.
func coverageRows(t *testing.T) []docRow {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, coverageDoc))
	if err != nil {
		t.Fatalf("%s: %v", coverageDoc, err)
	}
	defer f.Close()
	var rows []docRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		m := rowMethod.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		r := docRow{line: n, method: m[1]}
		cell := strings.TrimSpace(m[2])
		if why, ok := strings.CutPrefix(cell, "Not in scope:"); ok {
			r.notWhy = strings.TrimSpace(why)
		} else {
			for _, d := range rowDir.FindAllStringSubmatch(cell, -1) {
				r.calledIn = append(r.calledIn, d[1])
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// Every method of apiclient's Client is either called by the app (handlers,
// web, store, cmd; tests aside) or listed in docs/api-coverage.md as not in
// scope with its reason, so the list cannot drift: a new method that
// nothing calls, a row that names a method that no longer exists, a row
// that says the app calls a method where it does not, a reason left
// empty, and a row for a method twice all fail.
func TestEveryAPIClientMethodIsCalledOrListed(t *testing.T) {
	t.Parallel()
	methods := clientMethods(t)
	if len(methods) < 50 {
		t.Fatalf("found only %d methods of apiclient.Client: is the parser looking in the right place?", len(methods))
	}
	refs := references(t)
	rows := coverageRows(t)
	listed := map[string]docRow{}
	for _, r := range rows {
		if _, dup := listed[r.method]; dup {
			t.Errorf("%s:%d: %s is listed twice", coverageDoc, r.line, r.method)
		}
		listed[r.method] = r
		if !slices.Contains(methods, r.method) {
			t.Errorf("%s:%d: %s is not a method of apiclient.Client (renamed or removed?)", coverageDoc, r.line, r.method)
			continue
		}
		switch {
		case r.notWhy == "" && len(r.calledIn) == 0:
			t.Errorf("%s:%d: %s names neither where the app calls it nor, after \"Not in scope:\", why not", coverageDoc, r.line, r.method)
		case r.notWhy != "" && len(r.notWhy) < 20:
			t.Errorf("%s:%d: %s: the reason %q is not one", coverageDoc, r.line, r.method, r.notWhy)
		}
		for _, d := range r.calledIn {
			if !slices.ContainsFunc(refs[r.method], func(got string) bool { return got == d || strings.HasPrefix(got, d+"/") }) {
				t.Errorf("%s:%d: %s is said to be called in %s, but is not (called in: %v)", coverageDoc, r.line, r.method, d, refs[r.method])
			}
		}
	}
	var missing []string
	for _, m := range methods {
		_, isListed := listed[m]
		called := len(refs[m]) > 0
		if !isListed && !called {
			missing = append(missing, m)
		}
	}
	for _, m := range missing {
		t.Errorf("apiclient.Client.%s is neither called by the app nor listed in %s: call it, or add the row | `%s` | Not in scope: <why> |", m, coverageDoc, m)
	}
}
