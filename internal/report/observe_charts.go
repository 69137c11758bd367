package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
)

// observationCharts draw what cairn observed beside the figures: each run's per-core CPU as a
// heat map over time and its running threads, the top waits of runs side by side, a profile's
// running threads and waits per step and its peak step's CPU, then the on-CPU flame graphs.
// Charts puts the running threads beside the throughput (besideThroughput).
func observationCharts(runs, profiles []labelled) []Chart {
	var out []Chart
	for i, r := range runs {
		if c := coreHeat(r.Run, r.label, fmt.Sprintf("run-cpu-%d", i+1)); c != nil {
			out = append(out, *c)
		}
		out = append(out, diskCharts(r.Run, r.label, fmt.Sprintf("run-disk-%d", i+1))...)
		if c := runningChart(r.Run, r.label, fmt.Sprintf("run-running-%d", i+1)); c != nil {
			out = append(out, *c)
		}
		if c := sessionHistory(r.Run, r.label, fmt.Sprintf("run-sessions-%d", i+1)); c != nil {
			out = append(out, *c)
		}
	}
	if c := runWaits(runs, "run-waits", "Top waits (share of the measured window)", 8, allWaits); c != nil {
		out = append(out, *c)
	}
	// Synch waits are drawn apart only where some run measured them: a server's latches are then
	// read alone, not as a sliver beside its I/O and handler time.
	if sy := runWaits(runs, "run-synch-waits", "Top synch waits (share of the synch waits alone)", 8, synchWaits); sy != nil {
		if c := runWaits(runs, "run-wait-groups", "Waits by group (share of the measured window)", 4, groupWaits); c != nil {
			out = append(out, *c)
		}
		out = append(out, *sy)
	}
	for i, p := range profiles {
		if c := stepRunning(p.Profile, p.label, fmt.Sprintf("profile-running-%d", i+1)); c != nil {
			out = append(out, *c)
		}
		if c := stepWaits(p.Profile, p.label, fmt.Sprintf("profile-waits-%d", i+1)); c != nil {
			out = append(out, *c)
		}
		if peak := p.Profile.StepAt(p.Profile.Marks.Peak); peak != nil {
			if d := firstMeasured(peak); d != nil {
				if c := coreHeat(d, p.label+" · peak step, "+vuName(peak.VU), fmt.Sprintf("profile-cpu-%d", i+1)); c != nil {
					out = append(out, *c)
				}
			}
		}
	}
	return append(out, flameCharts(runs, profiles)...)
}

// coreHeat is each CPU's busy share (not idle, not waiting for I/O) every second of the run.
func coreHeat(d *results.Document, label, id string) *Chart {
	h := &Heat{Max: 100, Unit: "% busy"}
	for _, s := range d.Series {
		if len(s.Cores) == 0 {
			continue
		}
		if len(h.Rows) == 0 {
			for c := range s.Cores {
				h.Rows = append(h.Rows, fmt.Sprintf("cpu%d", c))
			}
		}
		row := make([]float64, len(h.Rows))
		for c := range row {
			if c < len(s.Cores) {
				row[c] = math.Round(s.Cores[c].Busy()*10) / 10
			}
		}
		h.X = append(h.X, s.T)
		h.Values = append(h.Values, row)
	}
	if len(h.X) < 2 { // a heat map needs two columns to have a width
		return nil
	}
	return &Chart{ID: id, Title: "Per-core CPU busy over time · " + label, XLabel: labelSeconds, YLabel: "CPU",
		XAxis: AxisLinear, Bands: windowBands(d.Series), Heat: h}
}

// diskCharts are each recorded device's requests and megabytes per second over the run, drawn
// after the per-core CPU, so that a run's I/O reads against the same seconds' CPU.
func diskCharts(d *results.Document, label, id string) []Chart {
	io := results.DiskIOOf(d)
	if io == nil || len(io.Series) < 2 || len(io.Devices) == 0 {
		return nil
	}
	ops := Chart{ID: id + "-ops", Title: "Disk requests per second · " + label, XLabel: labelSeconds,
		YLabel: "requests/s", XAxis: AxisLinear, Bands: windowBands(d.Series)}
	mbs := Chart{ID: id + "-mbs", Title: "Disk throughput (MB = 10^6 bytes) · " + label, XLabel: labelSeconds,
		YLabel: "MB/s", XAxis: AxisLinear, Bands: windowBands(d.Series)}
	for j, dv := range io.Devices {
		name := dv.Name
		if len(dv.Roles) > 0 {
			name += " (" + strings.Join(dv.Roles, ", ") + ")"
		}
		w, r := Series{Name: name + " writes"}, Series{Name: name + " reads"}
		wm, rm := Series{Name: name + " write"}, Series{Name: name + " read"}
		for _, p := range io.Series {
			if j >= len(p.Devices) {
				continue
			}
			x := p.Devices[j]
			w.Points = append(w.Points, [2]float64{p.T, x.WritesPerS})
			r.Points = append(r.Points, [2]float64{p.T, x.ReadsPerS})
			wm.Points = append(wm.Points, [2]float64{p.T, x.WriteMBs})
			rm.Points = append(rm.Points, [2]float64{p.T, x.ReadMBs})
		}
		ops.Series = append(ops.Series, w, r)
		mbs.Series = append(mbs.Series, wm, rm)
	}
	return []Chart{ops, mbs}
}

func allWaits(w *results.Waits) []results.WaitEvent   { return w.Events }
func synchWaits(w *results.Waits) []results.WaitEvent { return w.SynchAlone() }

// groupWaits is the groups as events, in their fixed order, for a chart.
func groupWaits(w *results.Waits) []results.WaitEvent {
	var out []results.WaitEvent
	for _, g := range w.ByGroup() {
		out = append(out, results.WaitEvent{Name: g.Group, Share: g.Share})
	}
	return out
}

// runWaits is what pick takes of the waits of one or more runs (their first n events), by
// event: each run's share of its sampled sessions (or of its timed waits' time).
func runWaits(runs []labelled, id, title string, n int, pick func(*results.Waits) []results.WaitEvent) *Chart {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		if r.Run.Waits == nil {
			continue
		}
		for i, e := range pick(r.Run.Waits) {
			if i == n {
				break
			}
			if e.Share > 0 && !seen[e.Name] {
				seen[e.Name] = true
				names = append(names, e.Name)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	c := &Chart{ID: id, Title: title, XLabel: "wait event",
		YLabel: "% of samples or of wait time", XAxis: AxisLinear, Categories: names}
	for _, r := range runs {
		s := Series{Name: r.label}
		if r.Run.Waits != nil {
			for _, e := range pick(r.Run.Waits) {
				for j, n := range names {
					if n == e.Name {
						s.Points = append(s.Points, [2]float64{float64(j), math.Round(e.Share*1000) / 10})
					}
				}
			}
		}
		sort.Slice(s.Points, func(a, b int) bool { return s.Points[a][0] < s.Points[b][0] })
		c.Series = append(c.Series, s)
	}
	return c
}

// stepWaits stacks each step's waits by event: the events that lead anywhere, the rest "other".
func stepWaits(p *results.Profile, label, id string) *Chart {
	weight := map[string]float64{}
	var steps []*results.Document
	var cats []string
	for _, st := range p.Steps {
		d := firstMeasured(st)
		if d == nil || d.Waits == nil || len(d.Waits.Events) == 0 {
			continue
		}
		steps = append(steps, d)
		cats = append(cats, vuName(st.VU))
		for _, e := range d.Waits.Events {
			weight[e.Name] += e.Share
		}
	}
	if len(steps) == 0 {
		return nil
	}
	names := make([]string, 0, len(weight))
	for n, w := range weight {
		if w > 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Slice(names, func(i, j int) bool {
		return weight[names[i]] > weight[names[j]] || weight[names[i]] == weight[names[j]] && names[i] < names[j]
	})
	if len(names) > 7 {
		names = append(names[:7], "other")
	}
	c := &Chart{ID: id, Title: "Waits per step (first run of each) · " + label, XLabel: labelVUs,
		YLabel: "% of samples or of wait time", XAxis: AxisLinear, Categories: cats, Stacked: true}
	for _, n := range names {
		s := Series{Name: n}
		for i, d := range steps {
			v := 0.0
			for _, e := range d.Waits.Events {
				if e.Name == n || n == "other" && !contains(names[:len(names)-1], e.Name) {
					v += e.Share
				}
			}
			s.Points = append(s.Points, [2]float64{float64(i), math.Round(v*1000) / 10})
		}
		c.Series = append(c.Series, s)
	}
	return c
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// runningChart is the run's running threads each second, as the observer sampled them: the
// server's max and mean over the second and the host's run queue max, the window shaded as in
// the throughput chart, so that a surge a mean hides shows against it.
func runningChart(d *results.Document, label, id string) *Chart {
	r := results.RunningOf(d)
	if r == nil || len(r.Series) < 2 {
		return nil
	}
	c := &Chart{ID: id, Title: fmt.Sprintf("Running threads over time (sampled every %d ms) · %s", r.IntervalMs, label),
		XLabel: labelSeconds, YLabel: "threads", XAxis: AxisLinear, Bands: windowBands(d.Series)}
	smax, smean, hmax := Series{Name: "server, max"}, Series{Name: "server, mean"}, Series{Name: "host run queue, max"}
	for _, p := range r.Series {
		smax.Points = append(smax.Points, [2]float64{p.T, float64(p.Max)})
		smean.Points = append(smean.Points, [2]float64{p.T, p.Mean})
		hmax.Points = append(hmax.Points, [2]float64{p.T, float64(p.HostMax)})
	}
	if r.Source != "" {
		c.Series = append(c.Series, smax, smean)
	}
	if r.Host != nil {
		c.Series = append(c.Series, hmax)
	}
	if len(c.Series) == 0 {
		return nil
	}
	return c
}

// stepRunning is a profile's running threads each second, one line per step (its first run, as
// the throughput per step draws it): the server's max of each second, or where no step read the
// server's, the host's run queue max.
func stepRunning(p *results.Profile, label, id string) *Chart {
	type step struct {
		vu int
		r  *results.Running
	}
	var steps []step
	server := false
	for _, st := range p.Steps {
		d := firstMeasured(st)
		if d == nil {
			continue
		}
		if r := results.RunningOf(d); r != nil && len(r.Series) >= 2 {
			steps = append(steps, step{st.VU, r})
			server = server || r.Source != ""
		}
	}
	if len(steps) == 0 {
		return nil
	}
	what := "server's running threads, max of each second"
	if !server {
		what = "host's run queue, max of each second"
	}
	c := &Chart{ID: id, Title: "Running threads over time per step (" + what + ") · " + label,
		XLabel: "seconds since the step's run started", YLabel: "threads", XAxis: AxisLinear}
	for _, s := range steps {
		if server && s.r.Source == "" || !server && s.r.Host == nil {
			continue
		}
		sr := Series{Name: vuName(s.vu)}
		for _, pt := range s.r.Series {
			v := pt.Max
			if !server {
				v = pt.HostMax
			}
			sr.Points = append(sr.Points, [2]float64{pt.T, float64(v)})
		}
		c.Series = append(c.Series, sr)
	}
	return c
}

// besideThroughput moves the running-threads charts next to the throughput over time they
// explain, so that a surge reads against the same seconds' throughput: a run's after its
// throughput chart, a profile's after its throughput per step. Where there is no such throughput
// chart (TPC-H's timed queries), they stay where they were drawn.
func besideThroughput(cs []Chart) []Chart {
	anchor := func(id string) string {
		switch id {
		case "run-throughput", "runs-throughput":
			return "run-running-"
		case "profile-throughput-time", "profiles-peak-throughput":
			return "profile-running-"
		}
		return ""
	}
	anchored := map[string]bool{}
	for _, c := range cs {
		if p := anchor(c.ID); p != "" {
			anchored[p] = true
		}
	}
	moves := func(id string) bool {
		return anchored["run-running-"] && strings.HasPrefix(id, "run-running-") ||
			anchored["profile-running-"] && strings.HasPrefix(id, "profile-running-")
	}
	var running []Chart
	for _, c := range cs {
		if moves(c.ID) {
			running = append(running, c)
		}
	}
	if len(running) == 0 {
		return cs
	}
	out := make([]Chart, 0, len(cs))
	for _, c := range cs {
		if moves(c.ID) {
			continue
		}
		out = append(out, c)
		if p := anchor(c.ID); p != "" {
			for _, r := range running {
				if strings.HasPrefix(r.ID, p) {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// sessionHistory is the run's session history: the average active sessions in each wait class
// every second (a class's sessions over the second's samples / the samples), stacked, the window
// shaded and the live changes marked, with what a selected span's table of top events needs.
func sessionHistory(d *results.Document, label, id string) *Chart {
	// A run in which no sample saw an active session has nothing to stack.
	if d.Waits == nil || d.Waits.History == nil || len(d.Waits.History.Seconds) < 2 || len(d.Waits.History.Classes) == 0 {
		return nil
	}
	h := d.Waits.History
	c := &Chart{ID: id, Title: fmt.Sprintf("Session history: average active sessions per wait class (sampled every %d ms) · %s", h.IntervalMs, label),
		XLabel: labelSeconds, YLabel: "active sessions", XAxis: AxisLinear, Bands: windowBands(d.Series), Area: true}
	for _, class := range h.Classes {
		s := Series{Name: class}
		for _, sec := range h.Seconds {
			v := 0.0
			if sec.Reads > 0 {
				v = math.Round(1000*float64(sec.Classes[class])/float64(sec.Reads)) / 1000
			}
			s.Points = append(s.Points, [2]float64{sec.T, v})
		}
		c.Series = append(c.Series, s)
	}
	c.Lines = changeLines(d)
	sp := &SessionSpans{}
	index := map[string]int{}
	names := make([]string, 0, len(h.Events))
	for name := range h.Events {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		index[name] = len(sp.Events)
		sp.Events = append(sp.Events, name)
		sp.Class = append(sp.Class, h.Events[name])
	}
	for _, sec := range h.Seconds {
		sp.X = append(sp.X, sec.T)
		sp.Reads = append(sp.Reads, sec.Reads)
		pairs := []int64{}
		for _, name := range names {
			if n := sec.Events[name]; n > 0 {
				pairs = append(pairs, int64(index[name]), n)
			}
		}
		sp.Counts = append(sp.Counts, pairs)
	}
	c.Sessions = sp
	return c
}

// changeLines mark a run's live changes (a study's settings, a load schedule's vu and rate) where
// they took effect on the time series' clock, each instant labelled once.
func changeLines(d *results.Document) []Mark {
	var out []Mark
	marked := map[float64]bool{}
	for _, x := range d.Changes {
		label := fmt.Sprintf("%s=%s", x.Name, x.Value)
		if marked[x.T] {
			label = ""
		}
		marked[x.T] = true
		out = append(out, Mark{X: x.T, Label: label})
	}
	return out
}
