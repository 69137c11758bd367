package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestStudyReportSegments: a live study's report lists each case's VU counts × live values with
// their figures, and draws a run that counted its statements in queries per second, as the
// published study read it.
func TestStudyReportSegments(t *testing.T) {
	st := testStudy(t, "30", maria)
	v := summarizeStudy(st, "study 30")
	var segs []string
	for _, r := range v.Segments {
		segs = append(segs, strings.Join([]string{r.Case, r.VU, r.Index, r.Values, r.TPS}, " · "))
	}
	// 2 cases × 3 VU counts × 5 segments.
	if len(segs) != 30 || !strings.HasPrefix(segs[0], "innodb_adaptive_hash_index=ON · 1 · 1 · innodb_spin_wait_delay=4 · ") ||
		!strings.Contains(segs[4], " · 5 · innodb_spin_wait_delay=96 · ") || strings.HasSuffix(segs[0], "-") {
		t.Fatalf("%d segment rows:\n%s", len(segs), strings.Join(segs, "\n"))
	}
	var b bytes.Buffer
	if err := HTML(&b, []Item{{Study: st}}, "live study"); err != nil {
		t.Fatal(err)
	}
	if html := b.String(); !strings.Contains(html, "Per live segment") || !strings.Contains(html, "<td>innodb_spin_wait_delay=96</td>") {
		t.Error("the report's details have no table of live segments")
	}
	if live := liveCharts(st); len(live) == 0 || live[0].YLabel != labelTPM {
		t.Errorf("a live chart of runs that counted no statements is not in TPM")
	}
	d := firstMeasured(st.Cases[0].Profile.Steps[0])
	tps, qps := 10.0, 150.0
	d.Result.TPS, d.Result.QPS = &tps, &qps
	live := liveCharts(st)
	tpm := rate(d.Series, allTxns)
	if live[0].YLabel != labelQPS || len(live[0].Series[0].Points) != len(tpm) || live[0].Series[0].Points[3][1] != tpm[3][1]*15/60 {
		t.Errorf("live chart of a run with 15 statements per transaction: %q, %v", live[0].YLabel, live[0].Series[0].Points[:4])
	}
}
