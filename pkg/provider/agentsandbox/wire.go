package agentsandbox

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// sandboxd's ProcessService messages (packages/sandboxd/spec/process/v1/
// process.proto), written and read field by field with protowire: the
// service is small, and its generated package would bring its whole
// module (client-go with it) into this one.

// wireMessage is a message already encoded, or to be decoded.
type wireMessage struct{ b []byte }

// wireCodec hands gRPC the bytes as they are.
type wireCodec struct{}

func (wireCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(*wireMessage)
	if !ok {
		return nil, fmt.Errorf("cannot encode %T", v)
	}
	return m.b, nil
}

func (wireCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*wireMessage)
	if !ok {
		return fmt.Errorf("cannot decode into %T", v)
	}
	m.b = append(m.b[:0], data...)
	return nil
}

// Name is the codec's content subtype: the messages are protobuf's.
func (wireCodec) Name() string { return "proto" }

// The methods of process.v1.ProcessService.
const (
	methodStart      = "/process.v1.ProcessService/Start"
	methodWriteStdin = "/process.v1.ProcessService/WriteStdin"
	methodSendSignal = "/process.v1.ProcessService/SendSignal"
	methodResizeTTY  = "/process.v1.ProcessService/ResizeTTY"
)

// signalKill is SIGKILL as SendSignal takes it (enum Signal).
const signalKill = 9

// processConfig is a ProcessConfig: command, env_vars, cwd.
type processConfig struct {
	Command []string
	Env     map[string]string
	Cwd     string
}

func (p processConfig) encode() []byte {
	var b []byte
	for _, arg := range p.Command {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, arg)
	}
	for k, v := range p.Env {
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType)
		entry = protowire.AppendString(entry, k)
		entry = protowire.AppendTag(entry, 2, protowire.BytesType)
		entry = protowire.AppendString(entry, v)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, entry)
	}
	if p.Cwd != "" {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendString(b, p.Cwd)
	}
	return b
}

// startRequest is a StartRequest: the process, and a pty of cols×rows
// when cols is not 0.
func startRequest(p processConfig, cols, rows uint16) *wireMessage {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, p.encode())
	if cols > 0 {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, sizeFields(nil, 1, cols, rows))
	}
	return &wireMessage{b: b}
}

func sizeFields(b []byte, first protowire.Number, cols, rows uint16) []byte {
	b = protowire.AppendTag(b, first, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(cols))
	b = protowire.AppendTag(b, first+1, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(rows))
}

func appendPID(b []byte, pid int32) []byte {
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(int64(pid)))
}

// writeStdin is a WriteStdinRequest: input, or the end of input when input is nil.
func writeStdin(pid int32, input []byte) *wireMessage {
	b := appendPID(nil, pid)
	if input == nil {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendBytes(b, nil) // google.protobuf.Empty
	} else {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, input)
	}
	return &wireMessage{b: b}
}

func sendSignal(pid int32, signal int) *wireMessage {
	b := appendPID(nil, pid)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	return &wireMessage{b: protowire.AppendVarint(b, uint64(signal))}
}

func resizeTTY(pid int32, cols, rows uint16) *wireMessage {
	return &wireMessage{b: sizeFields(appendPID(nil, pid), 2, cols, rows)}
}

// startEvent is one StartResponse: its oneof event.
type startEvent struct {
	Init     bool
	PID      int32
	Stdout   []byte
	Stderr   []byte
	Exited   bool
	ExitCode int32
}

var errMalformed = errors.New("malformed message")

func decodeStartEvent(b []byte) (startEvent, error) {
	var ev startEvent
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return ev, errMalformed
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return ev, errMalformed
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return ev, errMalformed
		}
		b = b[n:]
		switch num {
		case 1:
			ev.Init = true
			ev.PID = int32Field(v)
		case 2:
			ev.Stdout = v
		case 3:
			ev.Stderr = v
		case 4:
			ev.Exited = true
			ev.ExitCode = int32Field(v)
		}
	}
	return ev, nil
}

// int32Field reads field 1 of a message holding one int32 (InitEvent, ExitEvent).
func int32Field(msg []byte) int32 {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return 0
		}
		msg = msg[n:]
		if num == 1 && typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(msg)
			if n < 0 {
				return 0
			}
			return int32(int64(v))
		}
		if n = protowire.ConsumeFieldValue(num, typ, msg); n < 0 {
			return 0
		}
		msg = msg[n:]
	}
	return 0
}
