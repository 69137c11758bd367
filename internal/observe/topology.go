package observe

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Topology is what a CPU list covers, read from sysfs: each CPU's core (core_id within its
// physical_package_id), its thread_siblings_list, and the NUMA node whose cpulist holds it.
// Cores is 0, with a note, where the topology is not readable on this host.
func Topology(cpus []int) *results.CPUTopology {
	t := &results.CPUTopology{CPUs: textfmt.FormatCPUList(cpus)}
	if len(cpus) == 0 {
		return t
	}
	nodeOf := map[int]int{}
	nodes, _ := filepath.Glob(filepath.Join(sysRoot, "devices/system/node/node[0-9]*"))
	for _, n := range nodes {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(n), "node"))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(n, "cpulist"))
		if err != nil {
			continue
		}
		l, err := textfmt.ParseCPUList(strings.TrimSpace(string(b)))
		if err != nil {
			continue
		}
		for _, c := range l {
			nodeOf[c] = id
		}
	}
	in := map[int]bool{}
	for _, c := range cpus {
		in[c] = true
	}
	perCore := map[string]int{}
	var left []int
	for _, c := range cpus {
		dir := "devices/system/cpu/cpu" + strconv.Itoa(c) + "/topology/"
		core, err1 := readSys(dir + "core_id")
		pkg, err2 := readSys(dir + "physical_package_id")
		sib, err3 := readSys(dir + "thread_siblings_list")
		if err1 != nil || err2 != nil || err3 != nil {
			t.Cores, t.Shared, t.ThreadsPerCore, t.Siblings, t.Packages, t.Nodes = 0, 0, 0, "", nil, nil
			t.Note = "the CPUs' topology is not readable on this host (no /sys/devices/system/cpu/cpu" + strconv.Itoa(c) + "/topology)"
			return t
		}
		perCore[pkg+"/"+core]++
		if p, err := strconv.Atoi(pkg); err == nil && !slices.Contains(t.Packages, p) {
			t.Packages = append(t.Packages, p)
		}
		if sl, err := textfmt.ParseCPUList(sib); err == nil {
			t.ThreadsPerCore = max(t.ThreadsPerCore, len(sl))
			for _, s := range sl {
				if !in[s] && !slices.Contains(left, s) {
					left = append(left, s)
				}
			}
		}
		if n, ok := nodeOf[c]; ok && !slices.Contains(t.Nodes, n) {
			t.Nodes = append(t.Nodes, n)
		}
	}
	t.Cores = len(perCore)
	for _, n := range perCore {
		if n > 1 {
			t.Shared++
		}
	}
	t.Siblings = textfmt.FormatCPUList(left)
	slices.Sort(t.Packages)
	slices.Sort(t.Nodes)
	if len(t.Nodes) == 0 {
		t.Note = "NUMA nodes not readable on this host (no /sys/devices/system/node)"
	}
	return t
}

// DescribeCPUs is a CPU list with what it covers, for a case label: "0-1 (2 cores, no SMT
// siblings, package 0, node 0)"; the list alone where it does not parse.
func DescribeCPUs(list string) string {
	cpus, err := textfmt.ParseCPUList(list)
	if err != nil {
		return list
	}
	return list + " (" + Topology(cpus).Text() + ")"
}

// SMTControl is what the kernel says of the host's SMT (/sys/devices/system/cpu/smt/control):
// "on", "off", "forceoff", "notsupported", "notimplemented", or on POWER a thread count; "" where
// the file is missing (a kernel before 4.19).
func SMTControl() string {
	v, _ := readSys("devices/system/cpu/smt/control")
	return v
}

// DSCRDefault is POWER's default Data Stream Control Register as the kernel holds it
// (/sys/devices/system/cpu/dscr_default); "" where there is none, as on every other architecture.
func DSCRDefault() string {
	v, _ := readSys("devices/system/cpu/dscr_default")
	return v
}

// HostThreadsPerCore is the most hardware threads a core of this host has online; 0 where the
// topology is not readable.
func HostThreadsPerCore() int {
	cpus, err := OnlineCPUs()
	if err != nil || len(cpus) == 0 {
		return 0
	}
	return Topology(cpus).ThreadsPerCore
}
