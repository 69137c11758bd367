package observe

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// writeSys lays out the sysfs files a host of the given facts has, under a temporary root.
func writeSys(t *testing.T, files map[string]string) {
	t.Helper()
	root := t.TempDir()
	for p, v := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := sysRoot
	sysRoot = root
	t.Cleanup(func() { sysRoot = old })
}

// The facts are read from sysfs as the kernel writes them, and each finding comes from its fact.
func TestHostFactsAndFindings(t *testing.T) {
	writeSys(t, map[string]string{
		"devices/system/cpu/cpu0/cpufreq/scaling_governor":              "powersave",
		"devices/system/cpu/cpu1/cpufreq/scaling_governor":              "performance",
		"devices/system/cpu/cpu0/cpufreq/scaling_driver":                "acpi-cpufreq",
		"devices/system/cpu/cpu1/cpufreq/scaling_driver":                "acpi-cpufreq",
		"devices/system/cpu/cpufreq/boost":                              "0",
		"devices/system/cpu/smt/control":                                "on",
		"devices/system/node/node0/cpulist":                             "0",
		"devices/system/node/node1/cpulist":                             "1",
		"devices/system/cpu/cpuidle/current_driver":                     "intel_idle",
		"kernel/mm/transparent_hugepage/enabled":                        "[always] madvise never",
		"kernel/mm/transparent_hugepage/defrag":                         "always defer [madvise] never",
		"devices/system/clocksource/clocksource0/current_clocksource":   "hpet",
		"devices/system/cpu/cpu0/cpufreq/energy_performance_preference": "balance_power",
		"devices/system/cpu/cpu1/cpufreq/energy_performance_preference": "balance_power",
		"devices/system/cpu/online":                                     "0-1",
	})
	h := ReadHost(false)
	for field, want := range map[string]string{"governor": "performance ×1, powersave ×1", "driver": "acpi-cpufreq",
		"turbo": "off", "smt": "on", "thp": "always", "defrag": "madvise", "clock": "hpet", "idle": "intel_idle",
		"epp": "balance_power", "pstate": "none"} {
		got := map[string]string{"governor": h.Governor, "driver": h.FreqDriver, "turbo": h.Turbo, "smt": h.SMT, "thp": h.THP,
			"defrag": h.THPDefrag, "clock": h.Clocksource, "idle": h.IdleDriver, "epp": h.EPP, "pstate": h.PState}[field]
		if got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	if len(h.NUMA) != 2 || h.NUMA[1].CPUs != "1" {
		t.Errorf("NUMA %v", h.NUMA)
	}
	codes := map[string]string{}
	for _, f := range h.Findings {
		codes[f.Code] = f.Tier
		if f.Message == "" || strings.Contains(f.Message, "\n") {
			t.Errorf("finding %s: message %q is not one line", f.Code, f.Message)
		}
	}
	for code, tier := range map[string]string{"governor-powersave": "warning", "turbo-off": "advice", "thp-always": "advice",
		"clocksource-slow": "warning", "numa": "advice", "epp-not-performance": "advice"} {
		if codes[code] != tier {
			t.Errorf("finding %s: tier %q, want %q (findings %v)", code, codes[code], tier, codes)
		}
	}
	if len(h.Warnings()) != 2 {
		t.Errorf("warnings %v", h.Warnings())
	}
}

// A host without cpufreq (a virtual machine) has its frequency facts unknown, each with the
// reason, and no finding about them.
func TestUnknownFacts(t *testing.T) {
	writeSys(t, map[string]string{"devices/system/cpu/online": "0"})
	h := ReadHost(false)
	for field, val := range map[string]string{"cpu_governor": h.Governor, "frequency_driver": h.FreqDriver, "turbo": h.Turbo,
		"energy_performance_preference": h.EPP, "smt": h.SMT, "cpuidle_driver": h.IdleDriver,
		"transparent_hugepages": h.THP, "clocksource": h.Clocksource} {
		if val != "unknown" || h.Unknown[field] == "" {
			t.Errorf("%s = %q, reason %q", field, val, h.Unknown[field])
		}
	}
	if h.Unknown["numa"] == "" {
		t.Error("no reason for the missing NUMA nodes")
	}
	for _, f := range h.Findings {
		if strings.HasPrefix(f.Code, "governor") || f.Code == "turbo-off" {
			t.Errorf("finding %s from an unknown fact", f.Code)
		}
	}
}

func TestPause(t *testing.T) {
	p := MeasurePause()
	if runtime.GOARCH != "amd64" {
		if p.NA == "" {
			t.Errorf("PAUSE on %s: %+v, want n/a with a reason", runtime.GOARCH, p)
		}
		return
	}
	// Between 1 ns and a microsecond on any x86 that runs this; TSC ticks likewise.
	if p.NA != "" || p.NS < 0.5 || p.NS > 1000 || p.TSCTicks < 1 || p.TSCTicks > 5000 || p.Repeats != 9 {
		t.Errorf("PAUSE measured as %+v", p)
	}
}

func TestCPUSampler(t *testing.T) {
	s := NewCPUSampler()
	if s == nil {
		t.Skip("no /proc/stat")
	}
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) { // keep a CPU busy
	}
	host, cores := s.Sample()
	if host == nil || len(cores) != runtime.NumCPU() {
		t.Fatalf("host %v, %d cores for %d CPUs", host, len(cores), runtime.NumCPU())
	}
	for i, c := range append(cores, *host) {
		sum := 0.0
		for _, v := range c {
			if v < 0 || v > 100 {
				t.Errorf("share %d: %v", i, c)
			}
			sum += v
		}
		if sum != 0 && (sum < 99 || sum > 101) {
			t.Errorf("share %d sums to %.1f: %v", i, sum, c)
		}
	}
	if host.Busy() <= 0 {
		t.Errorf("a busy loop left the host idle: %v", host)
	}
}
