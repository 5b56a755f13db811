package agentsandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Client drives the Sandboxes of one registered sandbox: the API server
// for their lifecycle, sandboxd in each pod for commands and files.
type Client struct {
	cfg    *Config
	api    apiServer
	apiErr error // why the API server cannot be reached: every call says it
	http   *http.Client
	// wsHTTP upgrades port-forwards to WebSockets, over HTTP/1.1 only.
	wsHTTP *http.Client
	caller *provider.Caller
	pods   *podConns
}

var _ provider.Client = (*Client)(nil)

// requestTimeout bounds a call that is not a command's stream.
const requestTimeout = 60 * time.Second

func newClient(s provider.Settings) (*Client, error) {
	cfg, ok := s.Config.(*Config)
	if !ok || cfg == nil {
		return nil, fmt.Errorf("%s: config is %T, not *agentsandbox.Config", providerName, s.Config)
	}
	return openClient(cfg, s.Secret, s.Policy, defaultInCluster())
}

func openClient(cfg *Config, kubeconfig string, p provider.Policy, ic inCluster) (*Client, error) {
	c := &Client{cfg: cfg}
	inClusterServer := kubeconfig == ""
	if inClusterServer {
		c.api, c.apiErr = ic.server()
	} else {
		c.api, c.apiErr = parseKubeconfig([]byte(kubeconfig))
	}
	transport := provider.NewTransport(p)
	transport.TLSClientConfig = c.api.tls
	c.http = &http.Client{Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	wsTransport := transport.Clone()
	wsTransport.ForceAttemptHTTP2 = false
	if wsTransport.TLSClientConfig != nil {
		wsTransport.TLSClientConfig = wsTransport.TLSClientConfig.Clone()
		wsTransport.TLSClientConfig.NextProtos = []string{"http/1.1"}
	}
	c.wsHTTP = &http.Client{Transport: wsTransport, CheckRedirect: c.http.CheckRedirect}
	token := c.api.token
	c.caller = &provider.Caller{
		Provider: providerName,
		HTTP:     c.http,
		Timeout:  requestTimeout,
		Refused:  apiRefusal,
		Auth: func(h http.Header) {
			if token == nil {
				return
			}
			if t, err := token(); err == nil && t != "" {
				h.Set("Authorization", "Bearer "+t)
			}
		},
	}
	if token != nil {
		// A static token is masked in the API server's words.
		if t, err := token(); err == nil && kubeconfig != "" {
			c.caller.Secret = t
		}
	}
	var dial podDialer = podIPDialer{}
	if cfg.ReachPods == reachPortForward || (cfg.ReachPods == reachAuto && !inClusterServer) {
		dial = portForwarder{c: c}
	}
	c.pods = newPodConns(dial)
	return c, nil
}

// CloseIdleConnections lets go of kept-alive connections (tests use it to
// leave no goroutines behind), to the API server and to the pods.
func (c *Client) CloseIdleConnections() {
	c.http.CloseIdleConnections()
	c.pods.closeAll()
}

// Probe proves, in two calls, what every create needs: listing the
// namespace's Sandboxes answers only where agent-sandbox's CRDs are
// installed and the credentials hold, and a SelfSubjectAccessReview
// says whether they may create Sandboxes there. A named template must
// exist too.
func (c *Client) Probe(ctx context.Context) error {
	const op = "probe"
	a, err := c.send(ctx, op, http.MethodGet, c.sandboxesPath("")+"?limit=1", nil, "")
	switch {
	case err != nil:
		return err
	case a.Status == http.StatusNotFound:
		return failure(provider.ErrInvalidConfig, op, "the agent-sandbox CRDs are not installed in this cluster (%s)", words(a))
	case a.Status == http.StatusForbidden:
		return failure(provider.ErrUnauthorized, op, "may not list sandboxes in namespace %s: %s", c.cfg.Namespace, words(a))
	case !a.OK():
		return c.caller.Refusal(op, a)
	}
	allowed, reason, err := c.mayCreate(ctx, op)
	if err != nil {
		return err
	}
	if !allowed {
		msg := "may not create sandboxes in namespace " + c.cfg.Namespace
		if reason != "" {
			msg += ": " + reason
		}
		return failure(provider.ErrUnauthorized, op, "%s", msg)
	}
	if c.cfg.Template != "" {
		if _, err := c.template(ctx, op, c.cfg.Template); err != nil {
			return err
		}
	}
	return nil
}

// accessReview is a SelfSubjectAccessReview (k8s.io/api/authorization/v1).
type accessReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		ResourceAttributes struct {
			Namespace string `json:"namespace"`
			Verb      string `json:"verb"`
			Group     string `json:"group"`
			Resource  string `json:"resource"`
		} `json:"resourceAttributes"`
	} `json:"spec"`
	Status struct {
		Allowed bool   `json:"allowed"`
		Reason  string `json:"reason"`
	} `json:"status"`
}

// mayCreate asks the API server whether the credentials may create
// Sandboxes in the namespace.
func (c *Client) mayCreate(ctx context.Context, op string) (bool, string, error) {
	review := accessReview{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectAccessReview"}
	attrs := &review.Spec.ResourceAttributes
	attrs.Namespace, attrs.Verb, attrs.Group, attrs.Resource = c.cfg.Namespace, "create", "agents.x-k8s.io", "sandboxes"
	var answer accessReview
	if err := c.call(ctx, op, http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review, &answer); err != nil {
		return false, "", err
	}
	return answer.Status.Allowed, answer.Status.Reason, nil
}

// template reads a SandboxTemplate of the namespace; one missing is the
// config's template refused.
func (c *Client) template(ctx context.Context, op, name string) (sandboxTemplate, error) {
	var t sandboxTemplate
	found, err := c.lookup(ctx, op, c.templatesPath(name), &t)
	if err == nil && !found {
		e := failure(provider.ErrInvalidConfig, op, "namespace %s has no SandboxTemplate %q", c.cfg.Namespace, name)
		e.Field = "template"
		return t, e
	}
	return t, err
}

var _ provider.SaveChecker = (*Client)(nil)

// CheckSave refuses a template the namespace does not have; whatever else
// the probe meets is left to it.
func (c *Client) CheckSave(ctx context.Context) []provider.FieldError {
	if c.cfg.Template == "" {
		return nil
	}
	var pe *provider.Error
	if _, err := c.template(ctx, "check", c.cfg.Template); errors.As(err, &pe) && pe.Field == "template" {
		return []provider.FieldError{{Field: "template", Message: pe.Message}}
	}
	return nil
}

// Persist does nothing: a Sandbox's files live on its volumes.
func (c *Client) Persist(context.Context, provider.Instance) error { return nil }

// KeepAlive does nothing: a Sandbox made here has no shutdownTime.
func (c *Client) KeepAlive(context.Context, provider.Instance) error { return nil }
