package local

import (
	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// jailIDsSetting names the run of host ids instances' jails run as.
var jailIDsSetting = provider.OperatorSetting{Env: "AUXILIA_LOCAL_JAIL_IDS",
	Description: "the host users, and groups of the same numbers, that local instances' commands run as, `FIRST-LAST`: " +
		"where the server runs as root each instance takes one of its own, so that instances share neither files nor the kernel's limits per user, " +
		"and the server opens an instance's files as it. Unset: the server user's subordinate ids (`/etc/subuid`, `/etc/subgid`), " +
		"else `524288-1879048191`, those systemd leaves to containers. A server that is not root runs every instance as itself",
	Check: func(value string) error {
		_, err := bubblewrap.ParseIDs(value)
		return err
	}}

// ReadJailIDs is the run of host ids instances' jails run as: the
// operator's (already checked by ReadOperatorSettings), else the host's.
func ReadJailIDs(values provider.OperatorValues) bubblewrap.IDs {
	if value := values.Value(jailIDsSetting); value != "" {
		if ids, err := bubblewrap.ParseIDs(value); err == nil {
			return ids
		}
	}
	return bubblewrap.HostIDs()
}
