package results

import (
	"fmt"
	"strings"
)

// Host is what cairn found of the machine it ran on (internal/observe reads it): the inventory,
// and the facts that silently distort results, each "unknown" with the reason in Unknown when it
// could not be read (a virtual machine has no cpufreq, a container may hide /sys).
type Host struct {
	Hostname  string `json:"hostname"`
	OS        string `json:"os"`
	Kernel    string `json:"kernel"`
	Arch      string `json:"arch"`
	CPUModel  string `json:"cpu_model"`
	Sockets   int    `json:"sockets,omitempty"`
	Cores     int    `json:"cores,omitempty"` // physical cores
	Threads   int    `json:"threads"`         // logical CPUs
	MemoryMiB int64  `json:"memory_mib,omitempty"`
	// Governor is the cpufreq governor summarized over the CPUs: "performance", or
	// "powersave ×2, performance ×30" when they differ.
	Governor string `json:"cpu_governor,omitempty"`

	// The facts below came with cairn host; documents stored before lack them.
	SMT         string     `json:"smt,omitempty"` // on, off, forceoff, notsupported, notimplemented
	NUMA        []NUMANode `json:"numa,omitempty"`
	FreqDriver  string     `json:"frequency_driver,omitempty"`              // scaling_driver, summarized
	PState      string     `json:"pstate,omitempty"`                        // intel_pstate or amd_pstate mode
	EPP         string     `json:"energy_performance_preference,omitempty"` // summarized
	EPB         string     `json:"energy_perf_bias,omitempty"`              // 0 (performance) … 15 (power saving), summarized
	Turbo       string     `json:"turbo,omitempty"`                         // on, off
	IdleDriver  string     `json:"cpuidle_driver,omitempty"`
	THP         string     `json:"transparent_hugepages,omitempty"` // always, madvise, never
	THPDefrag   string     `json:"transparent_hugepages_defrag,omitempty"`
	Clocksource string     `json:"clocksource,omitempty"`
	Virtualized string     `json:"virtualized,omitempty"` // yes (the CPU's hypervisor flag), no
	Pause       *Pause     `json:"pause,omitempty"`
	// Calibration is the host's measured speed, when asked for (cairn host --calibrate, a
	// run's --calibrate).
	Calibration *Calibration `json:"calibration,omitempty"`
	// The system described (docs/host.md#the-system): storage devices, network interfaces,
	// memory speed and the platform, as /sys and DMI say; absent in documents stored before.
	Storage  []HostDisk `json:"storage,omitempty"`
	Network  []HostNIC  `json:"network,omitempty"`
	Memory   *HostDIMMs `json:"memory,omitempty"`
	Platform *Platform  `json:"platform,omitempty"`
	// Unknown says why a fact reads "unknown", by its JSON name.
	Unknown  map[string]string `json:"unknown,omitempty"`
	Findings []Finding         `json:"findings,omitempty"`
}

// HostDisk is one whole block device of /sys/block (a device of size 0, an unattached loop
// device, is left out).
type HostDisk struct {
	Name      string `json:"name"`
	Model     string `json:"model,omitempty"` // device/model, or device/vendor where no model
	SizeBytes uint64 `json:"size_bytes"`
	// Rotational is what the kernel says (queue/rotational): a virtual disk says 1 whatever lies
	// under it.
	Rotational bool   `json:"rotational"`
	Scheduler  string `json:"scheduler,omitempty"` // the chosen one of queue/scheduler
}

// HostNIC is one network interface of /sys/class/net, the loopback left out.
type HostNIC struct {
	Name   string `json:"name"`
	Driver string `json:"driver,omitempty"` // device/driver's name; absent for a virtual one (a bridge, ifb)
	// SpeedMbps is the link's speed; absent where the driver reports none (virtio, a link down).
	SpeedMbps int64  `json:"speed_mbps,omitempty"`
	MTU       int64  `json:"mtu"`
	State     string `json:"state,omitempty"` // operstate
}

// HostDIMMs is the memory modules DMI lists (SMBIOS type 17, those with a size): their count
// and each distinct speed, rated and configured, in MT/s.
type HostDIMMs struct {
	Modules       int    `json:"modules"`
	SpeedMTs      []int  `json:"speed_mts,omitempty"`
	ConfiguredMTs []int  `json:"configured_speed_mts,omitempty"`
	Source        string `json:"source"`
}

// Platform is what DMI says of the machine: its vendor and product, and where they name a
// cloud, the provider and the instance type where DMI holds it (Amazon EC2's product name).
type Platform struct {
	Vendor       string `json:"vendor,omitempty"`
	Product      string `json:"product,omitempty"`
	Cloud        string `json:"cloud,omitempty"`
	InstanceType string `json:"instance_type,omitempty"`
}

// NUMANode is one NUMA node and its CPUs ("0-15,32-47").
type NUMANode struct {
	Node int    `json:"node"`
	CPUs string `json:"cpus"`
}

// Pause is the measured latency of the spin-wait instruction (PAUSE on amd64): the median over
// Repeats timed loops, in nanoseconds and in TSC ticks (not core cycles: the TSC ticks at a fixed
// rate whatever the core's frequency). NA says why it was not measured.
type Pause struct {
	NS       float64 `json:"ns,omitempty"`
	TSCTicks float64 `json:"tsc_ticks,omitempty"`
	Repeats  int     `json:"repeats,omitempty"`
	NA       string  `json:"na,omitempty"`
}

// Finding is one thing about the host that distorts results or is worth knowing before reading
// them: Tier is "warning" or "advice", Code is stable (governor-powersave, turbo-off, …).
type Finding struct {
	Code    string `json:"code"`
	Tier    string `json:"tier"`
	Message string `json:"message"`
}

// Finding tiers.
const (
	Warning = "warning"
	Advice  = "advice"
)

// Warnings returns the findings of tier warning.
func (h *Host) Warnings() []Finding {
	var out []Finding
	if h == nil {
		return nil
	}
	for _, f := range h.Findings {
		if f.Tier == Warning {
			out = append(out, f)
		}
	}
	return out
}

// Server is the database server's process as cairn found it, and its CPU over the window.
type Server struct {
	// Where is "local" (on this host), "remote", or "embedded" (SQLite, inside cairn).
	Where   string `json:"where"`
	PID     int    `json:"pid,omitempty"`
	Process string `json:"process,omitempty"`
	FoundBy string `json:"found_by,omitempty"`
	// Note says why there is no CPU figure: remote, or the process could not be seen.
	Note        string  `json:"note,omitempty"`
	CPUSeconds  float64 `json:"cpu_seconds,omitempty"`
	CPUusPerTxn float64 `json:"cpu_us_per_txn,omitempty"`
	// Members are the servers of a composite target (a set of shards), each once; CPUSeconds is
	// then their sum.
	Members []Server `json:"members,omitempty"`
}

// Binding is the CPUs client and server were bound to (--client-cpus, --server-cpus); empty is
// not bound.
type Binding struct {
	ClientCPUs string `json:"client_cpus,omitempty"`
	ServerCPUs string `json:"server_cpus,omitempty"`
	// ClientTopology and ServerTopology are what each list covers: cores, SMT siblings, NUMA nodes.
	ClientTopology *CPUTopology `json:"client_topology,omitempty"`
	ServerTopology *CPUTopology `json:"server_topology,omitempty"`
}

// Waits is what the server's sessions waited on over the window (docs/waits.md).
type Waits struct {
	Source string `json:"source"`
	// Sampled: events are samples of the active sessions every IntervalMs, and Share is each
	// event's part of them ("CPU": active, not waiting). Otherwise events are the counts and
	// times the server accumulated over the window, and Share is each event's part of the timed
	// waits' total time.
	Sampled    bool           `json:"sampled"`
	IntervalMs int            `json:"interval_ms,omitempty"`
	Samples    int64          `json:"samples,omitempty"`
	Notes      []string       `json:"notes,omitempty"`
	Events     []WaitEvent    `json:"events"`
	Intervals  []WaitInterval `json:"intervals,omitempty"`
	// Groups are the window's waits by group (synch, io, lock, other) over all events, and Synch
	// the synch events alone, each with its share of the synch waits (docs/waits.md#groups).
	Groups []WaitGroupShare `json:"groups,omitempty"`
	Synch  []WaitEvent      `json:"synch,omitempty"`
	// PerServer is each server's own top events over the window (shares of its own waits), for a
	// shard set on several servers, whose Events are their sum.
	PerServer []ServerWaits `json:"per_server,omitempty"`
	// Segments are the waits of each live segment's settled part, read at its edges
	// (WaitSegment); absent for a run without live changes.
	Segments []WaitSegment `json:"segments,omitempty"`
	// History is the session history: what every sampled session of the target waited on, per
	// second of the run (docs/waits.md#session-history); absent where no session was sampled.
	History *SessionHistory `json:"history,omitempty"`
}

// SessionHistory is the sessions of the target counted per wait class (and event) in each
// second's samples.
type SessionHistory struct {
	Source     string `json:"source"`
	IntervalMs int    `json:"interval_ms"`
	// Classes are the wait classes seen, most samples first; Events each event's class.
	Classes []string          `json:"classes"`
	Events  map[string]string `json:"events"`
	Seconds []HistorySecond   `json:"seconds"`
}

// HistorySecond is one second of the session history: Reads samples taken, in which Classes[c]
// sessions in all were seen waiting in class c (and Events[e] on event e); Classes[c] / Reads is
// the average number of sessions in class c over the second.
type HistorySecond struct {
	T       float64          `json:"t"`
	Reads   int              `json:"reads"`
	Classes map[string]int64 `json:"classes"`
	Events  map[string]int64 `json:"events"`
}

// ServerWaits is one server's top wait events (host:port, or host:port/db where the server
// reports one database's waits).
type ServerWaits struct {
	Server  string      `json:"server"`
	Samples int64       `json:"samples,omitempty"`
	Events  []WaitEvent `json:"events"`
}

// WaitEvent is one event's samples, or its count and time, and its share.
type WaitEvent struct {
	Name    string  `json:"name"`
	Class   string  `json:"class"`
	Samples int64   `json:"samples,omitempty"`
	Count   int64   `json:"count,omitempty"`
	TimeMs  float64 `json:"time_ms,omitempty"`
	Share   float64 `json:"share"`
}

// WaitInterval is the top events of one progress interval, ending T seconds into the run.
type WaitInterval struct {
	T   float64     `json:"t"`
	Top []WaitEvent `json:"top"`
}

// Top names the first n events with their shares: "Lock:tuple 62%, CPU 30%".
func (w *Waits) Top(n int) string {
	if w == nil {
		return ""
	}
	return TopWaits(w.Events, n)
}

// TopWaits names the first n events with their shares (or counts, for untimed ones).
func TopWaits(evs []WaitEvent, n int) string {
	var parts []string
	for _, e := range evs {
		if len(parts) == n {
			break
		}
		if e.Share >= 0.1 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", e.Name, 100*e.Share))
		} else if e.Share > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f%%", e.Name, 100*e.Share))
		} else if e.Count > 0 {
			parts = append(parts, fmt.Sprintf("%s ×%d", e.Name, e.Count))
		}
	}
	return strings.Join(parts, ", ")
}

// Calibration is the host's speed on a fixed kernel of work (docs/host.md#calibration): units
// of the kernel per second of the measuring thread's own CPU time, the median of Repeats timed
// repetitions, on one thread (SingleCore) and on one thread per CPU at once (AllCore: the sum
// of the threads' medians; AllCoreWall: all the units over the wall time they took, which a
// neighbour's load lowers). NA says why it was not measured.
type Calibration struct {
	Kernel    string `json:"kernel"`
	UnitSteps int    `json:"unit_steps"`
	Repeats   int    `json:"repeats"`
	Rounds    int    `json:"rounds"`
	Threads   int    `json:"threads"`
	// SingleCore is units per CPU-second of one thread; SingleSpreadPct the range of its rounds'
	// figures as a percentage of their median (AllSpreadPct AllCore's).
	SingleCore      float64 `json:"single_core_units_per_cpu_s,omitempty"`
	SingleSpreadPct float64 `json:"single_core_spread_pct"`
	AllCore         float64 `json:"all_core_units_per_cpu_s,omitempty"`
	AllSpreadPct    float64 `json:"all_core_spread_pct"`
	AllCoreWall     float64 `json:"all_core_units_per_s,omitempty"`
	NA              string  `json:"na,omitempty"`
}
