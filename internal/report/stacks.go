package report

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
)

// Flame is a flame graph of the server's on-CPU profile: each frame a box as wide as its samples,
// its callers below it (root at the bottom). Colours are chosen here so that the page and the PNG
// draw the same graph.
type Flame struct {
	// Width is the samples the boxes are laid out over (the stored stacks); Samples all of the
	// profile's, which the shares are of: stacks left out of the stored profile are not drawn.
	Width   int64       `json:"width"`
	Samples int64       `json:"samples"`
	Depth   int         `json:"depth"`
	Nodes   []FlameNode `json:"nodes"`
	// Diff, when set, is a differential graph: the second profile's stacks, each frame coloured by
	// how much its inclusive share changed from the first's (Base); Legend says which is which.
	Diff   bool   `json:"diff,omitempty"`
	Legend string `json:"legend,omitempty"`
}

// FlameNode is one frame on one call path. Start and Value are in samples; Base is, in a
// differential graph, the first profile's inclusive share of the same path (percent).
type FlameNode struct {
	Name  string   `json:"n"`
	Depth int      `json:"d"`
	Start int64    `json:"s"`
	Value int64    `json:"v"`
	Self  int64    `json:"f,omitempty"`
	Base  *float64 `json:"b,omitempty"`
	Color string   `json:"c"`
}

// flameMinShare is the narrowest frame drawn, as a share of the samples: a thousandth is under
// 1.5 px of a 1400-pixel page, and leaving the rest out bounds the page's size.
const flameMinShare = 0.001

// cpuProfile is the on-CPU profile of one run, or the samples of several runs pooled (a step's
// repeats, a study case's steps).
type cpuProfile struct {
	label   string
	samples int64
	folded  map[string]int64
	self    map[string]float64 // percent of samples (diagnosis.SelfShares)
	runs    int
}

// profileOf pools the on-CPU profiles of runs; nil when none has one. The self shares are
// diagnosis.SelfShares', which results compare reads too, so the page and the terminal agree.
func profileOf(label string, runs ...*results.Document) *cpuProfile {
	self, ok := diagnosis.SelfShares(runs)
	if !ok {
		return nil
	}
	p := &cpuProfile{label: label, folded: map[string]int64{}, self: self}
	for _, d := range runs {
		s := results.StacksOf(d)
		if s == nil || s.Note != "" || s.Samples == 0 {
			continue // as SelfShares leaves it out
		}
		p.runs++
		p.samples += s.Samples
		for _, f := range s.Folded {
			p.folded[f.Stack] += f.Count
		}
	}
	return p
}

// stepProfile pools the profiles of a step's runs.
func stepProfile(label string, st *results.Step) *cpuProfile {
	return profileOf(label, st.Runs...)
}

// allRuns are a profile's runs, every step's.
func allRuns(p *results.Profile) []*results.Document {
	var out []*results.Document
	for _, st := range p.Steps {
		out = append(out, st.Runs...)
	}
	return out
}

// flameChart draws a profile as a flame graph; nil when it has no stacks.
func flameChart(p *cpuProfile, id, title string) *Chart {
	if p == nil || len(p.folded) == 0 {
		return nil
	}
	f := layoutFlame(p.folded, p.samples)
	for i := range f.Nodes {
		f.Nodes[i].Color = warm(f.Nodes[i].Name)
	}
	return &Chart{ID: id, Title: title, XLabel: "share of the samples", YLabel: "stack depth", XAxis: AxisLinear, Flame: f}
}

// flameDiffChart draws b's stacks coloured by the change of each frame's inclusive share from a
// to b: red gained, blue lost. Frames b no longer runs at all cannot be drawn on b's stacks; the
// table of functions lists them.
func flameDiffChart(a, b *cpuProfile, id, title string) *Chart {
	if a == nil || b == nil || len(a.folded) == 0 || len(b.folded) == 0 {
		return nil
	}
	base := pathShares(a.folded, a.samples)
	f := layoutFlame(b.folded, b.samples)
	f.Diff = true
	f.Legend = fmt.Sprintf("red: gained share from %s to %s; blue: lost", a.label, b.label)
	deltas := make([]float64, len(f.Nodes))
	var path []string
	maxd := 0.0
	for i := range f.Nodes {
		n := &f.Nodes[i]
		path = append(path[:n.Depth], n.Name)
		was := base[strings.Join(path, ";")]
		n.Base = &was
		deltas[i] = 100*float64(n.Value)/float64(b.samples) - was
		maxd = math.Max(maxd, math.Abs(deltas[i]))
	}
	for i := range f.Nodes {
		f.Nodes[i].Color = diverging(deltas[i], maxd)
	}
	return &Chart{ID: id, Title: title, XLabel: "share of the samples", YLabel: "stack depth", XAxis: AxisLinear, Flame: f}
}

// pathShares is each call path's inclusive share of samples, in percent.
func pathShares(folded map[string]int64, samples int64) map[string]float64 {
	out := map[string]float64{}
	for st, c := range folded {
		for i := 0; i <= len(st); i++ {
			if i == len(st) || st[i] == ';' {
				out[st[:i]] += 100 * float64(c) / float64(samples)
			}
		}
	}
	return out
}

// flameTree is the folded stacks merged into one tree of call paths.
type flameTree struct {
	name     string
	value    int64
	self     int64
	children map[string]*flameTree
}

// layoutFlame lays the stacks out as boxes: depth first, children in name order (the flame
// graph's convention, which lines two graphs up), frames narrower than flameMinShare left out.
func layoutFlame(folded map[string]int64, samples int64) *Flame {
	root := &flameTree{children: map[string]*flameTree{}}
	for st, c := range folded {
		root.value += c
		n := root
		for _, fr := range strings.Split(st, ";") {
			ch := n.children[fr]
			if ch == nil {
				ch = &flameTree{name: fr, children: map[string]*flameTree{}}
				n.children[fr] = ch
			}
			ch.value += c
			n = ch
		}
		n.self += c
	}
	f := &Flame{Width: root.value, Samples: samples}
	min := int64(math.Ceil(flameMinShare * float64(root.value)))
	var walk func(n *flameTree, depth int, start int64)
	walk = func(n *flameTree, depth int, start int64) {
		names := make([]string, 0, len(n.children))
		for k := range n.children {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			ch := n.children[k]
			if ch.value >= min {
				f.Nodes = append(f.Nodes, FlameNode{Name: ch.name, Depth: depth, Start: start, Value: ch.value, Self: ch.self})
				f.Depth = max(f.Depth, depth+1)
				walk(ch, depth+1, start)
			}
			start += ch.value
		}
	}
	walk(root, 0, 0)
	return f
}

// warm is a frame's colour in the flame graph's usual reds and yellows, the same for a name in
// every graph; the kernel's frames (results.KernelFrame) are blues, frames perf could not name
// ("[mariadbd]") grey.
func warm(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	v := h.Sum32()
	switch {
	case results.KernelFrame(name):
		return fmt.Sprintf("#%02x%02x%02x", 110+int(v%40), 160+int((v>>8)%40), 215+int((v>>16)%35))
	case strings.HasPrefix(name, "["):
		return "#c8c8c8"
	}
	r := 205 + int(v%50)
	g := 90 + int((v>>8)%140)
	b := int((v >> 16) % 55)
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

// diverging is white for no change, up to red for the largest gain and blue for the largest loss.
func diverging(d, maxd float64) string {
	if maxd <= 0 {
		return "#ffffff"
	}
	t := math.Min(1, math.Abs(d)/maxd)
	// Small changes stay visible: the scale is a square root.
	t = math.Sqrt(t)
	mix := func(to int) int { return int(math.Round(255 + (float64(to)-255)*t)) }
	if d >= 0 {
		return fmt.Sprintf("#%02x%02x%02x", mix(214), mix(39), mix(40))
	}
	return fmt.Sprintf("#%02x%02x%02x", mix(31), mix(119), mix(180))
}

// funcTable is the top server functions by self share, one column per profile (a run, a step, a
// study case at a VU count), so that a function gaining share reads along its row.
type funcTable struct {
	Caption string
	Groups  []colGroup // a study's cases above their VU counts; none otherwise
	Cols    []string
	Rows    []funcRow
}

type colGroup struct {
	Name string
	Span int
}

type funcRow struct {
	Name  string
	Cells []funcCell
}

// funcCell is a share and how strongly to shade it (0 to 1, of the table's largest share).
type funcCell struct {
	Text  string
	Shade string
}

// funcTableRows is the number of functions a table lists.
const funcTableRows = 15

// topFunctions builds the table of profiles (nil ones are columns without a profile); nil when
// none has one.
func topFunctions(caption string, cols []string, ps []*cpuProfile) *funcTable {
	best := map[string]float64{}
	found := false
	for _, p := range ps {
		if p == nil {
			continue
		}
		found = true
		for n, v := range p.self {
			best[n] = math.Max(best[n], v)
		}
	}
	if !found {
		return nil
	}
	names := make([]string, 0, len(best))
	for n := range best {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if best[names[i]] != best[names[j]] {
			return best[names[i]] > best[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > funcTableRows {
		names = names[:funcTableRows]
	}
	top := 0.0
	if len(names) > 0 {
		top = best[names[0]]
	}
	t := &funcTable{Caption: caption + kernelCaption(names), Cols: cols}
	for _, n := range names {
		r := funcRow{Name: n}
		for _, p := range ps {
			if p == nil {
				r.Cells = append(r.Cells, funcCell{Text: "–"})
				continue
			}
			v := p.self[n]
			r.Cells = append(r.Cells, funcCell{Text: pct(v), Shade: shade(v, top)})
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// kernelCaption says what the kernel's row is, for a table that has one.
func kernelCaption(names []string) string {
	for _, n := range names {
		if n == diagnosis.KernelName {
			return " · " + diagnosis.KernelName + ": every sample taken in the kernel, whichever kernel function (the flame graph names them)"
		}
	}
	return ""
}

// shade is a cell's background opacity, in proportion to the table's largest share.
func shade(v, top float64) string {
	if top <= 0 || v <= 0 {
		return "0"
	}
	return fmt.Sprintf("%.2f", 0.45*v/top)
}

func pct(v float64) string {
	if v == 0 {
		return "0"
	}
	return num(v) + "%"
}

// diffTable lists the functions whose self share changed most from one profile to another.
type diffTable struct {
	Caption string
	A, B    string
	Rows    []diffRow
}

type diffRow struct {
	Name, A, B, Delta string
	Gain              bool
}

// diffShown is how many functions a differential table lists of each direction.
const diffShown = 10

// shareDiff compares the self shares of two profiles with diagnosis.FunctionShifts, the rule
// results compare prints by: the functions that gained most, then those that lost most; nil
// unless both have a profile.
func shareDiff(a, b *cpuProfile) *diffTable {
	if a == nil || b == nil {
		return nil
	}
	gained, lost := diagnosis.FunctionShifts(a.self, b.self, diffShown)
	t := &diffTable{A: a.label, B: b.label,
		Caption: fmt.Sprintf("Server functions whose self share changed most, from %s to %s (percentage points of each one's on-CPU samples)", a.label, b.label)}
	var names []string
	for _, f := range append(gained, lost...) {
		names = append(names, f.Name)
	}
	t.Caption += kernelCaption(names)
	for _, f := range append(gained, lost...) {
		t.Rows = append(t.Rows, diffRow{Name: f.Name, A: pct(f.Base), B: pct(f.Other),
			Delta: fmt.Sprintf("%+.2f", f.Change()), Gain: f.Change() > 0})
	}
	return t
}

// stackViews are the report's on-CPU tables for items: the top functions per run, per profile
// step and per study case and VU count, and the differential table of two runs, two profiles or
// a study's two cases.
func stackViews(items []Item, labels []string) ([]funcTable, *diffTable) {
	var tables []funcTable
	var runCols []string
	var runPs, units []*cpuProfile
	for i, it := range items {
		switch {
		case it.Run != nil:
			p := profileOf(labels[i], it.Run)
			runCols, runPs = append(runCols, labels[i]), append(runPs, p)
			units = append(units, p)
		case it.Profile != nil:
			if t := stepFunctions(it.Profile, labels[i]); t != nil {
				tables = append(tables, *t)
			}
			units = append(units, profileOf(labels[i], allRuns(it.Profile)...))
		case it.Study != nil:
			if t := caseFunctions(it.Study); t != nil {
				tables = append(tables, *t)
			}
			units = units[:0]
			for _, c := range studyCases(it.Study) {
				units = append(units, profileOf(c.label, allRuns(c.Profile)...))
			}
		}
	}
	if t := topFunctions("Top server functions per run (self share of the on-CPU samples)", runCols, runPs); t != nil {
		tables = append([]funcTable{*t}, tables...)
	}
	var diff *diffTable
	if len(units) == 2 && sameKind(items) {
		diff = shareDiff(units[0], units[1])
	}
	return tables, diff
}

// sameKind reports whether items are all runs or all profiles, or one study: what a differential
// view compares like with like.
func sameKind(items []Item) bool {
	runs, profiles := 0, 0
	for _, it := range items {
		switch {
		case it.Run != nil:
			runs++
		case it.Profile != nil:
			profiles++
		}
	}
	return runs == len(items) || profiles == len(items) || len(items) == 1 && items[0].Study != nil
}

// stepFunctions is a profile's top functions, one column per step (its runs pooled).
func stepFunctions(p *results.Profile, label string) *funcTable {
	var cols []string
	var ps []*cpuProfile
	for _, st := range p.Steps {
		cols = append(cols, vuName(st.VU))
		ps = append(ps, stepProfile(vuName(st.VU), st))
	}
	return topFunctions("Top server functions per step · "+label+" (self share of the on-CPU samples; a step's runs pooled)", cols, ps)
}

// caseFunctions is a study's top functions, one column per case and VU count.
func caseFunctions(st *results.Study) *funcTable {
	var groups []colGroup
	var cols []string
	var ps []*cpuProfile
	for _, c := range studyCases(st) {
		groups = append(groups, colGroup{Name: c.label, Span: len(c.Profile.Steps)})
		for _, s := range c.Profile.Steps {
			cols = append(cols, vuName(s.VU))
			ps = append(ps, stepProfile(c.label+" · "+vuName(s.VU), s))
		}
	}
	t := topFunctions("Top server functions per case and VU count (self share of the on-CPU samples; a step's runs pooled)", cols, ps)
	if t != nil {
		t.Groups = groups
	}
	return t
}

// flameCharts are the flame graphs for the report's runs and profiles: each run's, each
// profile's (or study case's) peak step, and the differential graph of exactly two runs.
func flameCharts(runs, profiles []labelled) []Chart {
	var out []Chart
	var rps []*cpuProfile
	for i, r := range runs {
		p := profileOf(r.label, r.Run)
		rps = append(rps, p)
		if c := flameChart(p, fmt.Sprintf("run-flame-%d", i+1), flameTitle(p, r.label)); c != nil {
			out = append(out, *c)
		}
	}
	if len(rps) == 2 && rps[0] != nil && rps[1] != nil {
		if c := flameDiffChart(rps[0], rps[1], "runs-flame-diff", "Differential flame graph · "+rps[1].label+" against "+rps[0].label); c != nil {
			out = append(out, *c)
		}
	}
	for i, l := range profiles {
		st := l.Profile.StepAt(l.Profile.Marks.Peak)
		if st == nil {
			continue
		}
		label := l.label + " · peak step, " + vuName(st.VU)
		p := stepProfile(label, st)
		if c := flameChart(p, fmt.Sprintf("profile-flame-%d", i+1), flameTitle(p, label)); c != nil {
			out = append(out, *c)
		}
	}
	return out
}

func flameTitle(p *cpuProfile, label string) string {
	if p == nil {
		return ""
	}
	runs := ""
	if p.runs > 1 {
		runs = fmt.Sprintf(", %d runs pooled", p.runs)
	}
	return fmt.Sprintf("Server on-CPU flame graph (%s samples%s) · %s", thousands(float64(p.samples)), runs, label)
}
