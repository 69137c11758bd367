// Package diagnosis reads a result document as a DBA would: the one line that says where a run
// stands and why (docs/diagnosis.md gives the rules), and how the server's functions shifted
// between results. It reads only the document's sections (internal/results), never an observer,
// so the summaries, the report and results compare share one rule.
package diagnosis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Thresholds of the diagnosis (docs/diagnosis.md): the resource that ran out is the first whose
// share of the window reaches its threshold, in this order.
const (
	DiagServerCPU = 90.0 // the server's CPU seconds over its CPUs' seconds, percent
	DiagCore      = 95.0 // the busiest of the server's cores, percent busy
	DiagIOWait    = 20.0 // the host's iowait, percent of its CPU time
	DiagHostCPU   = 90.0 // the host's CPUs, percent busy
)

// Diagnosis is the one line that says, from what was measured, where a run stands and why:
// its VUs against the profile's knee (m: the marks of the profile it is a step of; nil for a
// run alone), the resource that ran out, the top synch wait, the top server function and the
// surge of running threads. What was not measured is said so. docs/diagnosis.md gives the rules.
func Diagnosis(d *results.Document, m *results.Marks) string {
	parts := []string{diagResource(d), diagSynch(d), diagFunction(d), diagRunning(d)}
	return "diagnosis: " + diagHead(d.VU, m) + " — " + strings.Join(parts, ", ")
}

// diagHead places the VU count against the profile's marks.
func diagHead(vu int, m *results.Marks) string {
	h := textfmt.Plural(vu, "VU")
	if m == nil {
		return h
	}
	var at []string
	switch {
	case m.Saturation > 0 && vu > m.Saturation:
		at = append(at, "saturated")
	case m.Saturation > 0 && vu == m.Saturation:
		at = append(at, "at the knee")
	case m.Saturation > 0:
		at = append(at, "below the knee")
	}
	if vu == m.Peak {
		at = append(at, "peak")
	}
	if len(at) == 0 {
		return h
	}
	return h + " " + strings.Join(at, ", ")
}

// serverCPUs are the CPUs the server could run on: its binding's, else the host's.
func serverCPUs(d *results.Document) []int {
	if d.Binding != nil && d.Binding.ServerCPUs != "" {
		if l, err := textfmt.ParseCPUList(d.Binding.ServerCPUs); err == nil {
			return l
		}
	}
	n := 0
	if d.Host != nil {
		n = d.Host.Threads
	}
	if n == 0 {
		_, cores, _ := d.WindowCPU()
		n = len(cores)
	}
	l := make([]int, n)
	for i := range l {
		l[i] = i
	}
	return l
}

func diagResource(d *results.Document) string {
	cpus := serverCPUs(d)
	host, cores, hostOK := d.WindowCPU()
	server, serverOK := 0.0, false
	if s := d.Server; s != nil && s.CPUSeconds > 0 && d.Window.Seconds > 0 && len(cpus) > 0 {
		server, serverOK = 100*s.CPUSeconds/d.Window.Seconds/float64(len(cpus)), true
	}
	busiest, core := -1, 0.0
	for _, c := range cpus {
		if c < len(cores) && (busiest < 0 || cores[c].Busy() > core) {
			busiest, core = c, cores[c].Busy()
		}
	}
	serverText := "server CPU not measured"
	if serverOK {
		serverText = fmt.Sprintf("server %.0f%% of %s", server, textfmt.Plural(len(cpus), "CPU"))
	}
	coreText := fmt.Sprintf("cpu%d %.1f%%", busiest, core)
	switch {
	case !serverOK && !hostOK:
		return "resources not measured"
	case serverOK && server >= DiagServerCPU:
		if busiest >= 0 {
			return fmt.Sprintf("server CPU ran out: %s (%s)", serverText, coreText)
		}
		return "server CPU ran out: " + serverText
	case busiest >= 0 && core >= DiagCore:
		return fmt.Sprintf("a core ran out: %s (%s)", coreText, serverText)
	case hostOK && host[2] >= DiagIOWait:
		return fmt.Sprintf("I/O wait %.0f%% of the host's CPU time (%s)", host[2], serverText)
	case hostOK && host.Busy() >= DiagHostCPU:
		return fmt.Sprintf("host CPU ran out: %.0f%% busy (%s)", host.Busy(), serverText)
	}
	out := "no resource ran out: " + serverText
	if busiest >= 0 {
		out += ", busiest " + coreText
	}
	if hostOK {
		out += fmt.Sprintf(", iowait %.0f%%", host[2])
	}
	return out
}

// diagSynch names the top synch wait and its share of the synch waits alone
// (results.Waits.SynchAlone: by time, or samples where sampled); a synch wait the server only
// counts is named with its count.
func diagSynch(d *results.Document) string {
	w := d.Waits
	if w == nil {
		return "synch waits not measured"
	}
	return synchText(w.SynchAlone(), w.Sampled)
}

// synchText is diagSynch's words for a ranked list of synch waits (a run's, a segment's).
func synchText(synch []results.WaitEvent, sampled bool) string {
	if len(synch) == 0 || synch[0].Share == 0 && synch[0].Count == 0 {
		if sampled {
			return "no synch waits sampled"
		}
		return "no synch waits (instruments off? --waits instrument)"
	}
	top := synch[0]
	name := results.SynchName(top.Name)
	if top.Share == 0 {
		return fmt.Sprintf("top synch wait %s ×%d (untimed)", name, top.Count)
	}
	return fmt.Sprintf("top synch wait %s %.0f%%", name, 100*top.Share)
}

// diagFunction names the server's own function with the largest self share of the on-CPU
// samples, by SelfShares' rule (no kernel function), beside the share of the samples perf could
// not name and the kernel's (Attribution).
func diagFunction(d *results.Document) string {
	if results.StacksOf(d) == nil {
		return "top function not measured (--observe stacks)"
	}
	shares, ok := SelfShares([]*results.Document{d})
	if !ok {
		return "top function not measured"
	}
	return Attribute(shares).Text()
}

// Attribution is where a profile's on-CPU samples went, by SelfShares' rule: the top named
// function, the samples perf could not name (their objects, "[mariadbd]", largest first) and the
// kernel's.
type Attribution struct {
	Top      string  // the server's named function with the largest self share; "" if none
	TopShare float64 // percent
	// Unnamed are the unnamed objects' self shares (percent), largest first; UnnamedShare is
	// their sum.
	Unnamed      []FunctionShift // Name and Other (the share); Base unused
	UnnamedShare float64
	Kernel       float64 // percent; KernelKnown false where the profile does not mark kernel frames
	KernelKnown  bool
}

// Attribute reads self shares (SelfShares, StackShares) into an Attribution.
func Attribute(shares map[string]float64) Attribution {
	var a Attribution
	for name, v := range shares {
		switch {
		case name == KernelName:
			a.Kernel, a.KernelKnown = v, true
		case (results.StackFunction{Name: name}).Named():
			if v > a.TopShare || v == a.TopShare && v > 0 && name < a.Top {
				a.Top, a.TopShare = name, v
			}
		case v > 0:
			a.Unnamed = append(a.Unnamed, FunctionShift{Name: name, Other: v})
			a.UnnamedShare += v
		}
	}
	sort.Slice(a.Unnamed, func(i, j int) bool {
		if a.Unnamed[i].Other != a.Unnamed[j].Other {
			return a.Unnamed[i].Other > a.Unnamed[j].Other
		}
		return a.Unnamed[i].Name < a.Unnamed[j].Name
	})
	return a
}

// unnamedTop is the largest unnamed object's share, 0 when none.
func (a Attribution) unnamedTop() float64 {
	if len(a.Unnamed) == 0 {
		return 0
	}
	return a.Unnamed[0].Other
}

// Text says where the samples went in one clause: the top function with the unnamed and kernel
// shares beside it; or, where an unnamed object or the kernel holds more samples than any named
// function, that one first, and never a function called "top" that is not. An unnamed object
// that outweighs the named functions comes with how to get its names (SymbolsHint).
func (a Attribution) Text() string { return a.text(true) }

// Brief is Text without how to get names, for lists that say it once (Hint).
func (a Attribution) Brief() string { return a.text(false) }

// Hint is how to name the unnamed object that outweighs every named function; "" when none does.
func (a Attribution) Hint() string {
	if a.unnamedTop() > a.TopShare && !(a.KernelKnown && a.Kernel >= a.unnamedTop()) {
		return SymbolsHint(a.Unnamed[0].Name)
	}
	return ""
}

func (a Attribution) text(hint bool) string {
	kernel := ""
	if a.KernelKnown {
		kernel = fmt.Sprintf("kernel %.0f%%", a.Kernel)
	}
	unnamed := ""
	switch {
	case len(a.Unnamed) == 1:
		unnamed = fmt.Sprintf("unnamed %s %.0f%%", a.Unnamed[0].Name, a.Unnamed[0].Other)
	case len(a.Unnamed) > 1:
		unnamed = fmt.Sprintf("unnamed %.0f%%, most in %s %.0f%%", a.UnnamedShare, a.Unnamed[0].Name, a.Unnamed[0].Other)
	}
	named := "no function named"
	if a.Top != "" {
		named = fmt.Sprintf("largest named function %s %.0f%%", a.Top, a.TopShare)
	}
	switch {
	case a.Top == "" && a.UnnamedShare == 0 && !a.KernelKnown:
		return "no top function named"
	case a.KernelKnown && a.Kernel > a.TopShare && a.Kernel >= a.unnamedTop():
		return "kernel " + fmt.Sprintf("%.0f%%", a.Kernel) + " of the on-CPU samples, more than any server function: " + join(named, unnamed)
	case a.unnamedTop() > a.TopShare:
		u := a.Unnamed[0]
		h := ""
		if hint {
			h = " (" + SymbolsHint(u.Name) + ")"
		}
		return fmt.Sprintf("%s %.0f%% of the on-CPU samples unnamed, more than any named function%s: %s", u.Name, u.Other,
			h, join(named, kernel))
	}
	return fmt.Sprintf("top function %s %.0f%%", a.Top, a.TopShare) + paren(join(unnamed, kernel))
}

func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// SymbolsHint says how to get names for an unnamed object ("[mariadbd]"): its binary's debug
// symbols, and where they come from (docs/host.md#the-servers-on-cpu-profile---observe-stacks).
func SymbolsHint(object string) string {
	bin := strings.TrimSuffix(strings.TrimPrefix(object, "["), "]")
	if bin == "unknown" {
		return "frames perf could not place in any object: JIT code or a broken call chain"
	}
	pkg := map[string]string{"mariadbd": "mariadb-server-core-dbgsym", "mysqld": "the server package's -dbgsym",
		"postgres": "postgresql-NN-dbgsym"}[bin]
	if pkg == "" {
		pkg = "its package's -dbgsym"
	}
	return fmt.Sprintf("no symbols for %s: install its debug symbols, Debian's %s, or fetch them with debuginfod; docs/host.md", bin, pkg)
}

// Segment is the diagnosis line of one live segment of run d: its host CPU, top synch wait, where
// its on-CPU samples went (Attribution.Brief: the lines of a run's segments are printed together,
// how to get names once under them) and its running threads, each from what was measured in the segment's
// settled part (results.Segment); what was not measured there is said so.
func Segment(d *results.Document, s *results.Segment) string {
	res := "host CPU not measured"
	if s.HostCPU != nil {
		res = fmt.Sprintf("host CPU %.0f%% busy", *s.HostCPU)
	}
	synch := "synch waits not measured"
	switch ws := results.WaitsOfSegment(d, s.Index); {
	case ws != nil:
		synch = synchText(ws.Synch, d.Waits.Sampled)
	case d.Waits != nil && len(d.Waits.Segments) > 0:
		synch = "synch waits not read in the segment"
	}
	fn := "top function not measured (--observe stacks)"
	if results.StacksOf(d) != nil {
		fn = "top function not measured in the segment"
		if shares, ok := StackShares([]*results.Stacks{results.SegmentStacks(d, s.Index)}); ok {
			// How to name what perf could not is said once under the segments' lines.
			fn = Attribute(shares).Brief()
		}
	}
	run := "running threads not measured"
	if s.Running != nil {
		run = fmt.Sprintf("running threads max %d, mean %.1f", s.Running.Max, s.Running.Mean)
	}
	return fmt.Sprintf("diagnosis: segment %d (%s) — %s", s.Index, s.Label(), strings.Join([]string{res, synch, fn, run}, ", "))
}

func diagRunning(d *results.Document) string {
	r := results.RunningOf(d)
	if r == nil || r.P99 == nil {
		return "running threads not measured"
	}
	return fmt.Sprintf("running threads p99 %.0f", *r.P99)
}
