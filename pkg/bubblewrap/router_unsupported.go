//go:build !linux

package bubblewrap

// Router is a gVisor instance's way out, which needs Linux.
type Router struct {
	NetNS, ResolvConf string
}

// StartRouter refuses: there are no network namespaces off Linux.
func StartRouter(uid, gid int, egress *Egress) (*Router, error) { return nil, errNotLinux }

// Filter has nothing to filter.
func (r *Router) Filter(egress *Egress) error { return errNotLinux }

// Close has nothing to end.
func (r *Router) Close() {}
