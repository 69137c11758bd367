package metrics

import (
	"math"
	"testing"
)

func TestSummarizePercentiles(t *testing.T) {
	h := NewHist()
	// 1..10000 µs, one each: the p-th percentile is p% of 10,000 µs.
	for v := int64(1); v <= 10000; v++ {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	l := Summarize(h)
	check := func(name string, got, want float64) {
		t.Helper()
		// 3 significant digits: within 0.1% (plus one bucket).
		if math.Abs(got-want) > want*0.002+0.001 {
			t.Errorf("%s = %.4f ms, want %.4f", name, got, want)
		}
	}
	check("p50", l.P50, 5.0)
	check("p90", l.P90, 9.0)
	check("p95", l.P95, 9.5)
	check("p99", l.P99, 9.9)
	check("p99.9", l.P999, 9.99)
	check("max", l.Max, 10.0)
	check("mean", l.Mean, 5.0005)
}

func TestRecorderWindowAndMerge(t *testing.T) {
	r := NewRecorder(2, 3, false)
	for i := 0; i < 9; i++ {
		s := Sample{Type: i % 2, LatencyUs: int64(1000 * (i + 1)), InWindow: i >= 3, Retries: 1}
		r.Shard(i).Record(&s)
	}
	r.Shard(0).Record(&Sample{Type: 1, Failed: true, ErrKey: "other: boom", InWindow: true})
	w := r.Window()
	tot := w.Total()
	if tot.Count != 6 || tot.Errors != 1 || tot.Retries != 6 {
		t.Fatalf("window totals %+v, want 6 completed, 1 error, 6 retries", tot)
	}
	if w.ErrMsg["other: boom"] != 1 {
		t.Fatalf("error messages %v", w.ErrMsg)
	}
	tick := NewSet(2, false)
	r.DrainTick(tick)
	if tick.Total().Count != 9 {
		t.Fatalf("tick saw %d, want all 9", tick.Total().Count)
	}
	tick2 := NewSet(2, false)
	r.DrainTick(tick2)
	if tick2.Total().Count != 0 {
		t.Fatal("drained tick was not reset")
	}
	if got := Summarize(w.Lat[0]).Max; got < 8.99 || got > 9.01 {
		t.Fatalf("type 0 max %.3f ms, want 9", got)
	}
}
