package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/internal/testutil"
)

// Every long test (internal/testutil) is a top-level TestLong... function
// whose first statement is testutil.Long(t): make test-long selects them by
// name, and the default tier skips them by the call.
func TestTierLongMarked(t *testing.T) {
	fset := token.NewFileSet()
	files, long := 0, 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, testutil.LongPrefix) || fn.Body == nil {
				continue
			}
			long++
			if !callsLong(fn.Body) {
				t.Errorf("%s: %s: a long test's first statement must be testutil.Long(t)", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("parsed only %d test files: is the test run from the module root?", files)
	}
	t.Logf("%d long tests in %d test files", long, files)
}

// callsLong reports whether body begins with testutil.Long(...).
func callsLong(body *ast.BlockStmt) bool {
	if len(body.List) == 0 {
		return false
	}
	es, ok := body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "testutil" && sel.Sel.Name == "Long"
}
