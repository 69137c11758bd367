// Package summary words results as text: a run's summary, a profile's step table, comparisons,
// and the conditions of a stored result. Every front end that prints results uses it, so that a
// figure reads the same wherever it is shown.
package summary

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dustin/go-humanize"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/textfmt"
	"github.com/cairn-bench/cairn/internal/workload"
)

// printLimits prints the late and skipped counts of a run with --latency-limit.
func limits(w io.Writer, d *results.Document) {
	var late, skipped, count int64
	for _, t := range d.Txns {
		late, skipped, count = late+t.Late, skipped+t.Skipped, count+t.Count
	}
	if late == 0 && skipped == 0 {
		return
	}
	fmt.Fprintf(w, "over the latency limit: %d of %d transactions (%.3f%%)", late, count, 100*float64(late)/float64(max(count, 1)))
	if skipped > 0 {
		fmt.Fprintf(w, "; skipped, already late when due: %d (%.3f%% of those scheduled)", skipped, 100*float64(skipped)/float64(count+skipped))
	}
	fmt.Fprintln(w)
}

// Run prints the final report of a run: the common part, and the workload's own section
// (which replaces it for TPC-H). s is the spec that ran, or nil for a stored document, whose
// config is read back as one.
func Run(w io.Writer, d *results.Document, s *spec.Spec) {
	wl, _ := workload.Get(d.Workload)
	sum, _ := wl.(workload.Summarizer)
	if s == nil {
		s, _ = spec.FromConfig(d.Config)
	}
	var e *workload.Engine
	var opts any
	if s != nil {
		e, opts = &s.Engine.Engine, s.Options
	}
	if sum != nil && sum.Replaces() {
		sum.Summary(w, d, e, opts)
		return
	}
	defer func() {
		if sum != nil {
			sum.Summary(w, d, e, opts)
		}
	}()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s run on %s %s · %s · mode %s · seed %d\n", Title(d.Workload), d.Target.Name, d.Target.Version, VUText(d), d.Mode, d.Seed)
	if b := d.Bundle; b != nil {
		fmt.Fprintf(w, "run again from bundle %s (its run %s, sha256 %s)\n", b.File, b.Result, b.SHA256[:min(12, len(b.SHA256))])
	}
	if d.Window.Seconds > 0 {
		fmt.Fprintf(w, "measured window %.3f s (planned %.0f s) after %.0f s rampup%s\n", d.Window.Seconds, d.Window.PlannedSeconds, d.Window.RampupSeconds, UntilSteadyText(d.Window.UntilSteady))
	}
	for _, r := range d.NotAsPlanned {
		fmt.Fprintf(w, "%s; not comparable with full runs as it is\n", r)
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "transaction\tcount\tper min\tmix %\trollbk\terrors\tretries\tmean\tp50\tp90\tp95\tp99\tp99.9\tmax ms\t")
	for _, n := range d.TxnOrder {
		t := d.Txns[n]
		l := t.LatencyMs
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n, t.Count, t.PerMinute, t.Percentage, t.Rollbacks, t.Errors, t.Retries,
			textfmt.Ms(l.Mean), textfmt.Ms(l.P50), textfmt.Ms(l.P90), textfmt.Ms(l.P95), textfmt.Ms(l.P99), textfmt.Ms(l.P999), textfmt.Ms(l.Max))
	}
	tw.Flush()
	limits(w, d)
	if f := InFlight(d); f != "" {
		fmt.Fprintln(w, f)
	}
	if len(d.StmtOrder) > 0 {
		fmt.Fprintln(w, "\nstatements in the window:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "statement\tclass\tcount\tper s\tmean\tp50\tp90\tp95\tp99\tp99.9\tmax ms\t")
		for _, n := range d.StmtOrder {
			st := d.Statements[n]
			if st.Count == 0 {
				continue
			}
			l := st.LatencyMs
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n, st.Class, st.Count, st.PerSecond,
				textfmt.Ms(l.Mean), textfmt.Ms(l.P50), textfmt.Ms(l.P90), textfmt.Ms(l.P95), textfmt.Ms(l.P99), textfmt.Ms(l.P999), textfmt.Ms(l.Max))
		}
		tw.Flush()
	}
	if len(d.TxnOrder) > 0 && d.Txns[d.TxnOrder[0]].ServiceMs != nil {
		if d.Terminals != nil {
			fmt.Fprintln(w, "\nlatency above is from the terminal's submission, the wait for a pooled connection included; service time from when it had one:")
		} else {
			fmt.Fprintln(w, "\nlatency above is from the intended start (open loop); service time from the actual start:")
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "transaction\tmean\tp50\tp90\tp95\tp99\tp99.9\tmax ms\t")
		for _, n := range d.TxnOrder {
			l := d.Txns[n].ServiceMs
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n, textfmt.Ms(l.Mean), textfmt.Ms(l.P50), textfmt.Ms(l.P90), textfmt.Ms(l.P95), textfmt.Ms(l.P99), textfmt.Ms(l.P999), textfmt.Ms(l.Max))
		}
		tw.Flush()
	}
	Terminals(w, d)
	Replication(w, d)
	fmt.Fprintln(w)
	c := d.Client
	if c.CPUusPerTxn > 0 {
		fmt.Fprintf(w, "client CPU: %.1f µs per transaction (%.2f s in the window)", c.CPUusPerTxn, c.CPUSeconds)
		if c.ShareOfOthers != nil {
			fmt.Fprintf(w, "; %.1f%% of the rest of this host's busy CPU (the server's, if it runs here)", 100**c.ShareOfOthers)
		}
		fmt.Fprintln(w)
	}
	ClientMemory(w, d)
	if th := d.Client.Threads; th != nil && d.Window.ClientSeconds > 0 {
		fmt.Fprintf(w, "client threads: %s\n", th.Text(d.Window.ClientSeconds))
		if th.Waited() {
			fmt.Fprintf(w, "warning: cairn's VUs waited %.0f%% of the window for a CPU: the host's CPUs were short, for the client at least; latencies include that wait\n", 100*th.VUWaitShare)
		}
	}
	if l := d.Client.IssueLag; l != nil {
		fmt.Fprintf(w, "client issue lag: %s\n", l.Text())
	}
	if c := d.Client.Clock; c != nil {
		fmt.Fprintf(w, "client clock: %s\n", c.Text())
	}
	Observations(w, d)
	if d.Window.Seconds > 0 {
		fmt.Fprintln(w, diagnosis.Diagnosis(d, nil))
	}
	if c.Reconnects > 0 {
		fmt.Fprintf(w, "reconnects: %d\n", c.Reconnects)
	}
	if o := d.Outage; o != nil && !d.MarkedWith(results.Outage) {
		fmt.Fprintf(w, "outage: %s\n", o.Text())
	}
	if len(d.Errors) > 0 {
		keys := make([]string, 0, len(d.Errors))
		for k := range d.Errors {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return d.Errors[keys[i]] > d.Errors[keys[j]] })
		fmt.Fprintln(w, "errors in the window:")
		for i, k := range keys {
			if i == 8 {
				fmt.Fprintf(w, "  … and %d more kinds\n", len(keys)-8)
				break
			}
			fmt.Fprintf(w, "  %6d  %s\n", d.Errors[k], k)
		}
	}
	LoadSegments(w, d)
	if d.Result.TPMSource != "" {
		fmt.Fprintf(w, "TPM source: %s\n", d.Result.TPMSource)
	}
	if a := TPMApprox(d); a != "" {
		fmt.Fprintln(w, a)
	}
	if q := d.Queries; q != nil {
		fmt.Fprintf(w, "queries: %d (reads %d, writes %d, other %d), %.1f per second\n", q.Total, q.Reads, q.Writes, q.Other, q.PerSec)
	}
	if l := SteadyLine(d); l != "" {
		fmt.Fprintln(w, l)
	}
	if l := IntervalLine(d); l != "" {
		fmt.Fprintln(w, l)
	}
	if d.Result.TPS != nil {
		fmt.Fprintf(w, "TEST RESULT : System achieved %.1f TPS", *d.Result.TPS)
		if d.Result.QPS != nil {
			fmt.Fprintf(w, " and %.1f QPS", *d.Result.QPS)
		}
		fmt.Fprintf(w, " on %s\n", d.Target.Name)
	}
}

// TPMText is a run's TPM as the result lines show it: "~1,318" when it is approximate, "" when
// the run has none.
func TPMText(d *results.Document) string {
	if d.Result.TPM == nil {
		return ""
	}
	t := Thousands(float64(*d.Result.TPM))
	if d.Result.TPMApprox != nil {
		t = "~" + t
	}
	return t
}

// TPMApprox says how approximate a run's TPM is and why, "" when it is exact: every place that
// shows the figure shows this line with it.
func TPMApprox(d *results.Document) string {
	a := d.Result.TPMApprox
	if a == nil {
		return ""
	}
	return fmt.Sprintf("TPM is approximate, between %d and %d: %s", a.Min, a.Max, a.Why)
}

// InFlight says what was still running when the window ended, and the latency of those that
// completed after it, which no figure of the window includes; "" when nothing was.
func InFlight(d *results.Document) string {
	f := d.Window.InFlight
	if f == nil || f.AtEnd == 0 {
		return ""
	}
	var w strings.Builder
	fmt.Fprintf(&w, "in flight at the window's end: %s, the oldest running for %s", workload.Plural(f.AtEnd, "transaction"), dur(f.OldestMs))
	var after []string
	for _, n := range d.TxnOrder {
		if a := d.Txns[n].AfterWindow; a != nil {
			t := fmt.Sprintf("%s %d", n, a.Count)
			if a.Count > 0 {
				t += fmt.Sprintf(" (max %s)", dur(a.LatencyMs.Max))
			}
			if a.Errors > 0 {
				t += fmt.Sprintf(", %d failed", a.Errors)
			}
			after = append(after, t)
		}
	}
	if len(after) > 0 {
		fmt.Fprintf(&w, "; completed after it, in no figure above: %s", strings.Join(after, ", "))
	}
	if f.Unfinished > 0 {
		fmt.Fprintf(&w, "; %d still running when cairn stopped waiting, the oldest for %s", f.Unfinished, dur(f.UnfinishedOldestMs))
	}
	return w.String()
}

// dur writes milliseconds as seconds from one second up.
func dur(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2f s", ms/1000)
	}
	return textfmt.Ms(ms) + " ms"
}

// StepLine is the line a profile prints as each run ends.
func StepLine(d *results.Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s:", workload.Plural(d.VU, "VU"))
	if name, v, ok := d.Headline(); ok {
		fmt.Fprintf(&b, " %s %s", Thousands(v), name)
	} else {
		b.WriteString(" nothing measured")
	}
	if d.Result.TPM != nil {
		fmt.Fprintf(&b, ", TPM %s", TPMText(d))
	}
	if m := d.Main(); m != nil && m.Count > 0 {
		fmt.Fprintf(&b, ", %s p95 %s ms", d.MainTxn, textfmt.Ms(m.LatencyMs.P95))
	}
	fmt.Fprintf(&b, ", %d errors", d.TotalErrors())
	if d.ID != "" {
		fmt.Fprintf(&b, " (result %s)", d.ID)
	}
	if d.Marked() {
		b.WriteString(" · " + results.MarkText(d.NotAsPlanned))
	}
	if d.Window.Seconds > 0 {
		b.WriteString("\n    " + diagnosis.Diagnosis(d, nil))
	}
	return b.String()
}

// Profile prints a profile's step table and its marks.
func Profile(w io.Writer, p *results.Profile) {
	if p.Search != nil {
		Search(w, p)
		return
	}
	name := p.HeadlineName()
	if name == "" {
		name = "headline"
	}
	fmt.Fprintf(w, "\n%s profile on %s %s", Title(p.Workload), p.Target.Name, p.Target.Version)
	if p.Repeat > 1 {
		fmt.Fprintf(w, " · %d runs per step: mean ± sample standard deviation", p.Repeat)
	}
	if p.Interrupted {
		fmt.Fprint(w, " · INTERRUPTED: the steps below are all that ran")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	main := p.MainTxn
	fmt.Fprintf(tw, "VUs\t%s\tTPM\t%s p50\tp95\tp99 ms\terrors\tCPU µs/txn\tmarks\t\n", name, main)
	for _, st := range p.Steps {
		s := st.Summary
		if s.Headline.N == 0 {
			fmt.Fprintf(tw, "%d\t-\t-\t-\t-\t-\t%d\t-\tnothing measured\t\n", st.VU, s.Errors)
			continue
		}
		var marks []string
		if st.VU == p.Marks.Peak {
			marks = append(marks, "peak")
		}
		if st.VU == p.Marks.Saturation {
			marks = append(marks, "saturation")
		}
		if st.VU == p.Marks.Bottleneck {
			marks = append(marks, "bottleneck")
		}
		marks = append(marks, StepMarks(st)...)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%.0f\t%s\t\n", st.VU, statText(s.Headline), approxMark("TPM", st.Runs)+statText(s.TPM),
			statMs(s.P50ms), statMs(s.P95ms), statMs(s.P99ms), s.Errors, s.CPUusPerTxn.Mean, strings.Join(marks, ","))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range p.Reasons() {
		fmt.Fprintf(w, "%s; not comparable with a profile measured as planned as it is\n", r)
	}
	m := p.Marks
	if peak := p.StepAt(m.Peak); peak != nil {
		fmt.Fprintf(w, "peak: %s, %s %s\n", workload.Plural(m.Peak, "VU"), Thousands(peak.Summary.Headline.Mean), name)
	}
	if m.Saturation > 0 {
		a, b := p.StepAt(m.Saturation), p.Next(m.Saturation)
		fmt.Fprintf(w, "saturation: %s (going to %d VUs raised %s by %+.1f%% while %s p95 rose %+.1f%%)\n", workload.Plural(m.Saturation, "VU"), b.VU, name,
			pct(a.Summary.Headline.Mean, b.Summary.Headline.Mean), main, pct(a.Summary.P95ms.Mean, b.Summary.P95ms.Mean))
	} else if len(p.Steps) > 1 {
		fmt.Fprintf(w, "saturation: not reached (no step raised %s by less than %.0f%% while p95 rose more than %.0f%%)\n", name,
			100*results.SaturationGain, 100*results.SaturationLatency)
	}
	if m.Bottleneck > 0 {
		b := p.StepAt(m.Bottleneck)
		a := p.Prev(m.Bottleneck)
		fmt.Fprintf(w, "bottleneck: %s (%s p95 grew most per added VU: %+.2f ms per VU from %s)\n", workload.Plural(m.Bottleneck, "VU"), main,
			(b.Summary.P95ms.Mean-a.Summary.P95ms.Mean)/float64(b.VU-a.VU), workload.Plural(a.VU, "VU"))
	}
	Housekeeping(w, p.Steps)
	StepDiagnoses(w, p, "")
}

// Housekeeping says what --after did before each step's runs, and how long it took: a line per
// run it preceded (it is outside every window, so in no figure above).
func Housekeeping(w io.Writer, steps []*results.Step) {
	for _, st := range steps {
		for i, d := range st.Runs {
			if len(d.Housekeeping) == 0 {
				continue
			}
			var parts []string
			for _, h := range d.Housekeeping {
				p := fmt.Sprintf("%s %.3f s", h.Task, h.Seconds)
				if h.Note != "" {
					p += " (" + h.Note + ")"
				}
				parts = append(parts, p)
			}
			which := workload.Plural(st.VU, "VU")
			if st.Rate > 0 {
				which = fmt.Sprintf("rate %g/s", st.Rate)
			}
			if len(st.Runs) > 1 {
				which += fmt.Sprintf(" run %d", i+1)
			}
			fmt.Fprintf(w, "housekeeping before %s: %s\n", which, strings.Join(parts, ", "))
		}
	}
}

// StepMarks are a step's runs' marks for a table's marks column: "cut short", "2 outage".
func StepMarks(st *results.Step) []string {
	n := map[string]int{}
	var order []string
	for _, d := range st.Runs {
		for _, r := range d.NotAsPlanned {
			if r.Code == results.PartMissing {
				continue
			}
			if n[r.Code] == 0 {
				order = append(order, r.Code)
			}
			n[r.Code]++
		}
	}
	var out []string
	for _, c := range order {
		label := strings.ToLower(results.Reason{Code: c}.Label())
		if len(st.Runs) > 1 {
			label = fmt.Sprintf("%d %s", n[c], label)
		}
		out = append(out, label)
	}
	return out
}

// StepDiagnoses prints the diagnosis of each step of a profile, from its first measured run,
// placed against the profile's marks.
func StepDiagnoses(w io.Writer, p *results.Profile, indent string) {
	for _, st := range p.Steps {
		for _, d := range st.Runs {
			if d != nil && d.Window.Seconds > 0 {
				fmt.Fprintln(w, indent+diagnosis.Diagnosis(d, &p.Marks))
				break
			}
		}
	}
}

func statText(s results.Stat) string {
	if s.N == 0 {
		return "-"
	}
	t := Thousands(s.Mean)
	if s.N > 1 && s.Mean != 0 {
		t += fmt.Sprintf(" ±%.1f%%", 100*s.SD/s.Mean)
	}
	return t
}

func statMs(s results.Stat) string {
	if s.N == 0 {
		return "-"
	}
	return textfmt.Ms(s.Mean)
}

func pct(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return 100 * (b - a) / a
}

// Thousands writes a rounded figure with thousands separators.
func Thousands(v float64) string {
	return humanize.Comma(int64(math.Round(v)))
}

// Title is a workload's title: "TPC-C", "sysbench-style OLTP".
func Title(name string) string {
	if w, err := workload.Get(name); err == nil {
		return w.Info().Title
	}
	return name
}

// Conditions prints what a stored result ran on: the target, its settings, the host.
func Conditions(w io.Writer, t results.Target, h *results.Host) {
	fmt.Fprintf(w, "\ntarget: %s %s at %s\n", t.Name, t.Version, t.Address)
	if len(t.Settings) > 0 {
		keys := make([]string, 0, len(t.Settings))
		for k := range t.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + t.Settings[k]
		}
		fmt.Fprintf(w, "settings: %s\n", strings.Join(parts, " "))
	}
	if h != nil {
		Host(w, h)
	}
}

// Host prints the host's facts, what could not be read and why, and the findings.
func Host(w io.Writer, h *results.Host) {
	fmt.Fprintf(w, "host: %s · %s · %s · %s\n", h.Hostname, h.OS, h.Kernel, h.Arch)
	fmt.Fprintf(w, "CPU: %s · %s, %s, %s", h.CPUModel, workload.Plural(h.Sockets, "socket"), workload.Plural(h.Cores, "core"), workload.Plural(h.Threads, "thread"))
	if h.SMT != "" {
		fmt.Fprintf(w, " · SMT %s", h.SMT)
	}
	for _, n := range h.NUMA {
		fmt.Fprintf(w, " · NUMA node%d %s", n.Node, n.CPUs)
	}
	fmt.Fprintln(w)
	if h.MemoryMiB > 0 {
		fmt.Fprintf(w, "memory: %s MiB\n", humanize.Comma(h.MemoryMiB))
	}
	if h.FreqDriver == "" { // stored before cairn host: only the governor
		if h.Governor != "" {
			fmt.Fprintf(w, "CPU governor: %s\n", h.Governor)
		}
		return
	}
	fmt.Fprintf(w, "frequency: driver %s · governor %s · energy-performance %s · bias %s · pstate %s · turbo %s\n", h.FreqDriver, h.Governor, h.EPP, h.EPB, h.PState, h.Turbo)
	fmt.Fprintf(w, "idle driver %s · transparent huge pages %s (defrag %s) · clocksource %s · virtualized %s\n", h.IdleDriver, h.THP, h.THPDefrag, h.Clocksource, h.Virtualized)
	systemText(w, h)
	if p := h.Pause; p != nil {
		if p.NA != "" {
			fmt.Fprintf(w, "PAUSE: n/a (%s)\n", p.NA)
		} else {
			fmt.Fprintf(w, "PAUSE: %.1f ns, %.1f TSC ticks (median of %d timed loops)\n", p.NS, p.TSCTicks, p.Repeats)
		}
	}
	if c := h.Calibration; c != nil {
		fmt.Fprintln(w, CalibrationText(c))
	}
	keys := make([]string, 0, len(h.Unknown))
	for k := range h.Unknown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "unknown %s: %s\n", k, h.Unknown[k])
	}
	Findings(w, h.Findings)
}

// systemText prints the system described: each storage device, network interface, the memory's
// speed and the platform (docs/host.md#the-system); nothing for a document stored before.
func systemText(w io.Writer, h *results.Host) {
	for _, d := range h.Storage {
		kind := "non-rotational"
		if d.Rotational {
			kind = "rotational"
		}
		model := ""
		if d.Model != "" {
			model = " " + d.Model
		}
		sched := d.Scheduler
		if sched == "" {
			sched = "unknown"
		}
		fmt.Fprintf(w, "storage: %s%s · %s · %s · scheduler %s\n", d.Name, model, humanize.IBytes(d.SizeBytes), kind, sched)
	}
	for _, n := range h.Network {
		var parts []string
		if n.Driver != "" {
			parts = append(parts, "driver "+n.Driver)
		} else {
			parts = append(parts, "virtual")
		}
		if n.SpeedMbps > 0 {
			parts = append(parts, fmt.Sprintf("%d Mb/s", n.SpeedMbps))
		} else {
			parts = append(parts, "speed not reported")
		}
		parts = append(parts, fmt.Sprintf("MTU %d", n.MTU))
		if n.State != "" {
			parts = append(parts, n.State)
		}
		fmt.Fprintf(w, "network: %s · %s\n", n.Name, strings.Join(parts, " · "))
	}
	if m := h.Memory; m != nil {
		fmt.Fprintf(w, "memory modules: %d · speed %s MT/s · configured %s MT/s (%s)\n", m.Modules, ints(m.SpeedMTs), ints(m.ConfiguredMTs), m.Source)
	}
	if p := h.Platform; p != nil {
		fmt.Fprintf(w, "platform: %s %s", p.Vendor, p.Product)
		if p.Cloud != "" {
			fmt.Fprintf(w, " · cloud %s", p.Cloud)
			if p.InstanceType != "" {
				fmt.Fprintf(w, " · instance type %s", p.InstanceType)
			}
		}
		fmt.Fprintln(w)
	}
}

// ints joins speeds: "3200", or "2933/3200" where modules differ; "unknown" for none.
func ints(v []int) string {
	if len(v) == 0 {
		return "unknown"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, "/")
}

// Findings prints findings one a line: "warning governor-powersave: …".
func Findings(w io.Writer, fs []results.Finding) {
	for _, f := range fs {
		fmt.Fprintf(w, "%-7s %s: %s\n", f.Tier, f.Code, f.Message)
	}
}

// Observations prints what was observed over the window: the server's CPU, the host's and its
// busiest core's, the top waits, the binding.
func Observations(w io.Writer, d *results.Document) {
	if s := d.Server; s != nil {
		switch {
		case s.Where == "embedded":
		case s.CPUusPerTxn > 0:
			who := fmt.Sprintf("%s pid %d", s.Process, s.PID)
			if len(s.Members) > 0 {
				who = fmt.Sprintf("%d servers", len(s.Members))
			}
			fmt.Fprintf(w, "server CPU: %.1f µs per transaction (%.2f s in the window, %s)", s.CPUusPerTxn, s.CPUSeconds, who)
			if c := d.Client.CPUusPerTxn; c > 0 {
				fmt.Fprintf(w, "; client/server %.2f", c/s.CPUusPerTxn)
			}
			fmt.Fprintln(w)
		case s.Note != "":
			fmt.Fprintf(w, "server CPU: n/a (%s)\n", s.Note)
		}
	}
	if avg, cores, ok := d.WindowCPU(); ok {
		fmt.Fprintf(w, "host CPU: %.1f%% busy over the window (user %.1f, system %.1f, iowait %.1f, irq %.1f, steal %.1f)",
			avg.Busy(), avg[0], avg[1], avg[2], avg[3], avg[4])
		busiest := 0
		for i := range cores {
			if cores[i].Busy() > cores[busiest].Busy() {
				busiest = i
			}
		}
		if len(cores) > 1 {
			fmt.Fprintf(w, "; busiest core cpu%d %.1f%%", busiest, cores[busiest].Busy())
		}
		fmt.Fprintln(w)
	}
	if f := results.FrequencyOf(d); f != nil {
		fmt.Fprintf(w, "CPU frequency: %s\n", frequencyText(f))
	}
	if r := results.RunningOf(d); r != nil {
		fmt.Fprintf(w, "running threads: %s\n", runningText(r))
	}
	if io := results.DiskIOOf(d); io != nil {
		fmt.Fprintf(w, "disk I/O: %s\n", DiskText(io))
		if v := io.Server; v != nil {
			fmt.Fprintf(w, "server's own I/O: %s\n", ServerIOText(v))
		}
	}
	if wt := d.Waits; wt != nil {
		if top := wt.Top(5); top != "" {
			fmt.Fprintf(w, "top waits: %s\n", top)
			for _, s := range wt.PerServer {
				top := results.TopWaits(s.Events, 3)
				if top == "" {
					top = "none recorded"
				}
				fmt.Fprintf(w, "  on %s: %s\n", s.Server, top)
			}
		} else {
			fmt.Fprintln(w, "top waits: none recorded")
		}
		if gs := wt.ByGroup(); len(gs) > 0 {
			fmt.Fprintf(w, "waits by group: %s\n", results.GroupsText(gs))
			if top := results.TopWaits(wt.SynchAlone(), 3); top != "" {
				fmt.Fprintf(w, "top synch waits: %s\n", top)
			} else {
				fmt.Fprintln(w, "top synch waits: none measured")
			}
		}
		for _, n := range wt.Notes {
			fmt.Fprintf(w, "waits: %s\n", n)
		}
	}
	if b := d.Binding; b != nil {
		var parts []string
		if b.ClientCPUs != "" {
			parts = append(parts, "cairn on CPUs "+b.ClientCPUs+topologyText(b.ClientTopology))
		}
		if b.ServerCPUs != "" {
			parts = append(parts, "the server on CPUs "+b.ServerCPUs+topologyText(b.ServerTopology))
		}
		fmt.Fprintf(w, "binding: %s\n", strings.Join(parts, ", "))
	}
}

// runningText is the window's running threads: the server's and the host's run queue, each its
// max, p99 and mean over the samples.
func runningText(r *results.Running) string {
	server := "server not measured"
	if r.P99 != nil {
		server = fmt.Sprintf("server max %.0f, p99 %.0f, mean %.1f", *r.Max, *r.P99, *r.Mean)
	}
	host := "host run queue not readable on this host"
	if h := r.Host; h != nil {
		host = fmt.Sprintf("host run queue max %.0f, p99 %.0f, mean %.1f", h.Max, h.P99, h.Mean)
	}
	return fmt.Sprintf("%s; %s (%d samples every %d ms)", server, host, r.Samples, r.IntervalMs)
}

// DiskText is each device's I/O over the window, on one line: its requests and megabytes per
// second, their mean latency and the mean queue depth.
func DiskText(io *results.DiskIO) string {
	var parts []string
	for _, d := range io.Devices {
		name := d.Name
		if len(d.Roles) > 0 {
			name += " (" + strings.Join(d.Roles, ", ") + ")"
		}
		w := d.Window
		if w == nil {
			parts = append(parts, name+" not read at the window's edges")
			continue
		}
		await := "no request completed"
		if w.AwaitMs != nil {
			await = fmt.Sprintf("await %.2f ms", *w.AwaitMs)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f w/s %.2f MB/s, %.0f r/s %.2f MB/s, %s, queue %.2f, util %.0f%%",
			name, w.WritesPerS, w.WriteMBs, w.ReadsPerS, w.ReadMBs, await, w.QueueDepth, w.UtilPct))
	}
	if len(parts) == 0 {
		return "no device did I/O"
	}
	s := strings.Join(parts, "; ")
	if io.Scope == "all" {
		s += " (every device: the server's are not known)"
	}
	return s
}

// ServerIOText is the server's own I/O counters over the window, each per second: counts as
// they are, bytes in MB (10^6 bytes).
func ServerIOText(v *results.ServerIO) string {
	var parts []string
	for _, c := range v.Counters {
		if c.Unit == "bytes" {
			parts = append(parts, fmt.Sprintf("%s %.2f MB/s", c.Name, c.PerSecond/1e6))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.0f/s", c.Name, c.PerSecond))
		}
	}
	return strings.Join(parts, ", ") + " (" + v.Source + ")"
}

// topologyText is what a bound CPU list covers, in brackets; "" for a document stored before.
func topologyText(t *results.CPUTopology) string {
	if t == nil {
		return ""
	}
	return " (" + t.Text() + ")"
}

// frequencyText is the cores' frequency over the window, and where it came from.
func frequencyText(f *results.Frequency) string {
	switch {
	case len(f.Cores) == 0:
		return "not readable on this host"
	case f.Source == "APERF/MPERF":
		return fmt.Sprintf("Avg_MHz %.0f, Bzy_MHz %.0f over the window (APERF/MPERF, the mean of %d CPUs)", f.AvgMHz, f.BzyMHz, len(f.Cores))
	}
	return fmt.Sprintf("%.0f MHz (/proc/cpuinfo at the window's edges, the mean of %d CPUs; APERF/MPERF not readable on this host)", f.MHz, len(f.Cores))
}

// LoadSegments prints a run's load segments (a load schedule's, --schedule), with the time the
// throughput took to recover after each change; nothing for a run without them, or a study's
// run, whose segments the study prints.
func LoadSegments(w io.Writer, d *results.Document) {
	if len(d.Segments) == 0 || d.Study != nil {
		return
	}
	band := results.RecoveryBand
	fmt.Fprintf(w, "load segments (figures leave out %.0f s after each change; recovered: every second from then on within ±%.0f%% of the segment's steady throughput, its second half's):\n",
		results.SettleSeconds, 100*band)
	start := d.Segments[0].From
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "segment\tload\tfrom s\tto s\tTPS\t~p95 ms\tsteady TPS\trecovered after\t")
	for _, g := range d.Segments {
		steady, rec := "", ""
		if g.Index > 1 && g.Recovery == nil {
			rec = "too short"
		}
		if r := g.Recovery; r != nil {
			steady = fmt.Sprintf("%.1f", r.SteadyTPS)
			rec = "not by its end"
			if r.Recovered {
				rec = fmt.Sprintf("%.1f s", *r.Seconds)
			}
		}
		tps, p95 := "-", "-"
		if g.Seconds > 0 {
			tps, p95 = fmt.Sprintf("%.1f", g.TPS), textfmt.Ms(g.P95ms)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t\n", g.Index, g.Label(), g.From-start, g.To-start, tps, p95, steady, rec)
	}
	tw.Flush()
	if d.Result.TPS != nil {
		fmt.Fprintf(w, "segments weighted back (each span's length): %.1f TPS; the run's %.1f TPS\n", results.WeightedTPS(d.Segments), *d.Result.TPS)
	}
}

// VUText is a run's VU count, "16 VUs", or for a load schedule its counts in order with the VUs
// connected: "4 → 16 → 4 VUs (16 connected, those not running parked)".
func VUText(d *results.Document) string {
	steps := []string{fmt.Sprint(d.VU)}
	most := d.VU
	for _, c := range d.Changes {
		if c.Name == results.LoadSetting {
			steps = append(steps, c.Value)
			if n, err := strconv.Atoi(c.Value); err == nil {
				most = max(most, n)
			}
		}
	}
	if len(steps) == 1 {
		return workload.Plural(d.VU, "VU")
	}
	return fmt.Sprintf("%s VUs (%d connected, those not running parked)", strings.Join(steps, " → "), most)
}

// CalibrationText is a host's calibration in a line (docs/host.md#calibration).
func CalibrationText(c *results.Calibration) string {
	if c.NA != "" {
		return "calibration: n/a (" + c.NA + ")"
	}
	return fmt.Sprintf("calibration (%s): single-core %s units per CPU-second (rounds ±%.1f%%), all-core %s over %d threads (±%.1f%%; %s per wall second); medians of %d rounds of %d repetitions",
		c.Kernel, Thousands(c.SingleCore), c.SingleSpreadPct/2, Thousands(c.AllCore), c.Threads, c.AllSpreadPct/2, Thousands(c.AllCoreWall), c.Rounds, c.Repeats)
}
