package api_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestADownloadSendsAFilesBytesUnderReadFilesPolicy(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		run := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		base := "/api/v1/runs/" + run["id"].(string)
		bytes := "\x89PNG\r\n\x1a\n\x00binary, not text\xff"
		require.Equal(t, 201, e.call("PUT", base+"/files?path=out/chart.png", e.member, bytes, "Content-Type", "application/octet-stream").StatusCode)

		r := e.call("GET", base+"/files/raw?path=out/chart.png", e.member, nil)
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, bytes, string(r.body), "byte for byte, where read_file refuses a binary file")
		assert.Equal(t, "application/octet-stream", r.Header.Get("Content-Type"))
		assert.Equal(t, `attachment; filename=chart.png`, r.Header.Get("Content-Disposition"))
		assert.Equal(t, strconv.Itoa(len(bytes)), r.Header.Get("Content-Length"))

		e.call("GET", base+"/files/raw?path=out/missing.png", e.member, nil).problem(t, 404, "not_found")
		assert.Equal(t, []string{"path"}, fields(e.call("GET", base+"/files/raw?path=out", e.member, nil).problem(t, 422, "validation_failed")),
			"a directory")
		assert.Equal(t, []string{"path"}, fields(e.call("GET", base+"/files/raw", e.member, nil).problem(t, 422, "validation_failed")))
		assert.Equal(t, []string{"path"}, fields(e.call("GET", base+"/files/raw?path=../../etc/passwd", e.member, nil).problem(t, 422, "validation_failed")),
			"outside the working directory")
		e.call("GET", "/api/v1/runs/"+run["id"].(string)+"/files/raw?path=out/chart.png", e.foreign, nil).problem(t, 404, "not_found")
	})
}

func TestADownloadIsAReadAndWaitsForItsApproval(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(map[string]any{"read_file": "needs_approval"})
		run := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		base := "/api/v1/runs/" + run["id"].(string)
		require.Equal(t, 201, e.call("PUT", base+"/files?path=a.txt", e.member, "secret plan").StatusCode)
		p := e.call("GET", base+"/files/raw?path=a.txt", e.member, nil).problem(t, 428, "approval_required")
		assert.Equal(t, "read_file", p["tool"])
		r := e.call("GET", base+"/files/raw?path=a.txt", e.admin, nil, "Auxilia-Approval", "granted")
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, "secret plan", string(r.body))

		disabled, _ := e.boundAgent(map[string]any{"read_file": "disabled", "execute": "always_allow"})
		run = e.call("POST", "/api/v1/agents/"+disabled["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		e.call("GET", "/api/v1/runs/"+run["id"].(string)+"/files/raw?path=a.txt", e.member, nil).problem(t, 403, "tool_disabled")
	})
}

func TestADownloadLargerThanTheLimitIsRefusedBeforeAByteIsSent(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		run := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		base := "/api/v1/runs/" + run["id"].(string)
		require.Equal(t, 201, e.call("PUT", base+"/files?path=small.bin", e.member, "0123456789").StatusCode)
		// Made by a command: an upload of it would pass the limit too.
		require.Equal(t, float64(0), e.call("POST", base+"/execute", e.member, map[string]any{"command": "printf 0123456789a > big.bin"}).json(t)["exit_code"])
		assert.Equal(t, "0123456789", string(e.call("GET", base+"/files/raw?path=small.bin", e.member, nil).body))
		p := e.call("GET", base+"/files/raw?path=big.bin", e.member, nil).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"path"}, fields(p))
	}, func(o *options) { o.uploadLimit = 10 })
}
