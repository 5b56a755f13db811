package local

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommandsCannotWriteOutsideTheWorkspace(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		inst := c.create(t)
		for _, p := range []string{"/outside.txt", "/usr/outside.txt", "/etc/outside.txt", "/workspace/../outside.txt"} {
			res := c.exec(t, inst, "echo x > "+p)
			assert.NotEqual(t, 0, res.ExitCode, "%s cannot be written: %s", p, res.Output)
		}
		res := c.exec(t, inst, "echo x > /workspace/inside.txt && echo x > /tmp/scratch && echo ok")
		assert.Equal(t, "ok\n", res.Output)
		data, err := providertest.ReadAll(t.Context(), c, inst, "inside.txt")
		require.NoError(t, err, "the workspace is the instance's folder")
		assert.Equal(t, "x\n", string(data))
	})
}

func TestCommandsCannotSeeTheServerOrOtherInstances(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		require.NoError(t, os.WriteFile(filepath.Join(c.dataDir, "server-secret.key"), []byte("secret"), 0o600))
		mine, theirs := c.create(t), c.create(t)
		require.NoError(t, c.WriteFile(t.Context(), theirs, "/workspace/their-private.txt", []byte("theirs")))
		require.NoError(t, c.WriteFile(t.Context(), mine, "/workspace/sub/my-own.txt", []byte("mine")))

		// Names are split so that the command line, visible in /proc, holds none.
		res := c.exec(t, mine, `a=server-; b=secret.key; c=their-; d=private.txt; e=`+theirs.ID[:6]+`; f=`+theirs.ID[6:]+`; g=my-; h=own.txt
		ls -A / /workspace/..
		find / \( -path /proc -o -path /usr \) -prune -o \( -name "$a$b" -o -name "$c$d" -o -name "$e$f" -o -name "$g$h" \) -print 2>/dev/null
		true`)
		assert.Equal(t, 0, res.ExitCode)
		assert.Contains(t, res.Output, "/workspace/sub/my-own.txt", "the search finds what is there")
		assert.NotContains(t, res.Output, "server-secret", "the server's data folder is out of sight")
		assert.NotContains(t, res.Output, "their-private", "so are other instances")
		assert.NotContains(t, res.Output, theirs.ID)
		assert.NotContains(t, res.Output, c.dataDir, "not even the data folder's path")

		res = c.exec(t, mine, "ls /root; cat /root/.profile")
		assert.NotEqual(t, 0, res.ExitCode, "/root cannot be read: %s", res.Output)
	})
}

// listen opens a TCP listener on 127.0.0.1 and returns its port and what
// it received, connection by connection.
func listen(t *testing.T) (port string, got chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	got = make(chan string, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
			data, _ := io.ReadAll(conn)
			conn.Close()
			got <- string(data)
		}
	}()
	return port, got
}

func sendHi(port string) string {
	return `python3 -c 'import socket; socket.create_connection(("127.0.0.1", ` + port + `), timeout=5).sendall(b"hi")'`
}

func TestNoNetworkByDefault(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		port, got := listen(t)
		c := newIsolatedClient(t, isolation)
		res := c.exec(t, c.create(t), sendHi(port))
		assert.NotEqual(t, 0, res.ExitCode)
		assert.Contains(t, res.Output, "Connection refused")
		select {
		case data := <-got:
			t.Fatalf("the listener heard %q", data)
		case <-time.After(200 * time.Millisecond):
		}
	})
}

func TestNetworkWhenAsked(t *testing.T) {
	if err := bubblewrap.Available(t.Context(), "", true); err != nil {
		t.Skipf("no network for jails here: %v", err)
	}
	port, got := listen(t)
	c := newClient(t, func(cfg *Config) { cfg.Network = provider.AllowNetwork() })
	inst := c.create(t)
	res := c.exec(t, inst, "ip -br link | cut -d' ' -f1; cat /etc/resolv.conf")
	assert.Equal(t, "lo\ntap0\nnameserver 10.0.2.3\n", res.Output, "a way out, and a resolver")
	res = c.exec(t, inst, sendHi(port))
	assert.NotEqual(t, 0, res.ExitCode, "the host's loopback stays out of reach: %s", res.Output)
	select {
	case data := <-got:
		t.Fatalf("the listener heard %q", data)
	default:
	}
}
