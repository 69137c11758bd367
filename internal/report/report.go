// Package report draws stored results: a self-contained HTML report (Apache ECharts, inlined) and
// PNG charts (gonum/plot). Both renderers draw the same Chart models, built once by Charts, so the
// page and the images cannot disagree about what was measured.
package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
)

// Item is one thing to draw: exactly one of Run, Profile or Study is set.
type Item struct {
	Run     *results.Document
	Profile *results.Profile
	Study   *results.Study
	// Diff chooses what a study's (or a run's) differential flame graph compares (CheckDiff,
	// CheckRunDiff): two live segments ("1", "4") or two cases ("A", "C"); none: the first and
	// last segment, or the first two cases.
	Diff []string
}

// ItemsError says why stored results cannot be drawn in one report.
type ItemsError struct{ Msg string }

func (e *ItemsError) Error() string { return e.Msg }

// BadInput marks the error as the user's to fix (exit 2, HTTP 400).
func (e *ItemsError) BadInput() {}

// Items are stored results as one report draws them, the command line's and the web service's
// alike: results of one workload, overlaid; a study only alone, its cases being its overlays.
func Items(ls []results.Loaded, diff []string) ([]Item, error) {
	if len(ls) == 0 {
		return nil, &ItemsError{"nothing to report: give at least one id"}
	}
	workload := ls[0].Workload()
	items := make([]Item, len(ls))
	for i, l := range ls {
		if l.Workload() != workload {
			return nil, &ItemsError{fmt.Sprintf("result %s is %s and result %s is %s: a report overlays results of one workload", ls[0].ID, workload, l.ID, l.Workload())}
		}
		if l.Study != nil && len(ls) > 1 {
			return nil, &ItemsError{fmt.Sprintf("result %s is a study: report it alone (its cases are drawn side by side)", l.ID)}
		}
		items[i] = Item{Run: l.Run, Profile: l.Profile, Study: l.Study, Diff: diff}
	}
	return items, nil
}

// Axis is how a chart's x axis maps values.
type Axis string

const (
	// AxisLinear is a plain value axis (seconds, virtual users).
	AxisLinear Axis = "linear"
	// AxisPercentile is the HdrHistogram percentile axis: a point's x is 1/(1-q) for quantile q,
	// drawn on a log scale, so 90%, 99%, 99.9% … are evenly spaced and the tail gets the room it
	// needs. Ticks carries the labels ("50%", "99.9%") both renderers show.
	AxisPercentile Axis = "percentile"
)

// Chart is one chart, independent of how it is rendered.
type Chart struct {
	ID     string  `json:"id"` // unique within a chart set; also the PNG's file name
	Title  string  `json:"title"`
	XLabel string  `json:"xlabel"`
	YLabel string  `json:"ylabel"`
	XAxis  Axis    `json:"xaxis"`
	XMin   float64 `json:"xmin,omitempty"` // percentile axis only: its extent (linear axes fit the data)
	XMax   float64 `json:"xmax,omitempty"`
	Ticks  []Tick  `json:"ticks,omitempty"` // when set, the only labelled x positions (percentiles, VU steps)
	Bands  []Band  `json:"bands,omitempty"` // shaded x ranges, e.g. the rampup
	// Categories, when set, make the x axis categorical (TPC-H's queries): a point's x is the index
	// of its category, and the series are drawn as grouped bars.
	Categories []string `json:"categories,omitempty"`
	// Stacked draws a chart of categories as stacked bars (each series on top of the previous).
	Stacked bool     `json:"stacked,omitempty"`
	Series  []Series `json:"series"`
	// Heat, when set, makes the chart a heat map (per-core CPU over time) instead of lines.
	Heat *Heat `json:"heat,omitempty"`
	// Flame, when set, makes the chart a flame graph (the server's on-CPU profile).
	Flame *Flame `json:"flame,omitempty"`
	// Area draws the series as areas stacked one on another over a linear x axis (the session
	// history's wait classes).
	Area bool `json:"area,omitempty"`
	// Lines are labelled vertical lines at x positions (a run's live changes).
	Lines []Mark `json:"lines,omitempty"`
	// Sessions, when set, is what lists the top events of the span a selection on the chart picks.
	Sessions *SessionSpans `json:"sessions,omitempty"`
}

// SessionSpans is the session history's events second by second, for the table of the top events
// in a selected span: at X[i] (the time series' t), Reads[i] samples, and in Counts[i] pairs of an
// index into Events and the sessions seen on it over the second's samples.
type SessionSpans struct {
	X      []float64 `json:"x"`
	Reads  []int     `json:"reads"`
	Events []string  `json:"events"`
	Class  []string  `json:"class"` // each event's wait class
	Counts [][]int64 `json:"counts"`
}

// Heat is a heat map: a value for each x (seconds) and row (a CPU), from 0 to Max.
type Heat struct {
	X      []float64   `json:"x"`
	Rows   []string    `json:"rows"`
	Values [][]float64 `json:"values"` // [x][row]
	Max    float64     `json:"max"`
	Unit   string      `json:"unit"`
}

// Series is one line of a chart.
type Series struct {
	Name   string       `json:"name"`
	Points [][2]float64 `json:"points"` // x, y in ascending x
	// Range is, when set, the min and max behind each point (repeated runs of a profile step),
	// drawn as error bars; it has one entry per point.
	Range [][2]float64 `json:"range,omitempty"`
	Marks []Mark       `json:"marks,omitempty"` // annotated points (a profile's peak, saturation, bottleneck)
}

// Mark is an annotated point.
type Mark struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Label string  `json:"label"`
}

// Band is a shaded range of x.
type Band struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Label string  `json:"label"`
}

// Tick is a labelled position on an axis.
type Tick struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

// Charts returns the chart set for items. One run gets its full set, one profile its full set;
// several runs, or several profiles, are overlaid with one series per item. In a mix, the profiles
// and the runs are drawn as two such groups. Charts without any point are left out.
func Charts(items []Item) []Chart {
	var runs, profiles []labelled
	labels := itemLabels(items)
	var cs []Chart
	for i, it := range items {
		switch {
		case it.Study != nil:
			// A study is reported alone: its cases are its overlays.
			cs = append(cs, studyCharts(it.Study)...)
			cs = append(cs, studyFlames(it.Study, it.Diff)...)
		case it.Run != nil:
			runs = append(runs, labelled{it, labels[i]})
		case it.Profile != nil:
			profiles = append(profiles, labelled{it, labels[i]})
		}
	}
	switch len(profiles) {
	case 0:
	case 1:
		cs = append(cs, profileCharts(profiles[0].Profile, profiles[0].label)...)
	default:
		cs = append(cs, profileOverlays(profiles)...)
	}
	// Runs of individually timed queries (TPC-H) are drawn query by query; the others over time.
	var timed, series []labelled
	for _, r := range runs {
		if len(r.Run.Timings) > 0 {
			timed = append(timed, r)
		} else {
			series = append(series, r)
		}
	}
	cs = append(cs, timingCharts(timed)...)
	switch len(series) {
	case 0:
	case 1:
		cs = append(cs, runCharts(series[0].Run, series[0].label)...)
	default:
		cs = append(cs, runOverlays(series)...)
	}
	cs = append(cs, observationCharts(runs, profiles)...)
	for i, r := range runs {
		cs = append(cs, runSegmentFlames(r.Run, r.label, i+1, r.Diff)...)
	}
	out := cs[:0]
	for _, c := range cs {
		if c.hasPoints() {
			out = append(out, c.dropEmpty())
		}
	}
	return besideThroughput(out)
}

type labelled struct {
	Item
	label string
}

func (c Chart) hasPoints() bool {
	if c.Heat != nil {
		return len(c.Heat.X) > 0 && len(c.Heat.Rows) > 0
	}
	if c.Flame != nil {
		return len(c.Flame.Nodes) > 0
	}
	for _, s := range c.Series {
		if len(s.Points) > 0 {
			return true
		}
	}
	return false
}

// dropEmpty removes series without points: a run that measured nothing has nothing to draw, and an
// empty series would only add a dead legend entry.
func (c Chart) dropEmpty() Chart {
	var ss []Series
	for _, s := range c.Series {
		if len(s.Points) > 0 {
			ss = append(ss, s)
		}
	}
	c.Series = ss
	return c
}

// itemLabels names each item by id and target ("#12 PostgreSQL 15.18"), so that overlays are
// readable; duplicates get a counter because ECharts merges series of the same name.
func itemLabels(items []Item) []string {
	out := make([]string, len(items))
	seen := map[string]int{}
	for i, it := range items {
		var id string
		var t results.Target
		switch {
		case it.Run != nil:
			id, t = it.Run.ID, it.Run.Target
		case it.Profile != nil:
			id, t = it.Profile.ID, it.Profile.Target
		case it.Study != nil:
			id, t = it.Study.ID, it.Study.Target
		default:
			continue
		}
		name := t.Name
		if name == "" {
			name = t.Kind
		}
		parts := []string{}
		if id != "" {
			parts = append(parts, "#"+id)
		}
		if name != "" {
			parts = append(parts, name)
		}
		if v := ShortVersion(t.Version); v != "" {
			parts = append(parts, v)
		}
		l := strings.Join(parts, " ")
		if l == "" {
			l = fmt.Sprintf("item %d", i+1)
		}
		seen[l]++
		if n := seen[l]; n > 1 {
			l = fmt.Sprintf("%s (%d)", l, n)
		}
		out[i] = l
	}
	return out
}

// ShortVersion is a server's version number without the packager's suffix: "15.18" for
// "15.18 (Debian 15.18-0+deb12u1)", "10.11.19" for "10.11.19-MariaDB-0+deb12u1". Labels use it so
// that a legend is short enough to show whole; the report's facts give the full version.
func ShortVersion(v string) string {
	f := strings.Fields(v)
	if len(f) == 0 {
		return ""
	}
	s, _, _ := strings.Cut(f[0], "-")
	return s
}

// finite reports whether both coordinates can be drawn (and encoded as JSON).
func finite(x, y float64) bool {
	return !math.IsNaN(x) && !math.IsInf(x, 0) && !math.IsNaN(y) && !math.IsInf(y, 0)
}
