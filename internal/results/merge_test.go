package results

import (
	"fmt"
	"strings"
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

// TestMergeWithoutACounter: a part whose server answered without its transaction counter at an
// edge (target.Reading.NoCounter) read no counter there; the merge must not subtract that reading
// as one, and counts TPM on the clients, saying so, while NOPM (the headline's own reading) stays
// the server's.
func TestMergeWithoutACounter(t *testing.T) {
	start := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	part := func(i int, end Edge) Loaded {
		tpm := int64(1200)
		d := &Document{Kind: KindRun, Workload: "tpcc", StartedAt: start, MainTxn: "new_order",
			Txns: map[string]*Txn{"new_order": {Count: 450, Rollbacks: 5}, "payment": {Count: 550}},
			Part: &Part{I: i, N: 2, Run: "r", StartAt: start.Add(2 * time.Second),
				Start: &Edge{At: start.Add(2 * time.Second), Headline: 1000, Counter: 50000},
				End:   &end},
			Window: Window{Seconds: 60, ClientSeconds: 60, PlannedSeconds: 60}}
		d.Result.TPM, d.Result.TPMSource = &tpm, "server: xact_commit + xact_rollback"
		d.Result.Headline = &Headline{Name: "NOPM", Unit: "NOPM", Source: "server", Txn: "new_order", Value: 445}
		return Loaded{ID: fmt.Sprint(i), Run: d}
	}
	at := start.Add(62 * time.Second)
	read := Edge{At: at, Headline: 1890, Counter: 52400}
	lost := Edge{At: at.Add(time.Millisecond), Headline: 1890, NoCounter: true}
	m, err := Merge([]Loaded{part(1, read), part(2, lost)})
	if err != nil {
		t.Fatal(err)
	}
	clientTPM := int64(2 * (450 + 550)) // both parts' transactions over the 1-minute window
	if m.Result.TPM == nil || *m.Result.TPM != clientTPM || !strings.HasPrefix(m.Result.TPMSource, "client") {
		t.Errorf("TPM %v from %q, want the clients' %d", m.Result.TPM, m.Result.TPMSource, clientTPM)
	}
	if h := m.HeadlineFigure(); h == nil || h.Source != "server" {
		t.Errorf("headline %+v, want the server's reading", h)
	}
	// Both read: the server's counter, less nothing of cairn's own.
	m, err = Merge([]Loaded{part(1, read), part(2, read)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Result.TPM == nil || !strings.HasPrefix(m.Result.TPMSource, "server") {
		t.Errorf("TPM %v from %q with both counters read, want the server's", m.Result.TPM, m.Result.TPMSource)
	}
}
