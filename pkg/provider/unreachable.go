package provider

import "fmt"

// unreachable refuses what a sandbox's commands could never reach, by the
// provider's rules: default packages on a network that reaches nowhere
// (PackagesNeedNetwork), and allow rules into networks its jails are walled
// off from (Egress.Walled). title names the provider. The local and Cloud
// Run providers share these words: both run their commands in bubblewrap.
func (r CommonRules) unreachable(c *Common, title string) []FieldError {
	var errs []FieldError
	if r.PackagesNeedNetwork && len(c.DefaultPackages) > 0 && c.Network.Offline() {
		errs = append(errs, FieldError{Field: "default_packages",
			Message: "need network access (set network.default to allow, or allow pypi.org and files.pythonhosted.org) so pip can download them"})
	}
	if r.Egress.Walled == nil {
		return errs
	}
	for i, s := range c.Network.Allow {
		t, err := ParseTarget(s)
		if err != nil || t.IsDomain() || !r.Egress.Walled(t.Prefix) {
			continue // a target the format check refuses is named there
		}
		errs = append(errs, FieldError{Field: fmt.Sprintf("network.allow.%d", i),
			Message: fmt.Sprintf("reaches into private, loopback or link-local addresses, which %s sandboxes never reach", title)})
	}
	return errs
}
