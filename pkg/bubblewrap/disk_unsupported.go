//go:build !linux

package bubblewrap

import "context"

// DisksSupported reports that disks are Linux's.
func DisksSupported() error { return errNotLinux }

// Make makes nothing off Linux.
func (d Disk) Make(ctx context.Context, sizeMB, uid, gid int) error { return errNotLinux }

// Use mounts nothing off Linux.
func (d Disk) Use() (done func(), err error) { return nil, errNotLinux }

// Remove has nothing to unmount off Linux.
func (d Disk) Remove() error { return errNotLinux }

// UnmountUnder has nothing to unmount off Linux.
func UnmountUnder(dir string) error { return nil }
