package report

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// segmentStudy is testStudy whose first case's runs have an on-CPU profile per live segment, the
// spin share growing with the delay, as the live spin-delay study records them.
func segmentStudy(t testing.TB) *results.Study {
	t.Helper()
	st := testStudy(t, "31", maria)
	for _, step := range st.Cases[0].Profile.Steps {
		for _, d := range step.Runs {
			whole := results.StacksOf(withStacks(&results.Document{}, 0.1))
			for i, spin := range []float64{0.05, 0.1, 0.2, 0.3, 0.4} {
				s := results.StacksOf(withStacks(&results.Document{}, spin))
				whole.Segments = append(whole.Segments, results.StackSegment{Index: i + 1, Seconds: 1.5, Samples: s.Samples, Functions: s.Functions, Folded: s.Folded})
			}
			results.SetSection(d, "stacks", whole)
		}
	}
	return st
}

// segmentRun is a run of segmentStudy, its segments derived.
func segmentRun(t testing.TB) *results.Document {
	st := segmentStudy(t)
	d := st.Cases[0].Profile.Steps[0].Runs[0]
	d.Segments = st.RunSegments(d)
	return d
}

// A live study's report draws each case's flame graph per segment and the differential graph of
// the two chosen segments, with its own labels; cases without segment profiles draw none.
func TestStudySegmentFlames(t *testing.T) {
	st := segmentStudy(t)
	cs := studyFlames(st, []string{"2", "5"})
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	want := "study-seg-flame-1-1 study-seg-flame-1-2 study-seg-flame-1-3 study-seg-flame-1-4 study-seg-flame-1-5 study-seg-flame-diff-1"
	if got := strings.Join(ids, " "); got != want {
		t.Fatalf("charts %s, want %s", got, want)
	}
	diff := cs[len(cs)-1]
	if !diff.Flame.Diff || !strings.Contains(diff.Title, "segment 5, innodb_spin_wait_delay=96 against segment 2, innodb_spin_wait_delay=12") {
		t.Errorf("differential graph %q (diff %v)", diff.Title, diff.Flame.Diff)
	}
	// ut_delay gained from segment 2 to segment 5: its box is red.
	red := false
	for _, n := range diff.Flame.Nodes {
		if n.Name == "ut_delay" && n.Base != nil && strings.HasPrefix(n.Color, "#") && n.Color[1:3] > n.Color[5:7] {
			red = true
		}
	}
	if !red {
		t.Error("ut_delay, which gained share, is not drawn red")
	}
	// The default pair is the first and the last segment; a choice the study lacks is refused.
	if cs := studyFlames(st, nil); !strings.Contains(cs[len(cs)-1].Title, "segment 5, innodb_spin_wait_delay=96 against segment 1, innodb_spin_wait_delay=4") {
		t.Errorf("default differential graph %q", cs[len(cs)-1].Title)
	}
	for _, bad := range [][]string{{"1", "6"}, {"0", "2"}, {"2", "2"}, {"A", "B"}, {"1"}} {
		if err := CheckDiff(st, bad); err == nil {
			t.Errorf("--diff %v accepted", bad)
		}
	}
	if err := CheckDiff(st, []string{"1", "5"}); err != nil {
		t.Error(err)
	}
	cases := testStudy(t, "32", maria)
	cases.Schedule = nil
	if CheckDiff(cases, []string{"A", "B"}) != nil || CheckDiff(cases, []string{"A", "C"}) == nil || CheckDiff(cases, []string{"1", "2"}) == nil {
		t.Error("cases are chosen by letter, among the study's")
	}
	// A run of the study reported alone draws its own segments' flame graphs.
	d := st.Cases[0].Profile.Steps[0].Runs[0]
	d.Segments = st.RunSegments(d)
	ids = nil
	for _, c := range Charts([]Item{{Run: d, Diff: []string{"1", "3"}}}) {
		if strings.Contains(c.ID, "seg-flame") {
			ids = append(ids, c.ID)
		}
	}
	if got := strings.Join(ids, " "); got != "run-seg-flame-1-1 run-seg-flame-1-2 run-seg-flame-1-3 run-seg-flame-1-4 run-seg-flame-1-5 run-seg-flame-diff-1" {
		t.Errorf("a run's segment flame graphs: %s", got)
	}
	if CheckRunDiff(d, []string{"1", "3"}) != nil || CheckRunDiff(d, []string{"1", "6"}) == nil {
		t.Error("a run's segments are chosen by number, among its own")
	}
}
