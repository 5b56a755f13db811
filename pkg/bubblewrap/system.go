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

// networkEtcFiles tell a command with network access how to resolve names.
var networkEtcFiles = []string{"/etc/resolv.conf", "/etc/hosts"}

// systemArgs binds the host system read-only.
func systemArgs(network bool) []string {
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
	files := etcFiles
	if network {
		files = append(files[:len(files):len(files)], networkEtcFiles...)
	}
	for _, f := range files {
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

// offlineHosts is /etc/hosts without network: only the jail itself.
const offlineHosts = "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n"
