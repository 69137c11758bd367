package observe

import (
	"fmt"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
)

// findings are the host's facts read as advice: a warning distorts results outright (a
// powersave governor halved a published single-client PostgreSQL result); advice is worth
// knowing to read or compare them. The codes are stable; docs/host.md lists them.
func findings(h *results.Host) []results.Finding {
	var out []results.Finding
	add := func(tier, code, format string, a ...any) {
		out = append(out, results.Finding{Code: code, Tier: tier, Message: fmt.Sprintf(format, a...)})
	}
	has := func(summary, v string) bool {
		for _, part := range strings.Split(summary, ", ") {
			if part == v || strings.HasPrefix(part, v+" ×") {
				return true
			}
		}
		return false
	}
	if has(h.Governor, "powersave") && !strings.Contains(h.PState, "active") {
		add(results.Warning, "governor-powersave", "CPU governor %s: the CPUs run slow until busy for a while, which lowers and scatters light-load results; set performance (cpupower frequency-set -g performance)", h.Governor)
	} else if has(h.Governor, "powersave") || has(h.Governor, "ondemand") || has(h.Governor, "conservative") || has(h.Governor, "schedutil") {
		add(results.Advice, "governor-not-performance", "CPU governor %s: the frequency follows the load; performance holds it, for results that repeat", h.Governor)
	}
	if h.EPP != "unknown" && h.EPP != "" && h.EPP != "performance" {
		add(results.Advice, "epp-not-performance", "energy-performance preference %s: the CPU trades speed for power; performance favours speed", h.EPP)
	}
	if h.Turbo == "off" {
		add(results.Advice, "turbo-off", "turbo/boost is off: single-thread figures stay below what the CPU can reach; keep it the same across compared runs")
	}
	if h.Virtualized == "yes" {
		add(results.Advice, "virtualized", "virtualized (the CPU's hypervisor flag): a hypervisor schedules these CPUs, so steal time and other guests can move the figures; cpufreq and binding facts are the guest's view")
	}
	if h.THP == "always" {
		add(results.Advice, "thp-always", "transparent huge pages always on: their compaction stalls show as latency spikes; databases advise madvise or never")
	}
	switch h.Clocksource {
	case "hpet", "acpi_pm":
		add(results.Warning, "clocksource-slow", "clocksource %s: each clock reading is a slow device access, paid by every timed transaction (tsc is the fast one)", h.Clocksource)
	}
	if len(h.NUMA) > 1 {
		add(results.Advice, "numa", "%d NUMA nodes: where client and server run decides their memory latency; bind them (--client-cpus, --server-cpus) to compare runs", len(h.NUMA))
	}
	if p := h.Pause; p != nil && p.TSCTicks >= 100 {
		add(results.Advice, "pause-long", "PAUSE takes %.0f ns (%.0f TSC ticks), like Skylake-SP's: spin-wait settings tuned on CPUs with a short PAUSE (innodb_spin_wait_delay) spin longer here", p.NS, p.TSCTicks)
	}
	return out
}
