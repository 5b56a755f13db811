package agentsandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// processStream is one ProcessService.Start: its events as they come.
type processStream struct {
	op     string
	stream grpc.ClientStream
	pc     *podConn
}

var startDesc = &grpc.StreamDesc{StreamName: "Start", ServerStreams: true}

// start starts a process in the instance's pod.
func (c *Client) start(ctx context.Context, op string, inst provider.Instance, req *wireMessage) (*processStream, *podConn, error) {
	pc, err := c.pod(inst)
	if err != nil {
		return nil, nil, err
	}
	s, err := pc.grpc.NewStream(ctx, startDesc, methodStart)
	if err == nil {
		err = s.SendMsg(req)
	}
	if err == nil {
		err = s.CloseSend()
	}
	if err != nil {
		return nil, nil, pc.dialRefusal(grpcError(ctx, op, err))
	}
	return &processStream{op: op, stream: s, pc: pc}, pc, nil
}

// next is the process's next event; io.EOF once the stream has ended.
func (p *processStream) next(ctx context.Context) (startEvent, error) {
	var m wireMessage
	if err := p.stream.RecvMsg(&m); err != nil {
		if errors.Is(err, io.EOF) {
			return startEvent{}, io.EOF
		}
		return startEvent{}, p.pc.dialRefusal(grpcError(ctx, p.op, err))
	}
	ev, err := decodeStartEvent(m.b)
	if err != nil {
		return ev, failure(provider.ErrFailed, p.op, "sandboxd sent a %s", err)
	}
	return ev, nil
}

// unary calls one of the ProcessService's unary methods, whose answers
// are empty.
func unary(ctx context.Context, op string, pc *podConn, method string, req *wireMessage) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	if err := pc.grpc.Invoke(ctx, method, req, &wireMessage{}); err != nil {
		return pc.dialRefusal(grpcError(ctx, op, err))
	}
	return nil
}

// signalGroup sends a signal to the process's group (SendSignal signals
// the group the process leads: ManagedProcess.Signal in
// pkg/processmanager), on a context of its own: it is sent when the
// caller has left too.
func signalGroup(op string, pc *podConn, pid int32, signal int) error {
	if pid <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return unary(ctx, op, pc, methodSendSignal, sendSignal(pid, signal))
}

// grpcError sorts a gRPC failure by its status code (sandboxd's codes
// in pkg/server/process.go): the caller leaving is its own error.
func grpcError(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("%s %s: %w", providerName, op, context.Canceled)
	}
	s, _ := status.FromError(err)
	msg := s.Message()
	switch s.Code() {
	case codes.Unavailable:
		return failure(provider.ErrUnreachable, op, "sandboxd: %s", msg)
	case codes.DeadlineExceeded:
		return failure(provider.ErrTimeout, op, "sandboxd: %s", msg)
	case codes.PermissionDenied:
		return failure(provider.ErrPath, op, "sandboxd: %s", msg)
	case codes.Canceled:
		return fmt.Errorf("%s %s: %w", providerName, op, context.Canceled)
	}
	return failure(provider.ErrFailed, op, "sandboxd: %s: %s", s.Code(), msg)
}
