package results

import (
	"math"
	"slices"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/steady"
)

// Steady is the judgement of a run's per-second series (docs/steady-state.md): where its warm-up
// ended and whether its measured window is stationary, for the headline's throughput and for the
// 95th percentile of its latency. Absent when the window has fewer than steady.MinSamples points.
type Steady struct {
	// Steady: both series settled before the window started and neither drifts in it.
	Steady bool `json:"steady"`
	// FromSeconds is the later of the two series' warm-up ends, in seconds since the run's start;
	// WindowStartSeconds where the measured window started; ShortBySeconds how far the warm-up
	// reached into the window (0 when the rampup covered it).
	FromSeconds        float64       `json:"from_seconds"`
	WindowStartSeconds float64       `json:"window_start_seconds"`
	ShortBySeconds     float64       `json:"short_by_seconds"`
	Throughput         SteadySeries  `json:"throughput"`
	P95                *SteadySeries `json:"p95,omitempty"`
}

// SteadySeries is the judgement of one series.
type SteadySeries struct {
	// Of names the series' column of the time series: "headline_txns" or "txns" (per second),
	// "headline_p95_ms" or "p95_ms".
	Of string `json:"of"`
	// Points are the points of the series judged (the rampup's and the window's, each covering at
	// least MinPointSeconds); WindowPoints those in the window.
	Points       int `json:"points"`
	WindowPoints int `json:"window_points"`
	// WarmupEndSeconds is where the warm-up ended (MSER), in seconds since the run's start;
	// Settled is false when the series did not settle within its first half.
	WarmupEndSeconds float64 `json:"warmup_end_seconds"`
	Settled          bool    `json:"settled"`
	// Mean is the mean of the window's points, Half the half-width of its 95% interval;
	// Approximate says the interval's model does not fit the series well (steady.Interval).
	Mean        float64 `json:"mean"`
	Half        float64 `json:"half"`
	Approximate bool    `json:"approximate,omitempty"`
	// TrendPctPerMin is the window's linear drift in percent of its mean per minute, TrendLo and
	// TrendHi its 95% interval; Drifting says it is significant and moves the mean by
	// steady.DriftPct or more across the window.
	TrendPctPerMin float64 `json:"trend_pct_per_min"`
	TrendLo        float64 `json:"trend_lo"`
	TrendHi        float64 `json:"trend_hi"`
	Drifting       bool    `json:"drifting"`
}

// FigureInterval is the 95% interval of one headline figure of a single run: the relative
// half-width of the mean of a per-second series of the window (Of), applied to the figure.
type FigureInterval struct {
	Figure string  `json:"figure"` // "NOPM", "TPM", "TPS"
	Value  float64 `json:"value"`
	// Half: the interval is Value ± Half; Rel is Half / Value.
	Half float64 `json:"half"`
	Rel  float64 `json:"rel"`
	// Of is the series whose interval it carries: "headline_txns" or "txns".
	Of          string `json:"of"`
	Approximate bool   `json:"approximate,omitempty"`
}

// MinPointSeconds is the shortest point of the series judged or drawn: the engine's last tick
// can be a few milliseconds long (the window ended just after a full second), and the handful
// of transactions in it says nothing about a rate or a percentile.
const MinPointSeconds = 0.25

// point is one usable point of a series: its value, the instant its span started, whether it is
// in the window.
type point struct {
	v, from float64
	window  bool
}

// seriesOf reads one column of the series up to the window's end: each point's span runs from
// the point before it (the run's start for the first), and points shorter than MinPointSeconds
// are left out, as are those for which keep says no.
func seriesOf(ss []metrics.Second, value func(s metrics.Second, dt float64) (float64, bool)) []point {
	last := -1
	for i, s := range ss {
		if s.Window {
			last = i
		}
	}
	var out []point
	prev := 0.0
	for _, s := range ss[:last+1] {
		dt := s.T - prev
		from := prev
		prev = s.T
		if dt < MinPointSeconds {
			continue
		}
		if v, ok := value(s, dt); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, point{v: v, from: from, window: s.Window})
		}
	}
	return out
}

// judge judges one series; ok is false when its window has fewer than steady.MinSamples points.
func judge(of string, pts []point) (SteadySeries, float64, bool) {
	start := len(pts)
	for i, p := range pts {
		if p.window {
			start = i
			break
		}
	}
	x := make([]float64, len(pts))
	for i, p := range pts {
		x[i] = p.v
	}
	v, err := steady.Judge(x, start)
	if err != nil || start == len(pts) {
		return SteadySeries{}, 0, false
	}
	s := SteadySeries{Of: of, Points: len(pts), WindowPoints: len(pts) - start, Settled: v.Settled,
		Mean: v.Window.Mean, Half: v.Window.Half, Approximate: v.Window.Approximate,
		TrendPctPerMin: v.Trend.PctPerMin, TrendLo: v.Trend.Lo, TrendHi: v.Trend.Hi, Drifting: v.Drifting}
	s.WarmupEndSeconds = pts[v.WarmupEnd].from
	return s, pts[start].from, true
}

// throughputOf is the per-second rate of the headline's transactions (every type's when the
// headline counts no one type), and its column's name.
func (d *Document) throughputOf() (string, func(s metrics.Second, dt float64) (float64, bool)) {
	if h := d.HeadlineFigure(); h != nil && h.Txn != "" {
		return "headline_txns", func(s metrics.Second, dt float64) (float64, bool) { return float64(s.Headline) / dt, true }
	}
	return "txns", allRate
}

func allRate(s metrics.Second, dt float64) (float64, bool) { return float64(s.Txns) / dt, true }

// JudgeSteady sets the document's steady-state judgement (Steady) and the intervals of its
// headline figures (Result.Intervals) from its time series. A window of fewer than
// steady.MinSamples usable points leaves both unset.
func (d *Document) JudgeSteady() {
	d.Steady, d.Result.Intervals = nil, nil
	of, rate := d.throughputOf()
	tp, ws, ok := judge(of, seriesOf(d.Series, rate))
	if !ok {
		return
	}
	st := &Steady{Throughput: tp, FromSeconds: tp.WarmupEndSeconds, WindowStartSeconds: ws}
	settled, drifting := tp.Settled, tp.Drifting
	p95of, p95 := "p95_ms", func(s metrics.Second, _ float64) (float64, bool) { return s.P95ms, s.Txns > 0 }
	// A document stored before the series had the headline type's p95 judges all types'.
	if of == "headline_txns" && slices.ContainsFunc(d.Series, func(s metrics.Second) bool { return s.HeadlineP95ms > 0 }) {
		p95of, p95 = "headline_p95_ms", func(s metrics.Second, _ float64) (float64, bool) { return s.HeadlineP95ms, s.Headline > 0 }
	}
	if p, _, ok := judge(p95of, seriesOf(d.Series, p95)); ok {
		st.P95 = &p
		st.FromSeconds = max(st.FromSeconds, p.WarmupEndSeconds)
		settled, drifting = settled && p.Settled, drifting || p.Drifting
	}
	st.ShortBySeconds = math.Round(max(0, st.FromSeconds-ws)*1000) / 1000
	st.Steady = settled && st.ShortBySeconds == 0 && !drifting
	d.Steady = st

	var all *SteadySeries
	if of == "txns" {
		all = &tp
	} else if a, _, ok := judge("txns", seriesOf(d.Series, allRate)); ok {
		all = &a
	}
	add := func(name string, v float64, s *SteadySeries) {
		if s == nil || s.Mean == 0 {
			return
		}
		for _, iv := range d.Result.Intervals {
			if iv.Figure == name {
				return
			}
		}
		rel := s.Half / math.Abs(s.Mean)
		d.Result.Intervals = append(d.Result.Intervals, FigureInterval{Figure: name, Value: v, Half: rel * math.Abs(v), Rel: rel, Of: s.Of, Approximate: s.Approximate})
	}
	// A headline counts the window's completions of one type (NOPM) or of all types (the client's
	// TPS and what a workload names it); TPC-H's are no rate of the series.
	if h := d.HeadlineFigure(); h != nil {
		switch {
		case h.Txn != "":
			add(h.Name, h.Value, &tp)
		case d.Result.TPS != nil && h.Value == *d.Result.TPS:
			add(h.Name, h.Value, all)
		}
	}
	if d.Result.TPM != nil {
		add("TPM", float64(*d.Result.TPM), all)
	}
	if d.Result.TPS != nil {
		add("TPS", *d.Result.TPS, all)
	}
}

// Interval is the 95% interval of the result's figure name, nil without one.
func (r *Result) Interval(name string) *FigureInterval {
	for i := range r.Intervals {
		if r.Intervals[i].Figure == name {
			return &r.Intervals[i]
		}
	}
	return nil
}
