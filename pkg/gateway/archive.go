package gateway

import "github.com/auxilia/sandboxes/pkg/jailfs"

// Workspaces go in and out as tars through the door (jailfs), as the
// sandbox's user, never following a link: a snapshot holds folders,
// regular files and links; an archive from elsewhere is refused whole at
// the first entry that is absolute, climbs with "..", lies below a link,
// is a link climbing out of the workspace, a hard link or a device, or
// goes over the limits.

// maxArchiveEntries bounds the entries of one archive.
const maxArchiveEntries = 200_000

// archiveLimits bound an archive whichever way it goes: the sum of its
// files' sizes, and its entries.
func archiveLimits(maxBytes int64) jailfs.Limits {
	return jailfs.Limits{MaxBytes: maxBytes, MaxEntries: maxArchiveEntries, InsideLinksOnly: true}
}
