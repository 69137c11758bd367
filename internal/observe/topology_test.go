package observe

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// twoSockets lays out a host of 2 packages × 2 cores × 2 SMT threads, one NUMA node per package:
// cpuN and cpuN+4 are siblings, CPUs 0, 1, 4, 5 are package and node 0.
func twoSockets(t *testing.T) {
	files := map[string]string{"devices/system/node/node0/cpulist": "0-1,4-5", "devices/system/node/node1/cpulist": "2-3,6-7"}
	for c := 0; c < 8; c++ {
		dir := "devices/system/cpu/cpu" + string(rune('0'+c)) + "/"
		core := c % 4
		files[dir+"topology/core_id"] = string(rune('0' + core%2))
		files[dir+"topology/physical_package_id"] = string(rune('0' + core/2))
		files[dir+"topology/thread_siblings_list"] = string(rune('0'+core)) + "," + string(rune('0'+core+4))
		files[dir+"power/energy_perf_bias"] = "6"
	}
	writeSys(t, files)
}

// A CPU list's cores, SMT siblings (held or left out), packages and NUMA nodes come from sysfs.
func TestTopology(t *testing.T) {
	twoSockets(t)
	for list, want := range map[string]results.CPUTopology{
		"0,4": {CPUs: "0,4", Cores: 1, Shared: 1, ThreadsPerCore: 2, Packages: []int{0}, Nodes: []int{0}},
		"0-1": {CPUs: "0-1", Cores: 2, ThreadsPerCore: 2, Siblings: "4-5", Packages: []int{0}, Nodes: []int{0}},
		"0,2": {CPUs: "0,2", Cores: 2, ThreadsPerCore: 2, Siblings: "4,6", Packages: []int{0, 1}, Nodes: []int{0, 1}},
		"0-7": {CPUs: "0-7", Cores: 4, Shared: 4, ThreadsPerCore: 2, Packages: []int{0, 1}, Nodes: []int{0, 1}},
	} {
		got := Topology(mustList(t, list))
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%s: %+v, want %+v", list, *got, want)
		}
	}
	if got := DescribeCPUs("0-1"); got != "0-1 (2 cores (2 threads per core), no SMT siblings, siblings 4-5 left out, package 0, node 0)" {
		t.Errorf("describe: %q", got)
	}
	if got := DescribeCPUs("0,4"); got != "0,4 (1 core (2 threads per core), SMT siblings on 1 core, package 0, node 0)" {
		t.Errorf("describe: %q", got)
	}
	if h := ReadHost(false); h.EPB != "6" || h.Unknown["energy_perf_bias"] != "" {
		t.Errorf("energy_perf_bias %q (%s)", h.EPB, h.Unknown["energy_perf_bias"])
	}
}

// Where sysfs has no topology, or no NUMA nodes, the result says so rather than guess.
func TestTopologyNotReadable(t *testing.T) {
	writeSys(t, map[string]string{"devices/system/cpu/online": "0-1"})
	got := Topology([]int{0, 1})
	if got.Cores != 0 || !strings.Contains(got.Note, "not readable on this host") || got.Text() != "topology not readable on this host" {
		t.Errorf("%+v %q", got, got.Text())
	}
	if h := ReadHost(false); h.EPB != "unknown" || !strings.Contains(h.Unknown["energy_perf_bias"], "not readable on this host") {
		t.Errorf("energy_perf_bias %q (%s)", h.EPB, h.Unknown["energy_perf_bias"])
	}
	writeSys(t, map[string]string{"devices/system/cpu/cpu0/topology/core_id": "0", "devices/system/cpu/cpu0/topology/physical_package_id": "0",
		"devices/system/cpu/cpu0/topology/thread_siblings_list": "0"})
	if got := Topology([]int{0}); got.Cores != 1 || !strings.Contains(got.Note, "NUMA nodes not readable") || !strings.HasSuffix(got.Text(), "NUMA node not readable") {
		t.Errorf("%+v %q", got, got.Text())
	}
}

// On this host, every CPU is on a core, and CPU 0 on a package.
func TestTopologyOfThisHost(t *testing.T) {
	cpus := onlineCPUs()
	if len(cpus) == 0 {
		t.Skip("no /sys/devices/system/cpu on this host")
	}
	got := Topology(cpus)
	if got.Cores < 1 || got.Cores > len(cpus) || len(got.Packages) == 0 || got.Siblings != "" {
		t.Errorf("%+v", got)
	}
}

// Avg_MHz, Bzy_MHz and Busy% are turbostat's arithmetic on the counters.
func TestEffectiveFrequency(t *testing.T) {
	a := map[int]counters{0: {tsc: 1e9, mperf: 1e8, aperf: 1e8}, 1: {tsc: 1e9, mperf: 0, aperf: 0}}
	// 2 s at a 2,000 MHz TSC: cpu0 busy half the time at 3,000 MHz, cpu1 idle throughout.
	b := map[int]counters{0: {tsc: 5e9, mperf: 1e8 + 2e9, aperf: 1e8 + 3e9}, 1: {tsc: 5e9}}
	got := effective([]int{0, 1, 2}, a, b, 2)
	want := []results.CoreFrequency{{CPU: 0, AvgMHz: 1500, BzyMHz: 3000, Busy: 50}, {CPU: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
}

// Where /dev/cpu/N/msr is not readable (this VM has no msr module), the cores' cpu MHz of
// /proc/cpuinfo at the window's edges is the figure, and a note says it is not the effective one.
// (A flat file cannot stand for the msr device, whose 8-byte registers 0xE7 and 0xE8 overlap.)
func TestFrequencyFromCPUInfo(t *testing.T) {
	writeSys(t, map[string]string{"devices/system/cpu/cpu0/online": "1", "devices/system/cpu/cpu1/online": "1"})
	info := filepath.Join(t.TempDir(), "cpuinfo")
	if err := os.WriteFile(info, []byte("processor\t: 0\ncpu MHz\t\t: 2000.000\n\nprocessor\t: 1\ncpu MHz\t\t: 3000.000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oldDev, oldInfo := devCPURoot, procCPUInfo
	devCPURoot, procCPUInfo = filepath.Join(t.TempDir(), "none"), info
	t.Cleanup(func() { devCPURoot, procCPUInfo = oldDev, oldInfo })
	o, err := startFrequency(context.Background(), &Env{})
	if err != nil || o == nil {
		t.Fatal(o, err)
	}
	if o.(*frequency).Section() != nil {
		t.Error("a section before the window")
	}
	o.Window(true)
	o.Window(false)
	f := o.(*frequency).Section().(*results.Frequency)
	if f.Source != "/proc/cpuinfo" || f.MHz != 2500 || len(f.Cores) != 2 || f.Cores[1].MHz != 3000 ||
		!strings.Contains(f.Note, "APERF/MPERF not readable on this host") {
		t.Errorf("from /proc/cpuinfo: %+v", f)
	}
	if err := os.WriteFile(info, []byte("processor\t: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, _ = startFrequency(context.Background(), &Env{})
	o.Window(true)
	o.Window(false)
	if f := o.(*frequency).Section().(*results.Frequency); len(f.Cores) != 0 || !strings.Contains(f.Note, "not readable on this host") {
		t.Errorf("no cpu MHz: %+v", f)
	}
}

// On this host the frequency is read from one source or the other, for every CPU.
func TestFrequencyOfThisHost(t *testing.T) {
	o, err := startFrequency(context.Background(), &Env{})
	if err != nil || o == nil {
		t.Skip("no CPUs in /sys on this host")
	}
	o.Window(true)
	o.Window(false)
	f := o.(*frequency).Section().(*results.Frequency)
	if len(f.Cores) != len(onlineCPUs()) || (f.MHz <= 0 && f.BzyMHz <= 0) {
		t.Errorf("%+v", f)
	}
}

func mustList(t *testing.T, s string) []int {
	t.Helper()
	l, err := textfmt.ParseCPUList(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The host's SMT control, its threads per core and POWER's default DSCR are read as the kernel
// writes them; where a file is missing, they are empty (0) rather than guessed.
func TestHostSMTAndDSCR(t *testing.T) {
	twoSockets(t)
	if got := HostThreadsPerCore(); got != 0 {
		t.Errorf("threads per core without the online list: %d", got)
	}
	if SMTControl() != "" || DSCRDefault() != "" {
		t.Errorf("SMT control %q, DSCR %q on a host without them", SMTControl(), DSCRDefault())
	}
	files := map[string]string{"devices/system/cpu/online": "0-7", "devices/system/cpu/smt/control": "4", "devices/system/cpu/dscr_default": "1",
		"devices/system/node/node0/cpulist": "0-1,4-5", "devices/system/node/node1/cpulist": "2-3,6-7"}
	for c := 0; c < 8; c++ {
		dir := "devices/system/cpu/cpu" + string(rune('0'+c)) + "/topology/"
		files[dir+"core_id"] = string(rune('0' + c%2))
		files[dir+"physical_package_id"] = string(rune('0' + c/4))
		files[dir+"thread_siblings_list"] = string(rune('0'+c/4*4)) + "-" + string(rune('0'+c/4*4+3))
	}
	writeSys(t, files)
	if got := HostThreadsPerCore(); got != 4 || SMTControl() != "4" || DSCRDefault() != "1" {
		t.Errorf("threads per core %d, SMT control %q, DSCR %q", got, SMTControl(), DSCRDefault())
	}
}
