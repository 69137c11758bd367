package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/dustin/go-humanize"
)

// ECharts is inlined rather than linked so the report opens offline, years later, exactly as it
// was written. assets/README.md records its version, source and checksum.
//
//go:embed assets/echarts.min.js
var echartsJS string

//go:embed report.html.tmpl
var pageSource string

var page = template.Must(template.New("report").Funcs(template.FuncMap{"breakable": breakable}).Parse(pageSource))

// breakable lets a long name (innodb_adaptive_hash_index=OFF) break after an underscore, where a
// reader expects it, rather than inside a word where its box ends.
func breakable(s string) template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(s), "_", "_<wbr>"))
}

// palette is shared by both renderers so a series has the same colour on the page and in the PNG.
var palette = []string{"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"}

// HTML writes a self-contained report of items: what was measured and under which conditions,
// then the charts. The page needs nothing but a browser: script, data and styles are inline.
func HTML(w io.Writer, items []Item, title string) error {
	if err := check(items); err != nil {
		return err
	}
	if title == "" {
		title = "cairn report"
	}
	labels := itemLabels(items)
	v := pageView{Title: title, ECharts: template.JS(echartsJS), Palette: palette, Charts: Charts(items)}
	for i, it := range items {
		if it.Study != nil {
			sv := summarizeStudy(it.Study, labels[i])
			if live(it.Study) {
				// A live study opens with its runs over time, then its segments' table: the table
				// stands under those charts rather than among the details.
				v.Lead, v.Segments, sv.Segments = leadCharts(v.Charts), sv.Segments, nil
			}
			v.Items = append(v.Items, sv)
			v.Items = append(v.Items, studyCaseViews(it.Study)...)
			continue
		}
		v.Items = append(v.Items, summarize(it, labels[i]))
	}
	for i := range v.Items {
		v.Items[i].Brief = brief(v.Items[i])
	}
	v.Functions, v.Diff = stackViews(items, labels)
	// Render into memory first so a failure leaves no half-written page behind.
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func check(items []Item) error {
	if len(items) == 0 {
		return errors.New("nothing to report")
	}
	for i, it := range items {
		n := 0
		for _, set := range []bool{it.Run != nil, it.Profile != nil, it.Study != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("report item %d: exactly one of a run, a profile or a study must be set", i+1)
		}
		if it.Study != nil && len(items) > 1 {
			return fmt.Errorf("a study is reported alone: its cases are what the report overlays")
		}
	}
	return nil
}

type pageView struct {
	Title   string
	ECharts template.JS
	Palette []string
	Charts  []Chart
	// Lead is how many of the charts come before Segments, a live study's segments.
	Lead     int
	Segments []segmentRow
	Items    []itemView
	// The server's on-CPU profile: top functions side by side, and what changed between two.
	Functions []funcTable
	Diff      *diffTable
}

// itemView is one item's summary, already formatted: the template only lays it out.
type itemView struct {
	Label      string
	Facts      []kv // id, kind, workload, started, target …
	Figures    []kv // headline figures
	Settings   []kv
	Host       []kv
	Config     string
	TxnCaption string
	Txns       []txnRow
	// Terminals is a run of terminals over pooled connections: per type, its response time
	// against the specification's constraint, its wait for a connection, its measured times.
	TermCaption string
	Terms       []termRow
	Steps       []stepRow
	StepHead    string
	Segments    []segmentRow // a study's VU counts × live values
	Fanout      []fanoutRow  // a fan-out study's own figures per case and VU count
	Notes       []string
	Interrupted bool
	// Marks are the reasons the result did not measure what was planned (results.Reason).
	Marks []string
	Brief string // the conditions in a line, beside the collapsed table
	// Lines, when set, are the title's lines (a study case's levels, one a line); Shown are
	// figures shown above the others whatever is folded; Fold folds Figures under their first.
	Lines []string
	Shown []kv
	Fold  bool
}

type kv struct{ K, V string }

type txnRow struct {
	Name, Count, Mix, Errors, P50, P95, P99, Max string
}

type termRow struct {
	Name, P90, Limit, Verdict, WaitMean, WaitP95, Menu, Keying, Think string
	Missed                                                            bool
}

// segmentRow is one segment of a live study's case at one VU count, over the step's runs.
type segmentRow struct {
	Case, VU, Index, Values, TPS, QPS, P95, Waits string
}

type stepRow struct {
	VU, Runs, Headline, Spread, TPM, P95, P99, Errors, Mark string
}

func summarize(it Item, label string) itemView {
	if it.Run != nil {
		return summarizeRun(it.Run, label)
	}
	return summarizeProfile(it.Profile, label)
}

func summarizeRun(d *results.Document, label string) itemView {
	v := itemView{Label: label, Interrupted: d.Cut(), Notes: d.Notes}
	for _, r := range d.NotAsPlanned {
		v.Marks = append(v.Marks, r.String())
	}
	v.Facts = append(v.Facts, facts("run", d.ID, d.Workload, d.StartedAt, d.Target, d.Cairn)...)
	if d.ProfileID != "" {
		v.Facts = append(v.Facts, kv{"profile", "#" + d.ProfileID})
	}
	if b := d.Bundle; b != nil {
		v.Facts = append(v.Facts, kv{"run again from bundle", fmt.Sprintf("%s (its run %s, sha256 %s)", b.File, b.Result, b.SHA256)})
	}
	if x := d.Data; x != nil {
		opts := make([]string, 0, len(x.Prepare))
		for k, val := range x.Prepare {
			opts = append(opts, k+" "+val)
		}
		sort.Strings(opts)
		v.Facts = append(v.Facts, kv{"data", fmt.Sprintf("prepared %s by cairn %s: %s", x.PreparedAt.UTC().Format("2006-01-02 15:04:05 MST"), x.CairnVersion, strings.Join(opts, ", "))})
	}
	v.Facts = append(v.Facts, kv{"virtual users", strconv.Itoa(d.VU)})
	if d.Mode != "" {
		v.Facts = append(v.Facts, kv{"mode", d.Mode})
	}
	v.Facts = append(v.Facts, kv{"seed", strconv.FormatUint(d.Seed, 10)},
		kv{"rampup", seconds(d.Window.RampupSeconds)}, kv{"measured window", seconds(d.Window.Seconds)})
	if l := summary.SteadyLine(d); l != "" {
		v.Facts = append(v.Facts, kv{"steady state", strings.TrimPrefix(l, "steady state: ")})
	}
	r := d.Result
	// The headline leads, unless it is one of the result's own figures below, shown in its place.
	if h := d.HeadlineFigure(); h != nil && !slices.Contains([]string{"TPS", "QPS", "QphH", "Power", "Throughput"}, h.Name) {
		v.Figures = append(v.Figures, kv{h.Name, num(h.Value) + plusMinus(d, h.Name)})
	}
	if r.TPM != nil {
		tpm := summary.TPMText(d)
		if a := r.TPMApprox; a != nil {
			tpm += fmt.Sprintf(" (approximate: between %s and %s)", thousands(float64(a.Min)), thousands(float64(a.Max)))
		}
		if r.TPMSource != "" {
			tpm += " (" + r.TPMSource + ")"
		}
		v.Figures = append(v.Figures, kv{"TPM", tpm + plusMinus(d, "TPM")})
		if a := summary.TPMApprox(d); a != "" {
			v.Notes = append(v.Notes, a)
		}
	}
	if r.TPS != nil {
		v.Figures = append(v.Figures, kv{"TPS", num(*r.TPS) + plusMinus(d, "TPS")})
	}
	if r.QPS != nil {
		v.Figures = append(v.Figures, kv{"QPS", num(*r.QPS)})
	}
	// TPC-H's figures, with the spec's names; not audited results (docs/tpch.md).
	for _, f := range []struct {
		name string
		v    *float64
		unit string
	}{{"QphH@Size", r.OwnValue("qphh"), ""}, {"Power@Size", r.OwnValue("power"), ""}, {"Throughput@Size", r.OwnValue("throughput"), ""},
		{"geometric mean of the power test's queries", r.OwnValue("geomean_s"), " s"}} {
		if f.v != nil {
			v.Figures = append(v.Figures, kv{f.name, num(*f.v) + f.unit})
		}
	}
	for _, f := range results.RegisteredFigures() { // a workload's own (fanout's physical figures)
		if x, ok := f.Of(d); ok {
			v.Figures = append(v.Figures, kv{f.Name, num(x)})
		}
	}
	v.Figures = append(v.Figures, terminals(d)...)
	v.Figures = append(v.Figures, kv{"errors", strconv.FormatInt(d.TotalErrors(), 10)})
	if o := d.Outage; o != nil {
		v.Figures = append(v.Figures, kv{"without service", o.Text()})
	}
	if f := summary.InFlight(d); f != "" {
		v.Figures = append(v.Figures, kv{"in flight at the window's end", strings.TrimPrefix(f, "in flight at the window's end: ")})
	}
	if d.Client.CPUusPerTxn > 0 {
		v.Figures = append(v.Figures, kv{"client CPU per transaction", num(d.Client.CPUusPerTxn) + " µs"})
	}
	v.Figures = append(v.Figures, client(d)...)
	v.Figures = append(v.Figures, observed(d)...)
	v.Figures = append(v.Figures, kv{"diagnosis", strings.TrimPrefix(diagnosis.Diagnosis(d, nil), "diagnosis: ")})
	v.Settings = settings(d.Target.Settings)
	v.Host = host(d.Host)
	// The filesystems under the server's directories are the run's conditions too.
	for _, c := range results.Conditions(d) {
		if strings.HasSuffix(c.Name, " filesystem") {
			v.Host = append(v.Host, kv{c.Name, c.Value})
		}
	}
	v.Config = config(d.Config)
	v.TxnCaption = "Transactions in the measured window (latency in ms)"
	v.Txns = txnRows(d)
	v.TermCaption, v.Terms = termRows(d)
	return v
}

func summarizeProfile(p *results.Profile, label string) itemView {
	v := itemView{Label: label, Interrupted: p.Interrupted}
	for _, st := range p.Steps {
		for _, d := range st.Runs {
			v.Interrupted = v.Interrupted || d.Cut()
		}
	}
	for _, r := range p.Reasons() {
		v.Marks = append(v.Marks, r.String())
	}
	v.Facts = append(v.Facts, facts("profile", p.ID, p.Workload, p.StartedAt, p.Target, p.Cairn)...)
	vus := make([]string, len(p.VUs))
	for i, n := range p.VUs {
		vus[i] = strconv.Itoa(n)
	}
	v.Facts = append(v.Facts, kv{"virtual users", strings.Join(vus, ", ")}, kv{"repeats per step", strconv.Itoa(p.Repeat)})
	if p.PauseSec > 0 {
		v.Facts = append(v.Facts, kv{"pause between runs", seconds(p.PauseSec)})
	}
	hname := profileHeadline(p)
	var peak *results.Step
	for _, st := range p.Steps {
		if st.VU == p.Marks.Peak {
			peak = st
		}
	}
	if peak != nil {
		v.Figures = append(v.Figures, kv{"peak " + hname, num(peak.Summary.Headline.Mean) + " at " + vuName(peak.VU)})
		if d := firstMeasured(peak); d != nil {
			v.Figures = append(v.Figures, kv{"diagnosis at the peak", strings.TrimPrefix(diagnosis.Diagnosis(d, &p.Marks), "diagnosis: ")})
		}
	}
	for _, m := range []struct {
		name string
		vu   int
	}{{"peak", p.Marks.Peak}, {"saturation", p.Marks.Saturation}, {"bottleneck", p.Marks.Bottleneck}} {
		s := "none"
		if m.vu > 0 {
			s = vuName(m.vu)
		}
		v.Figures = append(v.Figures, kv{m.name, s})
	}
	main := profileMain(p)
	v.StepHead = hname
	for _, st := range p.Steps {
		s := st.Summary
		row := stepRow{VU: strconv.Itoa(st.VU), Runs: strconv.Itoa(len(st.Runs)), Errors: strconv.FormatInt(s.Errors, 10)}
		if s.Headline.N > 0 {
			row.Headline = num(s.Headline.Mean)
			if s.Headline.N > 1 {
				row.Spread = fmt.Sprintf("± %s (%s–%s)", num(s.Headline.SD), num(s.Headline.Min), num(s.Headline.Max))
			}
		}
		if s.TPM.N > 0 {
			row.TPM = num(s.TPM.Mean)
			for _, d := range st.Runs {
				if d.Result.TPMApprox != nil {
					row.TPM = "~" + row.TPM // a run's bounds are in its own summary
					break
				}
			}
		}
		if s.P95ms.N > 0 {
			row.P95, row.P99 = num(s.P95ms.Mean), num(s.P99ms.Mean)
		}
		var ms []string
		for _, m := range []struct {
			name string
			vu   int
		}{{"peak", p.Marks.Peak}, {"saturation", p.Marks.Saturation}, {"bottleneck", p.Marks.Bottleneck}} {
			if m.vu == st.VU {
				ms = append(ms, m.name)
			}
		}
		for _, m := range summary.StepMarks(st) {
			if len(st.Runs) == 1 {
				m = "1 " + m
			}
			ms = append(ms, m)
		}
		row.Mark = strings.Join(ms, ", ")
		v.Steps = append(v.Steps, row)
	}
	v.Settings = settings(p.Target.Settings)
	v.Host = host(p.Host)
	v.Config = config(p.Config)
	// A profile has a transaction table per run; the one at its peak is the one worth reading.
	if peak != nil {
		if d := firstMeasured(peak); d != nil {
			v.TxnCaption = fmt.Sprintf("Transactions at the peak (%s, first run; latency in ms; main transaction %s)", vuName(peak.VU), main)
			v.Txns = txnRows(d)
		}
	}
	return v
}

// brief is the line that stands for the conditions while their tables are folded away: the
// target and the host.
func brief(v itemView) string {
	var parts []string
	pick := func(list []kv, keys ...string) {
		for _, k := range keys {
			for _, f := range list {
				if f.K == k {
					parts = append(parts, f.V)
				}
			}
		}
	}
	pick(v.Facts, "target")
	pick(v.Host, "hostname", "CPU")
	for _, f := range v.Host {
		if f.K == "threads" {
			parts = append(parts, f.V+" threads")
		}
	}
	return strings.Join(parts, " · ")
}

func facts(kind, id, workload string, started time.Time, t results.Target, c results.Cairn) []kv {
	out := []kv{}
	if id != "" {
		out = append(out, kv{"id", "#" + id})
	}
	out = append(out, kv{"kind", kind}, kv{"workload", workload})
	if !started.IsZero() {
		out = append(out, kv{"started at", started.UTC().Format("2006-01-02 15:04:05 MST")})
	}
	out = append(out, kv{"target", strings.TrimSpace(t.Name + " " + t.Version + " (" + t.Kind + ")")})
	if t.Address != "" {
		out = append(out, kv{"address", t.Address})
	}
	if t.Database != "" {
		out = append(out, kv{"database", t.Database})
	}
	if c.Version != "" {
		out = append(out, kv{"cairn", c.Text()})
	}
	return out
}

func settings(m map[string]string) []kv {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]kv, len(keys))
	for i, k := range keys {
		out[i] = kv{k, m[k]}
	}
	return out
}

func host(h *results.Host) []kv {
	if h == nil {
		return nil
	}
	var out []kv
	add := func(k, v string) {
		if v != "" && v != "0" {
			out = append(out, kv{k, v})
		}
	}
	add("hostname", h.Hostname)
	add("CPU", h.CPUModel)
	add("sockets", strconv.Itoa(h.Sockets))
	add("cores", strconv.Itoa(h.Cores))
	add("threads", strconv.Itoa(h.Threads))
	if h.MemoryMiB > 0 {
		add("memory", fmt.Sprintf("%.1f GiB", float64(h.MemoryMiB)/1024))
	}
	add("OS", h.OS)
	add("kernel", h.Kernel)
	add("architecture", h.Arch)
	add("CPU governor", h.Governor)
	add("SMT", h.SMT)
	for _, n := range h.NUMA {
		add(fmt.Sprintf("NUMA node %d", n.Node), n.CPUs)
	}
	add("frequency driver", h.FreqDriver)
	add("P-state driver", h.PState)
	add("energy-performance preference", h.EPP)
	add("turbo", h.Turbo)
	add("idle driver", h.IdleDriver)
	add("transparent huge pages", h.THP)
	add("clocksource", h.Clocksource)
	add("virtualized", h.Virtualized)
	// The system described, as results compare lists it.
	for _, c := range results.Conditions(&results.Document{Host: h}) {
		for _, p := range []string{"storage ", "network ", "memory modules", "platform"} {
			if strings.HasPrefix(c.Name, p) {
				add(c.Name, c.Value)
			}
		}
	}
	if p := h.Pause; p != nil {
		if p.NA != "" {
			add("PAUSE", "n/a ("+p.NA+")")
		} else {
			add("PAUSE", fmt.Sprintf("%s ns, %s TSC ticks", num(p.NS), num(p.TSCTicks)))
		}
	}
	keys := make([]string, 0, len(h.Unknown))
	for k := range h.Unknown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add("unknown: "+k, h.Unknown[k])
	}
	for _, f := range h.Findings {
		add(f.Tier+": "+f.Code, f.Message)
	}
	return out
}

// client is what the client process cost: its peak memory and its CPU over the window.
func client(d *results.Document) []kv {
	var out []kv
	if b := d.Client.PeakRSSBytes; b > 0 {
		out = append(out, kv{"client peak RSS", fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))})
	}
	if w := d.Window.ClientSeconds; w > 0 && d.Client.CPUSeconds > 0 {
		out = append(out, kv{"client CPU over the window", num(100*d.Client.CPUSeconds/w) + "% of one core"})
	}
	return out
}

// terminals are a run of terminals' figures beside the run's: how many over how many
// connections, and with keying and thinking, the run against its specification.
func terminals(d *results.Document) []kv {
	t := d.Terminals
	if t == nil {
		return nil
	}
	what := fmt.Sprintf("%s over %s pooled connections", thousands(float64(t.Terminals)), thousands(float64(t.Connections)))
	if t.Of > 0 {
		what += fmt.Sprintf(" (this part's; %s in the run)", thousands(float64(t.Of)))
	}
	out := []kv{{"terminals", what}}
	sp := results.SpecOf(d)
	if sp == nil {
		return out
	}
	eff := fmt.Sprintf("%.1f%%: %s tpmC of the specification's ceiling of %s (12.86 per warehouse)", sp.EfficiencyPct, thousands(sp.TpmC), thousands(sp.Ceiling))
	if sp.TerminalsPerWarehouse != 10 {
		eff += fmt.Sprintf("; %s terminals per warehouse, where the ceiling assumes 10", num(sp.TerminalsPerWarehouse))
	}
	out = append(out, kv{"efficiency", eff})
	verdict := "all met"
	if !sp.Met {
		var missed []string
		for _, c := range sp.ResponseTime {
			switch {
			case c.Reason != "":
				missed = append(missed, c.Txn+": "+c.Reason)
			case !c.Met:
				missed = append(missed, fmt.Sprintf("%s %s ms > %s s", c.Txn, num(c.P90Ms), num(c.LimitMs/1000)))
			}
		}
		verdict = "NOT met: " + strings.Join(missed, ", ")
	}
	return append(out, kv{"response-time constraints (90th percentile, clause 5.2.5.3)", verdict})
}

// termRows is the terminals' table: per type, the response time against its constraint when the
// terminals keyed and thought, the wait for a connection, and the measured menu, keying and think
// times.
func termRows(d *results.Document) (string, []termRow) {
	t := d.Terminals
	if t == nil {
		return "", nil
	}
	limits := map[string]results.RTConstraint{}
	sp := results.SpecOf(d)
	if sp != nil {
		for _, c := range sp.ResponseTime {
			limits[c.Txn] = c
		}
	}
	opt := func(v *float64) string {
		if v == nil {
			return "–"
		}
		return num(*v)
	}
	var rows []termRow
	for _, name := range txnNames(d) {
		tt := t.Txns[name]
		if tt == nil {
			continue
		}
		r := termRow{Name: name, P90: "–", Limit: "–", WaitMean: num(tt.WaitMs.Mean), WaitP95: num(tt.WaitMs.P95),
			Menu: opt(tt.MenuMs), Keying: opt(tt.KeyingS), Think: opt(tt.ThinkS)}
		if c, ok := limits[name]; ok {
			r.P90, r.Limit, r.Verdict, r.Missed = num(c.P90Ms), num(c.LimitMs/1000), "met", !c.Met
			switch {
			case c.Reason != "":
				r.P90, r.Verdict = "–", "NOT met: "+c.Reason
			case !c.Met:
				r.Verdict = "NOT met"
			}
		}
		rows = append(rows, r)
	}
	caption := fmt.Sprintf("Terminals (%s over %s connections): response time from submission, the wait for a connection included",
		thousands(float64(t.Terminals)), thousands(float64(t.Connections)))
	if sp == nil {
		caption += "; without keying and thinking, no constraint applies"
	}
	return caption, rows
}

// observed are the observations of a run beside its figures: the server's CPU, the host's, the
// top waits, the binding.
func observed(d *results.Document) []kv {
	var out []kv
	if s := d.Server; s != nil && s.Where != "embedded" {
		if s.CPUusPerTxn > 0 {
			who := fmt.Sprintf("%s pid %d", s.Process, s.PID)
			if len(s.Members) > 0 {
				who = fmt.Sprintf("%d servers", len(s.Members))
			}
			out = append(out, kv{"server CPU per transaction", fmt.Sprintf("%s µs (%s)", num(s.CPUusPerTxn), who)})
		} else if s.Note != "" {
			out = append(out, kv{"server CPU", "n/a (" + s.Note + ")"})
		}
	}
	if io := results.DiskIOOf(d); io != nil {
		out = append(out, kv{"disk I/O over the window", summary.DiskText(io)})
		if v := io.Server; v != nil {
			out = append(out, kv{"the server's own I/O", summary.ServerIOText(v)})
		}
	}
	if c, cores, ok := d.WindowCPU(); ok {
		busiest := 0
		for i := range cores {
			if cores[i].Busy() > cores[busiest].Busy() {
				busiest = i
			}
		}
		t := num(c.Busy()) + "% busy"
		if len(cores) > 1 {
			t += fmt.Sprintf("; busiest core cpu%d %s%%", busiest, num(cores[busiest].Busy()))
		}
		out = append(out, kv{"host CPU over the window", t})
	}
	if w := d.Waits; w != nil {
		top := w.Top(5)
		if top == "" {
			top = "none recorded"
		}
		out = append(out, kv{"top waits", top})
		for _, s := range w.PerServer {
			t := results.TopWaits(s.Events, 3)
			if t == "" {
				t = "none recorded"
			}
			out = append(out, kv{"top waits on " + s.Server, t})
		}
		for _, n := range w.Notes {
			out = append(out, kv{"waits", n})
		}
	}
	if b := d.Binding; b != nil {
		if b.ClientCPUs != "" {
			out = append(out, kv{"cairn bound to CPUs", b.ClientCPUs})
		}
		if b.ServerCPUs != "" {
			out = append(out, kv{"server bound to CPUs", b.ServerCPUs})
		}
	}
	return out
}

// config shows the configuration as indented JSON: it is a struct when the run was just made and
// a map when it came back from a stored document, and both print the same way.
func config(c any) string {
	if c == nil {
		return ""
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Sprintf("%+v", c)
	}
	return string(b)
}

func txnRows(d *results.Document) []txnRow {
	var rows []txnRow
	for _, name := range txnNames(d) {
		t := d.Txns[name]
		if t == nil {
			continue
		}
		l := t.LatencyMs
		rows = append(rows, txnRow{Name: name, Count: thousands(float64(t.Count)), Mix: fmt.Sprintf("%.1f%%", t.Percentage),
			Errors: strconv.FormatInt(t.Errors, 10), P50: num(l.P50), P95: num(l.P95), P99: num(l.P99), Max: num(l.Max)})
	}
	return rows
}

func seconds(s float64) string { return num(s) + " s" }

// num prints a figure with the precision it deserves: whole numbers above 100, three significant
// digits below.
func num(v float64) string {
	switch a := abs(v); {
	case a >= 100:
		return thousands(v)
	case a == 0:
		return "0"
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func thousands(v float64) string {
	return humanize.Comma(int64(math.Round(v)))
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// plusMinus is the 95% interval of the run's figure name as the report shows it beside the
// figure, " ±1.8% (95%)", "" without one (docs/steady-state.md).
func plusMinus(d *results.Document, name string) string {
	iv := d.Result.Interval(name)
	if iv == nil {
		return ""
	}
	s := fmt.Sprintf(" ±%.1f%% (95%%", 100*iv.Rel)
	if iv.Approximate {
		s += ", approximate"
	}
	return s + ")"
}
