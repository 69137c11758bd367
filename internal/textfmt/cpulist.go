package textfmt

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ParseCPUList reads a CPU list in the kernel's format (cpuset(7): "0-3,8,10-11"), as
// /sys/devices/system/node/node0/cpulist, taskset -c and numactl write it, into sorted, distinct
// CPU numbers. (No library cairn uses exports the kernel's parser; this is it, tested.)
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty CPU list: give CPUs like 0-3,8")
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%q is not a CPU list: give CPUs like 0-3,8", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a CPU list: %q is not a range low-high", s, part)
			}
		}
		if b-a > 1<<16 {
			return nil, fmt.Errorf("%q is not a CPU list: %q is too wide", s, part)
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	out := make([]int, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Ints(out)
	return out, nil
}

// FormatCPUList writes CPUs in the kernel's format, ranges joined: [0 1 2 3 8] is "0-3,8".
func FormatCPUList(cpus []int) string {
	c := append([]int(nil), cpus...)
	sort.Ints(c)
	var parts []string
	for i := 0; i < len(c); {
		j := i
		for j+1 < len(c) && c[j+1] == c[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", c[i], c[j]))
		} else {
			parts = append(parts, strconv.Itoa(c[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
