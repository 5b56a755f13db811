package provider

import (
	"errors"
	"fmt"
	"time"
)

// The kinds of provider failure. A provider returns an *Error wrapping one of
// them; callers test with errors.Is.
var (
	// ErrGone: the instance no longer exists at the provider.
	ErrGone = errors.New("the sandbox instance no longer exists")
	// ErrUnauthorized: the provider refused the credentials.
	ErrUnauthorized = errors.New("the provider refused the credentials")
	// ErrUnreachable: the provider could not be reached (DNS, connection, TLS).
	ErrUnreachable = errors.New("the provider could not be reached")
	// ErrQuota: the provider's account may not do this now: a quota is
	// reached, or the account is suspended. Asking again will not help.
	ErrQuota = errors.New("the provider's account limits refuse this")
	// ErrInvalidConfig: the provider refused the sandbox's configuration.
	ErrInvalidConfig = errors.New("the provider refused the configuration")
	// ErrTimeout: the provider did not answer in time.
	ErrTimeout = errors.New("the provider did not answer in time")
	// ErrNotFound: a file or directory does not exist.
	ErrNotFound = errors.New("no such file or directory")
	// ErrPath: the path leads out of what the instance's files may reach
	// (through a symbolic link, say).
	ErrPath = errors.New("the path leads out of the sandbox's files")
	// ErrFailed: anything else the provider answered with (5xx, malformed answers).
	ErrFailed = errors.New("the provider failed")
	// ErrUnsupported: the provider cannot do what was asked (an optional method).
	ErrUnsupported = errors.New("the provider does not support this")
	// ErrBusy: the instance runs as many commands as it may at once; the
	// Error's RetryAfter says when to try again.
	ErrBusy = errors.New("the sandbox instance is busy")
	// ErrRateLimited: the provider refuses calls this often (429); the
	// Error's RetryAfter says when it will take them again, when it said.
	ErrRateLimited = errors.New("the provider limits how often it is called")
)

// Error is a provider failure with the provider's own words.
type Error struct {
	Kind     error  // one of the Err… values above
	Provider string // "opensandbox", …
	Op       string // what we asked: "create", "execute", …
	Message  string // what the provider said (its code and message), safe to show
	// Field is the setting of the sandbox's config the provider refused, by
	// its JSON key ("network"), when the refusal is of one setting
	// (ErrInvalidConfig); "" otherwise.
	Field string
	// RetryAfter is how long to wait before trying again (ErrBusy,
	// ErrRateLimited).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s %s: %s", e.Provider, e.Op, e.Kind)
	}
	return fmt.Sprintf("%s %s: %s: %s", e.Provider, e.Op, e.Kind, e.Message)
}

func (e *Error) Unwrap() error { return e.Kind }

// Errorf returns an *Error of the given kind.
func Errorf(kind error, provider, op, format string, args ...any) *Error {
	return &Error{Kind: kind, Provider: provider, Op: op, Message: fmt.Sprintf(format, args...)}
}

// RefusedField returns the config setting err refuses, by its JSON key,
// when err is a provider's refusal of one setting; "" otherwise.
func RefusedField(err error) string {
	var pe *Error
	if errors.As(err, &pe) && errors.Is(pe.Kind, ErrInvalidConfig) {
		return pe.Field
	}
	return ""
}

// Reason sorts an error for people: "network", "auth", "config", "quota" or "provider".
func Reason(err error) string {
	switch {
	case errors.Is(err, ErrUnreachable), errors.Is(err, ErrTimeout):
		return "network"
	case errors.Is(err, ErrUnauthorized):
		return "auth"
	case errors.Is(err, ErrInvalidConfig):
		return "config"
	case errors.Is(err, ErrQuota):
		return "quota"
	default:
		return "provider"
	}
}
