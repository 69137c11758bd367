package results

import (
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// The parts' seconds go to the whole second of the merged clock each was due at, and their edge
// seconds to the window's edges: two parts whose clocks started 3 ms apart, which share the
// window's start, line up second for second; a tick a loaded host made 0.6 s late stays with the
// second it was due at; the seconds that end at the window's start and end are one point each,
// at the latest part's instant; counts are summed and the p95 is the highest. No point mixes
// the window's seconds with those before it: the merged window's count the parts'.
func TestMergeSeries(t *testing.T) {
	start := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	a := &Document{StartedAt: start, Series: []metrics.Second{
		{T: 1.0, Txns: 50, P95ms: 1}, {T: 1.998, Txns: 10, P95ms: 3}, {T: 2.001, Txns: 1, Window: true, P95ms: 4},
		{T: 3.002, Txns: 11, Window: true, P95ms: 4}, {T: 4.6, Txns: 20, Window: true, P95ms: 9}, {T: 4.998, Txns: 2, Window: true, P95ms: 1}}}
	b := &Document{StartedAt: start.Add(3 * time.Millisecond), Series: []metrics.Second{
		{T: 1.001, Txns: 40, P95ms: 2}, {T: 1.995, Txns: 5, P95ms: 5}, {T: 2.0, Txns: 1, Window: true, P95ms: 2},
		{T: 3.0, Txns: 6, Headline: 2, Errors: 1, Window: true, P95ms: 2}, {T: 4.001, Txns: 7, Window: true, P95ms: 2}, {T: 4.995, Txns: 8, Window: true, P95ms: 2}}}
	got := mergeSeries([]*Document{a, b}, start)
	want := []metrics.Second{{T: 1, Txns: 90, P95ms: 2}, {T: 1.998, Txns: 15, P95ms: 5},
		{T: 2, Txns: 2, Window: true, P95ms: 4}, {T: 3, Txns: 17, Headline: 2, Errors: 1, Window: true, P95ms: 4},
		{T: 4, Txns: 27, Window: true, P95ms: 9}, {T: 4.998, Txns: 10, Window: true, P95ms: 2}}
	if len(got) != len(want) {
		t.Fatalf("merged %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].T != want[i].T || got[i].Txns != want[i].Txns || got[i].Headline != want[i].Headline || got[i].Errors != want[i].Errors ||
			got[i].Window != want[i].Window || got[i].P95ms != want[i].P95ms {
			t.Errorf("second %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
