package bubblewrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// tunDevice is the device through which slirp4netns talks to a jail.
const tunDevice = "/dev/net/tun"

// errJailEnded is returned when the jail ended before it was connected.
var errJailEnded = errors.New("the jail ended while its network was set up")

// checkTun says why jails cannot have network here: no TUN device, or one
// that a server not running as root may not open. (For a server running as
// root, slirp4netns opens it with the rights it holds in the jail's user
// namespace, where root is mapped.)
func checkTun(asRoot bool) error {
	if _, err := os.Stat(tunDevice); err != nil {
		return fmt.Errorf("bubblewrap: a jail with network needs %s, which this host lacks (load the tun module; in a container, add the device)", tunDevice)
	}
	if !asRoot && unix.Access(tunDevice, unix.R_OK|unix.W_OK) != nil {
		return fmt.Errorf("bubblewrap: a jail with network needs %s open to user %d, as udev makes it (mode 0666)", tunDevice, os.Geteuid())
	}
	return nil
}

// network is a jail's way out: slirp4netns, a user-mode network stack that
// runs on the host as the jail's user and opens the connections the jail
// asks for. It ends when exit is closed, or with the thread that started it.
type network struct {
	slirp  *exec.Cmd
	exit   *os.File
	stderr *headWriter
}

// connect gives the jail whose first process is first, pid on the host, its
// network: it filters what the jail's network namespace lets out, then
// starts slirp4netns on it, as user. The jail's command must not have
// started yet, nor start before connect returns.
func connect(t tools, first *firstProcess, pid int, user *syscall.Credential, egress Egress) (*network, error) {
	netns, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		return nil, errJailEnded
	}
	defer netns.Close()
	if !first.alive() {
		return nil, errJailEnded // and pid may be another process's
	}
	// The user namespace that owns the jail's network namespace, where the
	// server's user is root: the jail's own (root server) or the outer of
	// the two that bwrap makes (see the package doc).
	fd, err := unix.IoctlRetInt(int(netns.Fd()), unix.NS_GET_USERNS)
	if err != nil {
		return nil, fmt.Errorf("find the owner of the jail's network namespace: %w", err)
	}
	owner := os.NewFile(uintptr(fd), "user namespace")
	defer owner.Close()

	// nft and slirp4netns start side by side: nothing in the jail sends a
	// packet before its command starts.
	filtered, err := filterEgress(t, owner, netns, egress, egressFilter)
	if err != nil {
		return nil, err
	}
	n, err := startSlirp(t, owner, netns, user, false)
	if ferr := filtered(); ferr != nil {
		if n != nil {
			n.close()
		}
		return nil, ferr
	}
	return n, err
}

// enterJail are nsenter's options to run a program in the jail's user and
// network namespaces, given as descriptors 3 and 4, as the same user.
var enterJail = []string{"--user=/proc/self/fd/3", "--net=/proc/self/fd/4", "--preserve-credentials", "--"}

// egressFilter makes the rules filterEgress installs in a jail, and
// routerFilter those in a router: tests swap them to show what a jail or
// an instance behind a router reaches without them.
var (
	egressFilter = egressRules
	routerFilter = routerRules
)

// filterEgress starts installing the egress rules that rules makes in the
// jail's (or router's) network namespace; filtered waits until they are in. nft runs as the server's own
// user, which is root in the namespace's owner and so may change its rules;
// nothing in the jail is, nor can become it.
func filterEgress(t tools, owner, netns *os.File, egress Egress, rules func([]netip.Addr, egressLists) string) (filtered func() error, err error) {
	hostAddrs, err := hostAddresses()
	if err != nil {
		return nil, fmt.Errorf("read the host's addresses: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	lists := egress.resolve(ctx, lookupHost)
	cancel()
	cmd := hostCommand(nil, []*os.File{owner, netns}, t.nsenter, slices.Concat(enterJail, []string{t.nft, "-f", "-"})...)
	cmd.Stdin = strings.NewReader(rules(hostAddrs, lists))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("filter the jail's network: %w", err)
	}
	timer := time.AfterFunc(setupTimeout, func() { _ = cmd.Process.Kill() })
	return func() error {
		err := cmd.Wait()
		timer.Stop()
		if err == nil {
			return nil
		}
		if said := strings.TrimSpace(out.String()); said != "" {
			line, _, _ := strings.Cut(said, "\n")
			err = errors.New(line)
		}
		return fmt.Errorf("filter the jail's network: nft failed: %w", err)
	}, nil
}

// startSlirp starts slirp4netns on the jail's network namespace and waits
// until the jail's interface is up. slirp4netns confines itself
// (--enable-sandbox, --enable-seccomp) in a user namespace where it is
// root: a helper makes one inside the jail's, in which root is user, and
// holds it until slirp4netns has joined it.
//
// A lasting one outlives the thread that starts it: it ends only when
// exit is closed, by close or with the server.
func startSlirp(t tools, owner, netns *os.File, user *syscall.Credential, lasting bool) (*network, error) {
	h, err := startHelper(hostCommand(user, []*os.File{owner, netns}, t.nsenter,
		slices.Concat(enterJail, []string{t.unshare, "--user", "--map-root-user", "--", t.cat})...))
	if err != nil {
		return nil, fmt.Errorf("connect the jail: %w", err)
	}
	defer h.stop()

	exitR, exitW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer exitR.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		exitW.Close()
		return nil, err
	}
	defer readyR.Close()
	n := &network{exit: exitW, stderr: &headWriter{w: io.Discard}}
	n.slirp = hostCommand(user, []*os.File{exitR, readyW, owner}, t.slirp,
		"--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox", "--enable-seccomp",
		"--exit-fd=3", "--ready-fd=4", "--userns-path=/proc/self/fd/5", itoa(h.pid()), slirpLink)
	n.slirp.Stderr = n.stderr
	if lasting {
		n.slirp.SysProcAttr.Pdeathsig = 0
	}
	err = n.slirp.Start()
	readyW.Close()
	if err != nil {
		exitW.Close()
		return nil, fmt.Errorf("connect the jail: %w", err)
	}
	_ = readyR.SetReadDeadline(time.Now().Add(setupTimeout))
	if _, err := readyR.Read(make([]byte, 1)); err != nil {
		n.close()
		return nil, fmt.Errorf("connect the jail: slirp4netns failed: %s", n.said())
	}
	return n, nil
}

// close ends slirp4netns and waits until it is gone.
func (n *network) close() {
	_ = n.exit.Close()
	timer := time.AfterFunc(exitTimeout, func() { _ = n.slirp.Process.Kill() })
	_ = n.slirp.Wait()
	timer.Stop()
}

// said is what slirp4netns said on stderr, on one line.
func (n *network) said() string {
	var said []string
	for _, line := range strings.Split(strings.TrimSpace(string(n.stderr.head)), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			said = append(said, line)
		}
	}
	if len(said) == 0 {
		return "it stopped before the jail's interface was up"
	}
	return strings.Join(said, "; ")
}

// hostAddresses are the addresses of the host's interfaces, read anew for
// each jail: they change when interfaces come and go.
func hostAddresses() ([]netip.Addr, error) {
	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	for _, ifaddr := range ifaddrs {
		if ipnet, ok := ifaddr.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(ipnet.IP); ok {
				addrs = append(addrs, a.Unmap())
			}
		}
	}
	return addrs, nil
}
