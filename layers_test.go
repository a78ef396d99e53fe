package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowed lists, per directory, the fedcon packages its non-test code may
// import ("x/..." is x and everything below it; a directory takes the rule
// of its longest listed prefix). Dependencies point one way: cmd →
// experiments → problems/datasets → solver, with internal/ and configs/ as
// leaves usable from above and federation/, the network transport, beside
// experiments. Within experiments/, the core imports no paper, and of the
// solver only what every paper uses (coreSolver); each paper's package
// imports the core; conic → proxal is the one edge between papers (the
// conic version is the prox-AL method with other cones); fedjob, the job of
// a served run, spans prox-AL and DRFL. A solver that imported a problem
// would put client data on the server's side of the federation boundary.
var allowed = map[string][]string{
	"cmd":                {"cmd/...", "experiments/...", "federation/...", "datasets/...", "configs/...", "internal/..."},
	"experiments":        {"experiments", "problems/...", "datasets/...", "solver", "configs/...", "internal/..."},
	"experiments/proxal": paper(),
	"experiments/conic":  paper("experiments/proxal"),
	"experiments/ssca":   paper(),
	"experiments/drfl":   paper(),
	"experiments/fedjob": paper("experiments/proxal", "experiments/drfl", "federation/..."),
	"federation":         {"federation/...", "problems/...", "datasets/...", "solver/...", "internal/..."},
	// problems/swishnet builds SSCA's clients from datasets' idx images.
	"problems": {"problems/...", "datasets/...", "solver/...", "internal/..."},
	"datasets": {"datasets/...", "internal/..."},
	"solver":   {"solver/...", "internal/..."},
	"internal": {"internal/..."},
	"configs":  {"configs/..."},
}

// coreSolver returns what of package solver the experiments core may name:
// Status and its values (the constants of solver/status.go), the outcome
// every paper's runs report. Anything else of the solver is a method's,
// and belongs in the package of the paper that runs it.
func coreSolver(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "solver/status.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ok := map[string]bool{"Status": true}
	for _, d := range f.Decls {
		if g, isGen := d.(*ast.GenDecl); isGen && g.Tok == token.CONST {
			for _, spec := range g.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					ok[n.Name] = true
				}
			}
		}
	}
	if !ok["Converged"] || !ok["Diverged"] {
		t.Fatalf("solver/status.go declares no Converged or Diverged: %v", ok)
	}
	return ok
}

// solverNames returns the identifiers of package solver that f names, in
// order of appearance.
func solverNames(f *ast.File) []string {
	local := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/fedcon/fedcon/solver" {
			local = "solver"
			if im.Name != nil {
				local = im.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, isSel := n.(*ast.SelectorExpr); isSel {
			if x, isIdent := sel.X.(*ast.Ident); isIdent && x.Name == local {
				names = append(names, sel.Sel.Name)
			}
		}
		return true
	})
	return names
}

// TestSolverNames: the core's rule sees the solver's identifiers a file
// names, under a renamed import too, and not a subpackage's.
func TestSolverNames(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"package p\nimport \"github.com/fedcon/fedcon/solver\"\nvar s solver.Status = solver.Converged\nfunc f(r solver.Residuals) {}", "Status Converged Residuals"},
		{"package p\nimport sv \"github.com/fedcon/fedcon/solver\"\nvar s sv.Settings", "Settings"},
		{"package p\nimport \"github.com/fedcon/fedcon/solver/qp\"\nvar q qp.Settings", ""},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "p.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(solverNames(f), " "); got != c.want {
			t.Errorf("%q: names %q, want %q", c.src, got, c.want)
		}
	}
}

// paper is what a paper's package may import: the core, the layers below
// experiments, and the given others.
func paper(others ...string) []string {
	return append([]string{"experiments", "problems/...", "datasets/...", "solver/...", "configs/...", "internal/..."}, others...)
}

// allows reports whether pattern (a package or "x/...") matches dep.
func allows(pattern, dep string) bool {
	if base, tree := strings.CutSuffix(pattern, "/..."); tree {
		return dep == base || strings.HasPrefix(dep, base+"/")
	}
	return dep == pattern
}

// rule returns the allowed imports of directory dir: those of its longest
// listed prefix.
func rule(dir string) ([]string, bool) {
	for d := dir; d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
		if ok, known := allowed[d]; known {
			return ok, true
		}
	}
	return nil, false
}

func TestLayers(t *testing.T) {
	const mod = "github.com/fedcon/fedcon/"
	fset := token.NewFileSet()
	coreOK := coreSolver(t)
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." {
			return nil // main.go
		}
		ok, known := rule(dir)
		if !known {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		if dir == "experiments" {
			for _, n := range solverNames(f) {
				if !coreOK[n] {
					t.Errorf("%s names solver.%s: the experiments core may name only solver.Status and its values; move the code to its paper's package", path, n)
				}
			}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			rel, ours := strings.CutPrefix(p, mod)
			if !ours {
				continue
			}
			found := false
			for _, a := range ok {
				found = found || allows(a, rel)
			}
			if !found {
				t.Errorf("%s imports %s: %s/ may import only %v", path, p, dir, ok)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files: is the test run from the module root?", checked)
	}
}
