package agent

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/mergepatch"
)

// Defaults of a new agent's looks.
const (
	DefaultEmoji = "🤖"
	DefaultColor = "#6366f1"
)

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// validateSpec checks an agent's fields, fills in the defaults and reports every broken field.
func validateSpec(spec auxilia.AgentSpec) (auxilia.AgentSpec, error) {
	spec, fe := checkSpec(spec)
	return spec, fe.Err()
}

// checkSpec is validateSpec, its broken fields still to be added to.
func checkSpec(spec auxilia.AgentSpec) (auxilia.AgentSpec, auxilia.FieldErrors) {
	var fe auxilia.FieldErrors
	spec.Name = strings.TrimSpace(spec.Name)
	switch {
	case spec.Name == "":
		fe.Add("name", "is required")
	case utf8.RuneCountInString(spec.Name) > 255:
		fe.Add("name", "must be at most 255 characters")
	case hasControl(spec.Name):
		fe.Add("name", "must not contain control characters or line breaks")
	}
	switch {
	case utf8.RuneCountInString(spec.Description) > 1000:
		fe.Add("description", "must be at most 1000 characters")
	case strings.ContainsFunc(spec.Description, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }):
		fe.Add("description", "must not contain control characters")
	}
	if spec.Emoji == "" {
		spec.Emoji = DefaultEmoji
	}
	if len(spec.Emoji) > 32 || hasControl(spec.Emoji) || strings.ContainsAny(spec.Emoji, " \t") {
		fe.Add("emoji", "must be a single emoji")
	}
	if spec.Color == "" {
		spec.Color = DefaultColor
	}
	if !hexColor.MatchString(spec.Color) {
		fe.Add("color", "must be a colour like #1f6feb")
	}
	spec.Color = strings.ToLower(spec.Color)
	auxilia.CheckManagedBy(&fe, spec.ManagedBy)
	return spec, fe
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// mergeSpec applies a merge patch to an agent's fields (null resets a field
// to its default) and says which fields changed.
func mergeSpec(current auxilia.AgentSpec, patch json.RawMessage) (auxilia.AgentSpec, string, error) {
	members, err := mergepatch.Object(patch)
	if err != nil {
		return current, "", auxilia.Errorf(auxilia.CodeMalformed, "The body must be a JSON object (a merge patch).")
	}
	var fe auxilia.FieldErrors
	next := current
	fields := map[string]*string{"name": &next.Name, "description": &next.Description, "emoji": &next.Emoji, "color": &next.Color}
	var changed []string
	for _, key := range slices.Sorted(maps.Keys(members)) {
		raw := members[key]
		target, ok := fields[key]
		if !ok {
			return current, "", auxilia.Errorf(auxilia.CodeMalformed, "The body has an unknown field %q.", key)
		}
		if string(raw) == "null" {
			*target = ""
		} else if json.Unmarshal(raw, target) != nil {
			fe.Add(key, "must be a string")
			continue
		}
		changed = append(changed, key)
	}
	// A field of the wrong type kept its value: the others are checked all the same.
	next, checked := checkSpec(next)
	for _, f := range checked {
		if !fe.Has(f.Field) {
			fe = append(fe, f)
		}
	}
	return next, strings.Join(changed, ", "), fe.Err()
}
