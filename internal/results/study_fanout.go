package results

import "math"

// FanoutStep is a fan-out step's own figures over its runs (a study's case at one VU count, or a
// profile's step): logical against physical response time, the short board, and the shard and
// the server that added the most time to the logical response time (docs/studies.md#fan-out).
type FanoutStep struct {
	// Each Stat is over the step's runs, a value per run: the logical response time (the main
	// transaction's, as every workload's p95), the physical one (every statement of the window),
	// the short board's lag (the last statement's end after the request's median end).
	LogicalP95, LogicalMean   Stat
	PhysicalP95, PhysicalMean Stat
	LagP95, LagMean           Stat
	// Shard and Server are the first ranked by the time they added over the step's runs pooled.
	Shard, Server FanoutSlowest
}

// FanoutSlowest is the shard (or server) that added the most time to the step's logical response
// times, over its runs pooled.
type FanoutSlowest struct {
	Name string
	// AddedMeanMs is the time it added per request of the runs' windows; AddedPct its share of the
	// time every shard (server) added; LastPct how often its statement ended last, of the requests.
	AddedMeanMs, AddedPct, LastPct float64
}

// FanoutStepOf condenses a step's runs' fan-out figures; false when none of them has any.
func FanoutStepOf(runs []*Document) (*FanoutStep, bool) {
	var s FanoutStep
	var lp95, lmean, pp95, pmean, gp95, gmean []float64
	var shards, servers []FanoutGroup
	var reqs int64
	for _, d := range runs {
		x, ok := FanoutOf(d)
		if !ok || x.Requests == 0 {
			continue
		}
		lp95, lmean = append(lp95, x.LogicalMs.P95), append(lmean, x.LogicalMs.Mean)
		pp95, pmean = append(pp95, x.PhysicalMs.P95), append(pmean, x.PhysicalMs.Mean)
		gp95, gmean = append(gp95, x.ShortBoard.LagMs.P95), append(gmean, x.ShortBoard.LagMs.Mean)
		shards, servers = poolGroups(shards, x.PerShard), poolGroups(servers, x.PerServer)
		reqs += x.Requests
	}
	if len(lp95) == 0 {
		return nil, false
	}
	s.LogicalP95, s.LogicalMean = NewStat(lp95), NewStat(lmean)
	s.PhysicalP95, s.PhysicalMean = NewStat(pp95), NewStat(pmean)
	s.LagP95, s.LagMean = NewStat(gp95), NewStat(gmean)
	s.Shard, s.Server = slowestOf(shards, reqs), slowestOf(servers, reqs)
	return &s, true
}

// poolGroups adds gs to pooled by name: their time added and their counts of ending last.
func poolGroups(pooled, gs []FanoutGroup) []FanoutGroup {
	for _, g := range gs {
		i := 0
		for i < len(pooled) && pooled[i].Name != g.Name {
			i++
		}
		if i == len(pooled) {
			pooled = append(pooled, FanoutGroup{Name: g.Name, Shards: g.Shards})
		}
		pooled[i].AddedMs += g.AddedMs
		pooled[i].Last += g.Last
	}
	return pooled
}

// slowestOf is the first of the pooled groups ranked by time added (RankByAdded), over reqs
// requests.
func slowestOf(pooled []FanoutGroup, reqs int64) FanoutSlowest {
	if len(pooled) == 0 || reqs == 0 {
		return FanoutSlowest{}
	}
	var all float64
	for _, g := range pooled {
		all += g.AddedMs
	}
	g := RankByAdded(pooled)[0]
	out := FanoutSlowest{Name: g.Name, AddedMeanMs: roundPlaces(g.AddedMs/float64(reqs), 4), LastPct: roundPlaces(100*float64(g.Last)/float64(reqs), 1)}
	if all > 0 {
		out.AddedPct = roundPlaces(100*g.AddedMs/all, 1)
	}
	return out
}

// roundPlaces rounds v to places decimals.
func roundPlaces(v float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(v*p) / p
}

// fanoutCSVHead are the study CSV's fan-out columns, nil for a study none of whose runs has
// fan-out figures.
func fanoutCSVHead(s *Study) []string {
	for _, d := range s.Runs() {
		if _, ok := FanoutOf(d); ok {
			return []string{"logical_p95_ms", "logical_mean_ms", "physical_p95_ms", "physical_mean_ms", "short_board_lag_p95_ms",
				"short_board_lag_mean_ms", "slowest_shard", "slowest_shard_added_ms_per_request", "slowest_shard_added_percent",
				"slowest_shard_last_percent", "slowest_server", "slowest_server_added_ms_per_request", "slowest_server_added_percent",
				"slowest_server_last_percent"}
		}
	}
	return nil
}

// fanoutCSVCells are a run's cells under head (fanoutCSVHead): empty without head, for a segment's
// row (d nil) or a run without the figures.
func fanoutCSVCells(head []string, d *Document) []string {
	cells := make([]string, len(head))
	if len(head) == 0 || d == nil {
		return cells
	}
	f, ok := FanoutStepOf([]*Document{d})
	if !ok {
		return cells
	}
	return []string{f64(f.LogicalP95.Mean), f64(f.LogicalMean.Mean), f64(f.PhysicalP95.Mean), f64(f.PhysicalMean.Mean), f64(f.LagP95.Mean),
		f64(f.LagMean.Mean), f.Shard.Name, f64(f.Shard.AddedMeanMs), f64(f.Shard.AddedPct), f64(f.Shard.LastPct),
		f.Server.Name, f64(f.Server.AddedMeanMs), f64(f.Server.AddedPct), f64(f.Server.LastPct)}
}
