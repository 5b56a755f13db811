package bubblewrap

// Disk is a folder with a filesystem of its own: an ext4 image file of a
// fixed size, mounted (through a loop device) at Dir while it is in use. A
// jail whose Root is Dir can fill that filesystem and no more of the
// host's disk, and sees nothing of the host's paths in its mount table.
type Disk struct {
	Image string // the image file
	Dir   string // where it is mounted while in use; an empty folder otherwise
}
