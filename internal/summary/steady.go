package summary

import (
	"fmt"
	"math"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/steady"
)

// SteadyLine is a run's steady-state line (docs/steady-state.md): where its warm-up ended against
// its rampup and its window's trend, "" when the window never started.
func SteadyLine(d *results.Document) string {
	st := d.Steady
	if st == nil {
		if d.Window.ClientSeconds <= 0 {
			return ""
		}
		return fmt.Sprintf("steady state: not judged: the window has fewer than %d per-second points", steady.MinSamples)
	}
	var b strings.Builder
	b.WriteString("steady state: ")
	if !st.Steady {
		b.WriteString("NOT steady: ")
	}
	var unsettled []string
	if !st.Throughput.Settled {
		unsettled = append(unsettled, "throughput")
	}
	if st.P95 != nil && !st.P95.Settled {
		unsettled = append(unsettled, "p95")
	}
	switch {
	case len(unsettled) > 0:
		fmt.Fprintf(&b, "%s did not settle in the run's first half (by %.0f s)", strings.Join(unsettled, " and "), st.FromSeconds)
		if st.ShortBySeconds > 0 {
			fmt.Fprintf(&b, "; the %.0f s rampup was at least %.0f s short", st.WindowStartSeconds, st.ShortBySeconds)
		}
	case st.ShortBySeconds > 0:
		fmt.Fprintf(&b, "steady from %.0f s; the %.0f s rampup was %.0f s short", st.FromSeconds, st.WindowStartSeconds, st.ShortBySeconds)
	default:
		fmt.Fprintf(&b, "steady from %.0f s, within the %.0f s rampup", st.FromSeconds, st.WindowStartSeconds)
	}
	b.WriteString("; window trend: ")
	trend(&b, "throughput", &st.Throughput)
	if st.P95 != nil {
		b.WriteString(", ")
		trend(&b, "p95", st.P95)
	}
	if u := d.Window.UntilSteady; u != nil && u.Ended == "bound" {
		fmt.Fprintf(&b, "; the rampup until steady reached its %.0f s bound, throughput not settled by then", u.BoundSeconds)
	}
	b.WriteString(" (MSER warm-up; 95% intervals)")
	return b.String()
}

// UntilSteadyText says why a rampup until steady lasted what it did, as the measured window's
// line continues it: " (until steady: throughput settled from 12 s, judged at 25 s; bound
// 120 s)"; "" for a fixed rampup.
func UntilSteadyText(u *results.UntilSteady) string {
	if u == nil {
		return ""
	}
	switch {
	case u.Ended == "steady" && u.JudgedSeconds != nil && u.WarmupEndSeconds != nil:
		return fmt.Sprintf(" (until steady: throughput settled from %.0f s, judged at %.0f s; bound %.0f s)", *u.WarmupEndSeconds, *u.JudgedSeconds, u.BoundSeconds)
	case u.Ended == "bound":
		return fmt.Sprintf(" (until steady: reached its %.0f s bound, throughput not settled)", u.BoundSeconds)
	}
	return fmt.Sprintf(" (until steady, bound %.0f s: stopped before either)", u.BoundSeconds)
}

func trend(b *strings.Builder, name string, s *results.SteadySeries) {
	fmt.Fprintf(b, "%s %s%%/min [%s, %s]", name, signed(s.TrendPctPerMin), signed(s.TrendLo), signed(s.TrendHi))
	if s.Drifting {
		b.WriteString(" drifting")
	}
}

// signed is a percentage with its sign, one decimal.
func signed(v float64) string {
	if math.Abs(v) < 0.05 {
		return "0.0"
	}
	return fmt.Sprintf("%+.1f", v)
}

// IntervalLine is the 95% intervals of a run's headline figures, "" without any:
// "95% interval: 44,757 NOPM ±1.8%, 103,812 TPM ±1.7% (…)".
func IntervalLine(d *results.Document) string {
	ivs := d.Result.Intervals
	if len(ivs) == 0 {
		return ""
	}
	var parts []string
	approx := false
	for _, iv := range ivs {
		parts = append(parts, fmt.Sprintf("%s %s ±%.1f%%", figure(iv.Value), iv.Figure, 100*iv.Rel))
		approx = approx || iv.Approximate
	}
	line := "95% interval: " + strings.Join(parts, ", ") + " (from the window's per-second series, autocorrelation allowed for)"
	if approx {
		line += "; approximate: the series' autocorrelation is not of the one-lag kind the interval assumes"
	}
	return line
}

// figure is a headline figure as the interval line shows it: whole above 100, one decimal below.
func figure(v float64) string {
	if math.Abs(v) >= 100 {
		return Thousands(v)
	}
	return fmt.Sprintf("%.1f", v)
}
