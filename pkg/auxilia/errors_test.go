package auxilia

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestCodesListsEveryCode reads the package's source for every constant of
// type Code and checks Codes lists each once: the list the api package's
// status test ranges over cannot miss a code declared anywhere here.
func TestCodesListsEveryCode(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[Code]string{}
	for _, name := range names {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for i, name := range vs.Names {
					value, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
					if err != nil {
						t.Fatalf("%s: %v", name.Name, err)
					}
					declared[Code(value)] = name.Name
				}
			}
		}
	}
	listed := Codes()
	for code, name := range declared {
		if !slices.Contains(listed, code) {
			t.Errorf("%s (%q) is not in Codes", name, code)
		}
	}
	seen := map[Code]bool{}
	for _, code := range listed {
		if _, ok := declared[code]; !ok || seen[code] {
			t.Errorf("Codes lists %q, which is not declared once as a Code constant", code)
		}
		seen[code] = true
	}
}
