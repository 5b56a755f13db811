package opensandbox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// workDir is where commands run and relative paths resolve in every instance.
const workDir = "/workspace"

// lease is how long an instance lives without being renewed: created with
// it as its timeout, and renewed to now + lease on every reconnect.
const lease = 30 * time.Minute

// The first and the longest pause between two looks at a new instance.
const (
	firstPoll = 100 * time.Millisecond
	lastPoll  = 2 * time.Second
)

// Probe lists one sandbox: the cheapest call that needs the API key.
func (c *client) Probe(ctx context.Context) error {
	var answer listAnswer
	if err := c.do(ctx, c.lifecycle("probe", "GET", "/sandboxes?pageSize=1", nil), &answer); err != nil {
		return err
	}
	if answer.Items == nil {
		return failure(provider.ErrFailed, "probe", "the answer to listing sandboxes has no items")
	}
	return nil
}

// Create starts an instance, waits until its execd answers and makes its
// working directory, all within the ready timeout. An instance that never
// gets there is destroyed.
func (c *client) Create(ctx context.Context, labels provider.Labels) (provider.Instance, error) {
	req, err := c.newRequest(labels)
	if err != nil {
		return provider.Instance{}, err
	}
	req.Image = &imageSpec{URI: c.cfg.DefaultImage}
	return c.start(ctx, req, labels.Instance)
}

// newRequest is what every new instance is created with, but where it
// starts from: an image or a snapshot.
func (c *client) newRequest(labels provider.Labels) (createRequest, error) {
	vols, err := volumes(c.cfg.VolumeMounts)
	if err != nil {
		return createRequest{}, failure(provider.ErrInvalidConfig, "create", "%s", err)
	}
	return createRequest{
		// The entrypoint only keeps the container alive: execd, injected beside it, does the work.
		Entrypoint:     []string{"tail", "-f", "/dev/null"},
		ResourceLimits: c.cfg.resourceLimits(),
		Timeout:        int(lease / time.Second),
		Env:            map[string]string{"PYTHONUNBUFFERED": "1"}, // so Python output streams as it is printed
		Metadata:       metadata(labels),
		Volumes:        vols,
		NetworkPolicy:  c.cfg.networkPolicy(),
	}, nil
}

// start creates the sandbox req describes and waits until it is ready.
func (c *client) start(ctx context.Context, req createRequest, creation string) (provider.Instance, error) {
	// The server may answer only once it has provisioned the sandbox (pulled
	// its image, or seen its pod ready): that wait is part of getting ready.
	ctx, cancel := context.WithTimeoutCause(ctx, c.readyTimeout, errReadyTimeout)
	defer cancel()
	sb, err := c.createSandbox(ctx, req, creation)
	if err != nil {
		return provider.Instance{}, c.notReady(ctx, "", err)
	}
	provider.Created(ctx, sb.ID)
	inst, err := c.startUp(ctx, sb)
	if err != nil {
		cleanup, cancel := c.detached(ctx)
		defer cancel()
		_ = c.destroy(cleanup, sb.ID)
		return provider.Instance{}, err
	}
	return inst, nil
}

// createSandbox asks for a sandbox. When the answer is lost (no answer, a
// timeout, a server error, the caller leaving) the sandbox may exist all the
// same: it is looked for by its creation label, and either used or, when the
// caller has gone, destroyed, so that nothing is left behind.
func (c *client) createSandbox(ctx context.Context, req createRequest, creation string) (sandbox, error) {
	var sb sandbox
	call := c.lifecycle("create", "POST", "/sandboxes", req)
	call.Timeout = c.readyTimeout
	err := c.do(ctx, call, &sb)
	switch {
	case err == nil && sb.ID == "":
		return sandbox{}, failure(provider.ErrFailed, "create", "the answer names no sandbox id")
	case err == nil:
		return sb, nil
	case creation == "" || errors.Is(err, provider.ErrInvalidConfig) || errors.Is(err, provider.ErrUnauthorized):
		return sandbox{}, err // refused: nothing was made
	}
	destroy := func(ctx context.Context, sb sandbox) { _ = c.destroy(ctx, sb.ID) }
	if found, ok := c.createdBy(creation).Salvage(ctx, c.requestTimeout, destroy); ok {
		return found, nil
	}
	return sandbox{}, err
}

// startUp waits for a new sandbox to run and its execd to answer.
func (c *client) startUp(ctx context.Context, sb sandbox) (provider.Instance, error) {
	if err := c.waitRunning(ctx, sb); err != nil {
		return provider.Instance{}, err
	}
	t, err := c.endpoint(ctx, sb.ID)
	if err != nil {
		return provider.Instance{}, c.notReady(ctx, sb.ID, err)
	}
	if err := c.waitExecd(ctx, sb.ID, t); err != nil {
		return provider.Instance{}, err
	}
	if err := c.makeDir(ctx, t, workDir); err != nil {
		return provider.Instance{}, c.notReady(ctx, sb.ID, err)
	}
	return provider.Instance{ID: sb.ID, WorkDir: workDir, State: t.encode()}, nil
}

// readiness polls a new instance: quick at first, as a controller often
// answers create with a running container, backing off for one whose image
// is being pulled, until the ready timeout ends the create's context.
var readiness = provider.Poll{Backoff: provider.Backoff{First: firstPoll, Max: lastPoll}}

// waitRunning polls the sandbox until it is Running.
func (c *client) waitRunning(ctx context.Context, sb sandbox) error {
	status, seen := sb.Status, true
	err := readiness.Until(ctx, func(ctx context.Context) (string, bool, error) {
		if !seen {
			var now sandbox
			err := c.do(ctx, c.lifecycle("create", "GET", "/sandboxes/"+url.PathEscape(sb.ID), nil), &now)
			if errors.Is(err, provider.ErrGone) {
				return "", false, failure(provider.ErrFailed, "create", "instance %s vanished while starting: %s", sb.ID, providerMessage(err))
			}
			if err != nil {
				return "", false, c.notReady(ctx, sb.ID, err)
			}
			status = now.Status
		}
		seen = false
		switch status.State {
		case stateRunning:
			return status.State, true, nil
		case stateFailed, stateStopping, stateTerminated:
			return "", false, failure(provider.ErrFailed, "create", "instance %s is %s: %s", sb.ID, status.State, describeStatus(status))
		}
		return fmt.Sprintf("%s (%s)", status.State, describeStatus(status)), false, nil
	})
	var still *provider.StillError
	if errors.As(err, &still) {
		return c.notReady(ctx, sb.ID, fmt.Errorf("it is %v", still))
	}
	return err
}

// waitExecd polls execd's /ping: a new container runs before its execd answers.
func (c *client) waitExecd(ctx context.Context, id string, t execdTarget) error {
	var silence error
	err := readiness.Until(ctx, func(ctx context.Context) (string, bool, error) {
		switch silence = c.ping(ctx, t); {
		case silence == nil:
			return "answering", true, nil
		case errors.Is(silence, provider.ErrUnauthorized):
			return "", false, silence // waiting will not mend refused access headers
		}
		return "silent", false, nil
	})
	var still *provider.StillError
	if errors.As(err, &still) {
		return c.notReady(ctx, id, fmt.Errorf("its execd does not answer: %w", silence))
	}
	return err
}

// errReadyTimeout ends the wait for a new instance.
var errReadyTimeout = errors.New("ready timeout")

// notReady words a failure while waiting: past the ready timeout it is a
// timeout whatever the last call said.
func (c *client) notReady(ctx context.Context, id string, err error) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errReadyTimeout) && id == "":
		return failure(provider.ErrTimeout, "create", "the server did not answer the create within %s: %s", c.readyTimeout, providerMessage(err))
	case errors.Is(cause, errReadyTimeout):
		return failure(provider.ErrTimeout, "create", "instance %s was not ready within %s: %s", id, c.readyTimeout, err)
	case cause != nil:
		return fmt.Errorf("%s create: %w", providerName, cause)
	}
	return err
}

// endpoint asks where the instance's execd is.
func (c *client) endpoint(ctx context.Context, id string) (execdTarget, error) {
	t, err := c.endpointOf(ctx, id, execdPort)
	t.Egress = c.cfg.networkPolicy() != nil
	return t, err
}

// endpointOf asks where the instance's port is reached, and with what
// headers, through the server's proxy where the settings say so.
func (c *client) endpointOf(ctx context.Context, id string, port int) (execdTarget, error) {
	return c.endpointVia(ctx, id, port, c.cfg.UseServerProxy)
}

func (c *client) endpointVia(ctx context.Context, id string, port int, proxied bool) (execdTarget, error) {
	path := fmt.Sprintf("/sandboxes/%s/endpoints/%d?use_server_proxy=%s", url.PathEscape(id), port, strconv.FormatBool(proxied))
	var ep endpointAnswer
	if err := c.do(ctx, c.lifecycle("endpoint", "GET", path, nil), &ep); err != nil {
		return execdTarget{}, err
	}
	t, err := newTarget(ep, id, port, proxied, c.controller)
	if err != nil {
		return execdTarget{}, failure(provider.ErrFailed, "endpoint", "%s", err)
	}
	return t, nil
}

// KeepAlive renews the instance's lease.
func (c *client) KeepAlive(ctx context.Context, inst provider.Instance) error {
	return c.renew(ctx, "keep alive", inst.ID)
}

// renew sets the instance's expiry to now + lease (it sets, it does not add).
func (c *client) renew(ctx context.Context, op, id string) error {
	body := renewRequest{ExpiresAt: time.Now().Add(lease).UTC().Format(time.RFC3339)}
	var answer renewAnswer
	return c.do(ctx, c.lifecycle(op, "POST", "/sandboxes/"+url.PathEscape(id)+"/renew-expiration", body), &answer)
}

// Persist does nothing: an instance keeps its files until it is destroyed.
func (c *client) Persist(context.Context, provider.Instance) error { return nil }

// Destroy deletes the instance; one already gone is fine.
func (c *client) Destroy(ctx context.Context, inst provider.Instance) error {
	if t, err := decodeTarget(inst.State); err == nil {
		c.execdFailed.Delete(t.BaseURL)
	}
	return c.destroy(ctx, inst.ID)
}

func (c *client) destroy(ctx context.Context, id string) error {
	err := c.do(ctx, c.lifecycle("destroy", "DELETE", "/sandboxes/"+url.PathEscape(id), nil), nil)
	if errors.Is(err, provider.ErrGone) {
		return nil
	}
	return err
}

func describeStatus(s sandboxStatus) string {
	if s.Reason == "" && s.Message == "" {
		return "no reason given"
	}
	return joinWords(s.Reason, s.Message)
}
