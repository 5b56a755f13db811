package agentsandbox

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// podRef is a Sandbox's pod, as a dialer reaches it.
type podRef struct {
	Namespace, Name, IP string
}

// podDialer opens a connection to a port of a pod. Which one is used is
// the config's reach_pods: podIPDialer where pod IPs are routed to this
// server (it runs in the cluster), portForwarder otherwise.
type podDialer interface {
	dial(ctx context.Context, pod podRef, port int) (net.Conn, error)
}

// podIPDialer dials the pod's IP, which the Sandbox's status reports
// (podIPs, set from the pod's by the controller). The address comes from
// the API server, not from a setting, so the URL policy is not applied.
type podIPDialer struct{}

func (podIPDialer) dial(ctx context.Context, pod podRef, port int) (net.Conn, error) {
	if pod.IP == "" {
		return nil, failure(provider.ErrFailed, "connect", "the pod %s has no IP yet", pod.Name)
	}
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return d.DialContext(ctx, "tcp", net.JoinHostPort(pod.IP, strconv.Itoa(port)))
}

// podConn is how one instance's sandboxd is spoken to: one gRPC
// connection for its ProcessService, one HTTP client for its files.
type podConn struct {
	ref   podRef
	grpc  *grpc.ClientConn
	files *http.Client
	// refused is the last dial the API server refused (a port-forward
	// it forbids), which gRPC and net/http word as the pod unreachable.
	refused atomic.Pointer[provider.Error]
}

// dialRefusal is err, or the API server's refusal of the dial that made
// it, which says more.
func (p *podConn) dialRefusal(err error) error {
	if refused := p.refused.Load(); refused != nil && errors.Is(err, provider.ErrUnreachable) {
		return refused
	}
	return err
}

func (p *podConn) close() {
	_ = p.grpc.Close()
	p.files.CloseIdleConnections()
}

// podConns keeps each instance's connections while its pod stays the same.
type podConns struct {
	dialer podDialer
	mu     sync.Mutex
	conns  map[string]*podConn
}

func newPodConns(d podDialer) *podConns { return &podConns{dialer: d, conns: map[string]*podConn{}} }

// get returns the connections to the instance's pod, making them the
// first time, or anew when its pod changed.
func (p *podConns) get(id string, ref podRef) (*podConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if have, ok := p.conns[id]; ok {
		if have.ref == ref {
			return have, nil
		}
		have.close()
		delete(p.conns, id)
	}
	conn := &podConn{ref: ref}
	dial := func(port int) func(context.Context, string) (net.Conn, error) {
		return func(ctx context.Context, _ string) (net.Conn, error) {
			c, err := p.dialer.dial(ctx, ref, port)
			var pe *provider.Error
			if errors.As(err, &pe) && !errors.Is(err, provider.ErrUnreachable) && !errors.Is(err, provider.ErrTimeout) {
				conn.refused.Store(pe)
			} else if err == nil {
				conn.refused.Store(nil)
			}
			return c, err
		}
	}
	g, err := grpc.NewClient("passthrough:///"+ref.Name,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(dial(grpcPort)),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(wireCodec{})))
	if err != nil {
		return nil, failure(provider.ErrFailed, "connect", "%s", err)
	}
	files := &http.Client{
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
				return dial(restPort)(ctx, addr)
			},
			MaxIdleConnsPerHost: 8,
			IdleConnTimeout:     90 * time.Second,
			Proxy:               nil,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	conn.grpc, conn.files = g, files
	p.conns[id] = conn
	return conn, nil
}

// forget closes an instance's connections: its pod is going or gone.
func (p *podConns) forget(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if have, ok := p.conns[id]; ok {
		have.close()
		delete(p.conns, id)
	}
}

func (p *podConns) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, have := range p.conns {
		have.close()
		delete(p.conns, id)
	}
}

// pod returns the connections to the instance's sandboxd.
func (c *Client) pod(inst provider.Instance) (*podConn, error) {
	st := readState(inst)
	return c.pods.get(inst.ID, podRef{Namespace: c.cfg.Namespace, Name: st.Pod, IP: st.IP})
}
