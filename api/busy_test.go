package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// running counts the processes whose command line is command.
func running(command string) int {
	n := 0
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err == nil && strings.TrimRight(strings.ReplaceAll(string(cmdline), "\x00", " "), " ") == command {
			n++
		}
	}
	return n
}

func TestAnInstanceRunningAllTheCommandsItMayAnswers429(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		r := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/busy/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		execute := "/api/v1/runs/" + r.json(t)["id"].(string) + "/execute"

		// Sixteen commands, each a sleep this test alone runs, all at once.
		sleep := fmt.Sprintf("sleep 3.%d", time.Now().UnixNano()%1e9)
		body := []byte(`{"command": "` + sleep + `"}`)
		var wg sync.WaitGroup
		defer wg.Wait()
		for range 16 {
			wg.Go(func() {
				req, _ := http.NewRequest("POST", e.srv.URL+execute, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+e.member)
				req.Header.Set("Content-Type", "application/json")
				if res, err := http.DefaultClient.Do(req); err == nil {
					res.Body.Close()
				}
			})
		}
		require.Eventually(t, func() bool { return running(sleep) == 16 }, 30*time.Second, 10*time.Millisecond)

		busy := e.call("POST", execute, e.member, map[string]any{"command": "echo one too many"})
		p := busy.problem(t, 429, "sandbox_busy")
		assert.Contains(t, p["detail"], "16 commands")
		assert.Equal(t, "5", busy.Header.Get("Retry-After"), "the client is told when to try again")
	})
}
