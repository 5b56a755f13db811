package provider

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/validation"
)

// Common is the block of settings every provider's config embeds, declared,
// validated and documented here once. Embedded without a name, its keys sit
// in the config's JSON beside the provider's own.
type Common struct {
	DefaultPackages []string          `json:"default_packages" validate:"max=50,dive,pip_requirement" title:"Default packages" doc:"pip requirements installed into every new sandbox."`
	Timeout         int               `json:"timeout" validate:"min=1" title:"Timeout (seconds)" doc:"Longest a command may run."`
	Network         Network           `json:"network" title:"Network" doc:"Where commands may connect to."`
	Resources       InstanceResources `json:"resources" title:"Resources" doc:"What each instance may use."`
	IdleMinutes     int               `json:"idle_minutes" validate:"min=0,max=10080" title:"Pause when idle (minutes)" doc:"After this long without a run or a tool call, a thread's instance is paused, its files kept, and its next run resumes it; 0 never pauses."`
	KeepFiles       string            `json:"keep_files" validate:"oneof=until_expiry always" title:"Keep files" doc:"until_expiry: a thread's files live as long as its instance; always: they are kept before the instance can expire, and a replacement starts from them."`
	MaxKeptDays     int               `json:"max_kept_days" validate:"min=1,max=365" title:"Keep files for (days)" doc:"Kept files older than this are deleted."`
	Pool            Pool              `json:"pool" title:"Warm pool" doc:"Instances kept created and ready, default packages installed, so that a new thread's first run takes one instead of waiting for a create."`
}

// Pool is how many instances a sandbox keeps ready for new threads.
type Pool struct {
	Size           int `json:"size" validate:"min=0,max=200" title:"Size" doc:"Instances kept ready; 0 keeps none."`
	MaxIdleMinutes int `json:"max_idle_minutes" validate:"min=1,max=10080" title:"Longest idle (minutes)" doc:"A ready instance older than this is replaced by a new one."`
}

// DefaultCommon is the common block of a new sandbox.
// Its network allows everything: a provider whose instances are offline
// unless told otherwise sets DenyNetwork in its own defaults.
func DefaultCommon() Common {
	return Common{DefaultPackages: []string{}, Timeout: 1800, Network: AllowNetwork(),
		KeepFiles: KeepUntilExpiry, MaxKeptDays: DefaultMaxKeptDays, Pool: Pool{Size: 0, MaxIdleMinutes: 60}}
}

// WarmPool is how many instances the sandbox keeps ready, and for how long.
func (c *Common) WarmPool() Pool { return c.Pool }

// CommandTimeout is the longest a command may run.
func (c *Common) CommandTimeout() time.Duration { return time.Duration(c.Timeout) * time.Second }

// Packages are the pip requirement specifiers installed in every new instance.
func (c *Common) Packages() []string { return c.DefaultPackages }

// common lets Config demand the block: only a struct embedding it has this method.
func (c *Common) common() *Common { return c }

// DefaultMaxTimeout is the longest timeout a sandbox may set, unless its
// provider allows less.
const DefaultMaxTimeout = 86400

// CommonRules tune the common block for one provider; zero fields keep the
// block's own rules and help.
type CommonRules struct {
	// MaxTimeout is the longest timeout, in seconds (0: DefaultMaxTimeout).
	MaxTimeout int
	// TimeoutNote and PackagesNote are said in brackets after the help of
	// timeout and of default_packages.
	TimeoutNote  string
	PackagesNote string
	// PackagesNeedNetwork refuses default packages on a network that
	// reaches nowhere, as pip could not download them; its help says so
	// when PackagesNote is empty.
	PackagesNeedNetwork bool
	// Egress is what the provider enforces of network (see also the
	// capabilities NetworkSwitch and EgressRules).
	Egress EgressLimits
	// Resources are the resources the provider can set (with the
	// capability Resources).
	Resources ResourceLimits
	// PoolNote is said after the help of pool: what a warm pool means on
	// this provider (one that cannot relabel an instance says so).
	PoolNote string
}

func (r CommonRules) maxTimeout() int {
	if r.MaxTimeout == 0 {
		return DefaultMaxTimeout
	}
	return r.MaxTimeout
}

// validate checks what the tags leave to the provider's rules; d is the
// provider and def its defaults.
func (r CommonRules) validate(c *Common, d Descriptor, def *Common) []FieldError {
	var errs []FieldError
	if longest := r.maxTimeout(); c.Timeout > longest {
		errs = append(errs, FieldError{Field: "timeout", Message: fmt.Sprintf("must be at most %d", longest)})
	}
	errs = append(errs, r.validateNetwork(c.Network, d.Capabilities, d.Title, def.Network)...)
	return append(errs, r.Resources.validate(c.Resources, d.Capabilities, d.Title)...)
}

// schema completes the schemas of the common keys with the provider's rules.
func (r CommonRules) schema(props map[string]any) {
	timeout := props["timeout"].(map[string]any)
	timeout["maximum"] = r.maxTimeout()
	withNote(timeout, r.TimeoutNote)
	withNote(props["default_packages"].(map[string]any), r.packagesNote())
	withNote(props["network"].(map[string]any), r.Egress.Note)
	r.Resources.schema(props["resources"].(map[string]any)["properties"].(map[string]any))
	withNote(props["pool"].(map[string]any), r.PoolNote)
}

func (r CommonRules) packagesNote() string {
	if r.PackagesNote == "" && r.PackagesNeedNetwork {
		return "needs network access"
	}
	return r.PackagesNote
}

func withNote(prop map[string]any, note string) {
	if note != "" {
		prop["description"] = strings.TrimSuffix(prop["description"].(string), ".") + " (" + note + ")."
	}
}

// commonEmbedding is the name validation gives the embedded block in a field's path.
var commonEmbedding = reflect.TypeOf(Common{}).Name() + "."

// CommonKeys are the JSON keys of the common block, in order.
func CommonKeys() []string {
	var keys []string
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Common{})) {
		keys = append(keys, validation.JSONName(f))
	}
	return keys
}
