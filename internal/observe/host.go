// Package observe watches what a benchmark tool usually does not show: the host's facts that
// silently distort results (cairn host), per-core CPU every second, the server process's CPU, the
// server's wait events, and the CPU binding of client and server. Everything here reads; what it
// changes (affinity, instruments) is recorded first and restored (package undo).
package observe

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/results"
)

// sysRoot is where /sys is read from; tests point it at a copy.
var sysRoot = "/sys"

func readSys(path string) (string, error) {
	b, err := os.ReadFile(filepath.Join(sysRoot, path))
	return strings.TrimSpace(string(b)), err
}

// ReadHost reads the host's inventory and facts, measures PAUSE when pause is set (a few
// milliseconds), and derives the findings. It never fails: what it cannot read is "unknown",
// with the reason in Unknown.
func ReadHost(pause bool) *results.Host {
	h := &results.Host{Arch: runtime.GOARCH, Threads: runtime.NumCPU(), Unknown: map[string]string{}}
	unknown := func(field, why string) string {
		h.Unknown[field] = why
		return "unknown"
	}
	h.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
	}
	h.OS = runtime.GOOS
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				h.OS = strings.Trim(v, `"`)
			}
		}
	}
	fs, fsErr := procfs.NewDefaultFS()
	virt := false
	if fsErr == nil {
		if infos, err := fs.CPUInfo(); err == nil && len(infos) > 0 {
			h.CPUModel = infos[0].ModelName
			sockets, cores := map[string]bool{}, map[string]bool{}
			for _, ci := range infos {
				sockets[ci.PhysicalID] = true
				// SMT siblings share a core id within a package.
				cores[ci.PhysicalID+"/"+ci.CoreID] = true
			}
			h.Sockets, h.Cores = len(sockets), len(cores)
			if runtime.GOARCH == "amd64" || runtime.GOARCH == "386" {
				h.Virtualized = "no"
				for _, f := range infos[0].Flags {
					if f == "hypervisor" {
						h.Virtualized, virt = "yes", true
					}
				}
			}
		}
		if m, err := fs.Meminfo(); err == nil && m.MemTotal != nil {
			h.MemoryMiB = int64(*m.MemTotal / 1024)
		}
	}
	if h.Virtualized == "" {
		h.Virtualized = unknown("virtualized", "the CPU flags of /proc/cpuinfo carry no hypervisor flag on "+runtime.GOARCH)
	}
	noFreq := "no cpufreq in /sys (a virtual machine usually has none)"
	if virt {
		noFreq = "no cpufreq in /sys: virtualized, the hypervisor sets the frequency"
	}

	cpus := cpuDirs()
	if g := summarize(perCPU(cpus, "cpufreq/scaling_governor")); g != "" {
		h.Governor = g
	} else {
		h.Governor = unknown("cpu_governor", noFreq)
	}
	if d := summarize(perCPU(cpus, "cpufreq/scaling_driver")); d != "" {
		h.FreqDriver = d
	} else {
		h.FreqDriver = unknown("frequency_driver", noFreq)
	}
	if e := summarize(perCPU(cpus, "cpufreq/energy_performance_preference")); e != "" {
		h.EPP = e
	} else {
		h.EPP = unknown("energy_performance_preference", "not offered by this frequency driver, or no cpufreq")
	}
	if e := summarize(perCPU(cpus, "power/energy_perf_bias")); e != "" {
		h.EPB = e
	} else {
		h.EPB = unknown("energy_perf_bias", "not readable on this host (no power/energy_perf_bias in /sys: an Intel CPU's, shown by its kernel driver)")
	}
	switch {
	case fileHas("devices/system/cpu/intel_pstate/status"):
		s, _ := readSys("devices/system/cpu/intel_pstate/status")
		h.PState = "intel_pstate " + s
	case fileHas("devices/system/cpu/amd_pstate/status"):
		s, _ := readSys("devices/system/cpu/amd_pstate/status")
		h.PState = "amd-pstate " + s
	default:
		h.PState = "none" // neither intel_pstate nor amd-pstate drives the frequency
	}
	if v, err := readSys("devices/system/cpu/intel_pstate/no_turbo"); err == nil {
		h.Turbo = map[string]string{"0": "on", "1": "off"}[v]
	} else if v, err := readSys("devices/system/cpu/cpufreq/boost"); err == nil {
		h.Turbo = map[string]string{"1": "on", "0": "off"}[v]
	}
	if h.Turbo == "" {
		h.Turbo = unknown("turbo", "no intel_pstate/no_turbo or cpufreq/boost in /sys")
	}
	if v, err := readSys("devices/system/cpu/smt/control"); err == nil {
		h.SMT = v
	} else {
		h.SMT = unknown("smt", "no /sys/devices/system/cpu/smt/control (kernel before 4.19?)")
	}
	nodes, _ := filepath.Glob(filepath.Join(sysRoot, "devices/system/node/node[0-9]*"))
	for _, n := range nodes {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(n), "node"))
		if err != nil {
			continue
		}
		if l, err := os.ReadFile(filepath.Join(n, "cpulist")); err == nil {
			h.NUMA = append(h.NUMA, results.NUMANode{Node: id, CPUs: strings.TrimSpace(string(l))})
		}
	}
	sort.Slice(h.NUMA, func(i, j int) bool { return h.NUMA[i].Node < h.NUMA[j].Node })
	if len(h.NUMA) == 0 {
		h.Unknown["numa"] = "no /sys/devices/system/node (a kernel without NUMA)"
	}
	if v, err := readSys("devices/system/cpu/cpuidle/current_driver"); err == nil {
		h.IdleDriver = v
	} else {
		h.IdleDriver = unknown("cpuidle_driver", "no cpuidle in /sys")
	}
	if v, err := readSys("kernel/mm/transparent_hugepage/enabled"); err == nil {
		h.THP = bracketed(v)
	} else {
		h.THP = unknown("transparent_hugepages", "no /sys/kernel/mm/transparent_hugepage")
	}
	if v, err := readSys("kernel/mm/transparent_hugepage/defrag"); err == nil {
		h.THPDefrag = bracketed(v)
	} else {
		h.THPDefrag = unknown("transparent_hugepages_defrag", "no /sys/kernel/mm/transparent_hugepage")
	}
	if v, err := readSys("devices/system/clocksource/clocksource0/current_clocksource"); err == nil {
		h.Clocksource = v
	} else {
		h.Clocksource = unknown("clocksource", "no clocksource in /sys")
	}
	readSystem(h, unknown)
	if pause {
		h.Pause = MeasurePause()
	}
	if h.CPUModel == "" {
		h.CPUModel = unknown("cpu_model", "no model name in /proc/cpuinfo")
	}
	if len(h.Unknown) == 0 {
		h.Unknown = nil
	}
	h.Findings = findings(h)
	return h
}

// cpuDirs lists /sys/devices/system/cpu/cpuN.
func cpuDirs() []string {
	d, _ := filepath.Glob(filepath.Join(sysRoot, "devices/system/cpu/cpu[0-9]*"))
	return d
}

func perCPU(dirs []string, file string) []string {
	var out []string
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, file)); err == nil {
			out = append(out, strings.TrimSpace(string(b)))
		}
	}
	return out
}

func fileHas(path string) bool {
	_, err := os.Stat(filepath.Join(sysRoot, path))
	return err == nil
}

// summarize writes per-CPU values once when they agree, else each with its count, most common
// first: "powersave ×2, performance ×30".
func summarize(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	n := map[string]int{}
	for _, v := range vals {
		n[v]++
	}
	if len(n) == 1 {
		return vals[0]
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return n[keys[i]] > n[keys[j]] || n[keys[i]] == n[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, n[k])
	}
	return strings.Join(parts, ", ")
}

// bracketed picks the chosen value of a sysfs choice list: "always [madvise] never" is madvise.
func bracketed(s string) string {
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// MeasurePause times the spin-wait instruction: the median of 9 loops of 20,000 PAUSEs, in
// nanoseconds and TSC ticks per PAUSE. It takes a few milliseconds on one locked thread.
func MeasurePause() *results.Pause {
	if !havePause {
		return &results.Pause{NA: noPause}
	}
	const n, repeats = 20000, 9
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pauseTicks(1000) // warm up
	ns := make([]float64, repeats)
	ticks := make([]float64, repeats)
	for i := range ns {
		t0 := time.Now()
		tk := pauseTicks(n)
		ns[i] = float64(time.Since(t0).Nanoseconds()) / n
		ticks[i] = float64(tk) / n
	}
	return &results.Pause{NS: round(median(ns), 2), TSCTicks: round(median(ticks), 1), Repeats: repeats}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// hostFacts reads the host's facts before the run, shows its warnings, and fills the document's
// host section; it runs whether or not the run is observed.
type hostFacts struct {
	Base
	host *results.Host
}

func init() {
	Register(Kind{Name: "host", Order: 0, Start: func(_ context.Context, env *Env) (Observer, error) {
		h := ReadHost(true)
		if env.Calibrate {
			h.Calibration = Calibrate()
		}
		for _, f := range h.Warnings() {
			env.note(fmt.Sprintf("host %s %s: %s", f.Tier, f.Code, f.Message))
		}
		return hostFacts{host: h}, nil
	}})
}

func (o hostFacts) Fill(d *results.Document) { d.Host = o.host }
