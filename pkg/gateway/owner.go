package gateway

import (
	"os"
	"path"
)

// fileOwner gives the files the gateway makes in a workspace to the user
// that commands run as. It matters only when the gateway runs as root (as
// on Cloud Run): commands then run as an unprivileged user, who could not
// change files root made.
type fileOwner struct {
	uid, gid int
	active   bool
}

func newFileOwner(l Launcher) fileOwner {
	uid, gid := l.Owner()
	return fileOwner{uid: uid, gid: gid, active: os.Geteuid() == 0 && (uid != 0 || gid != 0)}
}

// give hands name and the folders above it, up to root's own folder, to the owner.
func (o fileOwner) give(root *os.Root, name string) error {
	if !o.active {
		return nil
	}
	for p := path.Clean(name); ; p = path.Dir(p) {
		if err := root.Lchown(p, o.uid, o.gid); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
	}
}

// giveDir hands a folder itself to the owner.
func (o fileOwner) giveDir(dir string) error {
	if !o.active {
		return nil
	}
	return os.Chown(dir, o.uid, o.gid)
}
