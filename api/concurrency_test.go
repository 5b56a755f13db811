package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A PATCH without If-Match applies to the latest version, however many
// writers there are: none of them gets 412.
func TestPatchesWithoutIfMatchAllApply(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sandbox := e.createSandbox(validSandboxes["local"])
		agent := e.call("POST", "/api/v1/agents", e.admin, map[string]any{"name": "Writer"}).json(t)
		for _, path := range []string{"/api/v1/sandboxes/" + sandbox["id"].(string), "/api/v1/agents/" + agent["id"].(string)} {
			const writers = 20
			statuses := make([]int, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = patchRaw(e, path, fmt.Sprintf(`{"description":"writer %d"}`, i))
				}()
			}
			wg.Wait()
			for i, status := range statuses {
				assert.Equal(t, 200, status, "%s: writer %d", path, i)
			}
			assert.Equal(t, fmt.Sprintf(`"%d"`, 1+writers), e.call("GET", path, e.admin, nil).Header.Get("ETag"),
				"%s: every patch made a version", path)
		}
	})
}

// patchRaw sends a PATCH from any goroutine and returns its status (0 when it could not be sent).
func patchRaw(e *env, path, body string) int {
	req, err := http.NewRequest("PATCH", e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}
