package store_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dbMethods are the exported methods of *DB that reach no table: the
// connection (its bounds, the count of statements sent on it, the waits for one and the places held), transactions and
// locks, migrations, whether its disk is full, the quotas' defaults,
// whether alerts go to a webhook, and the two handles.
var dbMethods = set("Dialect", "Ping", "Close", "LimitConnections", "LimitStatementsAtOnce", "ConnectionWaits", "LineHolds", "InTx", "Lock", "SQL", "CountStatements", "WithTryLock",
	"Migrate", "SchemaVersion", "CheckSandboxesWith", "DiskFull", "SetQuotaDefaults", "SetAlertWebhook", "In", "System")

// TestTablesAreReachedThroughTheHandles fails when a store method can be
// reached without going through DB.In (bound to one workspace) or DB.System
// (named after its job): a new exported method on *DB, an exported type
// other than the handles, an exported function or method handing out one
// of the package's unexported types, or a Tenant method that takes a
// workspace (it must fill in its own).
func TestTablesAreReachedThroughTheHandles(t *testing.T) {
	files := parseStore(t)
	types := map[string]bool{} // every type the package declares
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					types[s.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
	}
	var broken []string
	for name := range types {
		if ast.IsExported(name) && !handleType(name) {
			broken = append(broken, "type "+name+" is exported: only DB, Dialect and the Tenant and System handles may be")
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			recv := receiver(fn)
			if recv != "" && !ast.IsExported(recv) {
				continue // unreachable: nothing exported hands the type out (checked below)
			}
			where := fn.Name.Name
			if recv != "" {
				where = recv + "." + where
			}
			if recv == "DB" && !dbMethods[fn.Name.Name] {
				broken = append(broken, where+" is a method of *DB outside the handles: move it behind In or System")
			}
			if fn.Type.Results != nil {
				for _, r := range fn.Type.Results.List {
					if n := typeName(r.Type); n != "" && types[n] && !ast.IsExported(n) {
						broken = append(broken, where+" hands out the unexported "+n)
					}
				}
			}
			if strings.HasPrefix(recv, "Tenant") {
				for _, p := range fn.Type.Params.List {
					for _, n := range p.Names {
						if lower := strings.ToLower(n.Name); strings.Contains(lower, "workspace") || lower == "ws" {
							broken = append(broken, where+" takes "+n.Name+": a Tenant fills in its own workspace")
						}
					}
					if sel, ok := p.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Workspace" {
						broken = append(broken, where+" takes a Workspace: a Tenant fills in its own")
					}
				}
			}
		}
	}
	sort.Strings(broken)
	for _, b := range broken {
		t.Error(b)
	}
}

func handleType(name string) bool {
	return name == "DB" || name == "Dialect" || strings.HasPrefix(name, "Tenant") || strings.HasPrefix(name, "System")
}

// parseStore parses the package's own files, tests left out.
func parseStore(t *testing.T) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("no source files found")
	}
	return files
}

func receiver(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	return typeName(fn.Recv.List[0].Type)
}

// typeName is the name of a type expression's own type (through a pointer,
// a slice or a map's value), or "" for a qualified or generic one.
func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.ArrayType:
		return typeName(t.Elt)
	case *ast.MapType:
		return typeName(t.Value)
	}
	return ""
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// TestTenantSeesOnlyItsWorkspace shows what the Tenant handle guarantees:
// a create lands in the handle's workspace whatever the value says, and
// another workspace's handle neither reads nor changes it.
func TestTenantSeesOnlyItsWorkspace(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		mine, err := db.System("test").Workspaces().Ensure(ctx, "mine")
		require.NoError(t, err)
		theirs, err := db.System("test").Workspaces().Ensure(ctx, "theirs")
		require.NoError(t, err)

		a, err := db.In(mine.ID).Agents().Create(ctx, auxilia.Agent{WorkspaceID: theirs.ID, AgentSpec: auxilia.AgentSpec{Name: "Analyst"}})
		require.NoError(t, err)
		assert.Equal(t, mine.ID, a.WorkspaceID, "the handle's workspace, not the value's")
		_, err = db.In(theirs.ID).Agents().Get(ctx, a.ID)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "another workspace does not see it: %v", err)
		page, err := db.In(theirs.ID).Agents().List(ctx, auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		assert.Empty(t, page.Items)
		err = db.In(theirs.ID).Agents().Delete(ctx, a.ID, a.Version)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "nor deletes it: %v", err)

		tok, err := db.In(mine.ID).Tokens().Create(ctx, auxilia.Token{WorkspaceID: theirs.ID, Name: "ci", Role: auxilia.RoleMember}, "hash-ci")
		require.NoError(t, err)
		assert.Equal(t, mine.ID, tok.WorkspaceID)
		err = db.In(theirs.ID).Tokens().Revoke(ctx, tok.ID)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "another workspace cannot revoke it: %v", err)
		require.NoError(t, db.In(mine.ID).Tokens().Revoke(ctx, tok.ID))
	})
}
