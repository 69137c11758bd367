// Package diagnosis reads a result document as a DBA would: the one line that says where a run
// stands and why (docs/diagnosis.md gives the rules), and how the server's functions shifted
// between results. It reads only the document's sections (internal/results), never an observer,
// so the summaries, the report and results compare share one rule.
package diagnosis

import (
	"fmt"
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
	synch := w.SynchAlone()
	if len(synch) == 0 || synch[0].Share == 0 && synch[0].Count == 0 {
		if w.Sampled {
			return "no synch waits sampled"
		}
		return "no synch waits (instruments off? --waits instrument)"
	}
	top := synch[0]
	name := top.Name
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if top.Share == 0 {
		return fmt.Sprintf("top synch wait %s ×%d (untimed)", name, top.Count)
	}
	return fmt.Sprintf("top synch wait %s %.0f%%", name, 100*top.Share)
}

// diagFunction names the server's own function with the largest self share of the on-CPU
// samples, by SelfShares' rule (no kernel function), and the kernel's share where the profile
// marks kernel frames.
func diagFunction(d *results.Document) string {
	st := results.StacksOf(d)
	if st == nil {
		return "top function not measured (--observe stacks)"
	}
	shares, ok := SelfShares([]*results.Document{d})
	if !ok {
		return "top function not measured"
	}
	top, share := "", 0.0
	for name, v := range shares {
		if (results.StackFunction{Name: name}).Named() && (v > share || v == share && v > 0 && name < top) {
			top, share = name, v
		}
	}
	kernel := ""
	if st.Kernel != nil {
		kernel = fmt.Sprintf("kernel %.0f%%", *st.Kernel)
	}
	if top == "" {
		if kernel != "" {
			kernel = "; " + kernel
		}
		return "no top function named (no symbols: docs/host.md" + kernel + ")"
	}
	if kernel != "" {
		kernel = " (" + kernel + ")"
	}
	return fmt.Sprintf("top function %s %.0f%%%s", top, share, kernel)
}

func diagRunning(d *results.Document) string {
	r := results.RunningOf(d)
	if r == nil || r.P99 == nil {
		return "running threads not measured"
	}
	return fmt.Sprintf("running threads p99 %.0f", *r.P99)
}
