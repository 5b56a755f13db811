package proctest

import (
	"fmt"
	"regexp"
	"strconv"
)

// BusyLoops is a shell command that keeps n processes busy for two
// seconds, then says how much CPU time they took, as the kernel counted
// it: times' second line is that of the shell's children, the loops and
// theirs (CPUSeconds reads it).
func BusyLoops(n int) string {
	return fmt.Sprintf(`for i in $(seq %d); do timeout 2 sh -c 'while :; do :; done' & done; wait; times`, n)
}

// times are the user and system times times writes, such as 0m1.250000s.
var times = regexp.MustCompile(`(\d+)m([\d.]+)s`)

// CPUSeconds reads the CPU time, user and system, the loops of BusyLoops
// took from what it wrote.
func CPUSeconds(out string) (float64, error) {
	found := times.FindAllStringSubmatch(out, -1)
	if len(found) != 4 {
		return 0, fmt.Errorf("times reports the shell's and its children's user and system time, not %q", out)
	}
	total := 0.0
	for _, m := range found[2:] {
		minutes, _ := strconv.ParseFloat(m[1], 64)
		seconds, _ := strconv.ParseFloat(m[2], 64)
		total += 60*minutes + seconds
	}
	return total, nil
}
