package bubblewrap

import "sync"

// folderUse is how this process uses the folder a disk is mounted at. Its
// lock is held while the disk is mounted or unmounted there, so that one
// folder's slow unmount (it writes back what is cached) holds up no other.
type folderUse struct {
	sync.Mutex
	users   int // uses of the mount (under the lock)
	holders int // goroutines holding this entry (under folders' lock)
}

// folders are the folders in use, while anyone holds them.
var folders = struct {
	sync.Mutex
	uses map[string]*folderUse
}{uses: map[string]*folderUse{}}

// holdFolder returns the use of dir, which stays the one for dir until
// letGo.
func holdFolder(dir string) *folderUse {
	folders.Lock()
	defer folders.Unlock()
	u := folders.uses[dir]
	if u == nil {
		u = &folderUse{}
		folders.uses[dir] = u
	}
	u.holders++
	return u
}

// letGo ends a holdFolder; the last forgets the folder.
func letGo(dir string, u *folderUse) {
	folders.Lock()
	defer folders.Unlock()
	if u.holders--; u.holders == 0 {
		delete(folders.uses, dir)
	}
}
