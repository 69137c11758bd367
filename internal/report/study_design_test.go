package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// Cases are titled by the levels that differ between them; a level every case shares is said
// once, by the study; one case keeps its whole label.
func TestCaseTitles(t *testing.T) {
	st := testCaseStudy(t, "31", maria)
	titles, common := caseTitles(st)
	want := []string{"innodb_adaptive_hash_index=ON, innodb_spin_wait_delay=12", "innodb_adaptive_hash_index=ON, innodb_spin_wait_delay=96",
		"innodb_adaptive_hash_index=OFF, innodb_spin_wait_delay=12", "innodb_adaptive_hash_index=OFF, innodb_spin_wait_delay=96"}
	if strings.Join(titles, " | ") != strings.Join(want, " | ") || strings.Join(common, " | ") != "client-cpus 0-1" {
		t.Errorf("titles %q, common %q", titles, common)
	}
	v := summarizeStudy(st, "study 31")
	if !hasKV(v.Figures, "in every case", "client-cpus 0-1") || !hasKV(v.Figures, "cases", "4") {
		t.Errorf("study card figures %v", v.Figures)
	}
	// The cards carry the short titles and what the CPU lists cover.
	cards := studyCaseViews(st)
	for i, c := range cards {
		if c.Label != want[i] || !c.Fold || !hasKV(c.Shown, "cairn's CPUs (client-cpus)", "0-1: 2 cores, no SMT siblings, siblings 16-17 left out, package 0, node 0") {
			t.Errorf("card %d: %q, folded %v, %v", i+1, c.Label, c.Fold, c.Shown)
		}
	}
	// Where a factor alone differs, the title is its level.
	one := testCaseStudy(t, "32", maria)
	one.Cases = one.Cases[:2]
	if titles, common := caseTitles(one); strings.Join(titles, " | ") != "innodb_spin_wait_delay=12 | innodb_spin_wait_delay=96" ||
		strings.Join(common, " | ") != "innodb_adaptive_hash_index=ON | client-cpus 0-1" {
		t.Errorf("two cases: titles %q, common %q", titles, common)
	}
	one.Cases = one.Cases[:1]
	if titles, common := caseTitles(one); titles[0] != one.Cases[0].Label || common != nil {
		t.Errorf("one case: titles %q, common %q", titles, common)
	}
}

func hasKV(l []kv, k, v string) bool {
	for _, x := range l {
		if x.K == k && x.V == v {
			return true
		}
	}
	return false
}

// A live study's charts are drawn on the window's clock: each VU count's line carries a mark for
// each of its changes where the change took effect (its at_seconds), each change is labelled once
// with its planned time, and the rampup is shaded below 0. No chart carries a verdict (peak,
// saturation, bottleneck): the runs mix the live values.
func TestLiveChartsOnTheWindowsClock(t *testing.T) {
	st := testStudy(t, "30", maria)
	cs := Charts([]Item{{Study: st}})
	if leadCharts(cs) != 2 {
		t.Fatalf("%d charts lead, want the 2 live ones: %v", leadCharts(cs), chartIDs(cs))
	}
	for ci, c := range cs[:2] {
		if c.XLabel != labelWindow || len(c.Bands) != 1 || c.Bands[0].Label != "rampup" || math.Abs(c.Bands[0].From+5) > 0.01 || math.Abs(c.Bands[0].To) > 0.01 {
			t.Errorf("%s: axis %q, bands %+v", c.ID, c.XLabel, c.Bands)
		}
		labels := map[string]int{}
		for si, s := range c.Series {
			d := firstMeasured(st.Cases[ci].Profile.Steps[si])
			if len(s.Marks) != len(d.Changes) {
				t.Errorf("%s / %s: %d marks for %d changes", c.ID, s.Name, len(s.Marks), len(d.Changes))
				continue
			}
			for k, m := range s.Marks {
				if m.X != d.Changes[k].AtSec {
					t.Errorf("%s / %s: mark %d at %g, the change took effect at %g into the window", c.ID, s.Name, k, m.X, d.Changes[k].AtSec)
				}
				if m.Label != "" {
					labels[m.Label]++
				}
			}
			if s.Points[0][0] > 0 || s.Points[len(s.Points)-1][0] > 25.1 {
				t.Errorf("%s / %s: x from %g to %g, want the rampup below 0 and the 25 s window after it", c.ID, s.Name, s.Points[0][0], s.Points[len(s.Points)-1][0])
			}
		}
		for _, want := range []string{"innodb_spin_wait_delay=12 at 5s", "innodb_spin_wait_delay=96 at 12.5s"} {
			if labels[want] != 1 {
				t.Errorf("%s: label %q drawn %d times, want once: %v", c.ID, want, labels[want], labels)
			}
		}
	}
	for _, c := range cs {
		for _, s := range c.Series {
			for _, m := range s.Marks {
				for _, verdict := range []string{"peak", "saturation", "bottleneck"} {
					if strings.Contains(m.Label, verdict) {
						t.Errorf("%s / %s: a %s judged from runs that mix the live values: %q", c.ID, s.Name, verdict, m.Label)
					}
				}
			}
		}
	}
	// The segments' charts: a line per case and live value, a point per VU count.
	seg := cs[2]
	if seg.ID != "study-segments-tps" || len(seg.Series) != 10 || len(seg.Series[0].Points) != 3 ||
		seg.Series[0].Name != "innodb_adaptive_hash_index=ON · innodb_spin_wait_delay=4" {
		t.Errorf("segments chart %s: %d series, first %+v", seg.ID, len(seg.Series), seg.Series[0])
	}
	rows := st.SegmentRows()
	if seg.Series[1].Points[2][1] != rows[11].TPS.Mean || rows[11].VU != 4 || rows[11].Index != 2 {
		t.Errorf("segments chart at 4 VUs, segment 2: %v, row %+v", seg.Series[1].Points, rows[11])
	}
	// The cards judge nothing either, and say why; the segments' table stands under the live charts.
	for _, c := range studyCaseViews(st) {
		for _, f := range c.Figures {
			if strings.Contains(f.K, "peak") || f.K == "saturation" || f.K == "bottleneck" {
				t.Errorf("card %s: %s %s", c.Label, f.K, f.V)
			}
		}
		if len(c.Shown) == 0 || c.Shown[0].K != "whole runs" || !strings.Contains(c.Shown[0].V, "changes innodb_spin_wait_delay live") || c.Fold {
			t.Errorf("card %s: shown %q, folded %v", c.Label, c.Shown, c.Fold)
		}
	}
	var b bytes.Buffer
	if err := HTML(&b, []Item{{Study: st}}, "live"); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	live2, table, segs := strings.Index(html, `data-chart-id="study-live-2"`), strings.Index(html, "Per live segment"), strings.Index(html, `data-chart-id="study-segments-tps"`)
	if live2 < 0 || table < live2 || segs < table || strings.Count(html, "Per live segment") != 1 {
		t.Errorf("the segments' table is not once between the live charts and the others: %d, %d, %d", live2, table, segs)
	}
}

// A study without live changes keeps its verdicts: the headline's peak is marked.
func TestCaseStudyKeepsVerdicts(t *testing.T) {
	cs := Charts([]Item{{Study: testCaseStudy(t, "31", maria)}})
	if cs[0].ID != "profiles-headline" || len(cs[0].Series) != 4 || len(cs[0].Series[0].Marks) == 0 {
		t.Fatalf("first chart %s with %d series, marks %+v", cs[0].ID, len(cs[0].Series), cs[0].Series[0].Marks)
	}
	if got := cs[0].Series[1].Name; got != "innodb_adaptive_hash_index=ON, innodb_spin_wait_delay=96" {
		t.Errorf("series named %q", got)
	}
}

// The PNG lifts the labels of changes too close for their text into rows, as the page does: the
// live study's changes, 2.5 s apart on a 30 s axis, are each in another row than the one before.
func TestPNGMarkRows(t *testing.T) {
	c := liveCharts(testStudy(t, "30", maria))[0]
	rows := markRows(c)
	var got []int
	for i, s := range c.Series {
		for j, m := range s.Marks {
			if m.Label != "" {
				got = append(got, rows[i][j])
			}
		}
	}
	if len(got) != 4 {
		t.Fatalf("%d labelled marks: rows %v", len(got), rows)
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Errorf("labels %d and %d, 2.5 s apart, share row %d: %v", i, i+1, got[i], got)
		}
	}
}
