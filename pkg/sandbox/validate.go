package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Input is a sandbox as an admin submits it.
type Input struct {
	Name        string
	Description string
	Provider    string
	URL         string
	// Secret is the new secret: nil or "" keeps (or, on create, sets none).
	Secret *string
	Config json.RawMessage
	// ManagedBy names the tool that makes the sandbox ("" for none); it
	// cannot change afterwards.
	ManagedBy string
}

// Limits on what an admin may enter.
const (
	maxNameLength        = 255
	maxDescriptionLength = 255
	maxSecretLength      = 4096
)

// validateSpec checks a spec as a whole and returns it normalised (the url
// made a full URL, the config with every default written out). Every broken
// field is reported, named by its JSON path.
func (r *Registry) validateSpec(spec auxilia.SandboxSpec, creating bool) (auxilia.SandboxSpec, auxilia.FieldErrors) {
	var fe auxilia.FieldErrors
	spec.Name = strings.TrimSpace(spec.Name)
	checkText(&fe, "name", spec.Name, maxNameLength, true)
	checkText(&fe, "description", spec.Description, maxDescriptionLength, false)

	kind, ok := r.Providers.Kind(spec.Provider)
	switch {
	case spec.Provider == "":
		fe.Add("provider", "is required")
	case !ok:
		fe.Add("provider", "must be one of: %s", strings.Join(r.Providers.Names(), ", "))
	case creating && r.Providers.Disabled(spec.Provider) != "":
		fe.Add("provider", "is switched off on this server: %s", r.Providers.Disabled(spec.Provider))
	}
	if !ok {
		return spec, fe
	}

	url, err := provider.NormalizeURL(spec.URL, kind.Describe().URL, r.Providers.Policy())
	if err != nil {
		fe.Add("url", "%s", err.Error())
	}
	spec.URL = url

	switch secret := kind.Describe().Secret; {
	case !secret.Accepted && spec.HasSecret:
		fe.Add("secret", "must be empty: %s sandboxes take no secret", kind.Describe().Title)
	case secret.Required && !spec.HasSecret:
		fe.Add("secret", "is required (%s)", strings.ToLower(secret.Label))
	}

	cfg, errs := provider.DecodeConfig(kind, spec.Config)
	if !(len(errs) == 1 && errs[0].Field == "") { // an object, if not all of it decoded
		// A setting that did not decode keeps its default, so validation
		// names what else is wrong without naming it twice.
		reported := map[string]bool{}
		for _, e := range errs {
			reported[e.Field] = true
		}
		for _, e := range provider.ValidateConfig(kind, cfg, r.Providers.Policy()) {
			if !reported[e.Field] {
				errs = append(errs, e)
			}
		}
	}
	for _, e := range errs {
		fe.Add(joinField("config", e.Field), "%s", e.Message)
	}
	if normal, err := provider.EncodeConfig(cfg); err == nil {
		spec.Config = normal
	}
	return spec, fe
}

// Check validates a spec about to be stored: the store runs it on every save.
func (r *Registry) Check(spec auxilia.SandboxSpec) error {
	_, fe := r.validateSpec(spec, false)
	return fe.Err()
}

// checkSecret applies the rules on a secret's value.
func checkSecret(fe *auxilia.FieldErrors, secret string) {
	switch {
	case utf8.RuneCountInString(secret) > maxSecretLength:
		fe.Add("secret", "must be at most %d characters", maxSecretLength)
	case !utf8.ValidString(secret) || strings.IndexFunc(secret, unicode.IsControl) >= 0:
		fe.Add("secret", "must not contain control characters or line breaks")
	}
}

func checkText(fe *auxilia.FieldErrors, field, value string, max int, required bool) {
	switch {
	case required && value == "":
		fe.Add(field, "is required")
	case utf8.RuneCountInString(value) > max:
		fe.Add(field, "must be at most %d characters", max)
	case strings.IndexFunc(value, unicode.IsControl) >= 0:
		fe.Add(field, "must not contain control characters or line breaks")
	}
}

func joinField(prefix, field string) string {
	if field == "" {
		return prefix
	}
	return fmt.Sprintf("%s.%s", prefix, field)
}
