package results

import "fmt"

// LateTicks: the run's clock read some of the window's seconds late, so its per-second series
// has fewer points than seconds, each covering more than its second (docs/result-format.md#not_as_planned).
const LateTicks = "late_ticks"

// LateTickTolerance is how much longer than a second the series' points may lie apart in the
// window before the run is marked late_ticks: a tick half a second late has put half a second of
// the next into its own.
const LateTickTolerance = 0.5 // seconds

// MarkTicks marks a run whose window's ticks came late (LateTicks): from the window's start (the
// rampup's last tick) on, two consecutive points of the series more than 1 s + LateTickTolerance
// apart; the first point may come OverPlanTolerance later still, the start edge's own wait for
// the VUs to meet it (run.EdgeWait), which the run's clock spends before its next tick.
func (d *Document) MarkTicks() {
	prev := d.Window.RampupSeconds
	late, points := 0, 0
	longest := 0.0
	for _, s := range d.Series {
		if !s.Window {
			continue
		}
		points++
		allowed := 1 + LateTickTolerance
		if points == 1 {
			allowed += OverPlanTolerance
		}
		if gap := s.T - prev; gap > allowed {
			late++
			longest = max(longest, gap)
		}
		prev = s.T
	}
	if late == 0 {
		return
	}
	d.Mark(LateTicks, fmt.Sprintf("%d of the window's %d per-second points came more than %g s late, up to %.2f s after the one before: its series has %d points for a %.0f s window",
		late, points, LateTickTolerance, longest, points, d.Window.ClientSeconds))
}
