package resultstore

import (
	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// fakeRun is a stored TPC-C-shaped run of vu VUs: nopm New-Orders a minute at the p95 given.
func fakeRun(vu int, nopm int64, p95 float64) *results.Document {
	tpm := 2 * nopm
	return &results.Document{Kind: results.KindRun, VU: vu, MainTxn: "new_order", TxnOrder: []string{"new_order"},
		Result: results.Result{NOPM: &nopm, TPM: &tpm},
		Txns: map[string]*results.Txn{"new_order": {Count: nopm, LatencyMs: metrics.Latency{
			Mean: p95 / 2, P50: p95 / 2, P90: p95 * 0.9, P95: p95, P99: p95 * 1.5, P999: p95 * 2, Max: p95 * 3}}}}
}
