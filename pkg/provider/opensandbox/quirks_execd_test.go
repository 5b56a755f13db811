package opensandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The quirks of execd, and of reaching it, that the client must get right.

// The endpoint has no scheme and, in Docker bridge mode, carries a path.
func TestQuirkEndpointWithoutSchemeWithPath(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{BridgeNetwork: true}, direct)
	inst := create(t, client)
	var state struct {
		BaseURL string `json:"base_url"`
	}
	require.NoError(t, json.Unmarshal(inst.State, &state))
	assert.True(t, strings.HasPrefix(state.BaseURL, "http://127.0.0.1:"), state.BaseURL)
	assert.True(t, strings.HasSuffix(state.BaseURL, "/proxy/44772"), state.BaseURL)
	assert.Equal(t, "hi\n", run(t, client, inst, "echo hi").Output)
	assert.Positive(t, fake.Calls(opensandboxtest.OpCommand))
}

// The endpoint's headers (an access token) go with every execd call; they
// are kept in State, and an execd that does not get them refuses the call.
func TestQuirkEndpointHeadersOnEveryExecdCall(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{ExecdAccessToken: "execd-token",
		EndpointHeaders: map[string]string{"X-EXECD-ACCESS-TOKEN": "execd-token"}}, direct)
	inst := create(t, client)
	assert.Contains(t, string(inst.State), "execd-token", "State keeps the headers")

	var state map[string]any
	require.NoError(t, json.Unmarshal(inst.State, &state))
	state["headers"] = map[string]string{"X-EXECD-ACCESS-TOKEN": "stale"}
	stale := inst
	stale.State, _ = json.Marshal(state)

	_, err := client.Execute(context.Background(), stale, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Equal(t, "Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN", providerMessage(t, err))
	_, err = providertest.ReadAll(context.Background(), client, stale, "/workspace/x")
	assert.ErrorIs(t, err, provider.ErrUnauthorized)
}

// execd holds the stream about a second after the completion event: the
// client returns at the event.
func TestQuirkReturnAtCompletionNotAtStreamEnd(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{CompletionHold: 5 * time.Second})
	inst := create(t, client)
	start := time.Now()
	res := run(t, client, inst, "echo hi")
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, "hi\n", res.Output)
}

// Output comes one event per line without its line break; the client puts
// the breaks back, blank lines included.
func TestQuirkOneEventPerLine(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	var events []string
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{
		Command: `printf 'a\n\nb\r\nc\n'; printf 'e\n' 1>&2`, Timeout: 30 * time.Second,
		OnOutput: func(stream, text string) { events = append(events, stream+":"+text) }})
	require.NoError(t, err)
	// Output is in arrival order: stderr's line may come between stdout's.
	var stdout strings.Builder
	for _, e := range events {
		if text, ok := strings.CutPrefix(e, "stdout:"); ok {
			stdout.WriteString(text)
		}
	}
	assert.Equal(t, "a\n\nb\nc\n", stdout.String())
	assert.Contains(t, res.Output, "e\n")
	assert.Contains(t, events, "stderr:e\n")
}

// The exit code comes from the error event's evalue; execd's own timeout
// kills with "-1" and "signal: killed", which is our timeout result.
func TestQuirkExitCodeFromErrorEvent(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	assert.Equal(t, 0, run(t, client, inst, "true").ExitCode)
	assert.Equal(t, 42, run(t, client, inst, "exit 42").ExitCode)
	assert.Equal(t, 143, run(t, client, inst, "kill -TERM $$").ExitCode)

	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "sleep 30", Timeout: 500 * time.Millisecond})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, provider.TimeoutExitCode, res.ExitCode)
	assert.Equal(t, provider.TimeoutNotice(500*time.Millisecond), res.Output)
}

// The command's timeout goes to execd in milliseconds (seconds would kill
// this one at once).
func TestQuirkCommandTimeoutInMilliseconds(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "sleep 0.3; echo done", Timeout: 20 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "done\n", res.Output)
}

// Upload's metadata must be a file part: execd looks for it among files.
func TestQuirkUploadMetadataIsAFilePart(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{}, direct)
	inst := create(t, client)
	require.NoError(t, client.WriteFile(context.Background(), inst, "/workspace/deep/er/x.txt", []byte("x")))
	got, err := providertest.ReadAll(context.Background(), client, inst, "/workspace/deep/er/x.txt")
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))

	// The same upload with metadata as a plain field is refused, as execd refuses it.
	var state struct {
		BaseURL string            `json:"base_url"`
		Headers map[string]string `json:"headers"`
	}
	require.NoError(t, json.Unmarshal(inst.State, &state))
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(t, w.WriteField("metadata", `{"path":"/workspace/y.txt","mode":644}`))
	part, err := w.CreateFormFile("file", "y.txt")
	require.NoError(t, err)
	_, _ = part.Write([]byte("y"))
	require.NoError(t, w.Close())
	req, err := http.NewRequest("POST", state.BaseURL+"/files/upload", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", w.FormDataContentType())
	for k, v := range state.Headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	var answer map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
	assert.Equal(t, map[string]string{"code": "INVALID_FILE_METADATA", "message": "metadata file is missing"}, answer)
	assert.Equal(t, 2, fake.Calls(opensandboxtest.OpUpload))
}

// A missing file is 404 FILE_NOT_FOUND; execd's delete says nothing of a
// missing file and removes directories recursively, so RemoveFile looks first.
func TestQuirkMissingFilesAndRemoval(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	ctx := context.Background()

	_, err := providertest.ReadAll(ctx, client, inst, "/workspace/missing.txt")
	require.ErrorIs(t, err, provider.ErrNotFound)
	assert.Contains(t, providerMessage(t, err), "FILE_NOT_FOUND")
	assert.ErrorIs(t, client.RemoveFile(ctx, inst, "/workspace/missing.txt"), provider.ErrNotFound)

	require.NoError(t, client.WriteFile(ctx, inst, "full/kept.txt", []byte("kept")), "relative paths resolve in WorkDir")
	err = client.RemoveFile(ctx, inst, "/workspace/full")
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "not empty")
	_, err = client.Stat(ctx, inst, "/workspace/full/kept.txt")
	require.NoError(t, err, "a directory with files is left alone")

	require.NoError(t, client.RemoveFile(ctx, inst, "/workspace/full/kept.txt"))
	require.NoError(t, client.RemoveFile(ctx, inst, "/workspace/full"), "an empty directory is removed")
	_, err = client.Stat(ctx, inst, "/workspace/full")
	assert.ErrorIs(t, err, provider.ErrNotFound)
}

// execd's file removal follows a symbolic link: it refuses a link to a
// directory and does nothing for a dangling one. Links are removed as
// directories are, which removes the link itself.
func TestQuirkRemovingSymbolicLinks(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	ctx := context.Background()
	require.NoError(t, client.WriteFile(ctx, inst, "dir/kept.txt", []byte("kept")))
	res := run(t, client, inst, "ln -s /workspace/dir to-dir && ln -s /workspace/nowhere dangling && echo ok")
	require.Equal(t, "ok\n", res.Output)

	for _, link := range []string{"/workspace/to-dir", "/workspace/dangling"} {
		require.NoError(t, client.RemoveFile(ctx, inst, link), link)
		assert.Equal(t, "gone\n", run(t, client, inst, "test -L "+link+" || echo gone").Output, "%s is removed", link)
	}
	data, err := providertest.ReadAll(ctx, client, inst, "/workspace/dir/kept.txt")
	require.NoError(t, err)
	assert.Equal(t, "kept", string(data), "what a link pointed at stays")
}

// execd expands $VAR (and ${VAR}) in every path, with no escape: such a path
// would land elsewhere or be refused, so the client does not send it.
func TestQuirkExecdExpandsDollarInPaths(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.ResetCalls()
	ctx := context.Background()

	err := client.WriteFile(ctx, inst, "/workspace/${HOME}.txt", []byte("x"))
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "execd expands $ in paths")
	_, err = providertest.ReadAll(ctx, client, inst, "price$5.txt")
	assert.ErrorIs(t, err, provider.ErrFailed)
	_, err = client.Stat(ctx, inst, "/workspace/$x")
	assert.ErrorIs(t, err, provider.ErrFailed)
	assert.Zero(t, fake.TotalCalls(), "nothing was sent")
}

// A directory's download answers a length and no body on overlay
// filesystems: reading one is told by stat, before any download, in the
// words the run service turns into "is a directory".
func TestQuirkReadingADirectory(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	run(t, client, inst, "mkdir -p made")

	fake.ResetCalls()
	_, err := providertest.ReadAll(context.Background(), client, inst, "made")
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Equal(t, "/workspace/made is a directory", providerMessage(t, err))
	assert.Zero(t, fake.Calls(opensandboxtest.OpDownload))
}

// The server names no execd token. The official Go SDK sends the API key
// as one behind the proxy (sdks/sandbox/go/sandbox.go, resolveExecd); that
// hands the key to the sandbox, whose code could catch it, so the client
// does so only when the settings say execd was started with the key, and
// never to a container's own port.
func TestQuirkAPIKeyIsExecdTokenOnlyWhenSaid(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{ExecdAccessToken: testKey})
	_, err := client.Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrUnauthorized, "by default the key stays out of the sandbox")
	assert.Equal(t, "Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN", providerMessage(t, err))
	assert.False(t, fake.ExecdSawAPIKey())

	said := func(c *opensandbox.Config) { c.ExecdTokenIsAPIKey = true }
	client = openClient(t, testKind, fake.URL, testKey, said)
	inst := create(t, client)
	assert.NotContains(t, string(inst.State), testKey, "the key is not kept in State")
	assert.Equal(t, "hi\n", run(t, client, inst, "echo hi").Output)
	assert.True(t, fake.ExecdSawAPIKey())

	directly := openClient(t, testKind, fake.URL, testKey, said, direct)
	_, err = directly.Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrUnauthorized, "a container's own port never gets the key")
}
