package gateway

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// hostSecret stands for what the gateway's data folder holds of its own.
const hostSecret = "GATEWAY-HOST-SECRET-42"

// swapper makes a folder d holding a file named as the host's, and a link
// l to the gateway's data folder as the host sees it
// (sandboxes/<id>/workspace/l → ../../..), then swaps the two atomically
// and as fast as it can: the attack on a gateway that copies a workspace
// by path.
const swapper = `python3 -c '
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("d", exist_ok=True)
open("d/secret.txt", "w").write("decoy")
os.symlink("../../..", "l")
open("swapping", "w").close()
end = time.time() + 60
while time.time() < end:
    libc.renameat2(-100, b"d", -100, b"l", 2)
'`

// Snapshots, and the file API, never reach the host however a command
// swaps the workspace's folders for links meanwhile.
func TestSnapshotsHoldNothingOfTheHost(t *testing.T) {
	h := newJailHarness(t)
	require.NoError(t, os.WriteFile(filepath.Join(h.gw.cfg.DataDir, "secret.txt"), []byte(hostSecret), 0o600))
	sb := h.create(sandboxSpec{GCSBucket: "snapshots"})
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	wg.Go(func() {
		// Ends when the sandbox is deleted, at the end of the test.
		resp := h.call("POST", "/sandboxes/"+sb.ID+"/exec", map[string]any{"command": swapper, "timeout": 120})
		resp.Body.Close()
	})
	t.Cleanup(func() { h.call("DELETE", "/sandboxes/"+sb.ID, nil) })
	require.Eventually(t, func() bool {
		return h.call("GET", "/sandboxes/"+sb.ID+"/files/info?path=swapping", nil).StatusCode == http.StatusOK
	}, time.Minute, 20*time.Millisecond, "the swapper starts")

	var folders, links int
	for i := range 30 {
		decode[SnapshotInfo](t, h.call("POST", "/sandboxes/"+sb.ID+"/snapshot", nil), http.StatusOK)
		stored, ok := h.gcs.Object("snapshots", sb.ID+".tar")
		require.True(t, ok)
		require.False(t, bytes.Contains(stored, []byte(hostSecret)), "snapshot %d holds the host's file", i)
		names := tarNames(t, stored)
		if slices.Contains(names, "d/") {
			folders++
		}
		if slices.Contains(names, "d") {
			links++
		}
		for _, dir := range []string{"d", "l"} {
			resp := h.call("GET", "/sandboxes/"+sb.ID+"/files/content?path="+dir+"/secret.txt", nil)
			var body bytes.Buffer
			_, _ = body.ReadFrom(resp.Body)
			require.NotContains(t, body.String(), hostSecret, "reading %s/secret.txt reached the host", dir)
			h.call("PUT", "/sandboxes/"+sb.ID+"/files/content?path="+dir+"/planted.txt", strings.NewReader("planted"))
			resp = h.call("GET", "/sandboxes/"+sb.ID+"/files/list?path="+dir, nil)
			body.Reset()
			_, _ = body.ReadFrom(resp.Body)
			require.NotContains(t, body.String(), `"sandboxes"`, "listing %s listed the data folder", dir)
			h.call("DELETE", "/sandboxes/"+sb.ID+"/files?path="+dir+"/secret.txt", nil)
		}
	}
	_, err := os.Lstat(filepath.Join(h.gw.cfg.DataDir, "planted.txt"))
	assert.True(t, os.IsNotExist(err), "a write went through a link into the data folder")
	secret, err := os.ReadFile(filepath.Join(h.gw.cfg.DataDir, "secret.txt"))
	require.NoError(t, err, "a remove went through a link into the data folder")
	assert.Equal(t, hostSecret, string(secret))
	assert.Positive(t, folders, "the race was run: d was met as a folder")
	assert.Positive(t, links, "… and as a link")
}

// Each sandbox's commands run as a user of its own, which its files belong
// to, and which it keeps across a restart of the gateway.
func TestSandboxesRunAsUsersOfTheirOwn(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a gateway that is not root runs every sandbox as itself")
	}
	h := newJailHarness(t)
	a, b := h.create(sandboxSpec{}), h.create(sandboxSpec{})
	ua := h.exec(a.ID, map[string]any{"command": "id -u"}).Stdout
	ub := h.exec(b.ID, map[string]any{"command": "id -u"}).Stdout
	assert.NotEqual(t, ua, ub)
	for _, u := range []string{ua, ub} {
		assert.NotContains(t, []string{"0\n", "65534\n"}, u)
	}

	require.Equal(t, http.StatusNoContent, h.call("PUT", "/sandboxes/"+a.ID+"/files/content?path=by/the/api.txt", strings.NewReader("x")).StatusCode)
	assert.Equal(t, strings.Repeat(ua, 2), h.exec(a.ID, map[string]any{"command": "stat -c %u by by/the/api.txt"}).Stdout,
		"what the API writes is the sandbox's user's")

	// A root-owned file in the workspace is shut to the API as it is to commands.
	require.NoError(t, os.WriteFile(filepath.Join(h.gw.cfg.DataDir, "sandboxes", a.ID, "workspace", "roots.txt"), []byte("root's"), 0o600))
	problem(t, h.call("GET", "/sandboxes/"+a.ID+"/files/content?path=roots.txt", nil), http.StatusForbidden, auxilia.CodeForbidden, wire.SubjectFile)

	again, err := New(h.gw.cfg, Options{Launcher: NewBubblewrapLauncher(h.gw.cfg), Store: h.gw.store})
	require.NoError(t, err)
	defer again.Close()
	sb, ok := again.sandboxes.get(a.ID)
	require.True(t, ok)
	assert.Equal(t, fmt.Sprintf("%d\n", sb.user.UID), ua, "a restart keeps each sandbox's user")
}
