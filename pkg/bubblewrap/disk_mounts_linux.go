package bubblewrap

import (
	"os"
	"strconv"
	"strings"
)

// mount is one line of /proc/self/mountinfo.
type mount struct {
	root   string // the folder of its filesystem that is mounted
	point  string // where it is mounted
	fsType string
	// superOptions are the filesystem's own options: for a cgroup v1
	// hierarchy, the controllers it has.
	superOptions []string
}

// readMounts lists the mounts this process sees.
func readMounts() ([]mount, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return parseMounts(string(data)), nil
}

// parseMounts reads mountinfo lines: "id parent dev root point options
// [optional fields…] - type source super-options".
func parseMounts(mountinfo string) []mount {
	var out []mount
	for _, line := range strings.Split(mountinfo, "\n") {
		before, after, ok := strings.Cut(line, " - ")
		fields, tail := strings.Fields(before), strings.Fields(after)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		out = append(out, mount{
			root:         unescapeMount(fields[3]),
			point:        unescapeMount(fields[4]),
			fsType:       tail[0],
			superOptions: strings.Split(tail[2], ","),
		})
	}
	return out
}

// unescapeMount undoes the kernel's octal escapes of spaces, tabs,
// newlines and backslashes in mountinfo paths.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
