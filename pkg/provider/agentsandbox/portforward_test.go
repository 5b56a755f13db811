package agentsandbox

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// forwardTo answers a pod's portforward as the kubelet does over a
// WebSocket (v4.channel.k8s.io): each of the port's two channels begins
// with the port, then channel 0 carries the data both ways. The data goes
// to and from target, a listener of this host standing for the pod.
func forwardTo(t *testing.T, target func(port int) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		port, err := strconv.Atoi(r.URL.Query().Get("ports"))
		if err != nil || !strings.HasSuffix(r.URL.Path, "/portforward") {
			writeStatus(w, http.StatusBadRequest, "BadRequest", "no port")
			return
		}
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{portForwardProtocol}})
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx := r.Context()
		conn, err := net.Dial("tcp", target(port))
		if err != nil {
			return
		}
		defer conn.Close()
		prefix := binary.LittleEndian.AppendUint16(nil, uint16(port))
		for _, ch := range []byte{dataChannel, errorChannel} {
			if ws.Write(ctx, websocket.MessageBinary, append([]byte{ch}, prefix...)) != nil {
				return
			}
		}
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := conn.Read(buf)
				if n > 0 && ws.Write(ctx, websocket.MessageBinary, append([]byte{dataChannel}, buf[:n]...)) != nil {
					return
				}
				if err != nil {
					_ = ws.Close(websocket.StatusNormalClosure, "")
					return
				}
			}
		}()
		for {
			_, msg, err := ws.Read(ctx)
			if err != nil {
				return
			}
			if len(msg) > 0 && msg[0] == dataChannel {
				if _, err := conn.Write(msg[1:]); err != nil {
					return
				}
			}
		}
	}
}

// Through the API server's portforward, a real sandboxd runs commands and
// serves files as it does when dialled directly.
func TestAPortForwardReachesSandboxd(t *testing.T) {
	pods := newHostPods(t)
	ctx := t.Context()
	inst, err := pods.Create(ctx, provider.Labels{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = pods.Destroy(context.Background(), inst) })
	ports := pods.pods.ports[inst.ID]

	c := clientOf(t, forwardTo(t, func(port int) string {
		actual := ports[0]
		if port == restPort {
			actual = ports[1]
		}
		return "127.0.0.1:" + strconv.Itoa(actual)
	}), func(cfg *Config) { cfg.ReachPods = reachPortForward })
	require.IsType(t, portForwarder{}, c.pods.dialer)

	res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: "echo through the API server; exit 3"})
	require.NoError(t, err)
	assert.Equal(t, 3, res.ExitCode)
	assert.Equal(t, "through the API server\n", res.Output)

	require.NoError(t, c.WriteFile(ctx, inst, inst.WorkDir+"/sub/a.txt", []byte("forwarded")))
	r, err := c.OpenFile(ctx, inst, inst.WorkDir+"/sub/a.txt")
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, r.Close())
	require.NoError(t, err)
	assert.Equal(t, "forwarded", string(got))
}

// A portforward the API server refuses is said in its words.
func TestARefusedPortForwardIsSaid(t *testing.T) {
	c := clientOf(t, func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, http.StatusForbidden, "Forbidden",
			`pods "aux-1" is forbidden: User "ana" cannot create resource "pods/portforward" in API group "" in the namespace "agents"`)
	}, func(cfg *Config) { cfg.ReachPods = reachPortForward })
	inst := provider.Instance{ID: "aux-1", WorkDir: DefaultWorkDir, State: state{Pod: "aux-1"}.raw()}
	_, err := c.Stat(t.Context(), inst, DefaultWorkDir)
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), `cannot create resource "pods/portforward"`)
	assert.NotContains(t, err.Error(), secretToken)

	_, err = c.Execute(t.Context(), inst, provider.ExecRequest{Command: "true"})
	require.ErrorIs(t, err, provider.ErrUnauthorized, "gRPC's dial says the same")
	assert.Contains(t, err.Error(), `cannot create resource "pods/portforward"`)
}
