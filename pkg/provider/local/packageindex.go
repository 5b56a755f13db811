package local

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// pypiIndex is PyPI's index, whose files are on another host.
const (
	pypiIndex = "https://pypi.org/simple/"
	pypiFiles = "files.pythonhosted.org"
)

// packageIndexSetting is the index default packages come from.
var packageIndexSetting = provider.OperatorSetting{Env: "AUXILIA_LOCAL_PACKAGE_INDEX", Default: pypiIndex,
	Description: "the package index (pip's index URL) local instances install their default packages from: that install, and nothing else, " +
		"reaches it (its host; for PyPI, pypi.org and files.pythonhosted.org) whatever the sandbox's network says, then the sandbox's rules apply. " +
		"An http:// index is trusted as it is; one on a private, loopback or link-local address is refused, as no instance reaches those",
	Check: func(value string) error {
		_, err := parsePackageIndex(value)
		return err
	}}

// ReadPackageIndex is the operator's index (already checked by
// ReadOperatorSettings).
func ReadPackageIndex(values provider.OperatorValues) string {
	return values.Value(packageIndexSetting)
}

// parsePackageIndex checks an index URL: http or https, a host no instance
// is walled off from.
func parsePackageIndex(value string) (*url.URL, error) {
	u, err := url.Parse(value)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" {
		return nil, fmt.Errorf("must be an http:// or https:// URL, not %q", value)
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil && bubblewrap.Walled(netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())) {
		return nil, fmt.Errorf("%s is on a private, loopback or link-local address, which local instances never reach", value)
	}
	return u, nil
}

// packageIndex is where an instance's default packages come from.
type packageIndex struct{ url string }

func (p packageIndex) orPyPI() string {
	if p.url == "" {
		return pypiIndex
	}
	return p.url
}

// egress is the install's only way out: the index's hosts.
func (p packageIndex) egress() bubblewrap.Egress {
	u, err := parsePackageIndex(p.orPyPI())
	if err != nil {
		return bubblewrap.Egress{DenyByDefault: true}
	}
	allow := []string{u.Hostname()}
	if p.orPyPI() == pypiIndex {
		allow = append(allow, pypiFiles)
	}
	return bubblewrap.Egress{DenyByDefault: true, Allow: allow}
}

// env points pip at the index, for the install alone.
func (p packageIndex) env() []string {
	env := []string{"PIP_INDEX_URL=" + p.orPyPI()}
	if u, err := parsePackageIndex(p.orPyPI()); err == nil && u.Scheme == "http" {
		env = append(env, "PIP_TRUSTED_HOST="+u.Hostname())
	}
	return env
}

// forInstall is r for the install of the default packages: it reaches the
// index alone, whatever the sandbox's network says, and pip is pointed at
// it. A jail is made for the one command; the gVisor container's router
// lets the index alone through while it runs.
func forInstall(r runner, index packageIndex) runner {
	switch r := r.(type) {
	case bubblewrap.Jail:
		r.Network, r.Egress = true, index.egress()
		r.Env = append(slices.Clip(r.Env), index.env()...)
		return r
	case gvisorRunner:
		r.install = &index
		return r
	}
	return r
}
