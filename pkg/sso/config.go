// Package sso signs people in to the console with an OpenID Connect
// provider: the authorization code flow with PKCE, state and nonce; people
// made on first sign-in, their workspaces and roles taken from the groups
// the provider says they are in; and sessions kept by the hash of an opaque
// cookie, re-checked with the provider at a set interval.
package sso

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Config is the provider and the sessions' lifetimes.
type Config struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// RedirectURL is this server's callback, as registered at the provider.
	RedirectURL string
	// ProviderName is what the console's sign-in button says.
	ProviderName string
	Scopes       []string
	// GroupsClaim is the ID token (or userinfo) claim listing the person's groups.
	GroupsClaim string
	// Groups maps a group to the workspaces and roles it gives.
	Groups GroupRoles
	// Lifetime is a session's absolute lifetime, Idle how long it lasts unused.
	Lifetime time.Duration
	Idle     time.Duration
	// Refresh is how often a session re-checks its person with the provider.
	Refresh time.Duration
}

// Defaults of the optional settings.
const (
	DefaultScopes      = "openid profile email offline_access"
	DefaultGroupsClaim = "groups"
	DefaultLifetime    = 12 * time.Hour
	DefaultIdle        = time.Hour
	DefaultRefresh     = 5 * time.Minute
)

// Grant is a role in a workspace, given by a group.
type Grant struct {
	Workspace string
	Role      auxilia.Role
}

// GroupRoles maps a group to its grants.
type GroupRoles map[string][]Grant

// ParseGroupRoles reads AUXILIA_OIDC_GROUP_ROLES: entries separated by
// commas, each GROUP=WORKSPACE:ROLE, such as
// "platform=default:admin,developers=default:member,developers=staging:admin".
// A group may be named more than once; a person in several groups gets the
// highest role each workspace is given.
func ParseGroupRoles(s string) (GroupRoles, error) {
	out := GroupRoles{}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		group, grant, ok := strings.Cut(entry, "=")
		ws, role, ok2 := strings.Cut(grant, ":")
		group, ws, role = strings.TrimSpace(group), strings.TrimSpace(ws), strings.TrimSpace(role)
		if !ok || !ok2 || group == "" || ws == "" {
			return nil, fmt.Errorf("%q: each entry must be GROUP=WORKSPACE:ROLE", entry)
		}
		if !auxilia.Role(role).Valid() {
			return nil, fmt.Errorf("%q: the role must be admin or member", entry)
		}
		out[group] = append(out[group], Grant{Workspace: ws, Role: auxilia.Role(role)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("maps no group: give GROUP=WORKSPACE:ROLE entries, separated by commas")
	}
	return out, nil
}

// Roles returns the role each workspace (by name) gives a person in groups:
// the highest any of their groups gives.
func (g GroupRoles) Roles(groups []string) map[string]auxilia.Role {
	out := map[string]auxilia.Role{}
	for _, group := range groups {
		for _, grant := range g[group] {
			if out[grant.Workspace] != auxilia.RoleAdmin {
				out[grant.Workspace] = grant.Role
			}
		}
	}
	return out
}

// workspaceNames returns the names of roles' workspaces, sorted.
func workspaceNames(roles map[string]auxilia.Role) []string {
	names := make([]string, 0, len(roles))
	for name := range roles {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
