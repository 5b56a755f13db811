package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const committed = "../../openapi.yaml"

func TestCommittedSpecMatchesAnnotations(t *testing.T) {
	spec, err := Generate("../../api")
	require.NoError(t, err)
	require.NoError(t, Check(committed, spec), "run `make openapi` and commit openapi.yaml")
}

func TestCheckFailsWhenAnAnnotationChanges(t *testing.T) {
	// A copy of the api package inside the module (so its imports resolve),
	// in an underscore folder, which Go's ./... patterns skip.
	dir, err := os.MkdirTemp("../..", "_openapigen-test-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	files, err := filepath.Glob("../../api/*.go")
	require.NoError(t, err)
	changed := false
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		if strings.Contains(string(src), "@Summary	List API tokens") {
			src = []byte(strings.Replace(string(src), "@Summary	List API tokens", "@Summary	List every API token", 1))
			changed = true
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), src, 0o644))
	}
	require.True(t, changed, "the annotation to change was found")

	spec, err := Generate(dir)
	require.NoError(t, err)
	assert.Contains(t, string(spec), "List every API token")
	assert.Error(t, Check(committed, spec), "the drift check catches the changed annotation")
}
