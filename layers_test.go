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

// allowed lists, per top-level directory, the fedcon directories its
// non-test code may import: dependencies point one way, cmd → experiments
// → problems/datasets → solver (internal/ and configs/ are leaves usable
// from above; federation/, the network transport, sits beside experiments).
// A solver that imported a problem would put client data on
// the server's side of the federation boundary.
var allowed = map[string][]string{
	"cmd":         {"cmd", "experiments", "federation", "problems", "datasets", "solver", "configs", "internal"},
	"experiments": {"experiments", "federation", "problems", "datasets", "solver", "configs", "internal"},
	"federation":  {"federation", "problems", "datasets", "solver", "internal"},
	"problems":    {"problems", "datasets", "solver", "internal"},
	"datasets":    {"datasets", "internal"},
	"solver":      {"solver", "internal"},
	"internal":    {"internal"},
	"configs":     {"configs"},
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
		top, _, nested := strings.Cut(filepath.ToSlash(path), "/")
		if !nested {
			return nil // main.go
		}
		ok, known := allowed[top]
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
			dep, _, _ := strings.Cut(rel, "/")
			found := false
			for _, a := range ok {
				found = found || a == dep
			}
			if !found {
				t.Errorf("%s imports %s: %s/ may import only %v", path, p, top, ok)
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
