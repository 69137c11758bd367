package summary

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// profiled is a run whose on-CPU profile has the given folded stacks (root first) and ranks
// the functions given.
func profiled(folded map[string]int64, ranked ...results.StackFunction) *results.Document {
	st := &results.Stacks{Event: "cpu-clock", Hz: 99, Functions: ranked}
	for s, n := range folded {
		st.Samples += n
		st.Folded = append(st.Folded, results.FoldedStack{Stack: s, Count: n})
	}
	d := &results.Document{}
	results.SetSection(d, "stacks", st)
	return d
}

// TestFunctionShifts: the functions whose self share gained and lost most are named with both
// shares and the change in points, gains first; a function ranked by the profile is read from its
// stored share, one only in the folded stacks from the stacks it ends; nothing is printed without
// profiles, one line with a profile on one side only.
func TestFunctionShifts(t *testing.T) {
	a := profiled(map[string]int64{"main;do_command;row_search_mvcc": 50, "main;do_command;ut_delay": 10, "main;do_command;memcpy": 40},
		results.StackFunction{Name: "row_search_mvcc", Self: 50, Total: 50}, results.StackFunction{Name: "memcpy", Self: 40, Total: 40})
	b := profiled(map[string]int64{"main;do_command;row_search_mvcc": 30, "main;do_command;ut_delay": 60, "main;do_command;memcpy": 10},
		results.StackFunction{Name: "ut_delay", Self: 60, Total: 60}, results.StackFunction{Name: "row_search_mvcc", Self: 30, Total: 30})
	var w bytes.Buffer
	FunctionShifts(&w, "B against A", "A", "B", []*results.Document{a}, []*results.Document{b})
	out := w.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "changed most, B against A") {
		t.Fatalf("want a heading, a header and 3 functions:\n%s", out)
	}
	for i, want := range [][]string{{"10.0%", "60.0%", "+50.0 pp", "ut_delay"}, {"40.0%", "10.0%", "-30.0 pp", "memcpy"}, {"50.0%", "30.0%", "-20.0 pp", "row_search_mvcc"}} {
		if f := strings.Fields(lines[2+i]); strings.Join(f, " ") != strings.Join(want, " ") {
			t.Errorf("line %d: %q, want %q", 2+i, lines[2+i], want)
		}
	}

	// Repeated runs: the shares are the runs' mean.
	b2 := profiled(map[string]int64{"main;ut_delay": 20, "main;row_search_mvcc": 80})
	w.Reset()
	FunctionShifts(&w, "B against A", "A", "B", []*results.Document{a}, []*results.Document{b, b2})
	if !strings.Contains(w.String(), "ut_delay") || !strings.Contains(w.String(), "40.0%") {
		t.Errorf("the mean of two runs (60%% and 20%%) is not 40%%:\n%s", w.String())
	}

	none := &results.Document{}
	w.Reset()
	FunctionShifts(&w, "B against A", "A", "B", []*results.Document{none}, []*results.Document{none})
	if w.Len() != 0 {
		t.Errorf("without profiles: %q, want nothing", w.String())
	}
	failed := &results.Document{}
	results.SetSection(failed, "stacks", &results.Stacks{Note: "perf record failed: x"})
	for _, c := range []struct {
		base, other *results.Document
		has         string
	}{{a, none, "for A only"}, {failed, b, "for B only"}} {
		w.Reset()
		FunctionShifts(&w, "B against A", "A", "B", []*results.Document{c.base}, []*results.Document{c.other})
		if got := strings.TrimSpace(w.String()); strings.Count(got, "\n") != 0 || !strings.Contains(got, c.has) || !strings.Contains(got, "--observe stacks") {
			t.Errorf("a profile on one side: %q, want one line saying %q", got, c.has)
		}
	}
}

// TestFunctionShiftsBounded: at most five functions each way, the largest shifts.
func TestFunctionShiftsBounded(t *testing.T) {
	fa, fb := map[string]int64{}, map[string]int64{}
	for i, n := range []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7"} {
		fa["main;"+n] = int64(10 + i)
		fb["main;b"+n[1:]] = int64(10 + i)
	}
	var w bytes.Buffer
	FunctionShifts(&w, "B against A", "A", "B", []*results.Document{profiled(fa)}, []*results.Document{profiled(fb)})
	out := w.String()
	if strings.Count(out, "pp") != 10 || strings.Contains(out, " a1\n") || strings.Contains(out, " b1\n") || !strings.Contains(out, "a7") {
		t.Errorf("want the 5 largest gains and losses:\n%s", out)
	}
}

// TestCompareNamesFunctionShifts: results compare prints the function shifts after the figures,
// for runs against the baseline and for profiles per VU count both ran.
func TestCompareNamesFunctionShifts(t *testing.T) {
	run := func(id string, vu int, delay int64) results.Loaded {
		d := profiled(map[string]int64{"main;ut_delay": delay, "main;row_search_mvcc": 100 - delay})
		d.ID, d.VU, d.Workload, d.MainTxn = id, vu, "oltp", "read_only"
		d.Result.Headline = &results.Headline{Name: "TPS", Value: 100}
		return results.Loaded{ID: id, Run: d}
	}
	var w bytes.Buffer
	Compare(&w, [][]results.Loaded{{run("1", 4, 10)}, {run("2", 4, 40)}})
	out := w.String()
	if i, j := strings.Index(out, "errors"), strings.Index(out, "changed most, B against A:"); i < 0 || j < i || !strings.Contains(out, "+30.0 pp  ut_delay") {
		t.Errorf("runs: no function shifts after the figures:\n%s", out)
	}
	profile := func(id string, delays map[int]int64) results.Loaded {
		p := &results.Profile{ID: id, Workload: "oltp", MainTxn: "read_only"}
		for _, vu := range []int{1, 8} {
			p.Steps = append(p.Steps, &results.Step{VU: vu, Runs: []*results.Document{run(id, vu, delays[vu]).Run}})
		}
		p.Summarize()
		return results.Loaded{ID: id, Profile: p}
	}
	w.Reset()
	Compare(&w, [][]results.Loaded{{profile("1", map[int]int64{1: 5, 8: 10})}, {profile("2", map[int]int64{1: 5, 8: 50})}})
	out = w.String()
	if !strings.Contains(out, "B against A at 1 VU: no self share changed") || !strings.Contains(out, "B against A at 8 VUs:") || !strings.Contains(out, "+40.0 pp  ut_delay") {
		t.Errorf("profiles: no function shifts per VU count:\n%s", out)
	}
}
