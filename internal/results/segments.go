package results

import (
	"math"
	"slices"
	"strings"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// SettleSeconds is how long after a live change a segment's figures start: the server needs a
// moment to act on the new value (a spin loop picks up its delay on its next round, a commit
// its mode on its next transaction), and the second in which the change fell mixes both values.
const SettleSeconds = 1.0

// inside is the share of a tick that must lie in a segment's settled span for the tick to count
// in its figures: the series' seconds are ticks of the run's clock, the changes fall between
// them (a few milliseconds off a tick when planned on one), and on a busy host a tick can end a
// tenth of a second or more late.
const inside = 0.75

// Segment is the part of a run's window between two live changes (or a change and the
// window's end), with its figures. docs/result-format.md#segments defines each figure and how
// it is computed.
type Segment struct {
	Index int `json:"index"` // 1 for the part before the first change
	// Settings are the values in effect: every live-changed setting, as set.
	Settings []SettingValue `json:"settings"`
	// From and To bound the segment on the time series' clock (seconds from the run's start):
	// the window's start or a change's time, and the next change's time or the window's end.
	From float64 `json:"from_t"`
	To   float64 `json:"to_t"`
	// SpanSeconds and SpanTxns are every window second whose end falls in (From, To], settling
	// included: the segments' spans partition the window's seconds, so their length-weighted
	// throughput is the run's.
	SpanSeconds float64 `json:"span_seconds"`
	SpanTxns    int64   `json:"span_txns"`
	// SettleSeconds were left out after the change that opens the segment (none for the first);
	// Seconds are the time series' ticks that remain, those at least three quarters inside
	// [From+settle, To]; the figures below are theirs. Seconds is 0 when none remained: the
	// figures are then absent.
	SettleSeconds float64 `json:"settle_seconds"`
	Seconds       float64 `json:"seconds"`
	Txns          int64   `json:"txns"`
	Errors        int64   `json:"errors"`
	TPS           float64 `json:"tps"`
	// QPS is TPS times the run's statements per transaction (its queries.per_second over its
	// TPS): the time series does not count statements.
	QPS *float64 `json:"qps,omitempty"`
	// P95ms is the seconds' p95 latencies (all types) averaged, each weighted by its
	// transactions: an approximation, as the series keeps no histogram per second.
	P95ms float64 `json:"p95_ms"`
	// HostCPU is the host's busy share over the seconds, in percent; absent when not recorded.
	HostCPU *float64 `json:"host_cpu_percent,omitempty"`
	// Waits are the segment's top events: from the waits read at its settled part's edges
	// (Waits.Segments) where the run has them, else (a run stored before) from the wait intervals
	// ending in the segment (settling left out), each event's share averaged over those
	// intervals, an interval without it counting 0.
	Waits []WaitEvent `json:"top_waits,omitempty"`
	// Synch are the segment's top synch waits, each with its share of the segment's synch waits
	// alone, read at its settled part's edges; absent where they were not read.
	Synch []WaitEvent `json:"top_synch_waits,omitempty"`
	// Running is the running threads over the seconds; absent where the run has none.
	Running *SegmentRunning `json:"running_threads,omitempty"`
	// Disks are the block devices' I/O over the seconds (extra.observations.disk-io), the mean
	// of the seconds' figures; absent where the run has none.
	Disks []SegmentDisk `json:"disk_io,omitempty"`
	// Recovery is how long the throughput took to settle at its new level after the change that
	// opens the segment; absent for the first segment and where the segment is too short.
	Recovery *Recovery `json:"recovery,omitempty"`
}

// LoadSetting is the name a load schedule's changes (spec.Engine's schedule) go by among a run's
// live changes (Document.Changes): the count of VUs running.
const LoadSetting = "vu"

// RateSetting is the name of a load schedule's changes of an open loop's total rate.
const RateSetting = "rate"

// RecoveryBand is the band around a segment's steady throughput its seconds must stay within
// for the throughput to count as recovered from the change (Recovery).
const RecoveryBand = 0.10

// Recovery is the time from a live change to the first second of the series from which every
// second's throughput stays within Band of the segment's steady throughput (SteadyTPS: its
// second half's), to the segment's end. docs/result-format.md#segments defines it exactly.
type Recovery struct {
	Band      float64 `json:"band"`
	SteadyTPS float64 `json:"steady_tps"`
	// Recovered is false when the segment's last second is itself outside the band: Seconds is
	// then absent.
	Recovered bool     `json:"recovered"`
	Seconds   *float64 `json:"seconds,omitempty"`
}

// Label names the segment by its values: "innodb_spin_wait_delay=12".
func (s *Segment) Label() string {
	parts := make([]string, len(s.Settings))
	for i, v := range s.Settings {
		val := v.Value
		if val == "" {
			val = "?"
		}
		parts[i] = v.Name + "=" + val
	}
	return strings.Join(parts, ", ")
}

// Segments splits a run's window at its live changes (d.Changes), leaving settle seconds out
// after each, and measures each part from the per-second series and the wait intervals. first
// are the changed settings' values before the first change, where known. nil when the run made
// no live change.
func Segments(d *Document, first []SettingValue, settle float64) []Segment {
	if len(d.Changes) == 0 {
		return nil
	}
	// Changes planned for one instant open one segment, at the last of their times.
	type cut struct {
		planned, t float64
		set        []SettingValue
	}
	var cuts []cut
	for _, c := range d.Changes {
		if n := len(cuts); n > 0 && cuts[n-1].planned == c.Planned {
			cuts[n-1].t = max(cuts[n-1].t, c.T)
			cuts[n-1].set = append(cuts[n-1].set, SettingValue{c.Name, c.Value})
			continue
		}
		cuts = append(cuts, cut{c.Planned, c.T, []SettingValue{{c.Name, c.Value}}})
	}
	slices.SortStableFunc(cuts, func(a, b cut) int { return cmpFloat(a.t, b.t) })

	// The values in effect: every name any change sets, first as given, then as each cut sets it.
	var cur []SettingValue
	seen := map[string]bool{}
	for _, c := range d.Changes {
		if !seen[c.Name] {
			seen[c.Name] = true
			v := SettingValue{Name: c.Name}
			for _, f := range first {
				if strings.EqualFold(f.Name, c.Name) {
					v.Value = f.Value
				}
			}
			cur = append(cur, v)
		}
	}
	start, end := windowSpan(d.Series)
	segs := make([]Segment, 0, len(cuts)+1)
	from := start
	for i := 0; i <= len(cuts); i++ {
		s := Segment{Index: i + 1, Settings: slices.Clone(cur), From: from, To: end}
		if i < len(cuts) {
			s.To = cuts[i].t
		}
		if i > 0 {
			s.SettleSeconds = settle
		}
		segs = append(segs, s)
		if i < len(cuts) {
			for _, v := range cuts[i].set {
				for j := range cur {
					if cur[j].Name == v.Name {
						cur[j].Value = v.Value
					}
				}
			}
			from = cuts[i].t
		}
	}
	measure(d, segs)
	for i := 1; i < len(segs); i++ {
		segs[i].Recovery = recovery(d.Series, segs[i].From, segs[i].To, RecoveryBand)
	}
	return segs
}

// recovery measures how the throughput settled after a change at from, to the segment's end at
// to: the steady level is the throughput of the ticks lying (mostly) in the segment's second
// half; the ticks after the change (at least three quarters after it) are read in order, and the
// throughput recovered at the end of the last one outside band × the steady level (at the start
// of the first, when none is). nil when fewer than two ticks make the second half.
func recovery(series []metrics.Second, from, to, band float64) *Recovery {
	type tick struct{ start, end, tps float64 }
	var ticks []tick
	var steadyTxns int64
	var steadySecs float64
	steadyN := 0
	mid := (from + to) / 2
	prev := 0.0
	for _, x := range series {
		dt, start := x.T-prev, prev
		prev = x.T
		if !x.Window || dt <= 0 {
			continue
		}
		if min(x.T, to)-max(start, from) >= inside*dt {
			ticks = append(ticks, tick{start, x.T, float64(x.Txns) / dt})
		}
		if min(x.T, to)-max(start, mid) >= inside*dt {
			steadyTxns += x.Txns
			steadySecs += dt
			steadyN++
		}
	}
	if steadyN < 2 || len(ticks) == 0 {
		return nil
	}
	r := &Recovery{Band: band, SteadyTPS: float64(steadyTxns) / steadySecs}
	lo, hi := r.SteadyTPS*(1-band), r.SteadyTPS*(1+band)
	at := ticks[0].start
	for i, t := range ticks {
		if t.tps < lo || t.tps > hi {
			if i == len(ticks)-1 {
				return r
			}
			at = t.end
		}
	}
	sec := round3(max(at-from, 0))
	r.Recovered, r.Seconds = true, &sec
	return r
}

// windowSpan is where the window's seconds begin (the end of the last second before them) and
// end, on the series' clock.
func windowSpan(ss []metrics.Second) (float64, float64) {
	prev, start, end, seen := 0.0, 0.0, 0.0, false
	for _, s := range ss {
		if s.Window {
			if !seen {
				start, seen = prev, true
			}
			end = s.T
		}
		prev = s.T
	}
	return start, end
}

func measure(d *Document, segs []Segment) {
	qpt := 0.0 // statements per transaction
	if d.Result.QPS != nil && d.Result.TPS != nil && *d.Result.TPS > 0 {
		qpt = *d.Result.QPS / *d.Result.TPS
	}
	type acc struct {
		p95w    float64
		cpu     float64
		cpuSecs int
	}
	accs := make([]acc, len(segs))
	running := runningSeries(d)
	disks, diskNames := diskSeries(d)
	diskAccs := make([][]diskAcc, len(segs))
	for i := range diskAccs {
		diskAccs[i] = make([]diskAcc, len(diskNames))
	}
	runs := make([]struct {
		r SegmentRunning
		n int
	}, len(segs))
	prev := 0.0
	for _, x := range d.Series {
		dt := x.T - prev
		startT := prev
		prev = x.T
		if !x.Window {
			continue
		}
		for i := range segs {
			s := &segs[i]
			// Spans: the segment the tick ends in.
			if x.T > s.From && x.T <= s.To {
				s.SpanSeconds += dt
				s.SpanTxns += x.Txns
			}
			// Settled: the tick lies (mostly) after the change and its settling time, and before
			// the next change; it can end a little after that.
			if min(x.T, s.To)-max(startT, s.From+s.SettleSeconds) >= inside*dt {
				s.Seconds += dt
				s.Txns += x.Txns
				s.Errors += x.Errors
				accs[i].p95w += x.P95ms * float64(x.Txns)
				if x.CPU != nil {
					accs[i].cpu += x.CPU.Busy()
					accs[i].cpuSecs++
				}
				if ds, ok := disks[x.T]; ok {
					for j, dr := range ds {
						if j < len(diskNames) {
							diskAccs[i][j].add(dr)
						}
					}
				}
				if r, ok := running[x.T]; ok && r.Samples > 0 {
					a := &runs[i]
					a.r.Max, a.r.HostMax = max(a.r.Max, r.Max), max(a.r.HostMax, r.HostMax)
					a.r.Mean += r.Mean
					a.r.HostMean += r.HostMean
					a.n++
				}
			}
		}
	}
	for i := range segs {
		s := &segs[i]
		s.SpanSeconds, s.Seconds = round3(s.SpanSeconds), round3(s.Seconds)
		if s.Seconds <= 0 {
			continue
		}
		s.TPS = float64(s.Txns) / s.Seconds
		if qpt > 0 {
			q := s.TPS * qpt
			s.QPS = &q
		}
		if s.Txns > 0 {
			s.P95ms = accs[i].p95w / float64(s.Txns)
		}
		if accs[i].cpuSecs > 0 {
			c := accs[i].cpu / float64(accs[i].cpuSecs)
			s.HostCPU = &c
		}
		if a := runs[i]; a.n > 0 {
			r := a.r
			r.Mean, r.HostMean = math.Round(100*r.Mean/float64(a.n))/100, math.Round(100*r.HostMean/float64(a.n))/100
			s.Running = &r
		}
		for j, a := range diskAccs[i] {
			if a.n > 0 {
				s.Disks = append(s.Disks, a.segment(diskNames[j]))
			}
		}
		if ws := WaitsOfSegment(d, s.Index); ws != nil {
			s.Waits, s.Synch = cutSynch(ws.Events, segmentTop), cutSynch(ws.Synch, segmentSynch)
		} else if d.Waits != nil {
			s.Waits = segmentWaits(d.Waits.Intervals, s.From+s.SettleSeconds, s.To, i == len(segs)-1)
		}
	}
}

// segmentWaits averages the shares of the wait intervals ending in (from, to] (to unbounded for
// the last segment) and keeps the first three events.
func segmentWaits(ivs []WaitInterval, from, to float64, last bool) []WaitEvent {
	share := map[string]*WaitEvent{}
	var order []string
	n := 0
	for _, iv := range ivs {
		if iv.T <= from || iv.T > to && !last {
			continue
		}
		n++
		for _, e := range iv.Top {
			w := share[e.Name]
			if w == nil {
				w = &WaitEvent{Name: e.Name, Class: e.Class}
				share[e.Name] = w
				order = append(order, e.Name)
			}
			w.Share += e.Share
			w.Samples += e.Samples
			w.Count += e.Count
			w.TimeMs += e.TimeMs
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]WaitEvent, 0, len(order))
	for _, name := range order {
		w := *share[name]
		w.Share /= float64(n)
		out = append(out, w)
	}
	slices.SortStableFunc(out, func(a, b WaitEvent) int { return cmpFloat(b.Share, a.Share) })
	return out[:min(3, len(out))]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// SegmentRow is one segment of one case at one VU count, over the step's repeated runs: each
// figure's mean and spread over the runs that measured the segment.
type SegmentRow struct {
	Case  int
	VU    int
	Index int
	Label string
	TPS   Stat
	QPS   Stat
	P95ms Stat
	// Waits are the first run's top waits in the segment.
	Waits []WaitEvent
	// Disk is the writes per second of Device, the first device of the runs' disk I/O (the
	// one under the data directory), over the segment; Device is "" where no run read it.
	Device string
	Disk   Stat
	// Recovery is the seconds to recover after the change that opens the segment, over the runs
	// that recovered; NotRecovered counts the runs that did not by the segment's end.
	Recovery     Stat
	NotRecovered int
}

// SegmentRows are a study's segments per case and VU count, in the cases' and steps' order:
// the VU levels × the live values.
func (s *Study) SegmentRows() []SegmentRow {
	var out []SegmentRow
	for ci, c := range s.Cases {
		for _, st := range c.Profile.Steps {
			var rows []SegmentRow
			var tps, qps, p95, disk, rec [][]float64
			for _, d := range st.Runs {
				for _, g := range s.RunSegments(d) {
					k := g.Index - 1
					for len(rows) <= k {
						rows = append(rows, SegmentRow{Case: ci, VU: st.VU, Index: len(rows) + 1})
						tps, qps, p95, disk, rec = append(tps, nil), append(qps, nil), append(p95, nil), append(disk, nil), append(rec, nil)
					}
					if rows[k].Label == "" {
						rows[k].Label = g.Label()
					}
					if r := g.Recovery; r != nil && r.Recovered {
						rec[k] = append(rec[k], *r.Seconds)
					} else if r != nil {
						rows[k].NotRecovered++
					}
					if g.Seconds <= 0 {
						continue
					}
					tps[k] = append(tps[k], g.TPS)
					p95[k] = append(p95[k], g.P95ms)
					if g.QPS != nil {
						qps[k] = append(qps[k], *g.QPS)
					}
					if rows[k].Waits == nil {
						rows[k].Waits = g.Waits
					}
					if len(g.Disks) > 0 && (rows[k].Device == "" || rows[k].Device == g.Disks[0].Device) {
						rows[k].Device = g.Disks[0].Device
						disk[k] = append(disk[k], g.Disks[0].WritesPerS)
					}
				}
			}
			for k := range rows {
				rows[k].TPS, rows[k].QPS, rows[k].P95ms = NewStat(tps[k]), NewStat(qps[k]), NewStat(p95[k])
				rows[k].Disk, rows[k].Recovery = NewStat(disk[k]), NewStat(rec[k])
			}
			out = append(out, rows...)
		}
	}
	return out
}

// RunSegments are a run's segments: as stored, or for a run stored before cairn kept them,
// derived from its changes and time series, starting from its case's values.
func (s *Study) RunSegments(d *Document) []Segment {
	if len(d.Segments) > 0 || len(d.Changes) == 0 {
		return d.Segments
	}
	var first []SettingValue
	if d.Study != nil && d.Study.Case >= 0 && d.Study.Case < len(s.Cases) {
		first = s.before(s.Cases[d.Study.Case])
	}
	return Segments(d, first, SettleSeconds)
}

// before are the settings a case's runs started with: its levels as applied, else the settings
// as found.
func (s *Study) before(c *StudyCase) []SettingValue {
	out := slices.Clone(s.Original)
	for _, l := range append(slices.Clone(c.Levels), c.Applied...) {
		for i := range out {
			if strings.EqualFold(out[i].Name, l.Name) {
				out[i].Value = l.Value
			}
		}
	}
	return out
}

// WeightedTPS is the segments' throughput weighted by their spans' lengths: the run's own, as
// the spans partition the window's seconds.
func WeightedTPS(segs []Segment) float64 {
	var n int64
	var sec float64
	for _, s := range segs {
		n += s.SpanTxns
		sec += s.SpanSeconds
	}
	if sec == 0 {
		return 0
	}
	return float64(n) / sec
}
