package results

import "testing"

// Each segment's running threads are those of its settled seconds: a surge after the change
// shows in the second segment alone; a run without the section has none.
func TestSegmentRunning(t *testing.T) {
	d := liveDoc()
	var series []any
	for _, s := range d.Series {
		p := map[string]any{"t": s.T, "samples": 50, "max": 4, "mean": 2.0, "host_max": 5, "host_mean": 3.0}
		if s.T > 7 {
			p["max"], p["mean"], p["host_max"], p["host_mean"] = 31, 20.5, 33, 22.0
		}
		if s.T == 9 {
			p["mean"] = 21.5
		}
		series = append(series, p)
	}
	d.Extra = map[string]any{"observations": map[string]any{RunningSection: map[string]any{"p99": 31.0, "series": series}}}
	segs := Segments(d, []SettingValue{{"X", "1"}}, 1)
	a, b := segs[0].Running, segs[1].Running
	if a == nil || *a != (SegmentRunning{Max: 4, Mean: 2, HostMax: 5, HostMean: 3}) {
		t.Errorf("segment 1: %+v", a)
	}
	// Seconds ending at 9, 10, 11 are the second segment's settled ones.
	if b == nil || *b != (SegmentRunning{Max: 31, Mean: 20.83, HostMax: 33, HostMean: 22}) {
		t.Errorf("segment 2: %+v", b)
	}
	if s := Segments(liveDoc(), nil, 1); s[0].Running != nil {
		t.Errorf("running threads without the section: %+v", s[0].Running)
	}
}
