package bubblewrap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// loopFor returns a loop device backed by img, held open: the one that is
// already, so that a filesystem still alive on it is shared rather than
// opened twice (two filesystems on one image would corrupt it), or else a
// free one, which detaches itself once nothing holds it.
func loopFor(img *os.File) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(img.Fd()), &st); err != nil {
		return nil, err
	}
	if dev := boundLoop(st); dev != nil {
		return dev, nil
	}
	return attachLoop(img)
}

// boundLoop returns the loop device backed by the file st describes, held
// open (so that it stays bound), or nil.
func boundLoop(st unix.Stat_t) *os.File {
	// Only bound loop devices have a backing file.
	bound, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, b := range bound {
		name := "/dev/" + filepath.Base(filepath.Dir(filepath.Dir(b)))
		dev, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		info, err := unix.IoctlLoopGetStatus64(int(dev.Fd()))
		if err == nil && info.Inode == st.Ino && info.Device == st.Dev {
			return dev
		}
		_ = dev.Close()
	}
	return nil
}

// attachLoop binds a free loop device to img.
func attachLoop(img *os.File) (*os.File, error) {
	ctl, err := os.OpenFile(loopControl, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer ctl.Close()
	for range 10 {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			return nil, fmt.Errorf("find a free loop device: %w", err)
		}
		dev, err := os.OpenFile(fmt.Sprintf("/dev/loop%d", n), os.O_RDWR, 0)
		if err != nil {
			return nil, err
		}
		config := unix.LoopConfig{Fd: uint32(img.Fd()), Info: unix.LoopInfo64{Flags: unix.LO_FLAGS_AUTOCLEAR}}
		err = unix.IoctlLoopConfigure(int(dev.Fd()), &config)
		if err == nil {
			return dev, nil
		}
		_ = dev.Close()
		if !errors.Is(err, unix.EBUSY) {
			return nil, fmt.Errorf("set up a loop device: %w", err)
		}
		// Another process took that device first: ask again.
	}
	return nil, errors.New("no loop device stayed free long enough to be set up")
}
