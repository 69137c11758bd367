package metrics

import (
	"math"
	"math/rand/v2"
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

// TestRecorderBatchesExactly checks that batching latencies (Shard.pend) loses, delays and
// misplaces nothing: every sample of a random mix, recorded across several shards with ticks
// drained at random points, must end up in the window and the ticks exactly as if each had gone
// straight into the sets.
func TestRecorderBatchesExactly(t *testing.T) {
	const types, shards, n = 3, 4, 5000
	rng := rand.New(rand.NewPCG(1, 2))
	r := NewRecorder(types, shards, true)
	wantWindow, wantTicks := NewSet(types, true), NewSet(types, true)
	gotTicks := NewSet(types, true)
	for i := 0; i < n; i++ {
		x := Sample{Type: rng.IntN(types), LatencyUs: rng.Int64N(50_000), InWindow: i > n/5 && i < n*4/5}
		x.ServiceUs = x.LatencyUs / 2
		switch k := rng.IntN(100); {
		case k < 3:
			x.Failed, x.ErrKey = true, "other: boom"
		case k < 5:
			x.Skipped = true
		case k < 10:
			x.Retries = int64(1 + rng.IntN(3))
		case k < 15:
			x.RolledBack = true
		case k < 20:
			x.Late = true
		}
		r.Shard(rng.IntN(shards)).Record(&x)
		wantTicks.addSample(&x)
		if x.InWindow {
			wantWindow.addSample(&x)
		}
		if rng.IntN(1000) == 0 {
			r.DrainTick(gotTicks)
		}
		// The window's counts so far, pending samples counted where they are.
		if rng.IntN(300) == 0 {
			wc := make([]Counts, types)
			r.WindowCounts(wc)
			for i := range wc {
				if wc[i] != wantWindow.Counts[i] {
					t.Fatalf("after %d samples, window counts of type %d: %+v, want %+v", i+1, i, wc[i], wantWindow.Counts[i])
				}
			}
		}
	}
	r.DrainTick(gotTicks)
	for _, c := range []struct {
		name      string
		got, want *Set
	}{{"window", r.Window(), wantWindow}, {"ticks", gotTicks, wantTicks}} {
		for i := 0; i < types; i++ {
			if c.got.Counts[i] != c.want.Counts[i] {
				t.Errorf("%s type %d: counts %+v, want %+v", c.name, i, c.got.Counts[i], c.want.Counts[i])
			}
			if !c.got.Lat[i].Equals(c.want.Lat[i]) || !c.got.Svc[i].Equals(c.want.Svc[i]) {
				t.Errorf("%s type %d: histograms differ (%d latencies, want %d)", c.name, i,
					c.got.Lat[i].TotalCount(), c.want.Lat[i].TotalCount())
			}
		}
		if c.got.ErrMsg["other: boom"] != c.want.ErrMsg["other: boom"] {
			t.Errorf("%s: errors %v, want %v", c.name, c.got.ErrMsg, c.want.ErrMsg)
		}
	}
	if wantWindow.Total().Count < 1000 {
		t.Fatalf("the mix put only %d samples in the window", wantWindow.Total().Count)
	}
}

// TestStmtSetBatchesExactly does the same for a VU's statement set, across a flush at capacity.
func TestStmtSetBatchesExactly(t *testing.T) {
	s, want := NewStmtSet(2), NewStmtSet(2)
	for i := 0; i < 3*pendCap+7; i++ {
		us := int64(100 + i%977)
		s.Record(i%2, us)
		want.Counts[i%2]++
		want.Lat[i%2].RecordValue(us)
	}
	out := NewStmtSet(2)
	out.Merge(s)
	for i := 0; i < 2; i++ {
		if out.Counts[i] != want.Counts[i] || !out.Lat[i].Equals(want.Lat[i]) {
			t.Errorf("statement %d: %d recorded (%d in the histogram), want %d", i, out.Counts[i],
				out.Lat[i].TotalCount(), want.Counts[i])
		}
	}
}
