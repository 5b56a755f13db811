package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// What became of an instance's network when its sandbox's rules changed.
const (
	// NetworkApplied: the running instance enforces the new rules.
	NetworkApplied = "applied"
	// NetworkNextStart: it takes them when it next starts (it is paused,
	// or the provider cannot change a running instance's network).
	NetworkNextStart = "next_start"
	// NetworkFailed: the provider refused or did not answer; the instance
	// keeps the rules it had until it is paused and resumed, or replaced.
	NetworkFailed = "failed"
)

// NetworkUpdate is what became of one thread instance's network.
type NetworkUpdate struct {
	InstanceID  string // ours
	InstanceRef string // the provider's
	ThreadID    string
	Outcome     string
	Reason      string // why, when the outcome is not NetworkApplied
}

// How many instances take new rules at once, and how long each may take.
// All of them together take at most networkBudget: the edit's answer waits
// for them.
const (
	networkWorkers  = 8
	networkDeadline = 20 * time.Second
	networkBudget   = time.Minute
)

// UpdateNetwork applies the network rules of the sandbox, as now saved, to
// the live instances its threads work in, where the provider can change a
// running instance's rules, and says per instance what became of them. It
// never fails because one instance refused: that instance's outcome says
// so. The work outlives the caller's leaving; each instance has its deadline.
func (s *Service) UpdateNetwork(ctx context.Context, sb auxilia.Sandbox) ([]NetworkUpdate, error) {
	insts, err := s.Instances(sb.WorkspaceID).ThreadInstances(ctx, sb.ID)
	if err != nil || len(insts) == 0 {
		return []NetworkUpdate{}, err
	}
	out := make([]NetworkUpdate, len(insts))
	client, current, err := s.Sandboxes.Client(ctx, sb.WorkspaceID, sb.ID)
	if err != nil {
		for i, inst := range insts {
			out[i] = NetworkUpdate{InstanceID: inst.ID, InstanceRef: inst.ProviderRef, ThreadID: inst.ThreadID, Outcome: NetworkFailed,
				Reason: "the provider's client could not be made: " + reasonText(unusable(sb, err))}
		}
		return out, s.auditNetwork(ctx, sb, out)
	}
	work, cancel := context.WithTimeout(context.WithoutCancel(ctx), networkBudget)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(networkWorkers, len(insts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = s.updateInstanceNetwork(work, current, client, insts[i])
			}
		}()
	}
	for i := range insts {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out, s.auditNetwork(ctx, sb, out)
}

// auditNetwork records what became of the rules. They are saved whatever
// became of them: the record must not be lost with a client that left.
func (s *Service) auditNetwork(ctx context.Context, sb auxilia.Sandbox, out []NetworkUpdate) error {
	return auxilia.Audit(context.WithoutCancel(ctx), s.Audit, sb.WorkspaceID, "sandbox.network", "sandbox", sb.ID, DescribeNetworkUpdates(out))
}

// updateInstanceNetwork applies the rules to one instance.
func (s *Service) updateInstanceNetwork(ctx context.Context, sb auxilia.Sandbox, client provider.Client, inst auxilia.Instance) NetworkUpdate {
	u := NetworkUpdate{InstanceID: inst.ID, InstanceRef: inst.ProviderRef, ThreadID: inst.ThreadID}
	updater, ok := client.(provider.NetworkUpdater)
	if inst.PausedAt != nil {
		u.Outcome, u.Reason = NetworkNextStart, "it is paused: it takes the rules when it resumes"
		return u
	}
	if ctx.Err() != nil {
		u.Outcome, u.Reason = NetworkFailed, fmt.Sprintf("not tried: the %s the edit gives all its instances ran out", networkBudget)
		return u
	}
	pinst, err := s.providerInstance(inst)
	if err != nil {
		u.Outcome, u.Reason = NetworkFailed, "its provider state could not be read"
		return u
	}
	ctx, cancel := context.WithTimeout(ctx, networkDeadline)
	defer cancel()
	if ok {
		err = updater.UpdateNetwork(ctx, pinst)
	} else {
		err = provider.Errorf(provider.ErrUnsupported, sb.Provider, "update network", "a running instance's network cannot change")
	}
	switch {
	case err == nil:
		u.Outcome = NetworkApplied
	case errors.Is(err, provider.ErrUnsupported):
		why := fmt.Sprintf("%s cannot change a running instance's network", sb.Provider)
		var pe *provider.Error
		if errors.As(err, &pe) && pe.Message != "" {
			why = pe.Message
		}
		u.Outcome, u.Reason = NetworkNextStart, why+"; the thread's next instance takes the rules"
	case errors.Is(err, provider.ErrGone):
		u.Outcome, u.Reason = NetworkNextStart, "the provider does not have it running: it takes the rules when it next starts, where the provider keeps it, or the thread's next instance does"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, provider.ErrTimeout):
		u.Outcome, u.Reason = NetworkFailed, fmt.Sprintf("the provider did not answer within %s", networkDeadline)
	default:
		u.Outcome, u.Reason = NetworkFailed, reasonText(err)
	}
	return u
}

// DescribeNetworkUpdates words the outcomes for the audit log: how many of
// each, and the instances that did not take the rules.
func DescribeNetworkUpdates(updates []NetworkUpdate) string {
	counts := map[string]int{}
	var behind []string
	for _, u := range updates {
		counts[u.Outcome]++
		if u.Outcome != NetworkApplied {
			behind = append(behind, fmt.Sprintf("%s %s", u.InstanceRef, u.Outcome))
		}
	}
	text := fmt.Sprintf("network rules: %d instances applied, %d on next start, %d failed",
		counts[NetworkApplied], counts[NetworkNextStart], counts[NetworkFailed])
	if len(behind) > 0 {
		text += " (" + strings.Join(behind, ", ") + ")"
	}
	return text
}

// NetworkChanged reports whether an edit changed a sandbox's network rules.
// A config that names no network (or one that does not read) counts as
// changed: applying the same rules again does no harm.
func NetworkChanged(before, after auxilia.Sandbox) bool {
	was, okWas := networkIn(before.Config)
	is, okIs := networkIn(after.Config)
	return !okWas || !okIs || !was.Equal(is)
}

func networkIn(config json.RawMessage) (provider.Network, bool) {
	var members struct {
		Network *provider.Network `json:"network"`
	}
	if json.Unmarshal(config, &members) != nil || members.Network == nil {
		return provider.Network{}, false
	}
	return *members.Network, true
}

// resumeNetwork applies the sandbox's network rules to an instance that was
// paused, where the provider can change a running instance's rules: they
// may have been edited meanwhile.
func (s *Service) resumeNetwork(ctx context.Context, inst provider.Instance, client provider.Client) error {
	updater, ok := client.(provider.NetworkUpdater)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, networkDeadline)
	defer cancel()
	if err := updater.UpdateNetwork(ctx, inst); err != nil && !errors.Is(err, provider.ErrUnsupported) {
		return err
	}
	return nil
}
