package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// ProbeResult is what a probe found. Reason (network, auth, config, quota
// or provider) and Detail are set only when it failed.
type ProbeResult struct {
	OK        bool
	LatencyMS int
	Reason    string
	Detail    string
}

// ProbeInput probes a configuration without saving anything ("Test
// connection"), and records the probe in the workspace's audit log.
func (r *Registry) ProbeInput(ctx context.Context, workspaceID string, in Input) (ProbeResult, error) {
	secretValue := deref(in.Secret)
	spec, fe := r.validateSpec(auxilia.SandboxSpec{Name: in.Name, Description: in.Description, Provider: in.Provider,
		URL: in.URL, Config: in.Config, HasSecret: secretValue != ""}, true)
	if secretValue != "" {
		checkSecret(&fe, secretValue)
	}
	if err := fe.Err(); err != nil {
		return ProbeResult{}, err
	}
	res := r.probeSpec(ctx, spec, secretValue)
	return res, auxilia.Audit(ctx, r.Audit, workspaceID, "sandbox.probe", "sandbox", "",
		fmt.Sprintf("probed an unsaved %s sandbox %q: %s", spec.Provider, spec.Name, outcomeOf(res)))
}

// ProbeSaved probes a saved sandbox. With a patch, it probes the sandbox as
// the patch would leave it, saving nothing; a patch that moves the url to
// another origin must give the secret again. Without one, or with one that
// leaves the connection as saved (a test from the Edit dialog before any
// change to url, secret or config), it records the outcome as the
// sandbox's health, as the probe before each run does.
// Either way the probe is recorded in the workspace's audit log.
func (r *Registry) ProbeSaved(ctx context.Context, workspaceID, id string, patch json.RawMessage) (ProbeResult, error) {
	if len(strings.TrimSpace(string(patch))) == 0 {
		res, sb, err := r.probeStored(ctx, workspaceID, id)
		if err != nil {
			return ProbeResult{}, err
		}
		return res, auxilia.Audit(ctx, r.Audit, workspaceID, "sandbox.probe", "sandbox", id,
			fmt.Sprintf("probed sandbox %q: %s", sb.Name, outcomeOf(res)))
	}
	current, sealed, err := r.Store(workspaceID).GetSealed(ctx, id)
	if err != nil {
		return ProbeResult{}, err
	}
	next, newSecret, err := r.merge(current, patch)
	if err != nil {
		return ProbeResult{}, err
	}
	changed := changedFields(current, next, newSecret)
	if connectionAsSaved(changed) {
		res, _, err := r.probeStored(ctx, workspaceID, id)
		if err != nil {
			return ProbeResult{}, err
		}
		return res, auxilia.Audit(ctx, r.Audit, workspaceID, "sandbox.probe", "sandbox", id,
			fmt.Sprintf("probed sandbox %q %s, recorded as its health: %s", current.Name, triedWith(changed), outcomeOf(res)))
	}
	var res ProbeResult
	if secretValue, err := r.patchedSecret(current.ID, sealed, newSecret); err != nil {
		res = failed(0, "config", clientError(err))
	} else {
		res = r.probeSpec(ctx, next.SandboxSpec, secretValue)
	}
	return res, auxilia.Audit(ctx, r.Audit, workspaceID, "sandbox.probe", "sandbox", id,
		fmt.Sprintf("probed sandbox %q %s, saving nothing: %s", current.Name, triedWith(changed), outcomeOf(res)))
}

// connectionAsSaved says whether a patch's changes leave what the provider
// is reached with (url, secret, config) as saved: only name or description.
func connectionAsSaved(changed []string) bool {
	for _, field := range changed {
		if field != "name" && field != "description" {
			return false
		}
	}
	return true
}

// triedWith words a probe's patch for the audit log.
func triedWith(changed []string) string {
	if len(changed) == 0 {
		return "unchanged"
	}
	return "with changes to " + strings.Join(changed, ", ")
}

// patchedSecret is the secret a patched sandbox would use: the patch's, or the stored one.
func (r *Registry) patchedSecret(sandboxID string, sealed auxilia.SealedSecret, newSecret *string) (string, error) {
	if newSecret != nil {
		return *newSecret, nil
	}
	return r.open(sandboxID, sealed)
}

// probeStored probes a saved sandbox as stored and records the outcome as its health.
func (r *Registry) probeStored(ctx context.Context, workspaceID, id string) (ProbeResult, auxilia.Sandbox, error) {
	client, sb, err := r.Client(ctx, workspaceID, id)
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return ProbeResult{}, sb, err
	}
	if err != nil {
		return r.recordHealth(ctx, sb, failed(0, "config", clientError(err))), sb, nil
	}
	return r.recordHealth(ctx, sb, r.probe(ctx, client)), sb, nil
}

// probeSpec probes a sandbox spec with a secret, through a client made for the occasion.
func (r *Registry) probeSpec(ctx context.Context, spec auxilia.SandboxSpec, secretValue string) ProbeResult {
	client, err := r.openClient(spec, secretValue)
	if err != nil {
		return failed(0, "config", err.Error())
	}
	return r.probe(ctx, client)
}

// outcomeOf words a probe's outcome for the audit log: whether it answered,
// and why not; never the provider's words.
func outcomeOf(res ProbeResult) string {
	if res.OK {
		return fmt.Sprintf("ok in %d ms", res.LatencyMS)
	}
	return fmt.Sprintf("failed (%s) after %d ms", res.Reason, res.LatencyMS)
}

// probe makes the provider's cheap authenticated call within the probe
// timeout. The client is instrumented: its errors are scrubbed of the secret.
func (r *Registry) probe(ctx context.Context, client provider.Client) ProbeResult {
	ctx, cancel := context.WithTimeout(ctx, r.probeTimeout)
	defer cancel()
	start := time.Now()
	err := client.Probe(ctx)
	latency := int(time.Since(start).Milliseconds())
	switch {
	case err == nil:
		return ProbeResult{OK: true, LatencyMS: latency}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		r.Metrics.ProbeFailed(provider.ProviderOf(client), "network")
		return failed(latency, "network", fmt.Sprintf("no answer within %s", r.probeTimeout))
	case ctx.Err() != nil: // its caller left: the provider did not fail
		return failed(latency, "network", "the probe was cut short: "+ctx.Err().Error())
	}
	r.Metrics.ProbeFailed(provider.ProviderOf(client), provider.Reason(err))
	return failed(latency, provider.Reason(err), err.Error())
}

// Probe probes a saved sandbox with its client, before a run creates an
// instance, and records the outcome as its health (an unchanged healthy
// state at most every runHealthEvery, see runHealth). The runs that probe
// the sandbox at once share one probe (sharedProbes).
func (r *Registry) Probe(ctx context.Context, sb auxilia.Sandbox, client provider.Client) ProbeResult {
	return r.probes.do(ctx, sb, func(ctx context.Context) ProbeResult {
		res := r.probe(ctx, client)
		if ctx.Err() == nil { // else cut short, as all its runs left
			r.recordRunHealth(ctx, sb, res)
		}
		return res
	})
}

// Observe records the outcome of an authenticated call that served as a
// probe (a warm run's reconnect) as the sandbox's health, as Probe does.
func (r *Registry) Observe(ctx context.Context, sb auxilia.Sandbox, err error, took time.Duration) {
	res := ProbeResult{OK: err == nil, LatencyMS: int(took.Milliseconds())}
	if err != nil {
		res.Reason, res.Detail = provider.Reason(err), err.Error()
	}
	r.recordRunHealth(ctx, sb, res)
}

// recordRunHealth records a run's probe as the sandbox's health when it is due.
func (r *Registry) recordRunHealth(ctx context.Context, sb auxilia.Sandbox, res ProbeResult) {
	if r.runHealth.due(sb, res.OK, time.Now()) {
		r.recordHealth(ctx, sb, res)
	}
}

// recordHealth makes a probe of a saved sandbox part of its health.
func (r *Registry) recordHealth(ctx context.Context, sb auxilia.Sandbox, res ProbeResult) ProbeResult {
	now := time.Now().UTC()
	h := auxilia.Health{Status: auxilia.HealthOK, CheckedAt: &now, Detail: res.Detail}
	if !res.OK {
		h.Status = auxilia.HealthFailed
	}
	latency := res.LatencyMS
	h.LatencyMS = &latency
	h.History = append(sb.Health.History, auxilia.Probe{At: now, OK: res.OK, LatencyMS: latency,
		Reason: res.Reason, Detail: clip(res.Detail, historyDetailLimit)})
	if n := len(h.History); n > auxilia.HealthHistoryLength {
		h.History = h.History[n-auxilia.HealthHistoryLength:]
	}
	// A failure to record health must not hide the probe's own answer.
	_ = r.Store(sb.WorkspaceID).SetHealth(context.WithoutCancel(ctx), sb.ID, h)
	return res
}

func failed(latency int, reason, detail string) ProbeResult {
	return ProbeResult{LatencyMS: latency, Reason: reason, Detail: detail}
}

// clientError words a failure to make a client (not the provider's answer).
func clientError(err error) string {
	var pe *provider.Error
	switch {
	case errors.As(err, &pe):
		return pe.Message
	case errors.Is(err, secret.ErrUnknownKey):
		return "the stored secret cannot be decrypted with this server's keys (AUXILIA_SECRET_KEYS)"
	}
	return err.Error()
}

// historyDetailLimit bounds each past probe's detail: the history is kept
// with the sandbox and read with it.
const historyDetailLimit = 300

// clip shortens s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
