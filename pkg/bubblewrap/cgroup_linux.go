package bubblewrap

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Cgroups makes the cgroups of one family of jails (a server's sandbox
// instances), each by name, in a folder of the family's own (its scope)
// under the server's own cgroup, so that the server's bounds hold around
// them. On cgroup v2 the server's cgroup must have the memory and pids
// controllers and be writable (delegated); on v1, the server's cgroups in
// the memory and pids hierarchies must be writable, which takes root. The
// cpu controller is used where it is there too (cgroup v2's, or a writable
// v1 hierarchy): without it, groups bound no CPU.
//
// A group exists while jails use it: the first Join makes it, the last
// leave removes it.
type Cgroups struct {
	layout cgroupLayout
	scope  string
}

// cgroupLayout is where this server's own cgroups are.
type cgroupLayout struct {
	// unified is the server's own cgroup v2 folder, when it has the memory
	// and pids controllers; "" when they are cgroup v1 hierarchies.
	unified string
	// memory and pids are the server's own cgroup v1 folders.
	memory, pids string
	// cpu is where the cpu controller is: the unified folder where cgroup
	// v2 has it, or the server's own cgroup v1 folder; "" where neither.
	cpu string
}

// serverLeaf is where a server moves itself on cgroup v2 when its own
// cgroup holds it: a cgroup that hands controllers to its children may hold
// no processes itself.
const serverLeaf = "auxilia-server"

// cgroupHost finds this server's cgroups once: a server that moves itself
// into its serverLeaf must not then look for cgroups below it.
var cgroupHost = sync.OnceValues(func() (cgroupLayout, error) {
	mounts, err := readMounts()
	if err != nil {
		return cgroupLayout{}, fmt.Errorf("%w: %v", ErrNoCgroups, err)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return cgroupLayout{}, fmt.Errorf("%w: %v", ErrNoCgroups, err)
	}
	return findCgroups(mounts, string(self), readString)
})

// OpenCgroups returns the cgroups of scope (a folder name, such as
// "auxilia-…"), or ErrNoCgroups saying why there are none here.
func OpenCgroups(scope string) (*Cgroups, error) {
	if scope == "" || scope != filepath.Base(scope) || scope == "." || scope == ".." || scope == serverLeaf {
		return nil, fmt.Errorf("bubblewrap: invalid cgroup scope %q", scope)
	}
	layout, err := cgroupHost()
	if err != nil {
		return nil, err
	}
	return &Cgroups{layout: layout, scope: scope}, nil
}

// findCgroups picks the server's cgroups that can bound jails: cgroup v2
// when its own has the memory and pids controllers, else the cgroup v1
// memory and pids hierarchies; and the cpu controller of the same version,
// where there is one the server may write.
func findCgroups(mounts []mount, self string, read func(string) string) (cgroupLayout, error) {
	paths := cgroupPaths(self)
	folder := func(fsType, controller string) string {
		dir, _ := cgroupFolder(mounts, fsType, controller, paths[controller])
		return dir
	}
	var why []string
	if _, ok := paths[""]; ok {
		dir := folder("cgroup2", "")
		controllers := strings.Fields(read(filepath.Join(dir, "cgroup.controllers")))
		switch {
		case dir == "":
			why = append(why, "the server's cgroup v2 is not mounted")
		case !slices.Contains(controllers, "memory") || !slices.Contains(controllers, "pids"):
			why = append(why, "the server's cgroup v2 lacks the memory or pids controller")
		case unix.Access(dir, unix.W_OK) != nil:
			why = append(why, "the server cannot write its cgroup v2 (it is not delegated)")
		default:
			layout := cgroupLayout{unified: dir}
			if slices.Contains(controllers, "cpu") {
				layout.cpu = dir
			}
			return layout, nil
		}
	}
	memory, pids := folder("cgroup", "memory"), folder("cgroup", "pids")
	switch {
	case memory == "" || pids == "":
		why = append(why, "there are no cgroup v1 memory and pids hierarchies")
	case unix.Access(memory, unix.W_OK) != nil || unix.Access(pids, unix.W_OK) != nil:
		why = append(why, "the server cannot write its cgroup v1 memory and pids folders")
	default:
		layout := cgroupLayout{memory: memory, pids: pids}
		if cpu := folder("cgroup", "cpu"); cpu != "" && unix.Access(cpu, unix.W_OK) == nil {
			layout.cpu = cpu
		}
		return layout, nil
	}
	return cgroupLayout{}, fmt.Errorf("%w: %s", ErrNoCgroups, strings.Join(why, "; "))
}

// cgroupPaths reads /proc/self/cgroup: the process's cgroup by controller,
// "" standing for cgroup v2's.
func cgroupPaths(self string) map[string]string {
	paths := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(self), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		// "0::path" is cgroup v2's line: its controllers are "".
		for _, c := range strings.Split(parts[1], ",") {
			paths[c] = parts[2]
		}
	}
	return paths
}

// cgroupFolder is the folder of cgroup path in a mounted hierarchy of
// fsType with controller (any, for "" on cgroup2), and where that hierarchy
// is mounted; "" where none shows the path.
func cgroupFolder(mounts []mount, fsType, controller, path string) (folder, point string) {
	for _, m := range mounts {
		if m.fsType != fsType || (controller != "" && !slices.Contains(m.superOptions, controller)) {
			continue
		}
		rel, err := filepath.Rel(m.root, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		return filepath.Join(m.point, rel), m.point
	}
	return "", ""
}

// groups counts the users of each cgroup this process made, across every
// Cgroups of the same scope.
var groups = struct {
	sync.Mutex
	users     map[string]int  // by the group's memory folder
	delegated map[string]bool // cgroup v2 folders that hand on the controllers
}{users: map[string]int{}, delegated: map[string]bool{}}

// Join returns the group called name (an instance's id), made with limits
// unless jails use it already, and a function to call once the caller's
// jails are over: the last one removes the group.
func (cs *Cgroups) Join(name string, limits CgroupLimits) (*Cgroup, func(), error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return nil, nil, fmt.Errorf("bubblewrap: invalid cgroup name %q", name)
	}
	g := cs.group(name)
	groups.Lock()
	defer groups.Unlock()
	if groups.users[g.memory] == 0 {
		if err := cs.create(g, limits); err != nil {
			_ = cs.remove(g)
			return nil, nil, fmt.Errorf("bubblewrap: make the cgroup: %w", bare(err))
		}
	}
	groups.users[g.memory]++
	leave := sync.OnceFunc(func() {
		groups.Lock()
		defer groups.Unlock()
		if groups.users[g.memory]--; groups.users[g.memory] == 0 {
			delete(groups.users, g.memory)
			_ = cs.remove(g)
		}
	})
	return g, leave, nil
}

// Sweep removes every group of the scope that no jail of this process
// uses: what a server that stopped without leaving them left behind.
func (cs *Cgroups) Sweep() error {
	names, err := cs.Groups()
	if err != nil {
		return err
	}
	groups.Lock()
	defer groups.Unlock()
	var errs []error
	for _, name := range names {
		if g := cs.group(name); groups.users[g.memory] == 0 {
			errs = append(errs, cs.remove(g))
		}
	}
	return errors.Join(errs...)
}

// Groups lists the names of the scope's groups that exist.
func (cs *Cgroups) Groups() ([]string, error) {
	var names []string
	for _, dir := range cs.scopeDirs() {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() && !slices.Contains(names, e.Name()) {
				names = append(names, e.Name())
			}
		}
	}
	return names, nil
}

// scopeDirs are the scope's folders: memory's first.
func (cs *Cgroups) scopeDirs() []string {
	g := cs.group("")
	return g.folders()
}

// group is the group called name: its folder in each hierarchy.
func (cs *Cgroups) group(name string) *Cgroup {
	in := func(own string) string {
		if own == "" {
			return ""
		}
		return filepath.Join(own, cs.scope, name)
	}
	if own := cs.layout.unified; own != "" {
		return &Cgroup{memory: in(own), pids: in(own), cpu: in(cs.layout.cpu)}
	}
	return &Cgroup{memory: in(cs.layout.memory), pids: in(cs.layout.pids), cpu: in(cs.layout.cpu)}
}

// folders are the group's folders, each once: memory's first.
func (g *Cgroup) folders() []string {
	var out []string
	for _, dir := range []string{g.memory, g.pids, g.cpu} {
		if dir != "" && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	return out
}

// cpuPeriod is the period of a group's CPU quota, in microseconds: the
// kernel's default, in which a quota is refilled ten times a second.
const cpuPeriod = 100000

// cpuQuota is the quota of cpus CPUs in each cpuPeriod, in microseconds,
// no less than the kernel takes (1 ms); "max" for no bound.
func cpuQuota(cpus float64) string {
	if cpus <= 0 {
		return "max"
	}
	return strconv.FormatInt(max(int64(math.Round(cpus*cpuPeriod)), 1000), 10)
}

// create makes g's folders and sets its limits; groups must be locked.
func (cs *Cgroups) create(g *Cgroup, limits CgroupLimits) error {
	memory := "max"
	if limits.MemoryMB > 0 {
		memory = strconv.FormatInt(int64(limits.MemoryMB)<<20, 10)
	}
	pids := "max"
	if limits.MaxProcesses > 0 {
		pids = strconv.Itoa(limits.MaxProcesses)
	}
	quota := cpuQuota(limits.CPU)
	if own := cs.layout.unified; own != "" {
		controllers := cs.controllers()
		if err := delegate(own, controllers); err != nil {
			return err
		}
		scope := filepath.Join(own, cs.scope)
		if err := os.MkdirAll(scope, 0o755); err != nil {
			return err
		}
		if err := enableControllers(scope, controllers); err != nil {
			return err
		}
		if err := mkdirExisting(g.memory); err != nil {
			return err
		}
		// No swap: memory.max alone would let a group swap without end.
		files := map[string]string{"memory.max": memory, "memory.swap.max?": "0", "pids.max": pids}
		if g.cpu != "" {
			files["cpu.max"] = quota + " " + strconv.Itoa(cpuPeriod)
		}
		return writeFiles(g.memory, files)
	}
	for _, dir := range g.folders() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	// memsw (memory and swap, where the kernel accounts swap) may not be
	// set below memory's own limit: memory first.
	if err := writeFiles(g.memory, map[string]string{"memory.limit_in_bytes": limitV1(memory)}); err != nil {
		return err
	}
	if err := writeFiles(g.memory, map[string]string{"memory.memsw.limit_in_bytes?": limitV1(memory)}); err != nil {
		return err
	}
	if err := writeFiles(g.pids, map[string]string{"pids.max": pids}); err != nil {
		return err
	}
	if g.cpu == "" {
		return nil
	}
	// The period first: a quota is checked against it.
	if err := writeFiles(g.cpu, map[string]string{"cpu.cfs_period_us": strconv.Itoa(cpuPeriod)}); err != nil {
		return err
	}
	return writeFiles(g.cpu, map[string]string{"cpu.cfs_quota_us": limitV1(quota)})
}

// limitV1 writes "max" as cgroup v1 memory files take it.
func limitV1(v string) string {
	if v == "max" {
		return "-1"
	}
	return v
}

// controllers are the cgroup v2 controllers the groups use.
func (cs *Cgroups) controllers() string {
	if cs.layout.cpu != "" {
		return "+cpu +memory +pids"
	}
	return "+memory +pids"
}

// delegate makes the server's own cgroup v2 folder hand the controllers
// to its children, once. A folder that does so may hold no processes, so
// the server moves itself into a child of its own when its own holds it
// (as systemd asks of the services it delegates to).
func delegate(own, controllers string) error {
	if groups.delegated[own] {
		return nil
	}
	err := enableControllers(own, controllers)
	if errors.Is(err, unix.EBUSY) {
		leaf := filepath.Join(own, serverLeaf)
		if err := mkdirExisting(leaf); err != nil {
			return err
		}
		if err := writeOnce(filepath.Join(leaf, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
			return fmt.Errorf("move the server into %s: %w", leaf, err)
		}
		err = enableControllers(own, controllers)
	}
	if err != nil {
		return err
	}
	groups.delegated[own] = true
	return nil
}

func enableControllers(dir, controllers string) error {
	return writeOnce(filepath.Join(dir, "cgroup.subtree_control"), controllers)
}

// remove removes g's folders, ending whatever still runs in them, and the
// scope's folders once they are empty; groups must be locked.
func (cs *Cgroups) remove(g *Cgroup) error {
	var err error
	for _, dir := range g.folders() {
		err = errors.Join(err, removeGroupDir(dir))
	}
	for _, dir := range cs.scopeDirs() {
		_ = unix.Rmdir(dir) // fails while other groups are in it
	}
	return err
}

// addTree moves process pid (a jail's first process) and every process it
// started into the group: everything they start later is in it too. The
// tree must hold still meanwhile, as a jail at its gate does.
func (g *Cgroup) addTree(pid int) error {
	if g == nil {
		return nil
	}
	for _, p := range append([]int{pid}, descendants(pid)...) {
		for _, dir := range g.folders() {
			if err := writeOnce(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(p)); err != nil {
				return fmt.Errorf("put the jail in its cgroup: %w", err)
			}
		}
	}
	return nil
}

// descendants lists the processes pid started, and theirs, from /proc.
func descendants(pid int) []int {
	var out []int
	threads, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range threads {
		for _, field := range strings.Fields(readString(t)) {
			if child, err := strconv.Atoi(field); err == nil {
				out = append(out, child)
				out = append(out, descendants(child)...)
			}
		}
	}
	return out
}

// writeFiles writes each value to its file in dir; a name ending in "?"
// is skipped where the kernel does not have that file.
func writeFiles(dir string, values map[string]string) error {
	for name, value := range values {
		optional := strings.HasSuffix(name, "?")
		p := filepath.Join(dir, strings.TrimSuffix(name, "?"))
		err := writeOnce(p, value)
		if optional && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mkdirExisting makes dir, which may exist already.
func mkdirExisting(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// readString returns a file's text, "" when it cannot be read.
func readString(name string) string {
	data, _ := os.ReadFile(name)
	return string(data)
}

// bare drops the host path from a file error: errors reach people who
// should not learn where the server keeps its files.
func bare(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
