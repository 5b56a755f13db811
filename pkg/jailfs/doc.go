// Package jailfs is the host side's one door to a jail's files.
//
// Code in a jail is hostile, and the folder a jail works in is the jail's
// to change: while the server reads, writes, copies or removes what is in
// it, a command may swap any folder in it for a symbolic link to somewhere
// on the host, as often and as fast as it likes. The server runs as root,
// and root by path would follow such a link anywhere: a copy made with
// `cp -a` could be steered into the server's own keys. So the server never
// touches a jail's files by path. Everything it does in them goes through
// this package, in one of two ways, and both act as the jail's own user:
//
//   - User.Open opens the folder as an os.Root and hands it to the caller on
//     a thread whose file-system identity is the jail's user (its uid and
//     gid, no supplementary groups, and so none of root's capabilities over
//     files). No name, "..", or link leads out of an os.Root, and the
//     kernel refuses whatever the user could not do itself: a file the
//     user may not read stays shut to the door too, and what the door makes
//     belongs to the user. The file tools work this way: they follow links
//     that stay inside the folder, as the jail's own programs would.
//   - Archive, Extract, Copy and Empty work on whole trees, inside such a
//     root, one name at a time from open folder descriptors (openat with
//     O_NOFOLLOW): they never follow a link, not even one inside the folder,
//     so a folder swapped for a link mid-walk is found to be a link and
//     treated as one. They keep no owners (what they make is the user's)
//     and no set-id bits, and they open what the user could open: a file or
//     folder of the user's own that it shut even to itself is opened for the
//     read after giving its owner read access, as the owner may, and shut
//     again after.
//
// A copy taken while commands run is still confined, but may catch a file
// half written: callers that want a consistent copy stop the jail's
// processes first (a frozen cgroup).
//
// A thread with a changed identity is never handed back to the Go
// scheduler: the goroutine that runs on it keeps it locked and ends, and
// the runtime ends the thread with it. Threads the runtime starts while it
// is locked are started from a thread of its own, not cloned from this one.
//
// A server that does not run as root runs its jails as its own user, and
// the door acts as that user: there is no other identity to take.
package jailfs
