package gateway

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// TestEveryReasonIsASharedCode keeps the gateway's reasons, the API's codes
// and docs/cloudrun-gateway.yaml in step: every code the gateway's code
// answers with is one of auxilia.Codes, and the document's enums of reasons
// and subjects are exactly those the gateway uses.
func TestEveryReasonIsASharedCode(t *testing.T) {
	used, usedSubjects := reasonsInSource(t)
	for _, code := range used {
		assert.Contains(t, auxilia.Codes(), auxilia.Code(code))
	}

	doc, err := openapi3.NewLoader().LoadFromFile("../../docs/cloudrun-gateway.yaml")
	require.NoError(t, err)
	props := doc.Components.Schemas["Problem"].Value.Properties
	assert.ElementsMatch(t, used, enumOf(props["reason"].Value.Enum), "the reasons docs/cloudrun-gateway.yaml lists")

	var declared []string
	for _, s := range wire.Subjects() {
		declared = append(declared, string(s))
	}
	assert.ElementsMatch(t, declared, usedSubjects, "subjects declared but never sent, or sent but not declared")
	assert.ElementsMatch(t, declared, enumOf(props["subject"].Value.Enum), "the subjects docs/cloudrun-gateway.yaml lists")
}

// reasonsInSource returns the codes (by value) and subjects the gateway's
// non-test files name, each once.
func reasonsInSource(t *testing.T) (codes, subjectNames []string) {
	t.Helper()
	values := codeValues(t)
	byName := map[string]string{}
	for _, s := range wire.Subjects() {
		byName["Subject"+strings.ToUpper(string(s[:1]))+string(s[1:])] = string(s)
	}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "problem.go" {
			continue // problem.go answers any other error as internal
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "auxilia" && strings.HasPrefix(n.Sel.Name, "Code") {
					v, ok := values[n.Sel.Name]
					require.True(t, ok, "%s: auxilia.%s is not a code", name, n.Sel.Name)
					codes = appendOnce(codes, v)
				}
			case *ast.Ident:
				if s, ok := byName[n.Name]; ok {
					subjectNames = appendOnce(subjectNames, s)
				}
			}
			return true
		})
	}
	// problem.go answers any error that is not an apiError as internal, and invalid() with validation_failed.
	codes = appendOnce(appendOnce(codes, string(auxilia.CodeInternal)), string(auxilia.CodeInvalid))
	return codes, subjectNames
}

// codeValues reads pkg/auxilia's code constants: name → value.
func codeValues(t *testing.T) map[string]string {
	t.Helper()
	src, err := os.ReadFile("../auxilia/errors.go")
	require.NoError(t, err)
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", src, 0)
	require.NoError(t, err)
	values := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			v, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			values[vs.Names[0].Name] = v
		}
		return true
	})
	return values
}

func enumOf(values []any) []string {
	var out []string
	for _, v := range values {
		out = append(out, v.(string))
	}
	return out
}

func appendOnce(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
