package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// unavailable is the problem a run start answers when its sandbox cannot be
// used: it names the sandbox and says why, in the provider's words.
func unavailable(sb auxilia.Sandbox, err error) error {
	var pe *provider.Error
	if errors.As(err, &pe) && errors.Is(err, provider.ErrRateLimited) {
		return rateLimited(sb, pe)
	}
	if field := provider.RefusedField(err); field != "" {
		return refusedSetting(sb, field, pe)
	}
	return unavailableBecause(sb, provider.Reason(err), reasonText(err))
}

// unusable words a sandbox whose client cannot be made (its secret does not
// decrypt, …) as unavailable; other failures (the database's) stay as they are.
func unusable(sb auxilia.Sandbox, err error) error {
	var pe *provider.Error
	if errors.As(err, &pe) {
		return unavailableBecause(sb, provider.Reason(err), pe.Message)
	}
	return err
}

// refusedSetting is the problem a run start answers when the provider
// refused one setting of its sandbox's config: a field error on that
// setting (config.<key>), in the provider's words, since only changing the
// sandbox's settings helps.
func refusedSetting(sb auxilia.Sandbox, field string, pe *provider.Error) error {
	var fe auxilia.FieldErrors
	fe.Add("config."+field, "%s", pe.Message)
	e := fe.Err().(*auxilia.Error)
	e.Message = fmt.Sprintf("Sandbox '%s' cannot be used as configured: %s refused its setting config.%s; change it in the sandbox's settings.", sb.Name, pe.Provider, field)
	return e.With("sandbox_id", sb.ID).With("sandbox_name", sb.Name)
}

// busy is the problem a tool call answers when the provider refused it for
// running as many commands as the instance may: it says when to try again.
func busy(sb auxilia.Sandbox, pe *provider.Error) error {
	e := auxilia.Errorf(auxilia.CodeSandboxBusy, "Sandbox '%s' is busy: %s. Try again in %s.", sb.Name, pe.Message, pe.RetryAfter)
	e.RetryAfter = pe.RetryAfter
	return e
}

// rateLimited is the problem a call answers when the sandbox's provider
// refused it for being called too often: it relays when to try again.
func rateLimited(sb auxilia.Sandbox, pe *provider.Error) error {
	e := auxilia.Errorf(auxilia.CodeProviderLimited, "The provider of sandbox '%s' limits how often it is called: %s.", sb.Name, pe.Message)
	if pe.RetryAfter > 0 {
		e.Message += fmt.Sprintf(" Try again in %s.", pe.RetryAfter)
	}
	e.RetryAfter = pe.RetryAfter
	return e.With("sandbox_id", sb.ID).With("sandbox_name", sb.Name)
}

func unavailableBecause(sb auxilia.Sandbox, reason, text string) error {
	return auxilia.Errorf(auxilia.CodeSandboxUnavailable, "Sandbox '%s' is not available: %s", sb.Name, text).
		With("sandbox_id", sb.ID).With("sandbox_name", sb.Name).With("probe_reason", reason)
}

// reasonText words a provider failure for people. Errors that are not the
// provider's are internal: they are not shown.
func reasonText(err error) string {
	var pe *provider.Error
	switch {
	case errors.As(err, &pe) && pe.Message != "":
		return fmt.Sprintf("%s (%s)", pe.Kind, pe.Message)
	case errors.As(err, &pe):
		return pe.Kind.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "the provider did not answer in time"
	default:
		return "internal error"
	}
}

func notActive(r auxilia.Run, why string) error {
	return auxilia.Errorf(auxilia.CodeRunNotActive, "Run %s is not active: %s", r.ID, why).With("run_status", string(r.Status))
}
