package main

import (
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
// experiments. Within experiments/, the core imports no paper; each paper's
// package imports the core; conic → proxal is the one edge between papers
// (the conic version is the prox-AL method with other cones); fedjob, the
// job of a served run, spans prox-AL and DRFL. A solver that imported a
// problem would put client data on the server's side of the federation
// boundary.
var allowed = map[string][]string{
	"cmd":                {"cmd/...", "experiments/...", "federation/...", "datasets/...", "configs/...", "internal/..."},
	"experiments":        {"experiments", "problems/...", "datasets/...", "solver/...", "configs/...", "internal/..."},
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
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
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
