package bubblewrap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// loopControl hands out free loop devices.
const loopControl = "/dev/loop-control"

// DisksSupported reports why this server cannot give folders disks of their
// own, or nil when it can: mounting takes root with CAP_SYS_ADMIN, loop
// devices, and mkfs.ext4 (e2fsprogs).
func DisksSupported() error {
	if os.Geteuid() != 0 {
		return errors.New("the server does not run as root")
	}
	if !canMount() {
		return errors.New("the server may not mount filesystems (it lacks CAP_SYS_ADMIN, or runs in a user namespace)")
	}
	if _, err := mkfsPath(); err != nil {
		return err
	}
	if _, err := os.Stat(loopControl); err != nil {
		return errors.New("the host has no loop devices")
	}
	return nil
}

// Make makes the image: a sparse file of sizeMB MiB holding an empty ext4
// filesystem whose root belongs to uid and gid. Dir must exist.
func (d Disk) Make(ctx context.Context, sizeMB, uid, gid int) error {
	mkfs, err := mkfsPath()
	if err != nil {
		return err
	}
	f, err := os.OpenFile(d.Image, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("bubblewrap: make the disk image: %w", bare(err))
	}
	err = f.Truncate(int64(sizeMB) << 20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = runMkfs(ctx, mkfs, d.Image, uid, gid)
	}
	if err == nil {
		// mkfs.ext4 makes lost+found, which would be the first thing in the folder.
		var done func()
		if done, err = d.Use(); err == nil {
			err = os.Remove(filepath.Join(d.Dir, "lost+found"))
			done()
		}
	}
	if err != nil {
		_ = os.Remove(d.Image)
		return fmt.Errorf("bubblewrap: make the disk: %w", bare(err))
	}
	return nil
}

// runMkfs makes the filesystem. Its tables are zeroed lazily, so that a
// large image costs only what is written to it.
func runMkfs(ctx context.Context, mkfs, image string, uid, gid int) error {
	options := fmt.Sprintf("root_owner=%d:%d,lazy_itable_init=1,lazy_journal_init=1", uid, gid)
	cmd := exec.CommandContext(ctx, mkfs, "-q", "-F", "-m", "0", "-E", options, image)
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if err != nil {
		said := strings.TrimSpace(strings.ReplaceAll(string(out), image, "the image"))
		return fmt.Errorf("mkfs.ext4 failed (%v): %s", err, said)
	}
	return nil
}

// Use mounts the disk at Dir, unless it is mounted there already, and
// returns a function that ends this use: the last one unmounts it. What
// holds the filesystem then (a jail still ending, an open file) keeps it
// until it lets go; a new mount meanwhile shares it, through the same loop
// device, so that the image never has two filesystems at once.
func (d Disk) Use() (done func(), err error) {
	u := holdFolder(d.Dir)
	u.Lock()
	defer u.Unlock()
	mounted, err := isMountPoint(d.Dir)
	if err == nil && !mounted {
		err = d.mount()
	}
	if err != nil {
		letGo(d.Dir, u)
		return nil, fmt.Errorf("bubblewrap: mount the disk: %w", bare(err))
	}
	u.users++
	return sync.OnceFunc(func() {
		u.Lock()
		if u.users--; u.users == 0 {
			_ = unmount(d.Dir)
		}
		u.Unlock()
		letGo(d.Dir, u)
	}), nil
}

// Remove unmounts the disk and removes its image. Jails and file
// operations still using it keep what they hold until they end.
func (d Disk) Remove() error {
	u := holdFolder(d.Dir)
	defer letGo(d.Dir, u)
	u.Lock()
	defer u.Unlock()
	if err := unmount(d.Dir); err != nil {
		return fmt.Errorf("bubblewrap: unmount the disk: %w", bare(err))
	}
	if err := os.Remove(d.Image); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("bubblewrap: remove the disk image: %w", bare(err))
	}
	return nil
}

// UnmountUnder unmounts every mount below dir (not dir itself) that this
// process does not use: what a server that stopped without unmounting its
// disks left mounted.
func UnmountUnder(dir string) error {
	mounts, err := readMounts()
	if err != nil {
		return err
	}
	var points []string
	for _, m := range mounts {
		if strings.HasPrefix(m.point, dir+"/") {
			points = append(points, m.point)
		}
	}
	// Deepest first, so that each is a leaf when its turn comes.
	slices.SortFunc(points, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	var errs []error
	for _, p := range points {
		u := holdFolder(p)
		u.Lock()
		if u.users == 0 {
			if err := unmount(p); err != nil {
				errs = append(errs, fmt.Errorf("unmount %s: %w", p, err))
			}
		}
		u.Unlock()
		letGo(p, u)
	}
	return errors.Join(errs...)
}

// mount mounts the image at Dir; its folder's use must be locked.
func (d Disk) mount() error {
	img, err := os.OpenFile(d.Image, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer img.Close()
	loop, err := loopFor(img)
	if err != nil {
		return err
	}
	defer loop.Close() // the mounted filesystem holds it from now on
	return unix.Mount(loop.Name(), d.Dir, "ext4", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOATIME, "")
}

// unmount unmounts dir, at once if nothing uses it, else as soon as what
// uses it lets go; a dir with nothing mounted is fine.
func unmount(dir string) error {
	err := unix.Unmount(dir, 0)
	if errors.Is(err, unix.EBUSY) {
		err = unix.Unmount(dir, unix.MNT_DETACH)
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
		return nil // not a mount point, or not there at all
	}
	return err
}

// isMountPoint reports whether something is mounted at dir: its device
// differs from its parent's.
func isMountPoint(dir string) (bool, error) {
	var self, parent unix.Stat_t
	if err := unix.Stat(dir, &self); err != nil {
		return false, err
	}
	if err := unix.Stat(filepath.Dir(dir), &parent); err != nil {
		return false, err
	}
	return self.Dev != parent.Dev, nil
}

// mkfsPath finds mkfs.ext4, which is in /sbin, outside some users' PATH.
func mkfsPath() (string, error) {
	if p, err := exec.LookPath("mkfs.ext4"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("mkfs.ext4 is not installed (install e2fsprogs)")
}

// canMount reports whether this process may mount an ext4 filesystem: it
// has CAP_SYS_ADMIN in the host's user namespace (in any other, as in a
// rootless container, the kernel refuses).
func canMount() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil || data[0].Effective&(1<<unix.CAP_SYS_ADMIN) == 0 {
		return false
	}
	// The host's user namespace maps every id to itself.
	return slices.Equal(strings.Fields(readString("/proc/self/uid_map")), []string{"0", "0", "4294967295"})
}
