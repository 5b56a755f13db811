package bubblewrap

import (
	"fmt"
	"os"
)

// systemDirs are the host's programs and libraries. On merged-/usr systems
// all but /usr are symlinks into it, and are recreated as such.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles are the few host settings commands need to run: the dynamic
// linker's cache, Debian's alternatives (/usr/bin/awk links there), name
// service and time zone settings, and TLS trust anchors (not private keys).
var etcFiles = []string{
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/alternatives", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf",
	"/etc/localtime", "/etc/os-release",
	"/etc/ssl/certs", "/etc/ssl/openssl.cnf",
	"/etc/pki/tls/certs", "/etc/pki/tls/openssl.cnf", "/etc/pki/ca-trust", "/etc/crypto-policies",
}

// systemArgs binds the host system read-only.
func systemArgs() []string {
	var args []string
	for _, dir := range systemDirs {
		info, err := os.Lstat(dir)
		switch {
		case err != nil:
			continue // absent on this host
		case info.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(dir); err == nil {
				args = append(args, "--symlink", target, dir)
			}
		case info.IsDir():
			args = append(args, "--ro-bind", dir, dir)
		}
	}
	for _, f := range etcFiles {
		args = append(args, "--ro-bind-try", f, f)
	}
	return args
}

// accounts are the /etc/passwd and /etc/group a command sees: root and the
// command's own user, so that tools asking who they are get an answer.
func accounts(uid, gid int, home string) (passwd, group string) {
	passwd = "root:x:0:0:root:/root:/usr/sbin/nologin\n" +
		fmt.Sprintf("sandbox:x:%d:%d:sandbox:%s:/bin/sh\n", uid, gid, home)
	group = "root:x:0:\n" + fmt.Sprintf("sandbox:x:%d:\n", gid)
	return passwd, group
}

// jailHosts is the jail's /etc/hosts: only the jail itself. The host's
// would tell the jail the names of machines it must not reach.
const jailHosts = "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n"

// SystemView is what a jail shows of the host besides its folder, for
// another isolation (gVisor) to show its commands the same: the host's
// system read-only, merged /usr's links, and the jail's own /etc files.
type SystemView struct {
	// Binds are the host's folders and files, read-only, that exist here.
	Binds []Bind
	// Links are symlinks, by their path inside, to their target.
	Links map[string]string
	// Files are the jail's own files, by their path inside, to their text.
	Files map[string]string
}

// HostSystem is the SystemView of a jail whose commands run as uid:gid
// with home as $HOME.
func HostSystem(uid, gid int, home string) SystemView {
	v := SystemView{Links: map[string]string{}}
	for _, dir := range systemDirs {
		info, err := os.Lstat(dir)
		switch {
		case err != nil:
		case info.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(dir); err == nil {
				v.Links[dir] = target
			}
		case info.IsDir():
			v.Binds = append(v.Binds, Bind{Host: dir, Sandbox: dir, ReadOnly: true})
		}
	}
	for _, f := range etcFiles {
		if _, err := os.Stat(f); err == nil {
			v.Binds = append(v.Binds, Bind{Host: f, Sandbox: f, ReadOnly: true})
		}
	}
	passwd, group := accounts(uid, gid, home)
	v.Files = map[string]string{"/etc/passwd": passwd, "/etc/group": group, "/etc/hosts": jailHosts}
	return v
}
