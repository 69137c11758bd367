package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestSearchPostgres is issue 45's acceptance for search: on PostgreSQL point selects it returns
// a rate whose own check run holds the target, and a rate 10% higher does not. The host is shared
// and busy, so the target is set from a closed-loop probe far above what a served transaction
// takes and far below what a queue builds in a window when the rate exceeds what the server and
// client can do: the search then finds where throughput runs out, and the check runs are judged
// as the search judges a rate (docs/search.md): achieved within session.Shortfall and p95
// within the target, a rate holding when one of two runs holds, missing when both miss.
//
// Near the capacity one run's outcome varies by more than the 10% the acceptance resolves: a
// stall of the shared host leaves a queue that the little capacity to spare takes the window to
// drain (9,890/s missed with p95 1.3 s in a search, then held with p95 93 ms). The search runs
// such a miss again before it counts, and narrows to 5%, so that 10% above its answer lies at
// least 4.7% above the capacity it bracketed, where a queue grows through the window.
//
// It is still run only with CAIRN_TEST_SEARCH=1: what the method cannot remove is a host whose
// capacity moves by more than 10% between minutes. On the shared 2-core host at a load average
// of 18-20 it failed: 4,176/s held with p95 145 ms in the search and missed twice in the check
// run two minutes later (p95 2.95 s, 0.77 s), while 4,700/s missed twice in the search and held
// in the check (p95 150 ms).
func TestSearchPostgres(t *testing.T) {
	if os.Getenv("CAIRN_TEST_SEARCH") == "" {
		t.Skip("set CAIRN_TEST_SEARCH=1: the acceptance of search needs a host whose capacity holds within 10% from one minute to the next")
	}
	url := testutil.PG(t)
	oltpPrepared(t, url)
	dir := t.TempDir()
	base := []string{"--db", url, "--workload", "point-select", "--vu", "2", "--observe", "off", "--no-store", "--seed", "3"}
	run := func(rate float64, window string) (achieved, p95, p99, secs float64) {
		t.Helper()
		js := filepath.Join(dir, fmt.Sprintf("r%.0f.json", rate))
		args := append([]string{"oltp", "run", "--rampup", "1s", "--duration", window, "--progress", "0", "--json", js}, base...)
		if rate > 0 {
			args = append(args, "--rate", fmt.Sprint(rate))
		}
		if code, out, stderr := cairn(t, args...); code != 0 {
			t.Fatalf("run at rate %g: exit %d\n%s\n%s", rate, code, out, stderr)
		}
		d := readDoc(t, js)
		secs = num(t, d, "window.client_seconds")
		return num(t, d, "transactions.point_select.count") / secs, num(t, d, "transactions.point_select.latency_ms.p95"),
			num(t, d, "transactions.point_select.latency_ms.p99"), secs
	}
	probe, probeP95, probeP99, _ := run(0, "3s")
	// A served point select takes a millisecond or two; a stall of this shared host adds what
	// the probe's p99 shows. A queue above capacity grows by (rate − capacity) a second, so a
	// twentieth over capacity puts ~0.5 s of wait on the last transactions of a 10 s window, and
	// the step falls short of its rate. 10× the probe's p99, at least 250 ms, lies between.
	target := math.Max(10*probeP99, 250)
	js := filepath.Join(dir, "search.json")
	code, out, stderr := cairn(t, append([]string{"oltp", "search", "--p95", fmt.Sprintf("%.0fms", target),
		"--start-rate", fmt.Sprintf("%.0f", 0.6*probe), "--max-steps", "5", "--precision", "0.05",
		"--rampup", "1s", "--duration", "10s", "--pause", "0", "--json", js}, base...)...)
	t.Logf("probe %.0f/s p95 %.2f ms p99 %.2f ms; target %.0f ms\n%s", probe, probeP95, probeP99, target, out)
	if code != 0 {
		t.Fatalf("search: exit %d\n%s", code, stderr)
	}
	d := readDoc(t, js)
	if field(t, d, "search.found") != true {
		t.Fatalf("search found nothing")
	}
	lo, hi := num(t, d, "search.lo"), num(t, d, "search.hi")
	if num(t, d, "search.rate") != lo || lo <= 0 || hi <= lo {
		t.Fatalf("search answered %g in [%g, %g)", num(t, d, "search.rate"), lo, hi)
	}
	if !strings.Contains(out, fmt.Sprintf("interval [%s, %s) /s", thousands(lo), thousands(hi))) {
		t.Errorf("the summary does not give the answer's interval [%g, %g)", lo, hi)
	}
	// Every point the summary prints is a step the document stores, and the answer is its
	// highest that held.
	pts := field(t, d, "search.points").([]any)
	best := 0.0
	for _, p := range pts {
		p := p.(map[string]any)
		if p["held"] == true {
			best = math.Max(best, p["rate"].(float64))
		}
	}
	if best != lo {
		t.Errorf("the highest rate that held is %g, the answer %g", best, lo)
	}

	// holds runs a check at rate, judged as a step is over a window as long: a second run when
	// the first missed, the rate holding when either held.
	holds := func(rate float64) (bool, string) {
		var runs []string
		for range 2 {
			got, p95, _, secs := run(rate, "10s")
			runs = append(runs, fmt.Sprintf("achieved %.0f/s, p95 %.1f ms", got, p95))
			if rate-got <= session.Shortfall(rate, secs) && p95 <= target {
				return true, strings.Join(runs, "; ")
			}
		}
		return false, strings.Join(runs, "; ")
	}
	// The answer's own check run holds the target.
	if ok, runs := holds(lo); !ok {
		t.Errorf("check at the answer %g/s (target %.0f ms): it did not hold: %s", lo, target, runs)
	}
	// A rate 10% higher, and at or above the lowest rate that missed (with --precision 0.05
	// that is 10% above the answer, when the steps sufficed to narrow it so far), does not.
	up := math.Max(1.1*lo, hi)
	if ok, runs := holds(up); ok {
		t.Errorf("check at %g/s, above the interval [%g, %g) (target %.0f ms): it held: %s", up, lo, hi, target, runs)
	}
}

func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestSearchBadInput: every mistake in a search's flags is one line and exit 2, before anything
// runs.
func TestSearchBadInput(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "none.db")
	cases := []struct {
		args []string
		want string
	}{
		{nil, "search needs a latency target: --p95 50ms or --p99 200ms, or per transaction type: --p95 new_order=50ms,payment=80ms"},
		{[]string{"--p95", "fast"}, "--p95 fast: give a positive latency, like 50ms, or one per transaction type, like new_order=50ms,payment=80ms"},
		{[]string{"--p99", "point_select="}, "--p99 point_select=: give a positive latency"},
		{[]string{"--p95", "-5ms"}, "give a positive latency"},
		{[]string{"--p95", "50ms", "--duration", "5s"}, "--duration 5s: a search step's window must be at least 10s"},
		{[]string{"--p95", "50ms", "--vu", "1,2"}, "--vu: a run takes one VU count"},
		{[]string{"--p95", "50ms", "--max-steps", "1"}, "--max-steps 1"},
		{[]string{"--p95", "50ms", "--precision", "0"}, "--precision 0"},
		{[]string{"--p95", "50ms", "--start-rate", "-1"}, "--start-rate -1"},
		{[]string{"--p95", "50ms", "--rate", "100"}, "unknown flag: --rate"},
		{[]string{"--p95", "50ms"}, "run 'cairn oltp prepare' first"},
	}
	for _, c := range cases {
		code, out, stderr := cairn(t, append([]string{"oltp", "search", "--db", db}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q (stdout %q)", c.args, code, stderr, c.want, out)
			continue
		}
		oneCleanLine(t, stderr)
	}
}

// Targets per transaction type, judged on real steps: TPC-C on SQLite, each point's latencies
// are its own run's percentiles of the types named, a step holds only when every target holds
// (a payment p99 under a microsecond fails every step whose new_order held its hour), and the
// target that bound is the one with the highest latency over target. A type the workload has not
// is one line, exit 2.
func TestSearchPerType(t *testing.T) {
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "c.db")
	prepared(t, url)
	base := []string{"tpcc", "search", "--db", url, "--vu", "2", "--rampup", "1s", "--duration", "10s", "--pause", "0",
		"--observe", "off", "--no-store", "--start-rate", "20", "--max-steps", "2"}
	code, out, stderr := cairn(t, append(base, "--p95", "neworder=50ms")...)
	if want := `--p95 neworder=50ms: this workload has no transaction type "neworder"; its types: new_order, payment, order_status, delivery, stock_level`; code != ExitUsage || !strings.Contains(stderr, want) {
		t.Fatalf("unknown type: exit %d, stderr %q, want 2 and %q (stdout %q)", code, stderr, want, out)
	}
	oneCleanLine(t, stderr)

	search := func(name string, want int, targets ...string) *results.Profile {
		t.Helper()
		js := filepath.Join(dir, name+".json")
		code, out, stderr := cairn(t, append(append(base, "--json", js), targets...)...)
		t.Logf("%s:\n%s", name, out)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s", name, code, want, stderr)
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var p results.Profile
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		sr := p.Search
		if sr == nil || len(sr.Points) < 2 {
			t.Fatalf("%s: search %+v", name, sr)
		}
		for _, tg := range sr.Targets {
			if !strings.Contains(out, tg.Name()+" ms") {
				t.Errorf("%s: the curve has no column for %s", name, tg.Name())
			}
		}
		// Each point is judged on its own run's figures.
		for _, pt := range sr.Points {
			d := p.Steps[pt.Run].Runs[0]
			worst, bound, held := 0.0, "", true
			for i, tg := range sr.Targets {
				l := d.Txns[tg.Txn].LatencyMs.P95
				if tg.Percentile == "p99" {
					l = d.Txns[tg.Txn].LatencyMs.P99
				}
				if pt.LatencyMs[i] != l {
					t.Errorf("%s at %g/s: %s %v ms, its run's %v", name, pt.Rate, tg.Name(), pt.LatencyMs[i], l)
				}
				if l/tg.TargetMs > worst {
					worst, bound = l/tg.TargetMs, tg.Name()
				}
				if over := strings.Contains(pt.Why, tg.Name()+" "); over != (l > tg.TargetMs) {
					t.Errorf("%s at %g/s: %s at %v ms of %v: named among the misses %v (%q)", name, pt.Rate, tg.Name(), l, tg.TargetMs, over, pt.Why)
				}
				held = held && l <= tg.TargetMs
			}
			if pt.Bound != bound || !held && pt.Held {
				t.Errorf("%s at %g/s: bound %q held %v (%q); its run's latencies say bound %q, every target held %v", name, pt.Rate, pt.Bound, pt.Held, pt.Why, bound, held)
			}
		}
		return &p
	}
	// new_order holds its hour at every rate; payment's microsecond fails every step.
	p := search("miss", ExitFailed, "--p95", "new_order=1h", "--p99", "payment=1us,delivery=1h")
	for _, pt := range p.Search.Points {
		if pt.Held || pt.Bound != "payment p99" || strings.Contains(pt.Why, "new_order") || strings.Contains(pt.Why, "delivery") {
			t.Errorf("miss at %g/s: held %v, bound %q, why %q", pt.Rate, pt.Held, pt.Bound, pt.Why)
		}
	}
	// Every target generous: the steps hold, each bound by the type nearest its target.
	p = search("hold", 0, "--p95", "new_order=1h,payment=30m")
	if !p.Search.Found || !p.Search.Points[0].Held {
		t.Errorf("hold: %+v", p.Search)
	}
}
