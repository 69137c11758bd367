package tpcc

import (
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// A run merged from TPC-C parts writes its headline again as result.nopm, as each part did, for
// the readers of documents before format 3; parts without it get none.
func TestMergedWritesNOPM(t *testing.T) {
	part := func(nopm int64) *results.Document {
		return &results.Document{Workload: "tpcc", Result: results.Result{NOPM: &nopm,
			Headline: &results.Headline{Name: "NOPM", Value: float64(nopm)}}}
	}
	m := &results.Document{Workload: "tpcc", Result: results.Result{Headline: &results.Headline{Name: "NOPM", Value: 2345.9}}}
	merged(m, []*results.Document{part(1000), part(1345)})
	if m.Result.NOPM == nil || *m.Result.NOPM != 2345 {
		t.Fatalf("merged nopm %v, want 2345", m.Result.NOPM)
	}
	old := &results.Document{Workload: "tpcc", Result: results.Result{Headline: &results.Headline{Name: "NOPM", Value: 10}}}
	merged(old, []*results.Document{{Workload: "tpcc"}})
	if old.Result.NOPM != nil {
		t.Errorf("parts without nopm: merged nopm %v", *old.Result.NOPM)
	}
}
