package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// Sandbox is a sandbox as the API shows it.
type Sandbox = wire.Sandbox

// sandbox is a live sandbox: its folder, the user its commands run as, and
// a context that ends its commands when it is deleted.
type sandbox struct {
	dir    string
	user   jailfs.User
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex // guards info.LastActiveAt and running
	info    Sandbox
	running int // commands in flight; the idle reaper leaves such sandboxes alone

	swap sync.Mutex // serialises workspace replacements
}

func (s *sandbox) workspace() string { return filepath.Join(s.dir, "workspace") }

// job is a command of the sandbox, as it is now.
func (s *sandbox) job() Job {
	info := s.view(false)
	job := Job{Sandbox: info.ID, Workspace: s.workspace(), User: s.user, Resources: info.Resources}
	job.Network, job.Egress = egressOf(info)
	return job
}

// view returns the API view, marking the sandbox used now when touch is set.
func (s *sandbox) view(touch bool) Sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	if touch {
		s.info.LastActiveAt = time.Now().UTC()
	}
	return s.info
}

// begin and end bracket a command so that a busy sandbox never looks idle.
func (s *sandbox) begin() {
	s.mu.Lock()
	s.running++
	s.info.LastActiveAt = time.Now().UTC()
	s.mu.Unlock()
}

func (s *sandbox) end() {
	s.mu.Lock()
	s.running--
	s.info.LastActiveAt = time.Now().UTC()
	s.mu.Unlock()
}

// waitIdle waits, up to limit, until no command of the sandbox runs any more.
func (s *sandbox) waitIdle(limit time.Duration) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		running := s.running
		s.mu.Unlock()
		if running == 0 {
			return
		}
	}
}

// replaceWorkspace swaps in a prepared folder as the workspace; running commands keep the old one.
func (s *sandbox) replaceWorkspace(staged, trash string) error {
	s.swap.Lock()
	defer s.swap.Unlock()
	if err := os.Rename(s.workspace(), trash); err != nil {
		return err
	}
	if err := os.Rename(staged, s.workspace()); err != nil {
		_ = os.Rename(trash, s.workspace())
		return err
	}
	return jailfs.RemoveAll(trash)
}

// errSandboxExists: a sandbox with that id is already live.
var errSandboxExists = errors.New("sandbox exists")

// atCapacity refuses a sandbox past the gateway's GATEWAY_MAX_SANDBOXES:
// final until one is deleted, so a caller is told at once.
func atCapacity(most int) error {
	return failure(http.StatusServiceUnavailable, auxilia.CodeUnavailable,
		fmt.Sprintf("The gateway holds %d sandboxes, its most (GATEWAY_MAX_SANDBOXES); delete one or raise the limit.", most)).about(wire.SubjectCapacity)
}

// registry holds the live sandboxes, each in a folder under dir.
type registry struct {
	dir   string // <data>/sandboxes
	users *jailUsers
	most  int // most sandboxes at once; 0 = no limit

	mu   sync.Mutex
	byID map[string]*sandbox
}

// metaFile keeps a sandbox's settings beside its workspace, so a restart finds it again.
const metaFile = "sandbox.json"

// storedSandbox is a sandbox as its meta file keeps it: as the API shows
// it, and the user its commands run as (none: legacyUser).
type storedSandbox struct {
	Sandbox
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
}

func newRegistry(dir string, users *jailUsers, most int) (*registry, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	r := &registry{dir: dir, users: users, most: most, byID: map[string]*sandbox{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), metaFile))
		if err != nil {
			continue // a folder left half made or half removed
		}
		var stored storedSandbox
		if json.Unmarshal(raw, &stored) != nil || stored.ID != e.Name() || checkID(stored.ID) != nil {
			continue
		}
		user := legacyUser()
		if stored.UID != 0 {
			user = jailfs.User{UID: stored.UID, GID: stored.GID}
		}
		users.claim(user)
		stored.LastActiveAt = time.Now().UTC()
		r.byID[stored.ID] = r.newSandbox(stored.Sandbox, user)
	}
	return r, nil
}

func (r *registry) newSandbox(info Sandbox, user jailfs.User) *sandbox {
	ctx, cancel := context.WithCancel(context.Background())
	return &sandbox{dir: filepath.Join(r.dir, info.ID), user: user, ctx: ctx, cancel: cancel, info: info}
}

// create makes a sandbox's folder and registers it, its commands to run as
// user (from users.take: the sandbox keeps it, and a failed create gives it
// back). A non-empty workspace is a prepared folder of user's to move in as
// its workspace; else it starts empty.
func (r *registry) create(info Sandbox, workspace string, user jailfs.User) (sb *sandbox, err error) {
	defer func() {
		if err != nil {
			r.users.put(user)
		}
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[info.ID]; ok {
		return nil, errSandboxExists
	}
	if r.most > 0 && len(r.byID) >= r.most {
		return nil, atCapacity(r.most)
	}
	sb = r.newSandbox(info, user)
	if err := os.Mkdir(sb.dir, 0o700); err != nil {
		return nil, err
	}
	if workspace != "" {
		err = os.Rename(workspace, sb.workspace())
	} else {
		err = makeWorkspace(sb.workspace(), user)
	}
	if err == nil {
		var raw []byte
		raw, _ = json.Marshal(storedSandbox{Sandbox: info, UID: user.UID, GID: user.GID})
		err = os.WriteFile(filepath.Join(sb.dir, metaFile), raw, 0o600)
	}
	if err != nil {
		_ = jailfs.RemoveAll(sb.dir)
		return nil, err
	}
	r.byID[info.ID] = sb
	return sb, nil
}

func (r *registry) get(id string) (*sandbox, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sb, ok := r.byID[id]
	return sb, ok
}

// remove ends a sandbox's commands and deletes its folder; false when there was none.
func (r *registry) remove(id, trash string) bool {
	r.mu.Lock()
	sb, ok := r.byID[id]
	if ok {
		delete(r.byID, id)
		sb.cancel()
		// Moving the folder away at once frees the id for a restore while the files go.
		if err := os.Rename(sb.dir, trash); err != nil {
			trash = sb.dir
		}
	}
	r.mu.Unlock()
	if ok {
		// Its commands were told to end; their files go once they have.
		sb.waitIdle(10 * time.Second)
		_ = jailfs.RemoveAll(trash)
		r.users.put(sb.user)
	}
	return ok
}

// list returns up to limit sandboxes with ids after the cursor, in id order.
func (r *registry) list(after string, limit int) (items []Sandbox, next string) {
	r.mu.Lock()
	ids := make([]string, 0, len(r.byID))
	for id := range r.byID {
		if id > after {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	more := len(ids) > limit
	if more {
		ids = ids[:limit]
	}
	items = make([]Sandbox, 0, len(ids))
	for _, id := range ids {
		items = append(items, r.byID[id].view(false))
	}
	r.mu.Unlock()
	if more {
		next = ids[len(ids)-1]
	}
	return items, next
}

// idle returns the ids of sandboxes with no command running and no use since before.
func (r *registry) idle(before time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for id, sb := range r.byID {
		sb.mu.Lock()
		if sb.running == 0 && sb.info.LastActiveAt.Before(before) {
			ids = append(ids, id)
		}
		sb.mu.Unlock()
	}
	return ids
}

// closeAll ends every sandbox's commands, keeping their folders for the next start.
func (r *registry) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sb := range r.byID {
		sb.cancel()
	}
}

// makeWorkspace makes an empty folder of user's to be a workspace.
func makeWorkspace(dir string, user jailfs.User) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	if user != gatewayUser() {
		return os.Chown(dir, user.UID, user.GID)
	}
	return nil
}

// randomName returns a name for a scratch folder.
func randomName(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
