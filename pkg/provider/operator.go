package provider

import (
	"errors"
	"fmt"
	"strings"
)

// OperatorSetting is an environment variable a provider reads from the
// server's operator.
type OperatorSetting struct {
	// Env is the variable's name, such as AUXILIA_LOCAL_PROVIDER.
	Env string
	// Default is its value when unset, as the configuration table shows it;
	// "" where the provider works it out itself (Description says how).
	Default string
	// Description says what it does, as the configuration table does.
	Description string
	// Switch makes it the provider's on/off switch: on, off, true, false,
	// yes, no, 1 or 0. Off keeps the provider out of service on this server.
	Switch bool
	// Check refuses a bad value (never called with ""): its error completes
	// "ENV must …". A switch needs none.
	Check func(value string) error
}

// OperatorValues are the values of the providers' operator settings, by
// variable; one left out takes its default.
type OperatorValues map[string]string

// Value is s's value, or its default when unset.
func (v OperatorValues) Value(s OperatorSetting) string {
	if value := strings.TrimSpace(v[s.Env]); value != "" {
		return value
	}
	return s.Default
}

// ReadOperatorSettings reads every setting the kinds declare through getenv
// and checks it, reporting every bad value at once, each naming its variable.
func ReadOperatorSettings(getenv func(string) string, kinds ...Kind) (OperatorValues, error) {
	values := OperatorValues{}
	var errs []error
	for _, k := range kinds {
		for _, s := range k.Describe().Settings {
			value := strings.TrimSpace(getenv(s.Env))
			if value == "" {
				continue
			}
			if err := s.check(value); err != nil {
				errs = append(errs, fmt.Errorf("%s %w", s.Env, err))
				continue
			}
			values[s.Env] = value
		}
	}
	return values, errors.Join(errs...)
}

func (s OperatorSetting) check(value string) error {
	if s.Switch {
		_, err := switchedOn(value)
		return err
	}
	if s.Check != nil {
		return s.Check(value)
	}
	return nil
}

// switchedOn reads a switch's value.
func switchedOn(value string) (bool, error) {
	switch strings.ToLower(value) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("must be true or false, not %q", value)
}

// offBy returns why the values switch the kind off, or "" when they do not.
func offBy(d Descriptor, values OperatorValues) string {
	for _, s := range d.Settings {
		if on, err := switchedOn(values.Value(s)); s.Switch && err == nil && !on {
			return s.Env + " is off"
		}
	}
	return ""
}

// SwitchedOff reports whether the values switch the kind off.
func (v OperatorValues) SwitchedOff(k Kind) bool { return offBy(k.Describe(), v) != "" }
