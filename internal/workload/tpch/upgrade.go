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
