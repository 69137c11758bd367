package summary

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Group is one side of a comparison: a run, a group of repeated runs, or a profile.
type Group struct {
	Label   string // "#3 PostgreSQL 15.4", "#3,4,5 (mean of 3)"
	Runs    []*results.Document
	Profile *results.Profile
}

// CompareRuns prints every figure of each group of runs against the first group's, with its
// change and, for groups of repeated runs, whether it is significant.
func CompareRuns(w io.Writer, groups []Group) {
	docs := make([][]*results.Document, len(groups))
	for i, g := range groups {
		docs[i] = g.Runs
	}
	base := docs[0][0]
	headline := "headline" // what no run measured has no name
	for _, g := range docs {
		if name, _, ok := g[0].Headline(); ok {
			headline = name
			break
		}
	}
	anyCut := false
	for i, g := range groups {
		fmt.Fprintf(w, "%c: %s%s\n", 'A'+i, g.Label, cutMark(g.Runs))
		anyCut = anyCut || cutMark(g.Runs) != ""
	}
	for i := 1; i < len(groups); i++ {
		conditionDiffs(w, base, docs[i][0], fmt.Sprintf("A #%s", base.ID), fmt.Sprintf("%c #%s", 'A'+i, docs[i][0].ID))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "figure\tA\t")
	for i := 1; i < len(groups); i++ {
		fmt.Fprintf(tw, "%c\tvs A\t", 'A'+i)
	}
	fmt.Fprintln(tw)
	anyP, anySingle, untestable := false, false, false
	for _, f := range results.RunFigures(headline, base.MainTxn, base.TxnOrder) {
		a := f.Values(docs[0])
		if none(f, docs) {
			continue // a figure none of them has (recorded by later versions of cairn)
		}
		fmt.Fprintf(tw, "%s\t%s\t", f.Name, approxMark(f.Name, docs[0])+figureText(f.Name, results.NewStat(a)))
		for i := 1; i < len(groups); i++ {
			d := results.Compare(a, f.Values(docs[i]))
			fmt.Fprintf(tw, "%s\t%s\t", approxMark(f.Name, docs[i])+figureText(f.Name, d.Other), deltaText(d))
			if d.P >= 0 {
				anyP = true
				untestable = untestable || !d.Testable()
			} else {
				anySingle = true
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	// What 'results show' says beside the figures: an approximate TPM's bounds, and what was in
	// flight at the window's end.
	var beside []string
	for i, g := range docs {
		for _, d := range g {
			who := string(rune('A' + i))
			if len(g) > 1 {
				who += " #" + d.ID
			}
			for _, line := range []string{TPMApprox(d), InFlight(d), IntervalLine(d)} {
				if line != "" {
					beside = append(beside, "  "+who+": "+line)
				}
			}
		}
	}
	if len(beside) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.Join(beside, "\n"))
	}
	if lines := differences(headline, docs); len(lines) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
	var waits, synch []string
	for i, g := range docs {
		if top := g[0].Waits.Top(4); top != "" {
			waits = append(waits, fmt.Sprintf("  %c: %s", 'A'+i, top))
			waits = append(waits, fmt.Sprintf("     by group: %s", results.GroupsText(g[0].Waits.ByGroup())))
		}
		if top := results.TopWaits(g[0].Waits.SynchAlone(), 3); top != "" {
			synch = append(synch, fmt.Sprintf("  %c: %s", 'A'+i, top))
		}
	}
	if len(waits) > 0 {
		fmt.Fprintln(w, "\ntop waits (the first run of each):")
		fmt.Fprintln(w, strings.Join(waits, "\n"))
	}
	if len(synch) > 0 {
		fmt.Fprintln(w, "\ntop synch waits, their share of the synch waits alone (the first run of each):")
		fmt.Fprintln(w, strings.Join(synch, "\n"))
	}
	fmt.Fprintln(w)
	if anyP {
		fmt.Fprintf(w, "p: two-sided Mann-Whitney U test over the runs; '~' marks a difference within the run-to-run spread (p ≥ %.2f)\n", results.Alpha)
	}
	if untestable {
		untestableNote(w, "a side")
	}
	if anyCut {
		cutNote(w)
	}
	if anySingle {
		fmt.Fprintln(w, "single runs have no spread to judge a difference against: compare groups of repeated runs (compare 1,2,3 4,5,6) to test it")
	}
}

// CompareProfiles prints each profile's steps against the first's, matched by VU count.
func CompareProfiles(w io.Writer, groups []Group) {
	base := groups[0].Profile
	name := base.HeadlineName()
	if name == "" {
		name = "headline"
	}
	anyMarked := false
	for i, g := range groups {
		mark := ""
		if rs := g.Profile.Reasons(); len(rs) > 0 {
			mark, anyMarked = " · "+results.MarkText(rs), true
		}
		fmt.Fprintf(w, "%c: profile %s%s\n", 'A'+i, g.Label, mark)
	}
	for i := 1; i < len(groups); i++ {
		other := groups[i].Profile
		steps, gm, gmP := results.CompareProfiles(base, other)
		fmt.Fprintf(w, "\n%c vs A, steps matched by VU count:\n", 'A'+i)
		if len(steps) == 0 {
			fmt.Fprintln(w, "  no VU count appears in both profiles")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "VUs\t%s A\t%s %c\tchange\t%s p95 A\tp95 %c\tchange\t\n", name, name, 'A'+i, base.MainTxn, 'A'+i)
		for _, st := range steps {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", st.VU, statText(st.Headline.Base), statText(st.Headline.Other), deltaText(st.Headline),
				statMs(st.P95.Base), statMs(st.P95.Other), deltaText(st.P95))
		}
		tw.Flush()
		fmt.Fprintf(w, "overall (geometric mean over %d matched steps): %s %+.1f%%, p95 %+.1f%%\n", len(steps), name, 100*(gm-1), 100*(gmP-1))
		var unmatched []string
		for _, st := range other.Steps {
			if base.StepAt(st.VU) == nil {
				unmatched = append(unmatched, strconv.Itoa(st.VU))
			}
		}
		for _, st := range base.Steps {
			if other.StepAt(st.VU) == nil {
				unmatched = append(unmatched, strconv.Itoa(st.VU))
			}
		}
		if len(unmatched) > 0 {
			fmt.Fprintf(w, "steps in only one profile (not compared): %s VUs\n", strings.Join(unmatched, ", "))
		}
	}
	fmt.Fprintln(w)
	spreadNote(w, base.Repeat, "profile with --repeat 3 or more")
	if anyMarked {
		cutNote(w)
	}
}

// spreadNote says how the step differences above were tested, or why they were not: runs
// repeated per step (how to ask for more).
func spreadNote(w io.Writer, repeat int, more string) {
	if repeat < 2 {
		fmt.Fprintf(w, "steps of single runs have no spread to judge a difference against: %s to test it\n", more)
		return
	}
	fmt.Fprintf(w, "'~' marks a step difference within the run-to-run spread (two-sided Mann-Whitney U test, p ≥ %.2f)\n", results.Alpha)
	if repeat < results.MinRuns() {
		untestableNote(w, "a step")
	}
}

// untestableNote says why a difference is called untestable rather than within the spread.
func untestableNote(w io.Writer, per string) {
	fmt.Fprintf(w, "'untestable (n=…)': with n runs %s the test cannot reach p < %.2f however large the difference (its smallest p is 2/C(n1+n2, n1)); it needs %d runs %s: repeat more to decide\n",
		per, results.Alpha, results.MinRuns(), per)
}

// approxMark is "~" for the TPM of a side with an approximate TPM (its bounds are said below
// the table), "" otherwise.
func approxMark(figure string, runs []*results.Document) string {
	if figure != "TPM" {
		return ""
	}
	for _, d := range runs {
		if d != nil && d.Result.TPMApprox != nil {
			return "~"
		}
	}
	return ""
}

// cutMark marks a group holding runs that did not measure what was planned, with their reasons.
func cutMark(runs []*results.Document) string {
	var marks []string
	for _, d := range runs {
		if d == nil || !d.Marked() {
			continue
		}
		t := results.MarkText(d.NotAsPlanned)
		if len(runs) > 1 {
			t = "#" + d.ID + " " + t
		}
		marks = append(marks, t)
	}
	if len(marks) == 0 {
		return ""
	}
	return " · " + strings.Join(marks, " · ")
}

func cutNote(w io.Writer) {
	fmt.Fprintln(w, "not as planned: a run did not measure what was planned (its window cut short or over plan, an outage in it, a part of a run alone); its figures are not comparable with full runs as they are")
}

func figureText(name string, s results.Stat) string {
	if s.N == 0 {
		return "-"
	}
	if strings.HasSuffix(name, " ms") {
		t := textfmt.Ms(s.Mean)
		if s.N > 1 && s.Mean != 0 {
			t += fmt.Sprintf(" ±%.1f%%", 100*s.SD/s.Mean)
		}
		return t
	}
	if strings.Contains(name, "CPU") {
		return fmt.Sprintf("%.1f", s.Mean)
	}
	if strings.HasSuffix(name, "MB/s") {
		t := fmt.Sprintf("%.2f", s.Mean)
		if s.N > 1 && s.Mean != 0 {
			t += fmt.Sprintf(" ±%.1f%%", 100*s.SD/s.Mean)
		}
		return t
	}
	return statText(s)
}

func deltaText(d results.Delta) string {
	if d.Base.N == 0 || d.Other.N == 0 {
		return "-"
	}
	if d.Base.Mean == 0 {
		if d.Other.Mean == 0 {
			return "0"
		}
		return "new"
	}
	t := fmt.Sprintf("%+.1f%%", 100*d.Change)
	if d.P >= 0 {
		if !d.Testable() {
			n := strconv.Itoa(d.Base.N)
			if d.Other.N != d.Base.N {
				n += "/" + strconv.Itoa(d.Other.N)
			}
			return fmt.Sprintf("%s untestable (n=%s)", t, n)
		}
		if !d.Significant() {
			return fmt.Sprintf("%s ~ (p=%.2f)", t, d.P)
		}
		t += fmt.Sprintf(" (p=%.3f)", d.P)
	}
	return t
}

func none(f results.Figure, groups [][]*results.Document) bool {
	for _, g := range groups {
		if len(f.Values(g)) > 0 {
			return false
		}
	}
	return true
}

// differences are the lines of the headline's mean with its interval for each group of repeated
// runs (results.RepeatsInterval), and for TPC-H runs each power-test query's time with its
// interval (results.PowerTimes), then the headline's difference against A (results.Differ): its interval,
// its effect size and the repeats that would resolve it.
func differences(headline string, docs [][]*results.Document) []string {
	f := results.RunFigures(headline, "", nil)[0]
	var out []string
	for i, g := range docs {
		if m, h, ok := results.RepeatsInterval(f.Values(g)); ok && m != 0 {
			out = append(out, fmt.Sprintf("%s of %c: %s ±%.1f%% (95%%, Student's t over %d runs)", headline, 'A'+i, figure(m), 100*h/math.Abs(m), len(f.Values(g))))
		}
	}
	// A TPC-H group's power tests: each query's time across the repeats.
	for i, g := range docs {
		var parts []string
		n := 0
		for _, p := range results.PowerTimes(g[0]) {
			v := p.Values(g)
			if m, h, ok := results.RepeatsInterval(v); ok && m != 0 {
				parts = append(parts, fmt.Sprintf("%s %s ms ±%.1f%%", p.Name, figure(m), 100*h/m))
				n = max(n, len(v))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("power-test times of %c (95%%, Student's t over %d runs): %s", 'A'+i, n, strings.Join(parts, ", ")))
		}
	}
	for i := 1; i < len(docs); i++ {
		d, ok := results.Differ(f.Values(docs[0]), f.Values(docs[i]))
		if !ok {
			continue
		}
		out = append(out, fmt.Sprintf("%s, %c against A: %+.1f%% [%+.1f%%, %+.1f%%] (95%%, Welch's t over the runs); effect size d = %.2f (Cohen's d); about %d runs a side would resolve a difference this size (5%% two-sided, 80%% power)",
			headline, 'A'+i, 100*d.Change, 100*d.Lo, 100*d.Hi, d.EffectSize, d.Repeats))
	}
	return out
}

// MaxConditionLines is how many differing conditions a comparison lists before it counts the rest.
const MaxConditionLines = 20

// conditionDiffs lists what differs in the conditions of two runs (results.DiffConditions),
// before their figures are compared: a difference in the figures may be one in the conditions.
func conditionDiffs(w io.Writer, a, b *results.Document, la, lb string) {
	diffs := results.DiffConditions(a, b)
	if len(diffs) == 0 {
		fmt.Fprintf(w, "conditions: %s and %s ran under the same cairn, database, settings, host and spec\n", la, lb)
		return
	}
	fmt.Fprintf(w, "conditions that differ (%s → %s):\n", la, lb)
	for i, d := range diffs {
		if i == MaxConditionLines {
			fmt.Fprintf(w, "  … and %d more\n", len(diffs)-i)
			break
		}
		fmt.Fprintf(w, "  %s: %s → %s\n", d.Key, orNone(d.A), orNone(d.B))
	}
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}
