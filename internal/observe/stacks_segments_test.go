package observe

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// The samples are cut at the live changes: the first segment from the window's start to the
// first change, each next from results.SettleSeconds after the last change planned for its
// instant to the next change, the last to the window's end; a part settling empties is left out.
func TestLiveStacksSpans(t *testing.T) {
	s := results.SettleSeconds
	l := liveStacks{start: 100, end: 120, changes: []liveChange{{4, 104}, {8, 108}, {8, 108.01}, {12, 112}, {12.5, 112.5}}}
	got := l.spans()
	want := []stackSpan{{1, 100, 104}, {2, 104 + s, 108}, {3, 108.01 + s, 112}, {5, 112.5 + s, 120}}
	if len(got) != len(want) {
		t.Fatalf("spans %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("span %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if k := spanOf(got, 105); k != 1 || spanOf(got, 104.5) != -1 || spanOf(got, 120) != -1 || spanOf(got, 100) != 0 {
		t.Errorf("spanOf: 105 in %d; 104.5 (settling), 120 (the end) and 100 (the start) in %d, %d, %d", k, spanOf(got, 104.5), spanOf(got, 120), spanOf(got, 100))
	}
	if (&liveStacks{start: 1, end: 2}).spans() != nil {
		t.Error("a run without live changes has spans")
	}
}

// perf script's time field places each sample; the segments' profiles are ranked as the run's.
func TestScanPerfScriptTimes(t *testing.T) {
	in := `mariadbd 700/701 100.500000: 
	    55d1 ut_delay (/usr/sbin/mariadbd)
	    55d2 main (/usr/sbin/mariadbd)

mariadbd 700/702 105.250000:
	    55d3 [unknown] (/usr/sbin/mariadbd)
	    55d2 main (/usr/sbin/mariadbd)

perf 900/900 105.3:
	    55d3 x (/usr/bin/perf)
`
	type sample struct {
		pid   int
		t     float64
		stack string
	}
	var got []sample
	if err := ScanPerfScript(strings.NewReader(in), func(pid int) bool { return pid == 700 }, func(t float64, stack string) { got = append(got, sample{700, t, stack}) }); err != nil {
		t.Fatal(err)
	}
	want := []sample{{700, 100.5, "main;ut_delay"}, {700, 105.25, "main;[mariadbd]"}}
	if len(got) != len(want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	spans := []stackSpan{{1, 100, 104}, {2, 105, 110}}
	segs := make([]map[string]int64, 2)
	for _, x := range got[:2] {
		k := spanOf(spans, x.t)
		if segs[k] == nil {
			segs[k] = map[string]int64{}
		}
		segs[k][x.stack]++
	}
	ss := segmentStacks(spans, segs)
	if len(ss) != 2 || ss[0].Index != 1 || ss[0].Samples != 1 || ss[0].Functions[0].Name != "ut_delay" || ss[1].Functions[0].Name != "[mariadbd]" || ss[1].Seconds != 5 {
		t.Errorf("segment profiles %+v", ss)
	}
}
