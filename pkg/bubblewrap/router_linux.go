package bubblewrap

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// ipTool links an instance's network namespace to its router, and
// shTool lets the router route.
var (
	ipTool = hostTool{"ip", "iproute2", "it links a gVisor instance's network to the router that filters it"}
	shTool = hostTool{"sh", "dash", "it lets a gVisor instance's router route"}
)

// Router is the way out of a network namespace whose packets the host's
// kernel does not filter as they leave it: runsc's own network stack
// (--network=sandbox) writes whole frames to the namespace's interface
// through a packet socket, past netfilter's output hook, so rules in that
// namespace, as a jail has, would never see them.
//
// The instance's namespace (NetNS) holds only one end of a veth pair; the
// other is in a second namespace, the router's, which routes what arrives
// there to slirp4netns, as a jail's network does (the host's loopback
// off). What it routes passes its forward hook, where the jail's egress
// rules (egressVerdicts) decide. Nothing of the instance's can change the
// router: it is another namespace, owned by a user namespace the
// instance's user holds only outside gVisor.
type Router struct {
	// NetNS is the path of the instance's network namespace, for runsc to
	// join; it holds while the Router is open.
	NetNS string
	// ResolvConf is the /etc/resolv.conf of the instance: slirp4netns's
	// resolver.
	ResolvConf string

	instance, router, owner *os.File
	slirp                   *network
	tools                   tools
}

// StartRouter makes an instance's network namespace and its router,
// filtered by egress (nil: nothing goes out, not even to the resolver),
// with slirp4netns running as uid:gid. It needs the server to run as
// root, as runsc does.
func StartRouter(uid, gid int, egress *Egress) (r *Router, err error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("bubblewrap: a router needs the server to run as root")
	}
	if err := checkTun(true); err != nil {
		return nil, err
	}
	t, err := toolsFor(true, true)
	if err != nil {
		return nil, err
	}
	ip, err := ipTool.path()
	if err == nil {
		t.sh, err = shTool.path()
	}
	if err != nil {
		return nil, fmt.Errorf("bubblewrap: %w", err)
	}
	// The helpers die with the thread that starts them (Pdeathsig): one
	// thread starts them all, which nothing else takes meanwhile.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r = &Router{ResolvConf: "nameserver " + slirpDNS + "\n", tools: t}
	defer func() {
		if err != nil {
			r.Close()
			r = nil
		}
	}()
	// The router's namespaces are held by its open descriptors once the
	// helpers that made them end. Its user namespace is as a jail's is
	// (see newUserNamespace): slirp4netns, as the instance's user, joins
	// it, where root is mapped to open the TUN device.
	user := jailUser(true, uid, gid)
	ns, err := helperNamespaces(hostCommand(user, nil, t.unshare, "--user", "--net", "--", t.cat),
		func(pid int) error { return writeIDMaps(pid, uid, gid) }, "user", "net")
	if err != nil {
		return r, fmt.Errorf("make the router: %w", err)
	}
	r.owner, r.router = ns[0], ns[1]
	if ns, err = helperNamespaces(hostCommand(nil, nil, t.unshare, "--net", "--", t.cat), nil, "net"); err != nil {
		return r, fmt.Errorf("make the instance's network: %w", err)
	}
	r.instance = ns[0]
	r.NetNS = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), r.instance.Fd())

	filtered, err := r.filter(egress)
	if err != nil {
		return r, err
	}
	r.slirp, err = startSlirp(t, r.owner, r.router, user, true)
	if ferr := filtered(); err == nil {
		err = ferr
	}
	if err != nil {
		return r, err
	}
	if err := enableForwarding(t, r.router); err != nil {
		return r, fmt.Errorf("make the router: %w", err)
	}
	// The link is made in the router and its far end moved at once into
	// the instance's namespace, named there by a descriptor of ip's.
	if err := ipBatch(t, ip, r.router, []*os.File{r.instance},
		"link add "+routerLink+" type veth peer name "+instanceLink+" netns /proc/self/fd/4",
		"addr add "+routerAddress+linkNetwork+" dev "+routerLink,
		"link set "+routerLink+" up"); err != nil {
		return r, err
	}
	if err := ipBatch(t, ip, r.instance, nil,
		"link set lo up",
		"addr add "+instanceAddress+linkNetwork+" dev "+instanceLink,
		"link set "+instanceLink+" up",
		"route add default via "+routerAddress); err != nil {
		return r, err
	}
	return r, nil
}

// Filter replaces the router's rules with egress's (nil: nothing goes
// out), at once: nft applies a ruleset whole or not at all.
func (r *Router) Filter(egress *Egress) error {
	filtered, err := r.filter(egress)
	if err != nil {
		return err
	}
	return filtered()
}

func (r *Router) filter(egress *Egress) (filtered func() error, err error) {
	if egress == nil {
		return filterEgress(r.tools, r.owner, r.router, Egress{}, func([]netip.Addr, egressLists) string { return "flush ruleset\n" + closedRouterRules })
	}
	return filterEgress(r.tools, r.owner, r.router, *egress, func(hostAddrs []netip.Addr, lists egressLists) string {
		return "flush ruleset\n" + routerFilter(hostAddrs, lists)
	})
}

// Close ends slirp4netns and lets the namespaces go: the instance's lives
// on while runsc holds it, offline.
func (r *Router) Close() {
	if r.slirp != nil {
		r.slirp.close()
	}
	for _, f := range []*os.File{r.instance, r.router, r.owner} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// helperNamespaces runs cmd, a helper, then prepare (if set) on its pid,
// opens its namespaces of the kinds given, and ends it.
func helperNamespaces(cmd *exec.Cmd, prepare func(pid int) error, kinds ...string) ([]*os.File, error) {
	h, err := startHelper(cmd)
	if err != nil {
		return nil, err
	}
	defer h.stop()
	if prepare != nil {
		if err := prepare(h.pid()); err != nil {
			return nil, err
		}
	}
	var opened []*os.File
	for _, kind := range kinds {
		f, err := h.namespace(kind)
		if err != nil {
			for _, f := range opened {
				f.Close()
			}
			return nil, err
		}
		opened = append(opened, f)
	}
	return opened, nil
}

// ipBatch runs ip's commands in the network namespace netns, files after
// it as descriptors 4, 5, ….
func ipBatch(t tools, ip string, netns *os.File, files []*os.File, commands ...string) error {
	cmd := hostCommand(nil, append([]*os.File{netns}, files...), t.nsenter, "--net=/proc/self/fd/3", "--", ip, "-batch", "-")
	cmd.Stdin = strings.NewReader(strings.Join(commands, "\n") + "\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if said := strings.TrimSpace(out.String()); said != "" {
			line, _, _ := strings.Cut(said, "\n")
			err = errors.New(line)
		}
		return fmt.Errorf("link the instance's network to its router: ip failed: %w", err)
	}
	return nil
}

// enableForwarding lets the kernel route between the links of the network
// namespace netns: a shell there writes the setting, which is the
// namespace's. (A thread of the server's own that joined the namespace
// could not go back to the server's safely, and one that ended would take
// with it the processes it started, slirp4netns among them.)
func enableForwarding(t tools, netns *os.File) error {
	cmd := hostCommand(nil, []*os.File{netns}, t.nsenter, "--net=/proc/self/fd/3", "--", t.sh, "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("let it route: %s %w", strings.TrimSpace(string(out)), err)
	}
	return nil
}
