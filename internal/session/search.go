package session

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/steady"
	"github.com/cairn-bench/cairn/internal/workload"
)

// SearchOptions are a capacity search's own settings (docs/search.md); the spec gives the rest
// (VUs, each step's rampup and window, the workload's options).
type SearchOptions struct {
	// Targets are the latencies a step must hold, every one of them.
	Targets []SearchTarget
	// StartRate is the first rate tried; 0: half the throughput of a closed-loop probe.
	StartRate float64
	// MaxSteps bounds the rate steps; Precision is the relative width of the interval at which
	// bisection stops.
	MaxSteps  int
	Precision float64
}

// A SearchTarget is one latency a search holds: the Percentile ("p95", "p99") of transaction
// type Txn ("": the workload's main one, named once the workload is known) must not exceed Max.
type SearchTarget struct {
	Txn, Percentile string
	Max             time.Duration
}

// Hold sets the targets from --p95 and --p99 ("": not given). Each is a latency for the main
// transaction (50ms) or a list of TYPE=LATENCY, one per transaction type
// (new_order=50ms,payment=80ms); a step holds only when every target given holds.
func (o *SearchOptions) Hold(p95, p99 string) error {
	o.Targets = nil
	for _, f := range []struct{ pct, text string }{{"p95", p95}, {"p99", p99}} {
		if f.text == "" {
			continue
		}
		for _, item := range strings.Split(f.text, ",") {
			txn, lat, typed := strings.Cut(item, "=")
			if !typed {
				txn, lat = "", item
			}
			txn = strings.TrimSpace(txn)
			d, err := options.ParseDuration(strings.TrimSpace(lat))
			if err != nil || d <= 0 || typed && txn == "" {
				return inputf("--%s %s: give a positive latency, like 50ms, or one per transaction type, like new_order=50ms,payment=80ms", f.pct, item)
			}
			o.Targets = append(o.Targets, SearchTarget{Txn: txn, Percentile: f.pct, Max: d})
		}
	}
	return nil
}

// resolve names the main transaction's targets and checks every target's type against the
// workload's types; a type held twice at one percentile is a mistake.
func (o SearchOptions) resolve(types []string, main string) ([]SearchTarget, error) {
	out := make([]SearchTarget, 0, len(o.Targets))
	for _, t := range o.Targets {
		if t.Txn == "" {
			t.Txn = main
		}
		if !slices.Contains(types, t.Txn) {
			return nil, inputf("--%s %s=%s: this workload has no transaction type %q; its types: %s",
				t.Percentile, t.Txn, options.FormatDuration(t.Max), t.Txn, strings.Join(types, ", "))
		}
		for _, u := range out {
			if u.Txn == t.Txn && u.Percentile == t.Percentile {
				return nil, inputf("--%s: %s has two targets (%s and %s): give one", t.Percentile, t.Txn,
					options.FormatDuration(u.Max), options.FormatDuration(t.Max))
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// MinSearchWindow is the shortest window a search step may have: a step must be judged steady,
// and the judgement needs steady.MinSamples points of a second.
const MinSearchWindow = steady.MinSamples * time.Second

// check checks the search's settings against the spec they run with.
func (o SearchOptions) check(s *spec.Spec) error {
	switch {
	case len(o.Targets) == 0:
		return inputf("search needs a latency target: --p95 50ms or --p99 200ms, or per transaction type: --p95 new_order=50ms,payment=80ms")
	case s.Rate > 0:
		return inputf("--rate %g: search chooses each step's rate itself; give the first with --start-rate", s.Rate)
	case len(s.VU) != 1:
		return inputf("--vu %s: search runs every step at one VU count", options.Format(s.VU))
	case s.Terminals > 0:
		return inputf("--terminals %d: search drives an open-loop rate, which terminals that key and think do not", s.Terminals)
	case s.Duration < MinSearchWindow:
		return inputf("--duration %s: a search step's window must be at least %s, for its steady state to be judged",
			options.FormatDuration(s.Duration), options.FormatDuration(MinSearchWindow))
	case o.MaxSteps < 2:
		return inputf("--max-steps %d: a search needs at least 2 steps", o.MaxSteps)
	case o.Precision <= 0 || o.Precision >= 1:
		return inputf("--precision %g: give a fraction between 0 and 1, like 0.1 for 10%%", o.Precision)
	case o.StartRate < 0:
		return inputf("--start-rate %g: give a positive rate, or 0 for a closed-loop probe", o.StartRate)
	}
	return nil
}

// MissError is a search in which no rate held the target (exit 1).
type MissError struct{ Lowest float64 }

func (e *MissError) Error() string {
	return fmt.Sprintf("no rate held the target: even the lowest tried, %g/s, missed it (see the steps above)", e.Lowest)
}

// ExecuteSearch runs a capacity search of a checked spec: the store is opened first, the
// search's steps run and stored as one profile document (its steps the rates tried).
func ExecuteSearch(ctx context.Context, s *spec.Spec, so SearchOptions, o Options) error {
	if err := so.check(s); err != nil {
		return err
	}
	var p *results.Profile
	err := execute(ctx, s, o, func(se *Session, bus *event.Bus) error {
		var err error
		p, err = se.Search(ctx, bus, so)
		return endProfile(ctx, bus, p, err)
	})
	if err != nil {
		return err
	}
	if p != nil && p.Search != nil && !p.Search.Found {
		lowest := math.Inf(1)
		for _, pt := range p.Search.Points {
			lowest = math.Min(lowest, pt.Rate)
		}
		return &MissError{Lowest: lowest}
	}
	return nil
}

// Search runs a capacity search: open-loop steps at rates chosen by doubling or halving until one
// step holds the target and one misses it, then by bisection between the highest that held and
// the lowest that missed (docs/search.md). Its steps run through the profile's stepper.
func (se *Session) Search(ctx context.Context, bus *event.Bus, so SearchOptions) (*results.Profile, error) {
	s := se.Spec
	p, def, after, err := se.beginProfile(ctx, bus)
	if err != nil {
		return nil, err
	}
	if so.Targets, err = so.resolve(def.Types, p.MainTxn); err != nil {
		return nil, err
	}
	vu := s.VU[0]
	sr := &results.Search{Precision: so.Precision, MaxSteps: so.MaxSteps, StartRate: so.StartRate}
	var held []string
	for _, t := range so.Targets {
		sr.Targets = append(sr.Targets, results.SearchTarget{Txn: t.Txn, Percentile: t.Percentile, TargetMs: float64(t.Max) / float64(time.Millisecond)})
		held = append(held, fmt.Sprintf("%s %s ≤ %s", t.Txn, t.Percentile, options.FormatDuration(t.Max)))
	}
	p.Search = sr
	step := func(ctx context.Context, st *results.Step, seed uint64) (*results.Document, error) {
		def, err := se.startWorkload(ctx, seed)
		if err != nil {
			return nil, err
		}
		one := *s
		one.Rate = st.Rate
		d, err := se.once(ctx, def, st.VU, seed, &one, bus)
		if d != nil && p.Target.Settings == nil {
			p.Target.Settings = d.Target.Settings
		}
		return d, err
	}
	line := se.startLine(def, "searching", fmt.Sprint(vu)+" VU") + ", " + strings.Join(held, ", ")
	k := &stepper{p: p, o: profileOptions{VUs: []int{vu}, Repeat: 1, Pause: s.Pause, Seed: s.Seed, Line: line, After: after, Target: se.T}, step: step, bus: bus}
	if err := k.begin(ctx); err != nil {
		return p, err
	}
	n := so.MaxSteps
	if so.StartRate == 0 {
		n++
	}
	// at runs one step at rate (0: the closed-loop probe); stop: the search ends here.
	at := func(rate float64) (*results.Document, bool, error) {
		st := &results.Step{VU: vu, Rate: rate}
		p.Steps = append(p.Steps, st)
		d, stop, err := k.run(ctx, st, n, 0, 1)
		return d, stop, err
	}
	rate := so.StartRate
	if rate == 0 {
		bus.Publish(ctx, event.Text{Line: fmt.Sprintf("probe: a closed-loop run at %s finds the first rate (half its throughput)", workload.Plural(vu, "VU")), Err: true})
		d, stop, err := at(0)
		if stop || err != nil {
			k.end()
			return p, err
		}
		sr.ProbeTPS = achieved(d)
		if sr.ProbeTPS <= 0 {
			k.end()
			return p, fmt.Errorf("the closed-loop probe completed no transaction: give --start-rate")
		}
		rate = sr.ProbeTPS / 2
		sr.StartRate = rate
	}
	var lo, hi float64
	for i := 0; i < so.MaxSteps; i++ {
		// A miss above a rate that held is run again before it counts: near the capacity a
		// stall of a shared host fails one step and the queue it leaves takes the window to
		// drain, while a rate the server cannot sustain misses twice. The rate held when
		// either run held (docs/search.md#a-miss-is-run-again).
		var pt results.SearchPoint
		judged := false
		for again := false; ; again = true {
			d, stop, err := at(rate)
			if judged = d != nil; judged {
				pt = judgeStep(d, rate, sr.Targets)
				pt.Run, pt.Again = len(p.Steps)-1, again
				sr.Points = append(sr.Points, pt)
				if pt.Held && rate > lo {
					lo = rate
					sr.Achieved = pt.Achieved
					if d.Steady != nil {
						sr.AchievedHalf = d.Steady.Throughput.Half
					}
				}
			}
			if stop || err != nil {
				finish(sr, lo, hi)
				k.end()
				return p, err
			}
			if d == nil || pt.Held || again || lo == 0 {
				break
			}
			n++
		}
		if judged && !pt.Held && (hi == 0 || rate < hi) {
			hi = rate
		}
		next, done := nextRate(lo, hi, so.Precision)
		if done {
			break
		}
		rate = next
	}
	finish(sr, lo, hi)
	k.end()
	return p, nil
}

// nextRate is the rate after the steps so far, lo the highest that held and hi the lowest that
// failed (0: none): double lo while none failed, halve hi while none held, else bisect; done when
// hi is within precision above lo.
func nextRate(lo, hi, precision float64) (rate float64, done bool) {
	switch {
	case lo > 0 && hi > 0 && hi <= lo*(1+precision)*(1+1e-9): // 1e-9: 1100/1000 is 1.1000000000000001
		return 0, true
	case hi == 0:
		rate = lo * 2
	case lo == 0:
		rate = hi / 2
	default:
		rate = (lo + hi) / 2
	}
	return roundRate(rate), false
}

// roundRate rounds a rate to 3 significant digits, so that the rates asked read as asked.
func roundRate(r float64) float64 {
	if r <= 0 {
		return r
	}
	e := math.Pow(10, math.Floor(math.Log10(r))-2)
	return math.Max(math.Round(r/e)*e, e)
}

// finish sets the search's answer: lo, the highest rate that held, and hi, the lowest that
// missed above it; the target that bound is the one over its latency at hi, if one was.
func finish(sr *results.Search, lo, hi float64) {
	sr.Found, sr.Rate, sr.Lo, sr.Hi = lo > 0, lo, lo, hi
	sr.Bound = ""
	for _, pt := range sr.Points {
		if pt.Rate != hi || pt.Held || pt.Bound == "" {
			continue
		}
		for i, t := range sr.Targets {
			if t.Name() == pt.Bound && pt.LatencyMs[i] > t.TargetMs {
				sr.Bound = pt.Bound
			}
		}
	}
}

// achieved is a run's completed transactions per second of its window, every type counted, as
// the rate asked counts them.
func achieved(d *results.Document) float64 {
	secs := d.Window.ClientSeconds
	if secs <= 0 {
		secs = d.Window.Seconds
	}
	if secs <= 0 {
		return 0
	}
	var n int64
	for _, tx := range d.Txns {
		n += tx.Count
	}
	return float64(n) / secs
}

// Shortfall is how far the achieved throughput may fall below the rate asked before a step
// fails: 2% of the rate, or three standard deviations of a Poisson count over the window,
// whichever is larger (the arrivals are a Poisson process: their count in a window of T seconds
// at rate r has standard deviation √(rT)).
func Shortfall(rate, seconds float64) float64 {
	if seconds <= 0 {
		return 0.02 * rate
	}
	return math.Max(0.02*rate, 3*math.Sqrt(rate*seconds)/seconds)
}

// judgeStep says whether a step held: it achieved the rate asked (within Shortfall), every
// target's percentile stayed within its latency, and it was judged steady. The target that bound
// is the one nearest its latency, or furthest over it: the highest latency over target.
func judgeStep(d *results.Document, rate float64, targets []results.SearchTarget) results.SearchPoint {
	pt := results.SearchPoint{Rate: rate, Achieved: achieved(d), LatencyMs: make([]float64, len(targets))}
	var why []string
	worst := -1.0
	for i, t := range targets {
		tx := d.Txns[t.Txn]
		if tx == nil || tx.Count == 0 {
			why = append(why, "no "+t.Txn+" completed")
			continue
		}
		pt.LatencyMs[i] = tx.LatencyMs.P95
		if t.Percentile == "p99" {
			pt.LatencyMs[i] = tx.LatencyMs.P99
		}
		if r := pt.LatencyMs[i] / t.TargetMs; r > worst {
			worst, pt.Bound = r, t.Name()
		}
		if pt.LatencyMs[i] > t.TargetMs {
			why = append(why, fmt.Sprintf("%s %.3g ms > %.3g ms", t.Name(), pt.LatencyMs[i], t.TargetMs))
		}
	}
	if short := rate - pt.Achieved; short > Shortfall(rate, d.Window.ClientSeconds) {
		why = append(why, fmt.Sprintf("achieved %.4g/s, %.1f%% short", pt.Achieved, 100*short/rate))
	}
	if w := unsteady(d.Steady); w != "" {
		why = append(why, w)
	} else {
		pt.Steady = true
	}
	if d.Marked() {
		why = append(why, "not as planned: "+results.MarkText(d.NotAsPlanned))
	}
	pt.Held = len(why) == 0
	pt.Why = strings.Join(why, "; ")
	return pt
}

// unsteady says why a step's window is not steady as a search needs it, "" when it is: its
// latency does not drift up and its throughput does not drift down (steady.Judge's drift: a
// significant trend that moves the series by steady.DriftPct or more across the window). Those
// are the trends of a rate the server cannot sustain: a queue that grows, a server that falls
// behind. The rest of run's judgement is not asked of a step: a warm-up that ran into the window,
// a series that did not settle in its first half, or a trend the other way, put the slower seconds
// into the very figures the step is judged by (they lower its achieved rate or raise its
// percentile), so a step that holds with them holds without; and a step's window is short, where
// one stall of a shared host in its first seconds makes one of them often.
func unsteady(st *results.Steady) string {
	if st == nil {
		return "steady state not judged"
	}
	var why []string
	if t := st.Throughput; t.Drifting && t.TrendPctPerMin < 0 {
		why = append(why, fmt.Sprintf("throughput drifts %+.0f%%/min", t.TrendPctPerMin))
	}
	if p := st.P95; p != nil && p.Drifting && p.TrendPctPerMin > 0 {
		why = append(why, fmt.Sprintf("p95 drifts %+.0f%%/min", p.TrendPctPerMin))
	}
	if len(why) == 0 {
		return ""
	}
	return "not steady: " + strings.Join(why, ", ")
}
