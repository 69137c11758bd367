package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// studyPage is what a study's report shows once the browser has drawn it.
type studyPage struct {
	Charts []string `json:"charts"` // the charts' ids in page order
	// AfterLead is the class of what follows the live charts and the running threads beside them.
	AfterLead string `json:"afterLead"`
	Lines     []struct {
		Chart  string    `json:"chart"`
		Series string    `json:"series"`
		Axis   string    `json:"axis"`
		X      []float64 `json:"x"`
		Labels []string  `json:"labels"`
		Inside bool      `json:"inside"`
	} `json:"lines"`
	Verdicts []string `json:"verdicts"` // every mark label of every chart naming a peak, saturation or bottleneck
	Titles   []struct {
		Text     string `json:"text"`
		Overflow bool   `json:"overflow"`
	} `json:"titles"`
	Cards string `json:"cards"` // the text of the cards at the top
}

const readStudyPage = `(function () {
  var out = { charts: [], afterLead: "", lines: [], verdicts: [], titles: [], cards: "" };
  var els = document.querySelectorAll(".chart"), lead = null;
  els.forEach(function (el) {
    var id = el.getAttribute("data-chart-id");
    out.charts.push(id);
    if (/^(study-live-|profile-running-)/.test(id) && (lead === null || lead.nextElementSibling === el)) { lead = el; }
  });
  if (lead && lead.nextElementSibling) { out.afterLead = lead.nextElementSibling.className; }
  els.forEach(function (el) {
    var inst = echarts.getInstanceByDom(el);
    if (!inst) { return; }
    var o = inst.getOption();
    (o.series || []).forEach(function (s) {
      ((s.markPoint || {}).data || []).forEach(function (d) {
        if (/peak|saturation|bottleneck/.test(d.name || "")) { out.verdicts.push(el.getAttribute("data-chart-id") + ": " + d.name); }
      });
      if (!/^study-live-/.test(el.getAttribute("data-chart-id")) || s.type !== "line") { return; }
      var m = { chart: el.getAttribute("data-chart-id"), series: s.name, axis: o.xAxis[0].name, x: [], labels: [], inside: true };
      ((s.markPoint || {}).data || []).forEach(function (d) {
        m.x.push(d.coord[0]);
        m.labels.push(d.name || "");
        m.inside = m.inside && inst.containPixel({ gridIndex: 0 }, inst.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, d.coord));
      });
      out.lines.push(m);
    });
  });
  document.querySelectorAll(".heads .item > h2").forEach(function (h) {
    var card = h.closest(".item").getBoundingClientRect(), r = h.getBoundingClientRect();
    out.titles.push({ text: h.textContent, overflow: h.scrollWidth > h.clientWidth + 1 || r.right > card.right + 1 });
  });
  out.cards = document.querySelector(".heads").innerText;
  return out;
})()`

// studyReport runs a shipped study's CI variant on url with --set, stores it, writes its report
// (HTML and PNG) and reads the page as the browser draws it.
func studyReport(t *testing.T, file, url string, set ...string) (*results.Study, *studyPage, string) {
	t.Helper()
	testutil.Chromium(t)
	dir := t.TempDir()
	store, js := filepath.Join(dir, "results.db"), filepath.Join(dir, "study.json")
	args := []string{"study", "run", "../../studies/ci/" + file, "--set", "db=" + url, "--results", store, "--json", js}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	code, out, stderr := cairn(t, args...)
	if code != 0 {
		t.Fatalf("study run %s: exit %d\n%s\n%s", file, code, out, stderr)
	}
	st := readStudyDoc(t, js)
	page, png := filepath.Join(dir, "study.html"), filepath.Join(dir, "png")
	if code, out, stderr := cairn(t, "report", st.ID, "--results", store, "-o", page, "--png", png); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, out, stderr)
	}
	ctx := testutil.Browser(t, 90*time.Second, 1400, 900, nil)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[studyPage](readStudyPage))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	if keep := os.Getenv("CAIRN_REPORT_SHOT"); keep != "" {
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			_ = os.MkdirAll(keep, 0o755)
			_ = os.WriteFile(filepath.Join(keep, strings.TrimSuffix(file, ".yaml")+".png"), shot, 0o644)
		}
	}
	return st, &p, png
}

// TestLiveStudyReport runs the shipped live study (spin-wait-delay-live, CI variant) on MariaDB
// and reads its report in the browser: it opens with the throughput over time (and the running
// threads beside it), the segments' table right under them; every VU count's line carries a mark for each of its run's changes,
// drawn on the window's clock (the axis says so) where the stored run says the change took
// effect, each change labelled once; no chart marks a peak, saturation or bottleneck, and no
// card names one; the PNGs are the same charts.
func TestLiveStudyReport(t *testing.T) {
	url := testutil.MySQL(t)
	fresh(t, "oltp", url)
	st, p, png := studyReport(t, "spin-wait-delay-live.yaml", url, "duration=10s")
	if len(p.Charts) == 0 || p.Charts[0] != "study-live-1" || p.AfterLead != "item segments" {
		t.Errorf("the page opens with %v, its live charts followed by %q; want study-live-1 first and the segments' table after them", p.Charts, p.AfterLead)
	}
	lines := 0
	labels := map[string]int{}
	for _, step := range st.Cases[0].Profile.Steps {
		for _, d := range step.Runs[:1] {
			lines++
			name := fmt.Sprintf("%d VUs", d.VU) // the CI variant runs 2 and 4
			found := false
			for _, l := range p.Lines {
				if l.Series != name {
					continue
				}
				found = true
				if !strings.Contains(l.Axis, "measured window started") || !l.Inside || len(l.X) != len(d.Changes) || len(d.Changes) != 4 {
					t.Errorf("%s: axis %q, inside %v, %d marks for %d changes", name, l.Axis, l.Inside, len(l.X), len(d.Changes))
					continue
				}
				for k, c := range d.Changes {
					if math.Abs(l.X[k]-c.AtSec) > 1e-9 {
						t.Errorf("%s: change %d drawn at %g, it took effect %g s into the window", name, k+1, l.X[k], c.AtSec)
					}
					if l.Labels[k] != "" {
						labels[l.Labels[k]]++
						// The label's planned time and the mark's place agree within the change's lateness.
						if want := c.Name + "=" + c.Value + " at "; !strings.HasPrefix(l.Labels[k], want) || math.Abs(c.AtSec-c.Planned) > 0.5 {
							t.Errorf("%s: change %d labelled %q at %g (planned %g)", name, k+1, l.Labels[k], c.AtSec, c.Planned)
						}
					}
				}
			}
			if !found {
				t.Errorf("no line %q on the live chart: %+v", name, p.Lines)
			}
		}
	}
	if len(p.Lines) != lines || len(labels) != 4 {
		t.Errorf("%d lines (want %d), labels %v (want each of the 4 changes once)", len(p.Lines), lines, labels)
	}
	for l, n := range labels {
		if n != 1 {
			t.Errorf("%q labelled on %d lines", l, n)
		}
	}
	if len(p.Verdicts) > 0 {
		t.Errorf("verdicts judged from runs that mix the live values: %v", p.Verdicts)
	}
	for _, line := range strings.Split(p.Cards, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "peak" || f[0] == "saturation" || f[0] == "bottleneck") {
			t.Errorf("a card names a verdict: %q", line)
		}
	}
	for _, f := range []string{"study-live-1.png", "study-segments-tps.png"} {
		if _, err := os.Stat(filepath.Join(png, f)); err != nil {
			t.Errorf("PNG: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(png, "profile-headline.png")); err == nil {
		t.Error("PNG: the runs' headline against VUs is drawn, mixing the live values")
	}
}

// TestCaseStudyReports runs the shipped studies with cases (ahi-spin-delay: two settings
// crossed; point-select-binding: the server's CPUs) on MariaDB and reads their reports: every
// card's title is whole and tells its case from the others, each case shows what its CPU list
// covers, and the study says what this host cannot reproduce of the original's.
func TestCaseStudyReports(t *testing.T) {
	url := testutil.MySQL(t)
	fresh(t, "oltp", url)
	_, p, _ := studyReport(t, "ahi-spin-delay.yaml", url)
	checkTitles(t, p, 4)
	if !strings.Contains(p.Cards, "innodb_adaptive_hash_index=OFF\ninnodb_spin_wait_delay=96") {
		t.Errorf("no card for AHI off at delay 96:\n%s", p.Cards)
	}
	if runtime.NumCPU() < 2 {
		t.Skip("point-select-binding binds to two CPUs")
	}
	st, p, _ := studyReport(t, "point-select-binding.yaml", url)
	checkTitles(t, p, 2)
	for _, want := range []string{"server-cpus 0\n", "server-cpus 1\n", "the server's CPUs (server-cpus)\t1: ", "host.dscr 1", "NOT reproducible here"} {
		if !strings.Contains(p.Cards, want) {
			t.Errorf("the cards lack %q:\n%s", want, p.Cards)
		}
	}
	if len(st.HostNotes) == 0 || !strings.Contains(strings.Join(st.HostNotes, "\n"), "NUMA node") {
		t.Errorf("the study stored host notes %q", st.HostNotes)
	}
}

func checkTitles(t *testing.T, p *studyPage, cases int) {
	t.Helper()
	seen := map[string]bool{}
	for _, ti := range p.Titles {
		if ti.Overflow || seen[ti.Text] {
			t.Errorf("card title %q runs out of its card (%v) or repeats another", ti.Text, ti.Overflow)
		}
		seen[ti.Text] = true
	}
	if len(p.Titles) != cases+1 {
		t.Errorf("%d cards, want the study's and %d cases'", len(p.Titles), cases)
	}
}
