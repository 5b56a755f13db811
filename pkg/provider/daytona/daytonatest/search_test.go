package daytonatest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// The daemon's file search, find and replace answer as its handlers do:
// names matched alone, folders and hidden ones included; lines matched
// literally, binary files skipped, a line past 64 KiB ending its file's
// search; every occurrence replaced, file by file.
func TestFileSearchFindAndReplace(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	home := fake.HomeDir(id)
	files := map[string]string{
		"src/a.go":        "package a\n// TODO one\n",
		"src/b.txt":       "TODO two\r\nnone\n",
		"src/.hidden.go":  "x TODO\n",
		"src/deep/c.go":   strings.Repeat("x", 70000) + "\nTODO after a long line\n",
		"src/bin.go":      "TODO\x00binary\n",
		"src/empty.go":    "",
		"src/x.go/keep.t": "TODO in a folder named like a file\n",
	}
	for name, content := range files {
		p := filepath.Join(home, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	base := fake.ToolboxProxyURL() + "/" + id + "/files"
	get := func(route string, q url.Values, v any) int {
		status, _, body := call(t, "GET", base+route+"?"+q.Encode(), daytonatest.DefaultKey, "")
		if status == http.StatusOK {
			require.NoError(t, json.Unmarshal(body, v), "%s", body)
		}
		return status
	}

	var found struct{ Files []string }
	require.Equal(t, 200, get("/search", url.Values{"path": {daytonatest.WorkDir + "/src"}, "pattern": {"*.go"}}, &found))
	assert.Equal(t, []string{"/home/daytona/src/.hidden.go", "/home/daytona/src/a.go", "/home/daytona/src/bin.go",
		"/home/daytona/src/deep/c.go", "/home/daytona/src/empty.go", "/home/daytona/src/x.go"}, found.Files)
	assert.Equal(t, 400, get("/search", url.Values{"path": {"src"}}, &found))

	var lines []struct {
		File    string
		Line    int
		Content string
	}
	require.Equal(t, 200, get("/find", url.Values{"path": {"src"}, "pattern": {"TODO"}}, &lines))
	got := map[string]string{}
	for _, l := range lines {
		got[l.File] = l.Content
	}
	assert.Equal(t, map[string]string{
		"src/.hidden.go": "x TODO", "src/a.go": "// TODO one", "src/b.txt": "TODO two",
		"src/x.go/keep.t": "TODO in a folder named like a file",
	}, got, "binary and empty files skipped, c.go's search ended by its long line, CR dropped")

	status, _, body := call(t, "POST", base+"/replace", daytonatest.DefaultKey,
		`{"files":["src/a.go","src/missing.go"],"pattern":"TODO","newValue":"DONE"}`)
	require.Equal(t, 200, status)
	var results []map[string]any
	require.NoError(t, json.Unmarshal(body, &results))
	assert.Equal(t, true, results[0]["success"])
	assert.Equal(t, false, results[1]["success"])
	assert.Contains(t, results[1]["error"], "no such file or directory")
	raw, err := os.ReadFile(filepath.Join(home, "src/a.go"))
	require.NoError(t, err)
	assert.Equal(t, "package a\n// DONE one\n", string(raw))
}
