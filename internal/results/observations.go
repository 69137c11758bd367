package results

import (
	"encoding/json"
	"strings"
)

// The observers' sections of a document, under extra.observations, each by its observer's name:
// typed here so that what reads a document (summaries, reports, the diagnosis) needs no
// observer to read them; internal/observe fills them. docs/result-format.md#observations
// defines them.

// Stacks is the server's on-CPU profile over the window (extra.observations.stacks): perf's
// samples of the server's processes on the software clock, folded. docs/diagnosis.md defines it.
type Stacks struct {
	Event   string  `json:"event"`
	Hz      int     `json:"hz"`
	PIDs    []int   `json:"pids"`
	Seconds float64 `json:"seconds"`
	Samples int64   `json:"samples"`
	// Kernel is the share of the samples (percent) taken in the kernel: their leaf frame is a
	// kernel function (KernelMark). nil in profiles stored before kernel frames were marked.
	Kernel *float64 `json:"kernel,omitempty"`
	// Functions are the top functions by self share, then any of the top by inclusive share.
	Functions []StackFunction `json:"functions"`
	// Folded are the commonest stacks, root first; CutStacks stacks of CutSamples samples were
	// left out to bound the document.
	Folded     []FoldedStack `json:"folded"`
	CutStacks  int           `json:"cut_stacks,omitempty"`
	CutSamples int64         `json:"cut_samples,omitempty"`
	Note       string        `json:"note,omitempty"`
	// Segments are the profiles of each live segment's settled part (StackSegment); absent for a
	// run without live changes.
	Segments []StackSegment `json:"segments,omitempty"`
}

// StackFunction is one function's share of the samples: Self as the leaf, Total anywhere on the
// stack (once per sample however often it recurs), in percent.
type StackFunction struct {
	Name  string  `json:"name"`
	Self  float64 `json:"self"`
	Total float64 `json:"total"`
}

// FoldedStack is one distinct stack, its frames root first joined by ";", and its samples.
type FoldedStack struct {
	Stack string `json:"stack"`
	Count int64  `json:"count"`
}

// Named reports whether perf found the function's name: an unnamed frame is its object in
// brackets ("[libc.so.6]", "[unknown]").
func (f StackFunction) Named() bool { return !strings.HasPrefix(f.Name, "[") }

// StacksSection is the on-CPU profile's section under extra.observations.
const StacksSection = "stacks"

// KernelMark ends the name of a kernel function's frame in the folded stacks, as flame graph
// tools mark them (stackcollapse-perf.pl --kernel): "finish_task_switch_[k]".
const KernelMark = "_[k]"

// KernelFrame reports whether a folded frame is the kernel's.
func KernelFrame(name string) bool { return strings.HasSuffix(name, KernelMark) }

// StacksOf reads a document's on-CPU profile; nil when the run has none.
func StacksOf(d *Document) *Stacks {
	obs, _ := d.Extra["observations"].(map[string]any)
	v, ok := obs[StacksSection]
	if !ok {
		return nil
	}
	if s, ok := v.(*Stacks); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var s Stacks
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// Running is the running threads over the run (extra.observations.running-threads): the
// server's threads running a statement and the host's run queue, sampled every IntervalMs
// (--running-sample), so that a surge shorter than a second shows in max and p99 where a mean
// hides it.
// docs/result-format.md#running-threads defines it.
type Running struct {
	IntervalMs int `json:"interval_ms"`
	// Source is what the server's figure counts; empty where the server has none (SQLite, or a
	// target without the query), and Max, P99 and Mean are then absent.
	Source string `json:"source,omitempty"`
	// Samples are the window's samples; Max, P99 and Mean the server's running threads over them.
	Samples int64    `json:"samples"`
	Max     *float64 `json:"max,omitempty"`
	P99     *float64 `json:"p99,omitempty"`
	Mean    *float64 `json:"mean,omitempty"`
	// Host is the host's run queue (the running count of /proc/loadavg, which is procs_running of
	// /proc/stat, the reading thread included) over the window's samples; absent where
	// /proc/loadavg cannot be read.
	Host *RunQueue `json:"host,omitempty"`
	// PerServer is each server's own running threads over the window, for a composite target on
	// several servers (a shard set): a surge on one server that their sum hides shows here.
	PerServer []ServerRunning `json:"per_server,omitempty"`
	// Series is every second of the run, at the engine's seconds.
	Series []RunningSecond `json:"series"`
	Notes  []string        `json:"notes,omitempty"`
}

// ServerRunning is one server's running threads over the window's samples.
type ServerRunning struct {
	Server string  `json:"server"` // host:port (host:port/db where the count is the database's)
	Max    float64 `json:"max"`
	P99    float64 `json:"p99"`
	Mean   float64 `json:"mean"`
}

// RunQueue is the host's runnable threads over the window's samples.
type RunQueue struct {
	Max  float64 `json:"max"`
	P99  float64 `json:"p99"`
	Mean float64 `json:"mean"`
}

// RunningOf reads a document's running threads; nil when the run has none.
func RunningOf(d *Document) *Running {
	obs, _ := d.Extra["observations"].(map[string]any)
	if r, ok := obs[RunningSection].(*Running); ok {
		return r
	}
	var r Running
	if !sectionOf(d, RunningSection, &r) {
		return nil
	}
	return &r
}

// Frequency is each core's effective frequency over the window (extra.observations.frequency),
// as turbostat reads it: from the APERF, MPERF and TSC counters where /dev/cpu/N/msr is
// readable (Avg_MHz over the window's wall time, Bzy_MHz over the time the core was not idle),
// else from /proc/cpuinfo's "cpu MHz", the mean of its readings at the window's start and end.
// docs/host.md#effective-frequency defines it.
type Frequency struct {
	// Source is "APERF/MPERF" or "/proc/cpuinfo".
	Source  string          `json:"source"`
	Seconds float64         `json:"seconds"`
	Cores   []CoreFrequency `json:"cores"`
	// AvgMHz and BzyMHz (APERF/MPERF) or MHz (/proc/cpuinfo) are the cores' mean.
	AvgMHz float64 `json:"avg_mhz,omitempty"`
	BzyMHz float64 `json:"bzy_mhz,omitempty"`
	MHz    float64 `json:"mhz,omitempty"`
	Note   string  `json:"note,omitempty"`
}

// CoreFrequency is one CPU's: Avg_MHz, Bzy_MHz and Busy% (of the TSC's time) from the counters,
// or MHz from /proc/cpuinfo.
type CoreFrequency struct {
	CPU    int     `json:"cpu"`
	AvgMHz float64 `json:"avg_mhz,omitempty"`
	BzyMHz float64 `json:"bzy_mhz,omitempty"`
	Busy   float64 `json:"busy_pct,omitempty"`
	MHz    float64 `json:"mhz,omitempty"`
}

// FrequencySection is the section's name under extra.observations.
const FrequencySection = "frequency"

// FrequencyOf reads a document's effective frequency; nil when the run has none.
func FrequencyOf(d *Document) *Frequency {
	var f Frequency
	if !sectionOf(d, FrequencySection, &f) {
		return nil
	}
	return &f
}

// sectionOf decodes an observer's section of a document into v: the observer's own value before
// the document is stored, a JSON object after.
func sectionOf(d *Document, name string, v any) bool {
	obs, _ := d.Extra["observations"].(map[string]any)
	s, ok := obs[name]
	if !ok {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && json.Unmarshal(b, v) == nil
}

// SetSection stores an observer's section under the document's extra.observations.
func SetSection(d *Document, name string, v any) {
	if d.Extra == nil {
		d.Extra = map[string]any{}
	}
	m, _ := d.Extra["observations"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		d.Extra["observations"] = m
	}
	m[name] = v
}
