package agentsandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// portForwardProtocol is the channel protocol the kubelet's port-forward
// speaks over a WebSocket (v4.channel.k8s.io: binary frames, each led by
// its channel's byte; k8s.io/apiserver/pkg/util/wsstream and the
// kubelet's cri/streaming/portforward/websocket.go). One port has two
// channels, its data (0) and its errors (1); each begins with the port
// number, two bytes little-endian.
const portForwardProtocol = "v4.channel.k8s.io"

const (
	dataChannel  = 0
	errorChannel = 1
)

// portForwarder reaches a pod's port through the API server
// (GET pods/{name}/portforward, upgraded to a WebSocket), with the
// client's credentials: the way for a server outside the cluster.
type portForwarder struct{ c *Client }

func (f portForwarder) dial(ctx context.Context, pod podRef, port int) (net.Conn, error) {
	const op = "port-forward"
	c := f.c
	if c.apiErr != nil {
		return nil, failure(provider.ErrUnauthorized, op, "%s", c.apiErr)
	}
	u := c.api.base + c.podPath(pod.Name) + "/portforward?" + url.Values{"ports": {strconv.Itoa(port)}}.Encode()
	header := http.Header{}
	c.caller.Auth(header)
	ws, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: c.wsHTTP, HTTPHeader: header,
		Subprotocols: []string{portForwardProtocol}})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			body, _ := io.ReadAll(resp.Body)
			return nil, c.caller.Refusal(op, provider.Answer{Status: resp.StatusCode, Header: resp.Header, Body: body})
		}
		return nil, provider.RoundTripError(ctx, providerName, op, err)
	}
	ws.SetReadLimit(1 << 20)
	return newForwarded(ws, pod, port), nil
}

// forwarded is one forwarded port as a net.Conn.
type forwarded struct {
	ws   *websocket.Conn
	pod  podRef
	port int

	// ctx ends the connection's reads and writes when it is closed.
	ctx    context.Context
	cancel context.CancelFunc

	readMu  sync.Mutex
	pending []byte
	// prefixed says which channels' port prefix has been read.
	prefixed [2]bool
	writeMu  sync.Mutex
	once     sync.Once
}

func newForwarded(ws *websocket.Conn, pod podRef, port int) *forwarded {
	ctx, cancel := context.WithCancel(context.Background())
	return &forwarded{ws: ws, pod: pod, port: port, ctx: ctx, cancel: cancel}
}

func (f *forwarded) Read(p []byte) (int, error) {
	f.readMu.Lock()
	defer f.readMu.Unlock()
	for len(f.pending) == 0 {
		_, msg, err := f.ws.Read(f.ctx)
		if err != nil {
			if websocket.CloseStatus(err) == websocket.StatusNormalClosure || errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			return 0, err
		}
		if len(msg) == 0 {
			continue
		}
		channel, data := int(msg[0]), msg[1:]
		if channel > errorChannel {
			continue
		}
		if !f.prefixed[channel] {
			// The channel's first bytes are its port number.
			if len(data) < 2 {
				return 0, errors.New("port-forward: a channel began without its port")
			}
			if int(binary.LittleEndian.Uint16(data)) != f.port {
				return 0, errors.New("port-forward: a channel of another port")
			}
			f.prefixed[channel] = true
			data = data[2:]
		}
		if channel == errorChannel {
			if text := strings.TrimSpace(string(data)); text != "" {
				return 0, failure(provider.ErrUnreachable, "port-forward", "%s", text)
			}
			continue
		}
		f.pending = data
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *forwarded) Write(p []byte) (int, error) {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	frame := make([]byte, 0, len(p)+1)
	frame = append(frame, dataChannel)
	frame = append(frame, p...)
	if err := f.ws.Write(f.ctx, websocket.MessageBinary, frame); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (f *forwarded) Close() error {
	f.once.Do(func() {
		f.cancel()
		_ = f.ws.CloseNow()
	})
	return nil
}

// forwardedAddr names a forwarded port: the pod and its port.
type forwardedAddr string

func (a forwardedAddr) Network() string { return "portforward" }
func (a forwardedAddr) String() string  { return string(a) }

func (f *forwarded) LocalAddr() net.Addr { return forwardedAddr("local") }
func (f *forwarded) RemoteAddr() net.Addr {
	return forwardedAddr(f.pod.Namespace + "/" + f.pod.Name + ":" + strconv.Itoa(f.port))
}

// The deadlines are not kept: the connection's users bound their calls
// with contexts, and closing it ends what is blocked.
func (f *forwarded) SetDeadline(time.Time) error      { return nil }
func (f *forwarded) SetReadDeadline(time.Time) error  { return nil }
func (f *forwarded) SetWriteDeadline(time.Time) error { return nil }
