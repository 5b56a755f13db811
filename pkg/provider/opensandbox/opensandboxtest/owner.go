package opensandboxtest

import (
	"io/fs"
	"syscall"
)

type owner struct{ uid, gid int }

// ownerOf is who owns a file, where the system says.
func ownerOf(info fs.FileInfo) (owner, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}, false
	}
	return owner{uid: int(st.Uid), gid: int(st.Gid)}, true
}
