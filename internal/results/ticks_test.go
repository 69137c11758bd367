package results

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// A window whose per-second points lie more than 1.5 s apart (its first point 2.5 s after the
// window's start) is marked late_ticks, counting the late points; one whose points came on time
// (the edges' shorter seconds included) is not.
func TestMarkTicks(t *testing.T) {
	series := func(ts ...float64) []metrics.Second {
		out := []metrics.Second{{T: 1}, {T: 2}} // the rampup's
		for _, x := range ts {
			out = append(out, metrics.Second{T: x, Window: true})
		}
		return out
	}
	for _, c := range []struct {
		name string
		ts   []float64
		want string
	}{
		{"on time", []float64{3, 4.2, 5, 6, 7}, ""},
		{"a tick 0.45 s late", []float64{3.45, 4, 5, 6, 7}, ""},
		{"starved", []float64{3, 16.2, 19.9, 22}, "3 of the window's 4 per-second points came more than 0.5 s late, up to 13.20 s after the one before: its series has 4 points for a 20 s window"},
		// The first point may come a second later still: the start edge waits up to a second
		// for the VUs to meet it.
		{"the first after the edge", []float64{4.4, 5, 6, 7}, ""},
		{"the first late", []float64{4.6, 5, 6, 7}, "1 of the window's 4"},
		{"the second late", []float64{3, 4.6, 5, 6, 7}, "1 of the window's 5"},
	} {
		d := &Document{Series: series(c.ts...), Window: Window{RampupSeconds: 2, ClientSeconds: 20, PlannedSeconds: 20}}
		d.MarkTicks()
		got := MarkText(d.NotAsPlanned)
		if c.want == "" && got != "" || c.want != "" && (!d.MarkedWith(LateTicks) || !strings.Contains(got, c.want)) {
			t.Errorf("%s: marked %q, want %q", c.name, got, c.want)
		}
	}
}
