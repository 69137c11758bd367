package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
)

// studyCases are a study's cases as profiles, each labelled by the levels that differ between
// the cases (caseTitles).
func studyCases(st *results.Study) []labelled {
	titles, _ := caseTitles(st)
	out := make([]labelled, 0, len(st.Cases))
	for i, c := range st.Cases {
		if len(c.Profile.Steps) == 0 {
			continue
		}
		out = append(out, labelled{Item{Profile: c.Profile}, titles[i]})
	}
	return out
}

// studyCharts are a study's charts, as the published studies drew them: throughput and p95
// against VUs with a line per level (error bars over the repeats), each level's waits per VU
// count stacked, per-core CPU at each level's peak. A study with live changes opens with the
// throughput over time, each change marked where it took effect, then each live value's figures
// against VUs from the segments; its runs' own figures, which mix the values, and verdicts judged
// from them are not drawn.
func studyCharts(st *results.Study) []Chart {
	cases := studyCases(st)
	var cs []Chart
	switch {
	case len(cases) == 0:
		return nil
	case live(st):
		cases = unjudged(cases)
		cs = liveStudyCharts(st, cases)
	case len(cases) == 1:
		cs = profileCharts(cases[0].Profile, cases[0].label)
	default:
		cs = profileOverlays(cases)
	}
	cs = append(cs, fanoutCharts(st)...)
	if !live(st) {
		cs = append(cs, observationCharts(nil, cases)...)
	}
	// The flame graphs per segment and the differential ones: study_flame.go.
	return cs
}

// liveCharts draw, per case, each VU count's first run over time with its live changes marked
// on its own line where they took effect. The x axis is the window's clock, the one the
// schedule's times are written on, so that a change planned at 3m is drawn at 3m (the rampup
// lies below 0). Each change is labelled once, on the first line it falls on.
func liveCharts(st *results.Study) []Chart {
	if !live(st) {
		return nil
	}
	titles, _ := caseTitles(st)
	var out []Chart
	for ci, c := range st.Cases {
		ch := Chart{ID: fmt.Sprintf("study-live-%d", ci+1), Title: "Throughput over time with the live changes · " + titles[ci],
			XLabel: labelWindow, YLabel: labelTPM, XAxis: AxisLinear}
		var bands [][]Band
		marked := map[string]bool{}
		for _, step := range c.Profile.Steps {
			d := firstMeasured(step)
			if d == nil {
				continue
			}
			off := windowStart(d)
			s := Series{Name: vuName(step.VU), Points: rate(d.Series, allTxns)}
			for i := range s.Points {
				s.Points[i][0] -= off
			}
			// The published live study read queries per second: where the run counted its
			// statements, its per-second counts are scaled by its statements per transaction.
			if qpt := queriesPerTxn(d); qpt > 0 {
				for i := range s.Points {
					s.Points[i][1] *= qpt / 60
				}
				ch.Title, ch.YLabel = "Queries per second over time with the live changes · "+titles[ci], labelQPS
			}
			for _, x := range d.Changes {
				key := fmt.Sprintf("%g %s", x.Planned, x.Name)
				label := ""
				if !marked[key] {
					marked[key] = true
					label = fmt.Sprintf("%s=%s at %s", x.Name, x.Value, atText(x.Planned))
				}
				s.Marks = append(s.Marks, Mark{X: x.AtSec, Y: yAt(s.Points, x.AtSec), Label: label})
			}
			ch.Series = append(ch.Series, s)
			b := windowBands(d.Series)
			for i := range b {
				b[i].From, b[i].To = b[i].From-off, b[i].To-off
			}
			bands = append(bands, b)
		}
		if b := sameBands(bands); b != nil {
			ch.Bands = b
		}
		out = append(out, ch)
	}
	return out
}

// labelWindow is the live charts' x axis: the schedule's clock.
const labelWindow = "seconds since the measured window started (the schedule's clock; the rampup is below 0)"

// labelQPS says how a live chart's queries per second are counted.
const labelQPS = "queries per second (transactions × the run's statements per transaction)"

// queriesPerTxn is the run's statements per transaction, 0 where it did not count them.
func queriesPerTxn(d *results.Document) float64 {
	if d.Result.QPS == nil || d.Result.TPS == nil || *d.Result.TPS <= 0 {
		return 0
	}
	return *d.Result.QPS / *d.Result.TPS
}

// yAt is the series' value at the point nearest x.
func yAt(pts [][2]float64, x float64) float64 {
	best, y := math.Inf(1), 0.0
	for _, p := range pts {
		if d := math.Abs(p[0] - x); d < best {
			best, y = d, p[1]
		}
	}
	return y
}

// atText writes a planned time as the study file would: "3m", "45s", "1.5s".
func atText(sec float64) string {
	switch {
	case sec >= 60 && math.Mod(sec, 60) == 0:
		return fmt.Sprintf("%gm", sec/60)
	default:
		return fmt.Sprintf("%gs", sec)
	}
}

// summarizeStudy is the study's own summary: what was varied, the settings as found and whether
// they were restored, the schedule; each case follows as a profile.
func summarizeStudy(st *results.Study, label string) itemView {
	v := itemView{Label: label, Interrupted: st.Interrupted || !st.Ended()}
	v.Facts = append(v.Facts, facts("study", st.ID, st.Workload, st.StartedAt, st.Target, st.Cairn)...)
	v.Facts = append(v.Facts, kv{"study", st.Name}, kv{"order", st.Order}, kv{"repeats per step", fmt.Sprint(st.Repeat)}, kv{"state", st.State()})
	for _, f := range st.Factors {
		v.Facts = append(v.Facts, kv{"factor " + f.Name, strings.Join(f.Levels, ", ")})
	}
	for _, s := range st.Schedule {
		var set []string
		for _, a := range s.Set {
			set = append(set, a.Name+"="+a.Value)
		}
		if s.VU > 0 {
			set = append(set, fmt.Sprintf("%s=%d", results.LoadSetting, s.VU))
		}
		v.Facts = append(v.Facts, kv{"live change at " + atText(s.AtSec), strings.Join(set, ", ")})
	}
	for _, o := range st.Original {
		v.Settings = append(v.Settings, kv{o.Name + " (as found)", o.Value})
	}
	if len(st.Original) > 0 {
		v.Figures = append(v.Figures, kv{"settings", st.RestoreState()})
	}
	// The cases' own cards follow, each under its title: the study says what they share.
	titles, common := caseTitles(st)
	v.Figures = append(v.Figures, kv{"cases", fmt.Sprint(len(st.Cases))})
	if len(common) > 0 {
		v.Figures = append(v.Figures, kv{"in every case", strings.Join(common, ", ")})
	}
	for _, n := range st.HostNotes {
		v.Figures = append(v.Figures, kv{"host", n})
	}
	// The VU counts × the live values: each segment's figures over the step's runs.
	for _, r := range st.SegmentRows() {
		row := segmentRow{Case: titles[r.Case], VU: strconv.Itoa(r.VU), Index: strconv.Itoa(r.Index), Values: r.Label,
			TPS: "-", QPS: "-", P95: "-", Waits: results.TopWaits(r.Waits, 2)}
		if r.TPS.N > 0 {
			row.TPS, row.P95 = num(r.TPS.Mean), num(r.P95ms.Mean)
		}
		if r.QPS.N > 0 {
			row.QPS = num(r.QPS.Mean)
		}
		v.Segments = append(v.Segments, row)
	}
	v.Fanout = fanoutRows(st)
	v.Host = host(st.Host)
	v.Config = config(st.Config)
	return v
}
