package tpcb

import (
	"context"
	"math"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Extra keys of the result document: the pgbench figures that the common document lacks.
const (
	ExtraScale   = "scale"
	ExtraTxnType = "transaction_type"     // pgbench's "transaction type:" line
	ExtraStddev  = "latency_stddev_ms"    // pgbench's "latency stddev"
	ExtraLagMean = "schedule_lag_mean_ms" // pgbench's "rate limit schedule lag: avg" (with --rate)
)

// ReadMeta checks that the database holds a complete schema and returns its meta; the errors are
// usage errors that say what to do.
func ReadMeta(ctx context.Context, t target.Target) (*Meta, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var m Meta
	if _, err := workload.Load(ctx, c, t, Footprint, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
