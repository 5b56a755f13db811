package run

import (
	"context"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// maxCommandLength bounds a command line.
const maxCommandLength = 256 << 10

// Execute runs a command in the run's instance, in its working directory.
// A command that runs out of time ends with exit code 124.
func (s *Service) Execute(ctx context.Context, workspaceID, runID string, in ExecInput) (provider.ExecResult, error) {
	var fe auxilia.FieldErrors
	switch {
	case strings.TrimSpace(in.Command) == "":
		fe.Add("command", "is required")
	case len(in.Command) > maxCommandLength:
		fe.Add("command", "must be at most %d bytes", maxCommandLength)
	case strings.ContainsRune(in.Command, 0):
		fe.Add("command", "must not contain NUL bytes")
	}
	if in.Timeout < 0 {
		fe.Add("timeout", "must be a positive number of seconds")
	}
	if err := fe.Err(); err != nil {
		return provider.ExecResult{}, err
	}
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "execute", Input: in, Approved: in.Approved,
		Args: map[string]any{"command": in.Command, "timeout": in.Timeout}})
	if err != nil {
		return provider.ExecResult{}, err
	}
	// Compared in seconds, so that a huge timeout cannot overflow into a small one.
	timeout := c.config.CommandTimeout()
	if in.Timeout > 0 && int64(in.Timeout) < int64(timeout/time.Second) {
		timeout = time.Duration(in.Timeout) * time.Second
	}
	// The command's own timeout ends it; the margin covers the provider's answer.
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	var res provider.ExecResult
	started := time.Now()
	err = s.keepAlive(ctx, c, func() error {
		var err error
		res, err = c.client.Execute(ctx, c.instance, provider.ExecRequest{Command: in.Command, Timeout: timeout,
			OutputLimit: s.opt.OutputLimit, OnOutput: in.OnOutput})
		return err
	})
	if err != nil {
		return res, s.providerError(c, err)
	}
	// Metered once it answered, even if its caller has gone meanwhile,
	// without making the answer wait for it (meter.go).
	s.meter.add(workspaceID, auxilia.CommandUse{RunID: c.run.ID, SandboxID: c.run.SandboxID, Provider: c.sandbox.Provider,
		AgentID: c.run.AgentID, ThreadID: c.run.ThreadID, Started: started, Ended: time.Now()})
	return res, nil
}
