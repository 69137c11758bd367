package report

import (
	"fmt"
	"strconv"

	"github.com/cairn-bench/cairn/internal/results"
)

// fanoutRow is one case of a fan-out study at one VU count (results.FanoutStep), as text.
type fanoutRow struct {
	Case, VU                                                            string
	LogicalP95, LogicalMean, PhysicalP95, PhysicalMean, LagP95, LagMean string
	Shard, ShardAdded, ShardPct, ShardLast                              string
	Server, ServerAdded, ServerPct, ServerLast                          string
}

// fanoutRows are a fan-out study's own figures per case and VU count; nil for another study.
func fanoutRows(st *results.Study) []fanoutRow {
	var out []fanoutRow
	for _, c := range st.Cases {
		for _, step := range c.Profile.Steps {
			f, ok := results.FanoutStepOf(step.Runs)
			if !ok {
				continue
			}
			r := fanoutRow{Case: c.Label, VU: strconv.Itoa(step.VU), LogicalP95: num(f.LogicalP95.Mean), LogicalMean: num(f.LogicalMean.Mean),
				PhysicalP95: num(f.PhysicalP95.Mean), PhysicalMean: num(f.PhysicalMean.Mean), LagP95: num(f.LagP95.Mean), LagMean: num(f.LagMean.Mean)}
			r.Shard, r.ShardAdded, r.ShardPct, r.ShardLast = slowestText(f.Shard)
			r.Server, r.ServerAdded, r.ServerPct, r.ServerLast = slowestText(f.Server)
			out = append(out, r)
		}
	}
	return out
}

func slowestText(s results.FanoutSlowest) (name, added, pct, last string) {
	if s.Name == "" {
		return "-", "-", "-", "-"
	}
	return s.Name, strconv.FormatFloat(s.AddedMeanMs, 'f', 4, 64), fmt.Sprintf("%.1f%%", s.AddedPct), fmt.Sprintf("%.1f%%", s.LastPct)
}

// fanoutCharts draw a fan-out study's logical against physical p95 per VU count, a pair of lines
// per case (error bars over the repeats); nil for another study.
func fanoutCharts(st *results.Study) []Chart {
	ch := Chart{ID: "study-fanout-rt", Title: "Logical against physical p95 vs virtual users", XLabel: labelVUs, YLabel: labelMs, XAxis: AxisLinear}
	for _, c := range st.Cases {
		logical, physical := Series{Name: "logical · " + c.Label}, Series{Name: "physical · " + c.Label}
		spread := false
		for _, step := range c.Profile.Steps {
			f, ok := results.FanoutStepOf(step.Runs)
			if !ok {
				continue
			}
			for _, x := range []struct {
				s *Series
				v results.Stat
			}{{&logical, f.LogicalP95}, {&physical, f.PhysicalP95}} {
				x.s.Points = append(x.s.Points, [2]float64{float64(step.VU), x.v.Mean})
				x.s.Range = append(x.s.Range, [2]float64{x.v.Min, x.v.Max})
				spread = spread || x.v.N > 1
			}
		}
		if len(logical.Points) == 0 {
			continue
		}
		if !spread {
			logical.Range, physical.Range = nil, nil
		}
		ch.Series = append(ch.Series, logical, physical)
	}
	if len(ch.Series) == 0 {
		return nil
	}
	return []Chart{vuTicks(ch)}
}
