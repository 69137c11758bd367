package tpcb

import "math"

// Extra keys of the result document: the pgbench figures that the common document lacks.
const (
	ExtraScale   = "scale"
	ExtraTxnType = "transaction_type"     // pgbench's "transaction type:" line
	ExtraStddev  = "latency_stddev_ms"    // pgbench's "latency stddev"
	ExtraLagMean = "schedule_lag_mean_ms" // pgbench's "rate limit schedule lag: avg" (with --rate)
)

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
