package e2b

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// envd is one sandbox's daemon: Connect-RPC services (process.Process,
// filesystem.Filesystem) and the HTTP /files route, all behind the
// sandbox's access token.
type envd struct {
	c    *Client
	id   string
	base string
	st   state
}

func (c *Client) envdOf(inst provider.Instance) envd {
	st := readState(inst)
	return envd{c: c, id: inst.ID, base: c.cfg.envdBase(inst.ID, st.Domain), st: st}
}

// header is what every call to envd carries: its token (X-Access-Token,
// packages/envd/internal/permissions/authenticate.go) and, for a proxy in
// front of many sandboxes, which sandbox and port it is for
// (packages/shared/pkg/proxy/host.go).
func (e envd) header() http.Header {
	h := http.Header{}
	if e.st.AccessToken != "" {
		h.Set("X-Access-Token", e.st.AccessToken)
	}
	h.Set("E2b-Sandbox-Id", e.id)
	h.Set("E2b-Sandbox-Port", envdPort)
	return h
}

// unary makes one Connect unary call with the JSON codec: the message as
// the body, the answer's message as its body, an error as
// {"code","message"} with a status outside 2xx.
func (e envd) unary(ctx context.Context, op, procedure string, in, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return failure(provider.ErrFailed, op, "encoding the request: %s", err)
	}
	h := e.header()
	h.Set("Connect-Protocol-Version", "1")
	a, err := e.c.envdCaller.Send(ctx, provider.Call{Op: op, Method: http.MethodPost, URL: e.base + "/" + procedure,
		Header: h, Body: bytes.NewReader(raw), ContentType: "application/json", Timeout: requestTimeout})
	if err != nil || out == nil {
		return err
	}
	return e.c.envdCaller.Decode(op, a.Body, out)
}

// stream makes one Connect server-streaming call with the JSON codec:
// the request and every answer are enveloped (a flags byte, a 4-byte
// big-endian length, the message); the last answer, flagged endStream,
// carries the call's error if it failed.
func (e envd) stream(ctx context.Context, op, procedure string, in any) (*messages, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, failure(provider.ErrFailed, op, "encoding the request: %s", err)
	}
	h := e.header()
	h.Set("Connect-Protocol-Version", "1")
	a, err := e.c.envdCaller.Send(ctx, provider.Call{Op: op, Method: http.MethodPost, URL: e.base + "/" + procedure,
		Header: h, Body: bytes.NewReader(envelope(0, raw)), ContentType: "application/connect+json",
		Accept: "application/connect+json", Stream: true})
	if err != nil {
		return nil, err
	}
	return &messages{op: op, r: a.Stream}, nil
}

// The envelope's flags (connectrpc.com's protocol: "Streaming-Response").
const (
	flagCompressed = 0x01
	flagEndStream  = 0x02
)

// maxMessage bounds one streamed message.
const maxMessage = 16 << 20

func envelope(flags byte, msg []byte) []byte {
	out := make([]byte, 5, 5+len(msg))
	out[0] = flags
	binary.BigEndian.PutUint32(out[1:], uint32(len(msg)))
	return append(out, msg...)
}

// messages reads a server stream's messages.
type messages struct {
	op string
	r  io.ReadCloser
}

// Next returns the next message; io.EOF once the stream ended well, the
// call's error when it ended with one.
func (m *messages) Next() (json.RawMessage, error) {
	var head [5]byte
	if _, err := io.ReadFull(m.r, head[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, failure(provider.ErrFailed, m.op, "the stream ended without its end message")
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n > maxMessage {
		return nil, failure(provider.ErrFailed, m.op, "a message of %d bytes is larger than %d", n, maxMessage)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(m.r, msg); err != nil {
		return nil, err
	}
	switch {
	case head[0]&flagCompressed != 0:
		return nil, failure(provider.ErrFailed, m.op, "a compressed message, which was not asked for")
	case head[0]&flagEndStream != 0:
		var end struct {
			Error *connectError `json:"error"`
		}
		if err := json.Unmarshal(msg, &end); err != nil {
			return nil, failure(provider.ErrFailed, m.op, "malformed end of stream: %q", provider.Clip(string(msg), 120))
		}
		if end.Error != nil {
			return nil, end.Error.kind(m.op, 0)
		}
		return nil, io.EOF
	}
	return msg, nil
}

func (m *messages) Close() error { return m.r.Close() }

// connectError is a Connect error: a code (not_found, …) and a message.
type connectError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// kind sorts a Connect error by its code, else by the HTTP status.
func (e connectError) kind(op string, status int) error {
	msg := e.Message
	if msg == "" {
		msg = e.Code
	}
	switch e.Code {
	case "not_found":
		return failure(provider.ErrNotFound, op, "%s", msg)
	case "unauthenticated":
		return failure(provider.ErrUnauthorized, op, "%s", msg)
	case "deadline_exceeded":
		return failure(provider.ErrTimeout, op, "%s", msg)
	case "":
		return failure(provider.StatusKind(status), op, "%d %s", status, http.StatusText(status))
	}
	return failure(provider.ErrFailed, op, "%s: %s", e.Code, msg)
}

// envdRefusal sorts envd's error answers: a Connect error, or the /files
// route's {"code": status, "message"} (envd.yaml's Error).
func envdRefusal(op string, a provider.Answer) error {
	var ce connectError
	if json.Unmarshal(a.Body, &ce) == nil && ce.Code != "" {
		return ce.kind(op, a.Status)
	}
	var he apiError
	if json.Unmarshal(a.Body, &he) == nil && he.Message != "" {
		switch {
		case a.Status == http.StatusNotFound:
			return failure(provider.ErrNotFound, op, "%s", he.Message)
		case a.Status == http.StatusBadGateway && strings.Contains(he.Message, "was not found"):
			// E2B's proxy cannot route to the sandbox: gone, or paused
			// (packages/shared/pkg/proxy/template/sandbox_not_found.go).
			// It cannot tell which, so neither is said: the control plane
			// tells on the next reconnect.
			return failure(provider.ErrFailed, op, "%s (gone, or paused)", he.Message)
		}
		return failure(provider.StatusKind(a.Status), op, "%d: %s", a.Status, he.Message)
	}
	return failure(provider.StatusKind(a.Status), op, "%s", provider.StatusWords(a))
}
