package cli

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/steady"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// Every real run (TPC-C, oltp, tpcb on each target) prints the steady-state line and the 95%
// interval of its headline figures, and its document's steady section and result.intervals are
// what docs/steady-state.md defines, recomputed here from the document's own time series. The
// methods' behaviour is tested on generated series (internal/steady); this tests that a run feeds
// them the series the docs name and shows what they found.
func TestSteadyStateOnRealRuns(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel() // the targets are independent servers and files: CI's time
			url := tg.URL(t)
			prepared(t, url)
			oltpPrepared(t, url)
			tpcbPrepared(t, url)
			for _, c := range []struct {
				args     []string
				headline string
			}{
				{[]string{"tpcc", "run", "--vu", "2"}, "NOPM"},
				{[]string{"oltp", "run", "--vu", "2", "--workload", "point-select"}, "TPS"},
				{[]string{"tpcb", "run", "--vu", "2"}, "TPS"},
			} {
				js := filepath.Join(t.TempDir(), "r.json")
				args := append(append([]string{}, c.args...), "--db", url, "--rampup", "3s", "--duration", "12s",
					"--progress", "0", "--no-store", "--json", js)
				code, out, stderr := cairn(t, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s\n%s", c.args[0], code, out, stderr)
				}
				checkSteady(t, c.args[0], c.headline, js, out)
			}
		})
	}
}

// checkSteady recomputes the steady section and the intervals of the document at js from its own
// series, by the rules of docs/result-format.md#steady, and checks the summary out shows them.
func checkSteady(t *testing.T, name, headline, js, out string) {
	t.Helper()
	d := readDocument(t, js)
	st := d.Steady
	if st == nil {
		t.Fatalf("%s: no steady section in the document (%d points in its series)", name, len(d.Series))
	}
	// The throughput series: the headline type's completions (all types' for TPS) per second of
	// each point at least 0.25 s long, from the run's start to the window's end.
	perType := d.Result.Headline.Txn != ""
	var x, p95, xFrom, p95From []float64
	start, p95Start := -1, -1
	prev := 0.0
	for _, s := range d.Series {
		dt := s.T - prev
		from := prev
		prev = s.T
		if dt < 0.25 {
			continue
		}
		if s.Window && start < 0 {
			start = len(x)
		}
		n, p := s.Txns, s.P95ms
		if perType {
			n, p = s.Headline, s.HeadlineP95ms
		}
		x, xFrom = append(x, float64(n)/dt), append(xFrom, from)
		if n > 0 {
			if s.Window && p95Start < 0 {
				p95Start = len(p95)
			}
			p95, p95From = append(p95, p), append(p95From, from)
		}
	}
	if start < 0 || len(x)-start != st.Throughput.WindowPoints || len(x) != st.Throughput.Points {
		t.Fatalf("%s: the document judged %d points (%d in the window), its series has %d (window from %d)", name, st.Throughput.Points, st.Throughput.WindowPoints, len(x), start)
	}
	iv, err := steady.MeanCI(x[start:])
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: %s is %v, recomputed from the series %v", name, what, got, want)
		}
	}
	near("throughput mean", st.Throughput.Mean, iv.Mean)
	near("throughput half-width", st.Throughput.Half, iv.Half)
	tr, _ := steady.LinearTrend(x[start:], 1)
	near("throughput trend", st.Throughput.TrendPctPerMin, tr.PctPerMin)
	we, settled := steady.WarmupEnd(x)
	near("throughput warm-up end", st.Throughput.WarmupEndSeconds, xFrom[we])
	if settled != st.Throughput.Settled {
		t.Errorf("%s: settled %v, recomputed %v", name, st.Throughput.Settled, settled)
	}
	from := xFrom[we]
	if st.P95 != nil {
		pw, _ := steady.WarmupEnd(p95)
		near("p95 warm-up end", st.P95.WarmupEndSeconds, p95From[pw])
		piv, _ := steady.MeanCI(p95[p95Start:])
		near("p95 mean", st.P95.Mean, piv.Mean)
		from = math.Max(from, p95From[pw])
	}
	near("steady from", st.FromSeconds, from)
	near("short by", st.ShortBySeconds, math.Round(math.Max(0, from-xFrom[start])*1000)/1000)

	// The headline's interval is the throughput series' relative half-width applied to it.
	hi := d.Result.Interval(headline)
	if hi == nil {
		t.Fatalf("%s: no interval for %s in result.intervals: %+v", name, headline, d.Result.Intervals)
	}
	if perType {
		near(headline+" rel", hi.Rel, iv.Half/iv.Mean)
	}
	near(headline+" value", hi.Value, d.Result.Headline.Value)
	near(headline+" half", hi.Half, hi.Rel*hi.Value)

	// The summary shows both, with the document's figures.
	want := fmt.Sprintf("%s ±%.1f%%", headline, 100*hi.Rel)
	if !strings.Contains(out, "95% interval: ") || !strings.Contains(out, want) {
		t.Errorf("%s: the summary lacks %q:\n%s", name, want, out)
	}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "steady state: ") {
			line = l
		}
	}
	var wantFrom string
	switch {
	case !st.Throughput.Settled || st.P95 != nil && !st.P95.Settled:
		wantFrom = "did not settle in the run's first half"
	case st.ShortBySeconds > 0:
		wantFrom = fmt.Sprintf("steady from %.0f s; the %.0f s rampup was %.0f s short", st.FromSeconds, st.WindowStartSeconds, st.ShortBySeconds)
	default:
		wantFrom = fmt.Sprintf("steady from %.0f s, within the %.0f s rampup", st.FromSeconds, st.WindowStartSeconds)
	}
	if !strings.Contains(line, wantFrom) || !strings.Contains(line, fmt.Sprintf("throughput %s%%/min", signedPct(st.Throughput.TrendPctPerMin))) ||
		strings.HasPrefix(line, "steady state: NOT steady") == st.Steady {
		t.Errorf("%s: steady-state line %q does not say %q, the trend %.1f%%/min and steady=%v", name, line, wantFrom, st.Throughput.TrendPctPerMin, st.Steady)
	}
	t.Logf("%s: %s", name, line)
}

func signedPct(v float64) string {
	if math.Abs(v) < 0.05 {
		return "0.0"
	}
	return fmt.Sprintf("%+.1f", v)
}

// A rampup until steady ends when the headline's throughput is judged settled, well before its
// bound, on a real run held steady by its schedule (--rate), and the document records the rampup
// it lasted and why: the window starts at the tick after the judgement, and the series' window
// starts there. A bound too short for any judgement (fewer than steady.MinSamples seconds) is
// reached, and the summary says so. The method itself is tested on generated series
// (internal/steady's TestSettledSoFar).
func TestRampupUntilSteady(t *testing.T) {
	for _, tg := range testutil.Targets() {
		if tg.Name != "sqlite" && tg.Name != "postgres" {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			oltpPrepared(t, url)
			run := func(bound string) (results.Document, string) {
				js := filepath.Join(t.TempDir(), "r.json")
				code, out, stderr := cairn(t, "oltp", "run", "--workload", "point-select", "--vu", "2", "--rate", "100",
					"--db", url, "--rampup", "2s", "--rampup-until-steady", bound, "--duration", "10s",
					"--progress", "0", "--no-store", "--json", js)
				if code != 0 {
					t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
				}
				return *readDocument(t, js), out
			}

			d, out := run("90s")
			u := d.Window.UntilSteady
			if u == nil || u.Ended != "steady" || u.JudgedSeconds == nil || u.WarmupEndSeconds == nil {
				t.Fatalf("until_steady %+v, want ended steady\n%s", u, out)
			}
			r := d.Window.RampupSeconds
			judged := *u.JudgedSeconds
			t.Logf("rampup %.3f s: judged at %.3f s, warm-up end %.3f s", r, judged, *u.WarmupEndSeconds)
			if r >= 90 || r < float64(steady.MinSamples) || r <= judged || r > judged+1.5 || *u.WarmupEndSeconds > judged {
				t.Errorf("rampup %.3f s, judged at %.3f s: want the tick after the judgement, at least %d s and below the 90 s bound", r, judged, steady.MinSamples)
			}
			if u.MinSeconds != 2 || u.BoundSeconds != 90 {
				t.Errorf("until_steady %+v: want min 2, bound 90", u)
			}
			prev := 0.0
			for _, s := range d.Series {
				if s.Window {
					if math.Abs(prev-r) > 0.002 {
						t.Errorf("the series' window starts at %.3f s, the rampup ended at %.3f s", prev, r)
					}
					break
				}
				prev = s.T
			}
			if want := fmt.Sprintf("after %.0f s rampup (until steady: throughput settled from", r); !strings.Contains(out, want) {
				t.Errorf("summary lacks %q:\n%s", want, out)
			}
			if d.Window.PlannedSeconds != 10 || d.Window.ClientSeconds < 9.9 {
				t.Errorf("window %+v: want the 10 s asked", d.Window)
			}

			d, out = run("5s")
			if u := d.Window.UntilSteady; u == nil || u.Ended != "bound" || d.Window.RampupSeconds != 5 {
				t.Errorf("a 5 s bound: until_steady %+v, rampup %.3f s; want ended at the bound, 5 s", u, d.Window.RampupSeconds)
			}
			for _, want := range []string{"after 5 s rampup (until steady: reached its 5 s bound, throughput not settled)",
				"the rampup until steady reached its 5 s bound, throughput not settled by then"} {
				if !strings.Contains(out, want) {
					t.Errorf("summary lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// A rampup until steady is refused, in one line with exit 2, where it cannot apply: a part of a
// run shares the window's start with the others, and a bound below --rampup.
func TestRampupUntilSteadyRefused(t *testing.T) {
	url := "sqlite://" + filepath.Join(t.TempDir(), "x.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--part", "1/2", "--rampup-until-steady", "1m"}, "one agreed window start"},
		{[]string{"--rampup", "30s", "--rampup-until-steady", "10s"}, "below --rampup (30s)"},
	} {
		code, out, stderr := cairn(t, append([]string{"oltp", "run", "--db", url}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", c.args, code, stderr, out, c.want)
		}
	}
}
