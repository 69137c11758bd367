package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// Axis labels shared by several charts.
const (
	labelSeconds = "seconds since the run started"
	labelVUs     = "virtual users"
	labelTPM     = "transactions per minute"
	labelMs      = "latency (ms)"
	labelPct     = "percentile"
)

// minInterval is the shortest tick drawn. The engine's last tick can be a few milliseconds long
// (the window ended just after a full second); the handful of transactions in it would draw a
// spike, or a p95 of three samples, that says nothing about the run.
const minInterval = results.MinPointSeconds

// runCharts is the full set for one run: throughput and p95 over time, and the latency
// distribution of every transaction type.
func runCharts(d *results.Document, label string) []Chart {
	tp := Chart{ID: "run-throughput", Title: "Throughput over time · " + label, XLabel: labelSeconds,
		YLabel: "per minute", XAxis: AxisLinear, Bands: append(append(windowBands(d.Series), warmupBands(d)...), outageBands(d)...)}
	tp.Series = append(tp.Series, Series{Name: "TPM (all transactions)", Points: rate(d.Series, allTxns)})
	if h := d.HeadlineFigure(); h != nil && h.Txn != "" {
		// The series' headline counts are the completions of the type the headline counts.
		tp.Series = append(tp.Series, Series{Name: h.Unit, Points: rate(d.Series, headlineTxns)})
	}
	p95 := Chart{ID: "run-p95", Title: "p95 latency over time (all transactions) · " + label, XLabel: labelSeconds,
		YLabel: labelMs, XAxis: AxisLinear, Bands: append(append(windowBands(d.Series), warmupBands(d)...), outageBands(d)...),
		Series: []Series{{Name: "p95", Points: p95Points(d.Series)}}}
	dist := Chart{ID: "run-distribution", Title: "Latency distribution by transaction type (measured window) · " + label,
		XLabel: labelPct, YLabel: labelMs, XAxis: AxisPercentile}
	for _, name := range txnNames(d) {
		dist.Series = append(dist.Series, Series{Name: name, Points: distribution(d.Histograms[name])})
	}
	// A run's live changes (a load schedule's) are marked where they took effect.
	tp.Lines, p95.Lines = changeLines(d), changeLines(d)
	return []Chart{tp, p95, percentileAxis(dist)}
}

// runOverlays draws several runs on shared axes, one series per run: throughput and p95 over
// time, and the latency distribution of every transaction type.
func runOverlays(runs []labelled) []Chart {
	tp := Chart{ID: "runs-throughput", Title: "Throughput over time", XLabel: labelSeconds, YLabel: labelTPM, XAxis: AxisLinear}
	p95 := Chart{ID: "runs-p95", Title: "p95 latency over time (all transactions)", XLabel: labelSeconds, YLabel: labelMs, XAxis: AxisLinear}
	var bands [][]Band
	var types []string
	seen := map[string]bool{}
	for _, r := range runs {
		d := r.Run
		bands = append(bands, windowBands(d.Series))
		tp.Series = append(tp.Series, Series{Name: r.label, Points: rate(d.Series, allTxns)})
		p95.Series = append(p95.Series, Series{Name: r.label, Points: p95Points(d.Series)})
		for _, n := range txnNames(d) {
			if !seen[n] {
				seen[n] = true
				types = append(types, n)
			}
		}
	}
	if b := sameBands(bands); b != nil {
		tp.Bands, p95.Bands = b, b
	}
	out := []Chart{tp, p95}
	for _, typ := range types {
		dist := Chart{ID: "runs-distribution-" + slug(typ), Title: "Latency distribution of " + typ + " (measured window)",
			XLabel: labelPct, YLabel: labelMs, XAxis: AxisPercentile}
		for _, r := range runs {
			dist.Series = append(dist.Series, Series{Name: r.label, Points: distribution(r.Run.Histograms[typ])})
		}
		out = append(out, percentileAxis(dist))
	}
	return out
}

// profileCharts is the full set for one profile: throughput and latency against the number of
// virtual users, then each step's time series and latency distribution.
func profileCharts(p *results.Profile, label string) []Chart {
	hname := profileHeadline(p)
	main := profileMain(p)
	head := Chart{ID: "profile-headline", Title: hname + " vs virtual users · " + label, XLabel: labelVUs,
		YLabel: headlineLabel(p), XAxis: AxisLinear}
	s := statSeries(p, hname, func(s *results.StepSummary) results.Stat { return s.Headline })
	s.Marks = marks(p, s)
	head.Series = []Series{s}
	tpm := Chart{ID: "profile-tpm", Title: "TPM vs virtual users · " + label, XLabel: labelVUs, YLabel: labelTPM, XAxis: AxisLinear,
		Series: []Series{statSeries(p, "TPM", func(s *results.StepSummary) results.Stat { return s.TPM })}}
	lat := Chart{ID: "profile-latency", Title: main + " p95 and p99 vs virtual users · " + label, XLabel: labelVUs,
		YLabel: labelMs, XAxis: AxisLinear, Series: []Series{
			statSeries(p, "p95", func(s *results.StepSummary) results.Stat { return s.P95ms }),
			statSeries(p, "p99", func(s *results.StepSummary) results.Stat { return s.P99ms }),
		}}
	tp := Chart{ID: "profile-throughput-time", Title: "Throughput over time per step · " + label, XLabel: "seconds since the step's run started",
		YLabel: labelTPM, XAxis: AxisLinear}
	p95 := Chart{ID: "profile-p95-time", Title: "p95 latency over time per step (all transactions) · " + label,
		XLabel: "seconds since the step's run started", YLabel: labelMs, XAxis: AxisLinear}
	dist := Chart{ID: "profile-distribution", Title: "Latency distribution of " + main + " per step (measured window) · " + label,
		XLabel: labelPct, YLabel: labelMs, XAxis: AxisPercentile}
	var bands [][]Band
	for _, st := range p.Steps {
		name := vuName(st.VU)
		if d := firstMeasured(st); d != nil {
			// Repeated runs cannot be averaged second by second (their ticks do not line up), so
			// the time series show the step's first run; the distribution merges them all.
			tp.Series = append(tp.Series, Series{Name: name, Points: rate(d.Series, allTxns)})
			p95.Series = append(p95.Series, Series{Name: name, Points: p95Points(d.Series)})
			bands = append(bands, windowBands(d.Series))
		}
		var hs []string
		for _, d := range st.Runs {
			if d != nil {
				hs = append(hs, d.Histograms[main])
			}
		}
		dist.Series = append(dist.Series, Series{Name: name, Points: distribution(hs...)})
	}
	if b := sameBands(bands); b != nil {
		tp.Bands, p95.Bands = b, b
	}
	head, tpm, lat = vuTicks(head), vuTicks(tpm), vuTicks(lat)
	return []Chart{head, tpm, lat, tp, p95, percentileAxis(dist)}
}

// profileOverlays draws several profiles on shared axes, one series per profile. Profiles ranked
// by different figures (NOPM and TPS) cannot share an axis, so each headline gets its own chart.
func profileOverlays(ps []labelled) []Chart {
	var order []string
	heads := map[string]*Chart{}
	p95 := Chart{ID: "profiles-p95", Title: "p95 latency of the main transaction vs virtual users", XLabel: labelVUs,
		YLabel: labelMs, XAxis: AxisLinear}
	mains := map[string]bool{}
	for _, l := range ps {
		mains[profileMain(l.Profile)] = true
	}
	for _, l := range ps {
		p := l.Profile
		hname := profileHeadline(p)
		c := heads[hname]
		if c == nil {
			order = append(order, hname)
			c = &Chart{ID: "profiles-headline", Title: hname + " vs virtual users", XLabel: labelVUs,
				YLabel: headlineLabel(p), XAxis: AxisLinear}
			heads[hname] = c
		}
		s := statSeries(p, l.label, func(s *results.StepSummary) results.Stat { return s.Headline })
		s.Marks = marks(p, s)
		c.Series = append(c.Series, s)
		s = statSeries(p, l.label, func(s *results.StepSummary) results.Stat { return s.P95ms })
		if len(mains) > 1 {
			// Different workloads: say which transaction each line is.
			s.Name += " · " + profileMain(p)
		}
		p95.Series = append(p95.Series, s)
	}
	if len(mains) == 1 {
		for m := range mains {
			p95.Title = m + " p95 latency vs virtual users"
		}
	}
	var out []Chart
	for _, h := range order {
		c := *heads[h]
		if len(order) > 1 {
			c.ID += "-" + slug(h)
		}
		out = append(out, vuTicks(c))
	}
	out = append(out, vuTicks(p95))
	return append(out, peakOverlays(ps)...)
}

// peakOverlays compares profiles at their peaks: each one's peak step over time (throughput and
// p95), and the latency distribution of every transaction type there, a series per profile.
func peakOverlays(ps []labelled) []Chart {
	tp := Chart{ID: "profiles-peak-throughput", Title: "Throughput over time at each profile's peak", XLabel: "seconds since the step's run started",
		YLabel: labelTPM, XAxis: AxisLinear}
	p95 := Chart{ID: "profiles-peak-p95", Title: "p95 latency over time at each profile's peak (all transactions)",
		XLabel: "seconds since the step's run started", YLabel: labelMs, XAxis: AxisLinear}
	var types []string
	seen := map[string]bool{}
	peaks := make([]*results.Step, len(ps))
	for i, l := range ps {
		peaks[i] = l.Profile.StepAt(l.Profile.Marks.Peak)
		if peaks[i] == nil {
			continue
		}
		name := l.label + " · peak " + vuName(peaks[i].VU)
		if d := firstMeasured(peaks[i]); d != nil {
			tp.Series = append(tp.Series, Series{Name: name, Points: rate(d.Series, allTxns)})
			p95.Series = append(p95.Series, Series{Name: name, Points: p95Points(d.Series)})
			for _, n := range txnNames(d) {
				if !seen[n] {
					seen[n] = true
					types = append(types, n)
				}
			}
		}
	}
	out := []Chart{tp, p95}
	for _, typ := range types {
		c := Chart{ID: "profiles-peak-distribution-" + slug(typ), Title: "Latency distribution of " + typ + " at each profile's peak (measured window)",
			XLabel: labelPct, YLabel: labelMs, XAxis: AxisPercentile}
		for i, l := range ps {
			if peaks[i] == nil {
				continue
			}
			var hs []string
			for _, d := range peaks[i].Runs {
				if d != nil {
					hs = append(hs, d.Histograms[typ])
				}
			}
			c.Series = append(c.Series, Series{Name: l.label + " · peak " + vuName(peaks[i].VU), Points: distribution(hs...)})
		}
		out = append(out, percentileAxis(c))
	}
	return out
}

// timingCharts draws individually timed queries (TPC-H's): each query's time in the power test,
// and in each stream of the throughput test. One run gets a series per stream; several runs are
// overlaid, a series per run, with a chart per stream.
func timingCharts(runs []labelled) []Chart {
	if len(runs) == 0 {
		return nil
	}
	cats := timingCategories(runs)
	index := map[string]int{}
	for i, n := range cats {
		index[n] = i
	}
	// points of one stream of one run: the mean time of each query (the refresh stream runs RF1
	// and RF2 once per query stream).
	points := func(d *results.Document, stream int) [][2]float64 {
		sum, n := map[string]float64{}, map[string]int{}
		for _, t := range d.Timings {
			if t.Stream == stream && t.Error == "" {
				sum[t.Name] += t.Seconds
				n[t.Name]++
			}
		}
		var pts [][2]float64
		for _, name := range cats {
			if n[name] > 0 {
				pts = append(pts, [2]float64{float64(index[name]), sum[name] / float64(n[name])})
			}
		}
		return pts
	}
	streams := map[int]bool{}
	for _, r := range runs {
		for _, t := range r.Run.Timings {
			if t.Stream > 0 {
				streams[t.Stream] = true
			}
		}
	}
	var order []int
	for s := range streams {
		order = append(order, s)
	}
	sort.Ints(order)
	streamName := func(d *results.Document, s int) string {
		for _, t := range d.Timings {
			if t.Stream == s && strings.HasPrefix(t.Name, "Q") {
				return "stream " + strconv.Itoa(s)
			}
		}
		return "refresh stream"
	}
	chart := func(id, title string) Chart {
		return Chart{ID: id, Title: title, XLabel: "query", YLabel: "seconds", XAxis: AxisLinear, Categories: cats}
	}
	power := chart("tpch-power", "Power test: time per query")
	if len(runs) == 1 {
		d := runs[0].Run
		power.Title += " · " + runs[0].label
		power.Series = []Series{{Name: "power test", Points: points(d, 0)}}
		tp := chart("tpch-throughput", "Throughput test: time per query and stream (mean over the stream's runs) · "+runs[0].label)
		for _, s := range order {
			tp.Series = append(tp.Series, Series{Name: streamName(d, s), Points: points(d, s)})
		}
		return []Chart{power, tp}
	}
	out := []Chart{power}
	for _, r := range runs {
		out[0].Series = append(out[0].Series, Series{Name: r.label, Points: points(r.Run, 0)})
	}
	for _, s := range order {
		c := chart("tpch-throughput-"+strconv.Itoa(s), "")
		for _, r := range runs {
			c.Title = "Throughput test, " + streamName(r.Run, s) + ": time per query"
			c.Series = append(c.Series, Series{Name: r.label, Points: points(r.Run, s)})
		}
		out = append(out, c)
	}
	return out
}

// timingCategories are the timed names in the order of a power test: RF1, Q1 … Q22, RF2.
func timingCategories(runs []labelled) []string {
	seen := map[string]bool{}
	for _, r := range runs {
		for _, t := range r.Run.Timings {
			seen[t.Name] = true
		}
	}
	rank := func(n string) int {
		switch n {
		case "RF1":
			return -1
		case "RF2":
			return 1 << 20
		}
		q, _ := strconv.Atoi(strings.TrimPrefix(n, "Q"))
		return q
	}
	var cats []string
	for n := range seen {
		cats = append(cats, n)
	}
	sort.Slice(cats, func(i, j int) bool { return rank(cats[i]) < rank(cats[j]) })
	return cats
}

// Per-second figures.

func allTxns(s metrics.Second) int64      { return s.Txns }
func headlineTxns(s metrics.Second) int64 { return s.Headline }

// rate turns each tick's count into a per-minute rate over the tick's actual length: ticks are
// about a second apart, but the last one of a run is usually shorter.
func rate(ss []metrics.Second, count func(metrics.Second) int64) [][2]float64 {
	var pts [][2]float64
	prev := 0.0
	for _, s := range ss {
		dt := s.T - prev
		prev = s.T
		if dt < minInterval {
			continue
		}
		if v := float64(count(s)) * 60 / dt; finite(s.T, v) {
			pts = append(pts, [2]float64{s.T, v})
		}
	}
	return pts
}

// p95Points leaves out ticks without transactions (their p95 is 0, which is not a latency) and,
// as rate does, ticks too short to hold a meaningful sample.
func p95Points(ss []metrics.Second) [][2]float64 {
	var pts [][2]float64
	prev := 0.0
	for _, s := range ss {
		dt := s.T - prev
		prev = s.T
		if dt >= minInterval && s.Txns > 0 && finite(s.T, s.P95ms) {
			pts = append(pts, [2]float64{s.T, s.P95ms})
		}
	}
	return pts
}

// windowBands shades the ticks outside the measured window: the rampup before it and whatever
// ran after it. A tick covers (previous T, T], so a band runs from the end of the last tick
// before it to the end of its own last tick.
func windowBands(ss []metrics.Second) []Band {
	var bands []Band
	prev, seenWindow := 0.0, false
	for _, s := range ss {
		if s.Window {
			seenWindow = true
		} else {
			label := "rampup"
			if seenWindow {
				label = "after window"
			}
			if n := len(bands); n > 0 && bands[n-1].To == prev && bands[n-1].Label == label {
				bands[n-1].To = s.T
			} else {
				bands = append(bands, Band{From: prev, To: s.T, Label: label})
			}
		}
		prev = s.T
	}
	if !seenWindow {
		return nil // nothing was measured: shading everything would say nothing
	}
	return bands
}

// warmupBands shades the part of the window the warm-up reached into, when the rampup was short
// of it (results.Steady, docs/steady-state.md).
func warmupBands(d *results.Document) []Band {
	st := d.Steady
	if st == nil || st.ShortBySeconds <= 0 {
		return nil
	}
	return []Band{{From: st.WindowStartSeconds, To: st.FromSeconds, Label: "still warming up"}}
}

// outageBands shade the stretches of the window without service (results.OutageFigures).
func outageBands(d *results.Document) []Band {
	if d.Outage == nil {
		return nil
	}
	var out []Band
	for _, s := range d.Outage.Spans {
		out = append(out, Band{From: s.From, To: s.To, Label: "no service"})
	}
	return out
}

// sameBands returns the bands when every overlaid run has the same ones (steps of a profile share
// their rampup), and nil otherwise, since one run's rampup shading would mislabel another's.
func sameBands(all [][]Band) []Band {
	if len(all) == 0 {
		return nil
	}
	for _, b := range all[1:] {
		if len(b) != len(all[0]) {
			return nil
		}
		for i := range b {
			// Tick times jitter by milliseconds; a band is the same if it is within half a tick.
			if math.Abs(b[i].From-all[0][i].From) > 0.5 || math.Abs(b[i].To-all[0][i].To) > 0.5 || b[i].Label != all[0][i].Label {
				return nil
			}
		}
	}
	return all[0]
}

// Latency distributions.

// pointsPerDecade is how finely the percentile axis is sampled: 20 points per factor of ten of
// 1/(1-q) (90% → 99% → 99.9%) draws a smooth curve from a few hundred values.
const pointsPerDecade = 20

// maxPercentileX caps the tail at 99.99999%: beyond it the axis would be mostly empty.
const maxPercentileX = 1e7

// distribution decodes HDR histograms (merged when several, e.g. repeated runs of a step) and
// samples their percentile curve: x = 1/(1-q), y = latency in ms. Sampling stops at q = 1-1/count,
// the last percentile the data can resolve, where the maximum is drawn. Undecodable histograms
// are skipped: a report draws what it can.
func distribution(encoded ...string) [][2]float64 {
	var h *hdrhistogram.Histogram
	for _, e := range encoded {
		if e == "" {
			continue
		}
		d, err := hdrhistogram.Decode([]byte(e))
		if err != nil || d.TotalCount() == 0 {
			continue
		}
		if h == nil {
			h = d
		} else {
			h.Merge(d)
		}
	}
	if h == nil {
		return nil
	}
	n := float64(h.TotalCount())
	xmax := math.Min(n, maxPercentileX)
	var pts [][2]float64
	at := func(x float64) {
		pts = append(pts, [2]float64{x, float64(h.ValueAtQuantile(100*(1-1/x))) / 1000})
	}
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/pointsPerDecade)
		if x >= xmax {
			break
		}
		// The median is the most read point of the curve: draw it exactly, not between samples.
		if prev := math.Pow(10, float64(k-1)/pointsPerDecade); k > 0 && prev < 2 && x > 2 && 2 < xmax {
			at(2)
		}
		at(x)
	}
	if n <= maxPercentileX {
		pts = append(pts, [2]float64{n, float64(h.Max()) / 1000})
	} else {
		pts = append(pts, [2]float64{xmax, float64(h.ValueAtQuantile(100*(1-1/xmax))) / 1000})
	}
	return pts
}

// percentileAxis sets the extent and labels of a percentile chart: from 0% to the first power of
// ten (at least 99%) past the longest tail, labelled 0%, 50%, 90%, 99%, 99.9% …
func percentileAxis(c Chart) Chart {
	top := 1.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			top = math.Max(top, p[0])
		}
	}
	c.XMin = 1
	c.XMax = math.Max(100, math.Pow(10, math.Ceil(math.Log10(top)-1e-9)))
	c.Ticks = []Tick{{1, "0%"}, {2, "50%"}}
	for x := 10.0; x <= c.XMax*1.0001; x *= 10 {
		c.Ticks = append(c.Ticks, Tick{x, PercentileLabel(x)})
	}
	return c
}

// vuTicks labels a virtual-user axis at the steps that were run (1, 2, 4, 8 … rather than 0, 5,
// 10), leaving out those that would crowd the ones before them on a linear axis.
func vuTicks(c Chart) Chart {
	seen := map[float64]bool{}
	var vus []float64
	for _, s := range c.Series {
		for _, p := range s.Points {
			if !seen[p[0]] {
				seen[p[0]] = true
				vus = append(vus, p[0])
			}
		}
	}
	if len(vus) == 0 {
		return c
	}
	sort.Float64s(vus)
	minGap := vus[len(vus)-1] / 25
	c.Ticks = nil
	for _, v := range vus {
		if n := len(c.Ticks); n > 0 && v-c.Ticks[n-1].Value < minGap {
			continue
		}
		c.Ticks = append(c.Ticks, Tick{v, strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return c
}

// PercentileLabel writes the percentile at x = 1/(1-q) on the percentile axis: 10 → "90%",
// 1000 → "99.9%". Between decades it keeps one more digit than the decade below needs.
func PercentileLabel(x float64) string {
	if x <= 1 {
		return "0%"
	}
	digits := int(math.Max(0, math.Ceil(math.Log10(x)-1e-9)-2))
	if r := math.Log10(x); math.Abs(r-math.Round(r)) > 1e-9 {
		digits = int(math.Max(1, math.Ceil(r)-1))
	}
	return strconv.FormatFloat(100*(1-1/x), 'f', digits, 64) + "%"
}

// Profile helpers.

// profileHeadline is the figure the profile ranks steps by; "throughput" when no run says.
func profileHeadline(p *results.Profile) string {
	if name := p.HeadlineName(); name != "" {
		return name
	}
	return "throughput"
}

// headlineLabel names a profile's headline axis with its unit: "NOPM (New-Orders per minute)".
func headlineLabel(p *results.Profile) string {
	name := profileHeadline(p)
	if unit := p.HeadlineUnit(); unit != "" {
		return name + " (" + unit + ")"
	}
	return name
}

func profileMain(p *results.Profile) string {
	for _, st := range p.Steps {
		for _, d := range st.Runs {
			if d != nil {
				return mainTxn(p.MainTxn, d)
			}
		}
	}
	return p.MainTxn
}

// mainTxn is the transaction reports single out: the declared one, else the first measured type.
func mainTxn(declared string, d *results.Document) string {
	if declared != "" {
		return declared
	}
	if d.MainTxn != "" {
		return d.MainTxn
	}
	if names := txnNames(d); len(names) > 0 {
		return names[0]
	}
	return ""
}

// txnNames is the document's transaction order, then any type it forgot, sorted.
func txnNames(d *results.Document) []string {
	seen := map[string]bool{}
	var names []string
	for _, n := range d.TxnOrder {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	var rest []string
	for n := range d.Txns {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// statSeries is one summary figure per step: the mean, with min–max bars when a step ran more
// than once. Steps that measured nothing are left out.
func statSeries(p *results.Profile, name string, f func(*results.StepSummary) results.Stat) Series {
	s := Series{Name: name}
	spread := false
	for _, st := range p.Steps {
		v := f(&st.Summary)
		if v.N == 0 || !finite(float64(st.VU), v.Mean) || !finite(v.Min, v.Max) {
			continue
		}
		s.Points = append(s.Points, [2]float64{float64(st.VU), v.Mean})
		s.Range = append(s.Range, [2]float64{v.Min, v.Max})
		spread = spread || v.N > 1
	}
	if !spread {
		s.Range = nil
	}
	return s
}

// marks annotates the profile's verdicts on its headline series; verdicts on the same step share
// one label so they do not print over each other.
func marks(p *results.Profile, s Series) []Mark {
	at := map[int][]string{}
	var vus []int
	add := func(vu int, what string) {
		if vu <= 0 {
			return
		}
		if at[vu] == nil {
			vus = append(vus, vu)
		}
		at[vu] = append(at[vu], what)
	}
	add(p.Marks.Peak, "peak")
	add(p.Marks.Saturation, "saturation")
	add(p.Marks.Bottleneck, "bottleneck")
	var ms []Mark
	for _, vu := range vus {
		for _, pt := range s.Points {
			if pt[0] == float64(vu) {
				ms = append(ms, Mark{X: pt[0], Y: pt[1], Label: strings.Join(at[vu], ", ") + " (" + vuName(vu) + ")"})
			}
		}
	}
	return ms
}

// firstMeasured is the step's first run that measured something.
func firstMeasured(st *results.Step) *results.Document {
	for _, d := range st.Runs {
		if d == nil {
			continue
		}
		if _, _, ok := d.Headline(); ok && len(d.Series) > 0 {
			return d
		}
	}
	return nil
}

func vuName(vu int) string {
	if vu == 1 {
		return "1 VU"
	}
	return fmt.Sprintf("%d VUs", vu)
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}
