package tpch

import (
	"encoding/json"

	"github.com/cairn-bench/cairn/internal/results"
)

func init() { results.OnUpgrade("tpch", upgrade) }

// upgrade reads a TPC-H run stored before documents had timings: it kept each query's time in
// extra.tpch's power and throughput lists, which move to the document's timings.
func upgrade(d *results.Document) {
	if len(d.Timings) > 0 {
		return
	}
	old, ok := d.Extra["tpch"].(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"power", "throughput"} {
		b, err := json.Marshal(old[k])
		if err != nil {
			continue
		}
		var ts []results.Timing
		if json.Unmarshal(b, &ts) == nil {
			d.Timings = append(d.Timings, ts...)
		}
		delete(old, k)
	}
}

// ownFigures are TPC-H's figures in the result, after the common ones (docs/result-format.md):
// the spec's Power@Size, Throughput@Size and QphH@Size, not audited, and the geometric mean of
// the power test's 22 query times in seconds; each only where the run measured it.
func ownFigures(out *Outcome) []results.OwnFigure {
	var own []results.OwnFigure
	for _, f := range []struct {
		key string
		v   *float64
	}{{"power", out.PowerAtSize}, {"throughput", out.ThroughputAtSize}, {"qphh", out.QphH}, {"geomean_s", out.GeomeanSeconds}} {
		if f.v != nil {
			own = append(own, results.OwnFigure{Key: f.key, Value: *f.v})
		}
	}
	return own
}
