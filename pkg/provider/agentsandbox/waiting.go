package agentsandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// readyWithin bounds the wait for a Sandbox to be Ready: an image pulled,
// a pod scheduled, sandboxd started.
const readyWithin = 5 * time.Minute

var readyPoll = provider.Poll{Backoff: provider.Backoff{First: 200 * time.Millisecond, Max: 2 * time.Second}, Within: readyWithin}

// stuckReasons are the waiting reasons of a container that will not
// start by itself (the kubelet's words, pkg/kubelet/images and
// kuberuntime): waiting longer changes nothing.
var stuckReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true, "CrashLoopBackOff": true,
}

// untilReady waits for the Sandbox's Ready condition, written for its
// spec's generation since (at least) generation, and sandboxd's health,
// and returns the instance as it then is: a condition of an older spec
// (Ready from before a suspend the controller has not seen) is not
// taken. What keeps the pod from running is read from the pod itself and
// said at once: a container that cannot start, a pod no node can take, a
// pod that ended.
func (c *Client) untilReady(ctx context.Context, op, name string, generation int64) (provider.Instance, error) {
	var ready sandbox
	err := readyPoll.Until(ctx, func(ctx context.Context) (string, bool, error) {
		sb, err := c.getSandbox(ctx, op, name)
		if err != nil {
			return "", false, err
		}
		if sb.readySince(generation) {
			ready = sb
			return "ready", true, nil
		}
		if sb.is(conditionFinished) {
			cond, _ := sb.condition(conditionFinished)
			return "", false, failure(provider.ErrFailed, op, "the Sandbox's pod ended before it was ready (%s: %s)", cond.Reason, cond.Message)
		}
		if err := c.podTrouble(ctx, op, sb); err != nil {
			return "", false, err
		}
		return "not ready (" + readyWords(sb) + ")", false, nil
	})
	if err != nil {
		return provider.Instance{}, stillWords(op, err)
	}
	inst := c.instance(ready)
	return inst, c.untilServing(ctx, op, inst)
}

func readyWords(sb sandbox) string {
	if c, ok := sb.condition(conditionReady); ok && c.Message != "" {
		return c.Message
	}
	return "no Ready condition yet"
}

// stillWords words a wait that ran out of time; the caller leaving is its own error.
func stillWords(op string, err error) error {
	var still *provider.StillError
	if !errors.As(err, &still) {
		return err
	}
	if still.Err != nil {
		return fmt.Errorf("%s %s: %w", providerName, op, still.Err)
	}
	return failure(provider.ErrTimeout, op, "the Sandbox is still %s after %s", still.State, still.After)
}

// podTrouble reads the Sandbox's pod for what will keep it from running:
// a container waiting for a reason that does not pass by itself
// (ErrImagePull, ImagePullBackOff, …), or a pod the scheduler found no
// node for (PodScheduled False, Unschedulable). A pod not made yet is no
// trouble.
func (c *Client) podTrouble(ctx context.Context, op string, sb sandbox) error {
	var p pod
	if found, err := c.lookup(ctx, op, c.podPath(sb.podName()), &p); err != nil || !found {
		return err
	}
	for _, s := range p.Status.Statuses {
		if w := s.State.Waiting; w != nil && stuckReasons[w.Reason] {
			e := failure(provider.ErrInvalidConfig, op, "the pod's container %s cannot start: %s: %s", s.Name, w.Reason, w.Message)
			e.Field = c.podSetting()
			return e
		}
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == conditionScheduled && cond.Status == "False" && cond.Reason == "Unschedulable" {
			return failure(provider.ErrQuota, op, "no node of the cluster can take the pod: %s", cond.Message)
		}
	}
	return nil
}

// podSetting is the setting that says what the pod runs.
func (c *Client) podSetting() string {
	if c.cfg.Template != "" {
		return "template"
	}
	return "image"
}

// untilPodGone waits until the suspended Sandbox sb has no pod: while its
// status gives a pod's IPs, the pod is still being deleted. Resumed before
// it is gone, the Sandbox is Ready with that pod (reconcilePod in
// controllers/sandbox_controller.go takes the pod it finds, whether or not
// it is being deleted, and a pod serving out its grace period stays Ready),
// and the instance would be reached at an address about to go.
func (c *Client) untilPodGone(ctx context.Context, op string, sb sandbox) error {
	if len(sb.Status.PodIPs) == 0 {
		return nil
	}
	return stillWords(op, readyPoll.Until(ctx, func(ctx context.Context) (string, bool, error) {
		now, err := c.getSandbox(ctx, op, sb.Metadata.Name)
		if err != nil {
			return "", false, err
		}
		return "suspending, its pod still being deleted", len(now.Status.PodIPs) == 0, nil
	}))
}

// untilServing waits for sandboxd's health (GET /v1/health) through the
// way pods are reached: a template's pod may say it is ready before
// sandboxd serves, and this proves the way works.
func (c *Client) untilServing(ctx context.Context, op string, inst provider.Instance) error {
	poll := provider.Poll{Backoff: provider.Backoff{First: 100 * time.Millisecond, Max: time.Second}, Within: time.Minute}
	var last error
	err := poll.Until(ctx, func(ctx context.Context) (string, bool, error) {
		last = c.health(ctx, op, inst)
		if last == nil {
			return "serving", true, nil
		}
		return "not answering", false, nil
	})
	if err == nil {
		return nil
	}
	var still *provider.StillError
	if errors.As(err, &still) && still.Err == nil && last != nil {
		return last
	}
	return stillWords(op, err)
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
