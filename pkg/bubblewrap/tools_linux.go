package bubblewrap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// hostTool is a program of the host that the server runs beside bwrap to
// set a jail up, and the Debian package that installs it.
type hostTool struct {
	name, pkg, purpose string
}

var (
	unshareTool = hostTool{"unshare", "util-linux", "it makes the namespaces that hold a jail while it is set up"}
	nsenterTool = hostTool{"nsenter", "util-linux", "it enters a jail's namespaces to connect it to the network"}
	catTool     = hostTool{"cat", "coreutils", "it holds a jail's namespaces while they are set up"}
	slirpTool   = hostTool{"slirp4netns", "slirp4netns", "it connects a jail with network to the internet"}
	nftTool     = hostTool{"nft", "nftables", "it keeps a jail with network away from the host and private networks"}
)

// path finds the tool in PATH, or else in the system's folders, which the
// PATH of a server that does not run as root may lack (nft is in /usr/sbin).
func (t hostTool) path() (string, error) {
	if p, err := exec.LookPath(t.name); err == nil {
		return p, nil
	}
	for _, dir := range strings.Split(DefaultPath, ":") {
		p := filepath.Join(dir, t.name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not installed: %s (install the %s package)", t.name, t.purpose, t.pkg)
}

// tools are the paths of the host programs a jail needs besides bwrap.
type tools struct {
	unshare, nsenter, cat, slirp, nft string
	// sh is found for a router only.
	sh string
}

// toolsFor finds the host programs a jail needs: to hold its user namespace
// when the server runs as root, and to connect it when it has network.
func toolsFor(asRoot, network bool) (tools, error) {
	var t tools
	for _, need := range []struct {
		path *string
		tool hostTool
		when bool
	}{
		{&t.unshare, unshareTool, asRoot || network},
		{&t.cat, catTool, asRoot || network},
		{&t.nsenter, nsenterTool, network},
		{&t.slirp, slirpTool, network},
		{&t.nft, nftTool, network},
	} {
		if !need.when {
			continue
		}
		p, err := need.tool.path()
		if err != nil {
			return tools{}, fmt.Errorf("bubblewrap: %w", err)
		}
		*need.path = p
	}
	return t, nil
}
