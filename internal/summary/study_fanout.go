package summary

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
)

// fanoutLegend says what the fan-out tables' columns are (docs/studies.md#fan-out).
const fanoutLegend = "ms, means over each step's runs; short board: the last statement's end after the request's median end; " +
	"slowest: the shard and server whose statements, ending last, added the most time to the requests (their end minus the next-latest's), " +
	"that time per request, its share of all the time added, and how often it ended last"

// fanoutStudy prints a fan-out study's own figures per case and VU count: logical against
// physical response time, the short board, the slowest shard and server. Nothing for a study
// without them.
func fanoutStudy(w io.Writer, s *results.Study) {
	type row struct {
		c, vu int
		f     *results.FanoutStep
	}
	var rows []row
	for ci, c := range s.Cases {
		for _, st := range c.Profile.Steps {
			if f, ok := results.FanoutStepOf(st.Runs); ok {
				rows = append(rows, row{ci, st.VU, f})
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	// Each case against the first at the same VU count, as the cases' own table.
	vsA := func(r row, pick func(*results.FanoutStep) results.Stat) string {
		if r.c == 0 {
			return ""
		}
		for _, b := range rows {
			if b.c == 0 && b.vu == r.vu {
				return deltaText(results.Compare(pick(b.f).Values, pick(r.f).Values))
			}
		}
		return ""
	}
	logical := func(f *results.FanoutStep) results.Stat { return f.LogicalP95 }
	physical := func(f *results.FanoutStep) results.Stat { return f.PhysicalP95 }
	fmt.Fprintf(w, "\nfan-out per case and VU count (%s):\n", fanoutLegend)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "case\tVUs\tlogical p95\tvs A\tmean\tphysical p95\tvs A\tmean\tshort board p95\tmean\tslowest shard\tadded ms/req\t%\tlast\tslowest server\tadded ms/req\t%\tlast\t\n")
	for _, r := range rows {
		f := r.f
		fmt.Fprintf(tw, "%c\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", 'A'+r.c, r.vu, statMs(f.LogicalP95), vsA(r, logical), statMs(f.LogicalMean),
			statMs(f.PhysicalP95), vsA(r, physical), statMs(f.PhysicalMean), statMs(f.LagP95), statMs(f.LagMean), slowestCells(f.Shard)+"\t"+slowestCells(f.Server))
	}
	tw.Flush()
}

// slowestCells are a slowest shard's or server's name, time added per request, share and share
// of last, tab-separated.
func slowestCells(s results.FanoutSlowest) string {
	if s.Name == "" {
		return "-\t-\t-\t-"
	}
	return fmt.Sprintf("%s\t%.4f\t%.1f%%\t%.1f%%", s.Name, s.AddedMeanMs, s.AddedPct, s.LastPct)
}

// fanoutStudies prints studies of one design's fan-out figures side by side, each case at each
// VU count: logical and physical p95 against the first study's, the short board's p95 and the
// slowest shard. Nothing where no study has them.
func fanoutStudies(w io.Writer, cols []string, ss []*results.Study, rows []results.StudyRow) {
	type fig struct {
		f  []*results.FanoutStep
		ok bool
	}
	figs := make([]fig, len(rows))
	anyFan := false
	for i, r := range rows {
		figs[i].f = make([]*results.FanoutStep, len(r.Runs))
		for si, runs := range r.Runs {
			if f, ok := results.FanoutStepOf(runs); ok {
				figs[i].f[si], figs[i].ok, anyFan = f, true, true
			}
		}
	}
	if !anyFan {
		return
	}
	fmt.Fprintf(w, "\nfan-out per case and VU count (%s):\n", fanoutLegend)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "case\tVUs\t")
	for _, name := range []string{"logical p95", "physical p95"} {
		for i, c := range cols {
			fmt.Fprintf(tw, "%s %s\t", name, c)
			if i > 0 {
				fmt.Fprintf(tw, "vs %s\t", cols[0])
			}
		}
	}
	for _, c := range cols {
		fmt.Fprintf(tw, "short board p95 %s\tslowest shard %s\tadded %%\t", c, c)
	}
	fmt.Fprintln(tw)
	stat := func(f *results.FanoutStep, pick func(*results.FanoutStep) results.Stat) results.Stat {
		if f == nil {
			return results.Stat{}
		}
		return pick(f)
	}
	for i, r := range rows {
		if !figs[i].ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t", ss[0].Cases[r.Case].Label, r.VU)
		for _, pick := range []func(*results.FanoutStep) results.Stat{
			func(f *results.FanoutStep) results.Stat { return f.LogicalP95 },
			func(f *results.FanoutStep) results.Stat { return f.PhysicalP95 },
		} {
			base := stat(figs[i].f[0], pick)
			for si, f := range figs[i].f {
				s := stat(f, pick)
				fmt.Fprintf(tw, "%s\t", statMs(s))
				if si > 0 {
					fmt.Fprintf(tw, "%s\t", deltaText(results.Compare(base.Values, s.Values)))
				}
			}
		}
		for _, f := range figs[i].f {
			if f == nil {
				fmt.Fprint(tw, "-\t-\t-\t")
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t", statMs(f.LagP95), orDash(f.Shard.Name), fmt.Sprintf("%.1f%%", f.Shard.AddedPct))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
