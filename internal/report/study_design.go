package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
)

// A study's report follows its design: its cases are named by what differs between them, a study
// with live changes opens with its runs over time and its segments (a whole run mixes the live
// values, so no figure of it, and no peak judged from them, answers the study's question), and
// each case shows what its CPU lists cover.

// caseTitles name a study's cases by what differs between them: the levels of the factors given
// more than one, in the factors' order. common are the levels every case shares, said once by
// the study rather than in every title. A study of one case keeps its full label; a case whose
// levels are not recorded (an older document) keeps its label too.
func caseTitles(st *results.Study) (titles, common []string) {
	titles = make([]string, len(st.Cases))
	for i, c := range st.Cases {
		titles[i] = c.Label
	}
	if len(st.Cases) < 2 {
		return titles, nil
	}
	values := map[string][]string{} // factor → its distinct levels over the cases
	var names []string
	for _, c := range st.Cases {
		if len(c.Levels) == 0 {
			return titles, nil
		}
		for _, l := range c.Levels {
			if _, ok := values[l.Name]; !ok {
				names = append(names, l.Name)
			}
			if !slices.Contains(values[l.Name], l.Value) {
				values[l.Name] = append(values[l.Name], l.Value)
			}
		}
	}
	short := make([]string, len(st.Cases))
	for i, c := range st.Cases {
		var parts []string
		for _, l := range c.Levels {
			if len(values[l.Name]) > 1 {
				parts = append(parts, levelText(l))
			}
		}
		short[i] = strings.Join(parts, ", ")
	}
	// Titles must tell the cases apart: where they would not, the full labels stay.
	seen := map[string]bool{}
	for _, s := range short {
		if s == "" || seen[s] {
			return titles, nil
		}
		seen[s] = true
	}
	for _, n := range names {
		if len(values[n]) == 1 {
			common = append(common, levelText(results.SettingValue{Name: n, Value: values[n][0]}))
		}
	}
	return short, common
}

// levelText writes a level as a case label does: "innodb_adaptive_hash_index=ON", "server-cpus 0-1".
func levelText(l results.SettingValue) string {
	if l.Name == "client-cpus" || l.Name == "server-cpus" {
		return l.Name + " " + l.Value
	}
	return l.Name + "=" + l.Value
}

// live says whether the study changed settings inside its runs' windows.
func live(st *results.Study) bool { return len(st.Schedule) > 0 }

// unjudged are the cases without the profile verdicts (peak, saturation, bottleneck): in a study
// with live changes each run mixes the live values, and a verdict on such runs would judge none
// of them. The profiles are copies: the stored study keeps its marks.
func unjudged(cases []labelled) []labelled {
	out := make([]labelled, len(cases))
	for i, c := range cases {
		out[i] = labelled{Item{Profile: unjudgedProfile(c.Profile)}, c.label}
	}
	return out
}

func unjudgedProfile(p *results.Profile) *results.Profile {
	c := *p
	c.Marks = results.Marks{}
	return &c
}

// segmentCharts draw a live study's segments against the VU counts: each live value's TPS and
// approximate p95 (its settled seconds, mean over the step's runs, min–max bars over them), a
// line per case and live value. These, not the runs' own figures, are the study's throughput
// against load.
func segmentCharts(st *results.Study) []Chart {
	titles, _ := caseTitles(st)
	tps := Chart{ID: "study-segments-tps", Title: "TPS vs virtual users per live value (each segment's settled seconds)",
		XLabel: labelVUs, YLabel: "transactions per second", XAxis: AxisLinear}
	p95 := Chart{ID: "study-segments-p95", Title: "p95 latency vs virtual users per live value (approximate, from the per-second series)",
		XLabel: labelVUs, YLabel: labelMs, XAxis: AxisLinear}
	type key struct{ c, i int }
	index := map[key]int{}
	for _, r := range st.SegmentRows() {
		k := key{r.Case, r.Index}
		j, ok := index[k]
		if !ok {
			name := r.Label
			if len(st.Cases) > 1 {
				name = titles[r.Case] + " · " + r.Label
			}
			j = len(tps.Series)
			index[k] = j
			tps.Series = append(tps.Series, Series{Name: name})
			p95.Series = append(p95.Series, Series{Name: name})
		}
		add := func(s *Series, v results.Stat) {
			if v.N == 0 || !finite(float64(r.VU), v.Mean) {
				return
			}
			s.Points = append(s.Points, [2]float64{float64(r.VU), v.Mean})
			s.Range = append(s.Range, [2]float64{v.Min, v.Max})
		}
		add(&tps.Series[j], r.TPS)
		add(&p95.Series[j], r.P95ms)
	}
	out := []Chart{tps, p95}
	for i := range out {
		for j := range out[i].Series {
			s := &out[i].Series[j]
			spread := false
			for _, r := range s.Range {
				spread = spread || r[0] != r[1]
			}
			if !spread {
				s.Range = nil
			}
		}
		out[i] = vuTicks(out[i])
	}
	return out
}

// foldFrom is the number of cases from which a study's case cards fold their figures under a
// line: the cards of a 2 × 3 study, each with its diagnosis, would fill the first screen and push
// the charts below it.
const foldFrom = 3

// studyCaseViews are a study's cases as the page's cards: each its profile's summary under its
// title, with what its CPU lists cover on the host it ran on, shown whatever is folded; in a
// study with live changes without the verdicts and the peak's figures its runs cannot give.
func studyCaseViews(st *results.Study) []itemView {
	titles, _ := caseTitles(st)
	var out []itemView
	for i, c := range st.Cases {
		if len(c.Profile.Steps) == 0 {
			continue
		}
		p := c.Profile
		if live(st) {
			p = unjudgedProfile(p)
		}
		v := summarizeProfile(p, titles[i])
		v.Lines = strings.Split(titles[i], ", ")
		v.Fold = len(st.Cases) >= foldFrom
		if live(st) {
			v.Figures = slices.DeleteFunc(v.Figures, func(f kv) bool {
				return f.K == "peak" || f.K == "saturation" || f.K == "bottleneck"
			})
			v.Shown = append(v.Shown, kv{"whole runs", fmt.Sprintf("each changes %s live, so its figures mix the values: no peak, saturation or bottleneck is judged from them; the per-segment table splits them",
				strings.Join(liveNames(st), ", "))})
		}
		v.Shown = append(v.Shown, caseCPUs(c)...)
		out = append(out, v)
	}
	return out
}

// caseCPUs are a case's CPU lists and what each covers on the host the study ran on.
func caseCPUs(c *results.StudyCase) []kv {
	var out []kv
	for _, x := range []struct {
		what, list string
		t          *results.CPUTopology
	}{{"cairn's CPUs (client-cpus)", c.ClientCPUs, c.ClientTopology}, {"the server's CPUs (server-cpus)", c.ServerCPUs, c.ServerTopology}} {
		if x.list == "" {
			continue
		}
		v := x.list
		if t := x.t.Text(); t != "" {
			v += ": " + t
		}
		out = append(out, kv{x.what, v})
	}
	return out
}

// liveNames are the settings a study's schedule changes, each once.
func liveNames(st *results.Study) []string {
	var out []string
	for _, s := range st.Schedule {
		for _, a := range s.Set {
			if !slices.Contains(out, a.Name) {
				out = append(out, a.Name)
			}
		}
		if s.VU > 0 && !slices.Contains(out, results.LoadSetting) {
			out = append(out, results.LoadSetting)
		}
	}
	return out
}

// liveStudyCharts are a live study's charts: each case's runs over time with the changes marked,
// its running threads per step beside them on the same clock, then the segments against VUs,
// then what else was observed (cases: the study's, without verdicts).
func liveStudyCharts(st *results.Study, cases []labelled) []Chart {
	obs := observationCharts(nil, cases)
	// cases are the study's cases with steps, in order: the k-th's running threads are
	// profile-running-k.
	running := map[int]Chart{} // by the case's index in the study
	k := 0
	for ci, c := range st.Cases {
		if len(c.Profile.Steps) == 0 {
			continue
		}
		k++
		for j, o := range obs {
			if o.ID == fmt.Sprintf("profile-running-%d", k) {
				running[ci] = onWindowClock(o, c.Profile)
				obs = slices.Delete(obs, j, j+1)
				break
			}
		}
	}
	var out []Chart
	for ci, c := range liveCharts(st) {
		out = append(out, c)
		if r, ok := running[ci]; ok {
			out = append(out, r)
		}
	}
	out = append(out, segmentCharts(st)...)
	return append(out, obs...)
}

// onWindowClock puts a chart of a profile's steps over time (a line per step, named by its VU
// count, drawn from its first run) on the window's clock, as the live charts are.
func onWindowClock(c Chart, p *results.Profile) Chart {
	c.XLabel = labelWindow
	series := make([]Series, len(c.Series))
	for i, s := range c.Series {
		s.Points = slices.Clone(s.Points)
		for _, st := range p.Steps {
			if d := firstMeasured(st); d != nil && vuName(st.VU) == s.Name {
				off := windowStart(d)
				for j := range s.Points {
					s.Points[j][0] -= off
				}
			}
		}
		series[i] = s
	}
	c.Series = series
	return c
}

// leadCharts is how many of a study's first charts come before its segment table: a live study
// opens with its runs over time and the running threads beside them.
func leadCharts(cs []Chart) int {
	n := 0
	for n < len(cs) && (strings.HasPrefix(cs[n].ID, "study-live-") || strings.HasPrefix(cs[n].ID, "profile-running-")) {
		n++
	}
	return n
}

// windowStart is the instant the run's window starts on its time series' clock: where its live
// changes say (their t less their at_seconds), else the end of the last tick before the window's.
func windowStart(d *results.Document) float64 {
	if len(d.Changes) > 0 {
		return d.Changes[0].T - d.Changes[0].AtSec
	}
	prev := 0.0
	for _, s := range d.Series {
		if s.Window {
			return prev
		}
		prev = s.T
	}
	return 0
}
