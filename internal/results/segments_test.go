package results

import (
	"math"
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// liveDoc is a run with 1 s of rampup and a 10 s window at 100 txn/s, then 200 txn/s after the
// change at t=6.3 (the second it falls in, ending at 7, mixes both), with waits every second.
func liveDoc() *Document {
	d := &Document{Changes: []SettingChange{{AtSec: 5.3, T: 6.3, Planned: 5.3, Name: "x", Value: "2", ReadBack: "2"}}}
	for t := 1; t <= 12; t++ {
		s := metrics.Second{T: float64(t), Window: t >= 2 && t <= 11, Txns: 100, P95ms: 10}
		switch {
		case t == 7:
			s.Txns, s.P95ms = 170, 20
		case t > 7:
			s.Txns, s.P95ms = 200, 5
		}
		d.Series = append(d.Series, s)
	}
	w := &Waits{}
	for t := 1; t <= 12; t++ {
		ev := WaitEvent{Name: "a", Share: 0.5}
		if t > 7 {
			ev = WaitEvent{Name: "b", Share: 0.8}
		}
		w.Intervals = append(w.Intervals, WaitInterval{T: float64(t), Top: []WaitEvent{ev}})
	}
	d.Waits = w
	tps, qps := 147.0, 147.0*3
	d.Result.TPS, d.Result.QPS = &tps, &qps
	return d
}

// TestSegments splits a constructed run at its change: the second holding the change and the
// settling second after it are left out of the second segment's figures, but every window second
// is in exactly one span, so the spans' length-weighted TPS is the run's.
func TestSegments(t *testing.T) {
	d := liveDoc()
	segs := Segments(d, []SettingValue{{"X", "1"}}, 1)
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2", len(segs))
	}
	a, b := segs[0], segs[1]
	if a.Label() != "x=1" || b.Label() != "x=2" {
		t.Errorf("labels %q, %q", a.Label(), b.Label())
	}
	if a.From != 1 || a.To != 6.3 || b.From != 6.3 || b.To != 11 {
		t.Errorf("bounds %v-%v, %v-%v", a.From, a.To, b.From, b.To)
	}
	// Segment 1: seconds ending at 2..6, all at 100/s. Segment 2: seconds ending at 7..11 in its
	// span; the one ending at 7 (the change's) and at 8 (starting at 7 < 6.3+1) left out.
	if a.Seconds != 5 || a.TPS != 100 || a.P95ms != 10 || *a.QPS != 300 {
		t.Errorf("segment 1: %v s, %v TPS, p95 %v, QPS %v", a.Seconds, a.TPS, a.P95ms, *a.QPS)
	}
	if b.SettleSeconds != 1 || b.Seconds != 3 || b.TPS != 200 || b.P95ms != 5 {
		t.Errorf("segment 2: settle %v, %v s, %v TPS, p95 %v", b.SettleSeconds, b.Seconds, b.TPS, b.P95ms)
	}
	if a.SpanSeconds+b.SpanSeconds != 10 {
		t.Errorf("spans %v + %v s, want the window's 10", a.SpanSeconds, b.SpanSeconds)
	}
	if got := WeightedTPS(segs); math.Abs(got-*d.Result.TPS) > 0.01**d.Result.TPS {
		t.Errorf("length-weighted segment TPS %v, run %v", got, *d.Result.TPS)
	}
	if len(a.Waits) != 1 || a.Waits[0].Name != "a" || len(b.Waits) != 1 || b.Waits[0].Name != "b" || b.Waits[0].Share != 0.8 {
		t.Errorf("waits %v / %v", a.Waits, b.Waits)
	}
	if Segments(&Document{Series: d.Series}, nil, 1) != nil {
		t.Error("a run without changes has segments")
	}
}

// TestSegmentsUnsettled: a segment too short to hold a second after its settling time has no
// figures, and says so by Seconds 0; one change of two settings at one instant opens one segment.
func TestSegmentsUnsettled(t *testing.T) {
	d := liveDoc()
	d.Changes = []SettingChange{
		{T: 6.3, Planned: 5.3, Name: "x", Value: "2"}, {T: 6.31, Planned: 5.3, Name: "y", Value: "b"},
		{T: 10.5, Planned: 9.5, Name: "x", Value: "3"},
	}
	segs := Segments(d, nil, 1)
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3", len(segs))
	}
	if segs[1].From != 6.31 || segs[1].Label() != "x=2, y=b" || segs[0].Label() != "x=?, y=?" {
		t.Errorf("segment 2 from %v, labels %q %q", segs[1].From, segs[1].Label(), segs[0].Label())
	}
	if c := segs[2]; c.Seconds != 0 || c.TPS != 0 || c.QPS != nil || c.SpanSeconds != 1 {
		t.Errorf("segment 3 (one second, unsettled): %+v", c)
	}
}

// TestStudySegmentRows: a stored study's runs without segments (an older cairn) get them from
// their changes, the first segment's values from the case; rows are per VU count × segment.
func TestStudySegmentRows(t *testing.T) {
	st := &Study{Original: []SettingValue{{"x", "0"}}, Cases: []*StudyCase{{Label: "x=1", Levels: []SettingValue{{"x", "1"}}, Profile: &Profile{}}}}
	for _, vu := range []int{2, 4} {
		for rep := 0; rep < 2; rep++ {
			d := liveDoc()
			d.VU, d.Study = vu, &StudyRef{Repeat: rep}
			st.Place(d)
		}
	}
	rows := st.SegmentRows()
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	if r := rows[0]; r.VU != 2 || r.Index != 1 || r.Label != "x=1" || r.TPS.N != 2 || r.TPS.Mean != 100 {
		t.Errorf("row 1: %+v", r)
	}
	if r := rows[3]; r.VU != 4 || r.Index != 2 || r.Label != "x=2" || r.TPS.Mean != 200 {
		t.Errorf("row 4: %+v", r)
	}
}

// TestSegmentsLateTick: on a busy host a tick can end after the next change; a tick mostly inside
// the settled span still counts, so a 2 s segment keeps its one settled second.
func TestSegmentsLateTick(t *testing.T) {
	d := &Document{Changes: []SettingChange{{T: 3.003, Planned: 2, Name: "x", Value: "2"}, {T: 5.003, Planned: 4, Name: "x", Value: "3"}}}
	for _, x := range []float64{1, 2, 3, 4, 5.15, 6, 7} {
		d.Series = append(d.Series, metrics.Second{T: x, Window: x > 1, Txns: 100})
	}
	segs := Segments(d, nil, 1)
	if len(segs) != 3 || segs[1].Seconds != 1.15 || segs[1].Txns != 100 || segs[2].Seconds != 1 {
		t.Fatalf("segments %+v", segs)
	}
}
