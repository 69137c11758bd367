package results

import (
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// Each segment's disk I/O is the mean of its settled seconds' figures (liveDoc's: those ending
// at 2…6 and at 9…11), the latency weighted by each second's requests: writes that double after
// the change, and a burst at t = 9, show in the second segment alone, the seconds holding the
// change and settling left out; a run without the section has none.
func TestSegmentDisk(t *testing.T) {
	d := liveDoc()
	io := &DiskIO{Scope: "server", Devices: []Disk{{Name: "vda"}}}
	fig := func(t float64) (w, await float64) {
		switch {
		case t == 9:
			return 600, 10
		case t > 7:
			return 200, 4
		case t == 7:
			return 5000, 50 // the second holding the change: in no segment's figures
		}
		return 100, 1
	}
	for _, s := range d.Series {
		w, aw := fig(s.T)
		io.Series = append(io.Series, DiskSecond{T: s.T, Devices: []metrics.DiskRates{{WritesPerS: w, ReadsPerS: 10, AwaitMs: &aw}}})
	}
	SetSection(d, DiskIOSection, io)
	segs := Segments(d, []SettingValue{{"X", "1"}}, 1)
	for i, ts := range [][]float64{{2, 3, 4, 5, 6}, {9, 10, 11}} {
		var w, awSum, reqs float64
		for _, x := range ts {
			wi, ai := fig(x)
			w += wi
			awSum += ai * (wi + 10)
			reqs += wi + 10
		}
		g := segs[i]
		if len(g.Disks) != 1 || g.Disks[0].Device != "vda" || g.Seconds != float64(len(ts)) {
			t.Fatalf("segment %d: %+v over %v s, want vda over %d", i+1, g.Disks, g.Seconds, len(ts))
		}
		x := g.Disks[0]
		if x.WritesPerS != round2(w/float64(len(ts))) || x.ReadsPerS != 10 || x.AwaitMs == nil || *x.AwaitMs != round2(awSum/reqs) {
			t.Errorf("segment %d: w/s %v r/s %v await %v, want %v, 10 and %v", i+1, x.WritesPerS, x.ReadsPerS, x.AwaitMs, w/float64(len(ts)), awSum/reqs)
		}
	}
	if s := Segments(liveDoc(), nil, 1); s[0].Disks != nil {
		t.Errorf("disk I/O without the section: %+v", s[0].Disks)
	}
}
