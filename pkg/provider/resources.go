package provider

import (
	"fmt"
	"strconv"
)

// InstanceResources are what each instance of a sandbox may use; 0 is the
// provider's default.
type InstanceResources struct {
	CPU      float64 `json:"cpu" validate:"min=0" title:"CPU (cores)" doc:"CPU cores each instance may use, such as 0.5 or 2; 0 for the provider's default."`
	MemoryMB int     `json:"memory_mb" validate:"min=0" title:"Memory (MiB)" doc:"Memory each instance may use; 0 for the provider's default."`
	DiskMB   int     `json:"disk_mb" validate:"min=0" title:"Disk (MiB)" doc:"Disk each instance may fill; 0 for the provider's default."`
}

// Range bounds a resource a provider can set: a value other than 0 lies in
// [Min, Max], and Step, when set, divides it. The zero Range: the provider
// cannot set it, and only 0 is accepted.
type Range struct {
	Min, Max, Step float64
	// Note is said in brackets after the resource's help.
	Note string
}

func (r Range) settable() bool { return r.Max > 0 }

// ResourceLimits are the resources a provider's instances can be given.
type ResourceLimits struct {
	CPU, MemoryMB, DiskMB Range
}

// validateResources checks each resource against its range.
func (l ResourceLimits) validate(res InstanceResources, caps Capabilities, title string) []FieldError {
	var errs []FieldError
	check := func(key string, value float64, r Range) {
		if value == 0 {
			return
		}
		var why string
		switch {
		case !caps.Has(Resources) || !r.settable():
			why = fmt.Sprintf("must be 0: %s sandboxes cannot set it", title)
			if r.Note != "" {
				why += " (" + r.Note + ")"
			}
		case value < r.Min || value > r.Max:
			why = fmt.Sprintf("must be 0 or from %s to %s on %s sandboxes", number(r.Min), number(r.Max), title)
		case r.Step > 0 && !isMultiple(value, r.Step):
			why = fmt.Sprintf("must be a multiple of %s on %s sandboxes", number(r.Step), title)
		}
		if why != "" {
			errs = append(errs, FieldError{Field: "resources." + key, Message: why})
		}
	}
	check("cpu", res.CPU, l.CPU)
	check("memory_mb", float64(res.MemoryMB), l.MemoryMB)
	check("disk_mb", float64(res.DiskMB), l.DiskMB)
	return errs
}

// schema completes the resources' schemas with the provider's ranges.
func (l ResourceLimits) schema(props map[string]any) {
	for key, r := range map[string]Range{"cpu": l.CPU, "memory_mb": l.MemoryMB, "disk_mb": l.DiskMB} {
		prop := props[key].(map[string]any)
		prop["maximum"] = r.Max
		if r.Step > 0 {
			prop["multipleOf"] = r.Step
		}
		note := r.Note
		if !r.settable() {
			prop["readOnly"] = true // a form shows it, and takes nothing but 0
			if note == "" {
				note = "not available here"
			}
		}
		withNote(prop, note)
	}
}

func isMultiple(v, step float64) bool {
	n := v / step
	return n == float64(int64(n))
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
