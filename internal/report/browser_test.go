package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// chartState is what the page says about one chart div once ECharts has drawn it.
type chartState struct {
	ID       string `json:"id"`
	Instance bool   `json:"instance"`
	Canvas   bool   `json:"canvas"`
	Series   int    `json:"series"`
	Empty    int    `json:"empty"` // series without data
	// Lines are the dashed lines drawn for the run's live changes (the first series' markLine).
	Lines int `json:"lines"`
	// Painted is the share of the canvas's pixels (every fourth read) that are not blank.
	Painted float64 `json:"painted"`
}

const inspectCharts = `Array.from(document.querySelectorAll(".chart")).map(function (el) {
  var inst = echarts.getInstanceByDom(el);
  var series = inst ? (inst.getOption().series || []) : [];
  var cv = el.querySelector("canvas"), painted = 0, read = 0;
  if (cv) {
    var px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
    for (var i = 0; i < px.length; i += 16, read++) {
      if (px[i + 3] > 0 && (px[i] < 235 || px[i + 1] < 235 || px[i + 2] < 235)) { painted++; }
    }
  }
  return {
    painted: read ? painted / read : 0,
    id: el.getAttribute("data-chart-id"),
    instance: !!inst,
    canvas: !!el.querySelector("canvas"),
    series: series.length,
    empty: series.filter(function (s) { return !s.data || s.data.length === 0; }).length,
    lines: series.length && series[0].markLine && series[0].markLine.data ? series[0].markLine.data.length : 0
  };
})`

// flameBox is where to click a flame graph's box: the narrowest box of the second level that is
// still 30 samples wide, its samples, and the graph's width in samples.
type flameBox struct {
	X, Y, Start, End, Width float64
}

const flameBoxAt = `(function () {
  var el = document.querySelector('[data-chart-id="%s"]');
  el.scrollIntoView();
  var inst = echarts.getInstanceByDom(el), r = el.getBoundingClientRect();
  var o = inst.getOption(), x = o.xAxis[0], data = o.series[0].data, best = null, width = 0;
  data.forEach(function (d) { if (d[2] === 0) { width = Math.max(width, d[1]); } });
  var zoomed = x.min > 0 || x.max < width;
  data.forEach(function (d) {
    if (d[2] !== 1) { return; }
    if (zoomed ? d[0] === x.min && d[1] === x.max : d[1] - d[0] >= 30 && (!best || d[1] - d[0] < best[1] - best[0])) { best = d; }
  });
  var px = inst.convertToPixel({ seriesIndex: 0 }, [(best[0] + best[1]) / 2, best[2] + 0.5]);
  return { x: r.left + px[0], y: r.top + px[1], start: best[0], end: best[1], width: width };
})()`

const flameSpan = `(function () {
  var x = echarts.getInstanceByDom(document.querySelector('[data-chart-id="%s"]')).getOption().xAxis[0];
  return [x.min, x.max];
})()`

// layout is what the page says about where things stand on the first screen and in the tables.
type layout struct {
	Viewport   float64  `json:"viewport"`   // the window's inner height
	FirstChart float64  `json:"firstChart"` // the first chart's top, from the top of the page
	Squeezed   []string `json:"squeezed"`   // key-value rows whose value column is too narrow to read
	Overlaps   []string `json:"overlaps"`   // change labels drawn over one another
	Overflows  []string `json:"overflows"`  // data tables wider than their box (outside a scrolled one)
	// TermRows are the rows of the terminals' tables, shown (with a height), the header's left out.
	TermRows int `json:"termRows"`
	// Titles are the cards' titles as shown, and whether each runs out of its card.
	Titles []struct {
		Text     string `json:"text"`
		Overflow bool   `json:"overflow"`
	} `json:"titles"`
	// LiveMarks are the marks of each line of a live study's charts: where each is drawn on the
	// x axis, its label, and whether it lies inside the plot.
	LiveMarks []liveMarks `json:"liveMarks"`
}

type liveMarks struct {
	Chart  string    `json:"chart"`
	Series string    `json:"series"`
	Axis   string    `json:"axis"`
	X      []float64 `json:"x"`
	Labels []string  `json:"labels"`
	Inside bool      `json:"inside"`
}

// inspectLayout measures the page as drawn: the first chart's top; then, with every collapsed
// block opened, each key-value table's value cells, which must keep a readable share of their
// table; and the labels of the marked changes, whose drawn boxes must not intersect.
const inspectLayout = `(function () {
  var out = { viewport: window.innerHeight, firstChart: -1, squeezed: [], overlaps: [], overflows: [], termRows: 0 };
  var first = document.querySelector(".chart");
  if (first) { out.firstChart = first.getBoundingClientRect().top + window.scrollY; }
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  document.querySelectorAll("table.kv").forEach(function (t) {
    var tw = t.getBoundingClientRect().width;
    t.querySelectorAll("tr").forEach(function (tr) {
      var td = tr.querySelector("td");
      if (td && td.getBoundingClientRect().width < 0.4 * tw) {
        out.squeezed.push(tr.textContent.slice(0, 60) + " (value " + Math.round(td.getBoundingClientRect().width) + " of " + Math.round(tw) + " px)");
      }
    });
  });
  document.querySelectorAll("table.data").forEach(function (t) {
    if (t.closest(".wide")) { return; }
    var box = t.closest(".item") || document.querySelector("main");
    if (t.getBoundingClientRect().right > box.getBoundingClientRect().right + 1) {
      out.overflows.push(t.querySelector("caption").textContent.slice(0, 60));
    }
  });
  document.querySelectorAll("table.terminals tr").forEach(function (tr, i) {
    if (i >= 2 && tr.getBoundingClientRect().height > 0) { out.termRows++; }
  });
  document.querySelectorAll("details").forEach(function (d) { d.open = false; });
  out.titles = [];
  document.querySelectorAll(".heads .item > h2").forEach(function (h) {
    var card = h.closest(".item").getBoundingClientRect(), r = h.getBoundingClientRect();
    out.titles.push({ text: h.textContent, overflow: h.scrollWidth > h.clientWidth + 1 || r.right > card.right + 1 });
  });
  out.liveMarks = [];
  document.querySelectorAll('.chart[data-chart-id^="study-live-"]').forEach(function (el) {
    var inst = echarts.getInstanceByDom(el);
    if (!inst) { return; }
    var o = inst.getOption();
    o.series.forEach(function (s) {
      if (s.type !== "line") { return; }
      var m = { chart: el.getAttribute("data-chart-id"), series: s.name, axis: o.xAxis[0].name, x: [], labels: [], inside: true };
      ((s.markPoint || {}).data || []).forEach(function (d) {
        m.x.push(d.coord[0]);
        m.labels.push(d.name || "");
        m.inside = m.inside && inst.containPixel({ gridIndex: 0 }, inst.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, d.coord));
      });
      out.liveMarks.push(m);
    });
  });
  document.querySelectorAll(".chart").forEach(function (el) {
    var inst = echarts.getInstanceByDom(el);
    if (!inst) { return; }
    var boxes = [];
    inst.getZr().storage.getDisplayList(true).forEach(function (d) {
      var text = d.style && d.style.text;
      if (!/=.* at [0-9.]+m?s$/.test(text || "")) { return; }
      // zrender draws a label as a tspan whose box is its width but not its line's height: the
      // line box is taken as 14 px (12 px type) above the tspan's bottom.
      var r = d.getBoundingRect().clone();
      if (d.transform) { r.applyTransform(d.transform); }
      r.y = r.y + r.height - 14;
      r.height = 14;
      boxes.push({ text: text, r: r });
    });
    for (var i = 0; i < boxes.length; i++) {
      for (var j = i + 1; j < boxes.length; j++) {
        if (boxes[i].r.intersect(boxes[j].r)) {
          out.overlaps.push(el.getAttribute("data-chart-id") + ": " + boxes[i].text + " over " + boxes[j].text);
        }
      }
    }
  });
  return out;
})()`

// TestHTMLInBrowser opens the report in a real browser, offline, and checks that every chart is
// drawn with data, that no script fails, and that the page asks the network for nothing; in a
// 1400 × 900 window, that the first chart starts on the first screen, that no key-value table
// squeezes its values, and that the labels of a study's live changes do not overlap. Set
// CAIRN_REPORT_SHOT to a directory to keep a screenshot of the first screen and of the full page
// of each case there.
func TestHTMLInBrowser(t *testing.T) {
	testutil.Chromium(t)
	for _, tc := range chartCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			page := filepath.Join(dir, "report.html")
			f, err := os.Create(page)
			if err != nil {
				t.Fatal(err)
			}
			if err := HTML(f, tc.items, "cairn report test: "+tc.name); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}

			var mu sync.Mutex
			var problems, requests []string
			note := func(list *[]string, s string) {
				mu.Lock()
				defer mu.Unlock()
				*list = append(*list, s)
			}
			listen := func(ev any) {
				// Runs in the tab's event loop: record and return.
				switch ev := ev.(type) {
				case *runtime.EventExceptionThrown:
					d := ev.ExceptionDetails
					msg := d.Text
					if d.Exception != nil {
						msg += " " + d.Exception.Description
					}
					note(&problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
				case *runtime.EventConsoleAPICalled:
					if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
						var args []string
						for _, a := range ev.Args {
							args = append(args, a.Description+string(a.Value))
						}
						note(&problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
					}
				case *log.EventEntryAdded:
					if ev.Entry.Level == log.EntryLevelError {
						note(&problems, "browser log: "+ev.Entry.Text+" "+ev.Entry.URL)
					}
				case *network.EventRequestWillBeSent:
					u := ev.Request.URL
					if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
						note(&requests, u)
					}
				}
			}

			ctx := testutil.Browser(t, 90*time.Second, 1400, 900, listen)

			// Start the browser, then refuse every request that could leave the machine, so that
			// a page that tried would fail here rather than quietly work online.
			if err := chromedp.Do(ctx); err != nil {
				t.Fatalf("start chromium: %v", err)
			}
			var block []*network.BlockPattern
			for _, scheme := range []string{"http", "https", "ws", "wss"} {
				block = append(block, &network.BlockPattern{URLPattern: scheme + "://*:*/*", Block: true})
			}
			if _, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: block}); err != nil {
				t.Fatalf("block the network: %v", err)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
				t.Fatalf("open %s: %v", page, err)
			}
			charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartState](inspectCharts))
			if err != nil {
				t.Fatalf("inspect the charts: %v", err)
			}
			// Every chart with live changes draws each as a line: the throughput and p95 charts
			// of a run with a load schedule or live settings too, not only the session history.
			wantLines := map[string]int{}
			for _, c := range Charts(tc.items) {
				wantLines[c.ID] = len(c.Lines)
			}
			for _, c := range charts {
				if w, ok := wantLines[c.ID]; ok && c.Lines != w {
					t.Errorf("chart %s draws %d lines for the run's live changes, want %d", c.ID, c.Lines, w)
				}
			}
			lay, err := chromedp.Run(ctx, chromedp.Evaluate[layout](inspectLayout))
			if err != nil {
				t.Fatalf("inspect the layout: %v", err)
			}
			screen, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			// A click on a flame graph's box widens the graph to that box; a second click on it
			// shows all again.
			var zooms []string
			for _, c := range charts {
				if !strings.Contains(c.ID, "flame") {
					continue
				}
				for _, want := range []string{"box", "all"} {
					box, err := chromedp.Run(ctx, chromedp.Evaluate[flameBox](fmt.Sprintf(flameBoxAt, c.ID)))
					if err != nil {
						t.Fatalf("%s: find a box: %v", c.ID, err)
					}
					if err := chromedp.Do(ctx, chromedp.MouseClickXY(box.X, box.Y)); err != nil {
						t.Fatalf("%s: click: %v", c.ID, err)
					}
					got, err := chromedp.Run(ctx, chromedp.Evaluate[[2]float64](fmt.Sprintf(flameSpan, c.ID)))
					if err != nil {
						t.Fatalf("%s: read the span: %v", c.ID, err)
					}
					if wantSpan := map[string][2]float64{"box": {box.Start, box.End}, "all": {0, box.Width}}[want]; got != wantSpan {
						zooms = append(zooms, fmt.Sprintf("%s: after a click for %s, the graph spans %v, want %v", c.ID, want, got, wantSpan))
					}
				}
			}
			// A tooltip exercises the page's own formatter code on every chart.
			showTips := `Array.from(document.querySelectorAll(".chart")).forEach(function (el) {
			  var inst = echarts.getInstanceByDom(el);
			  if (inst) { inst.dispatchAction({type: "showTip", seriesIndex: 0, dataIndex: 1}); }
			})`
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](showTips)); err != nil {
				t.Fatalf("show tooltips: %v", err)
			}
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			if err := os.WriteFile(filepath.Join(dir, "report.png"), shot, 0o644); err != nil {
				t.Fatal(err)
			}
			if keep := os.Getenv("CAIRN_REPORT_SHOT"); keep != "" {
				if err := os.MkdirAll(keep, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(keep, tc.name+".png"), shot, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(keep, tc.name+"-screen.png"), screen, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(keep, tc.name+".html"), mustRead(t, page), 0o644); err != nil {
					t.Fatal(err)
				}
			}

			mu.Lock()
			defer mu.Unlock()
			for _, p := range problems {
				t.Error(p)
			}
			for _, u := range requests {
				t.Errorf("the report asked the network for %s", u)
			}
			if lay.FirstChart < 0 || lay.FirstChart+100 > lay.Viewport {
				t.Errorf("the first chart starts %.0f px down the page: not on the first screen of %.0f px", lay.FirstChart, lay.Viewport)
			}
			for _, s := range lay.Squeezed {
				t.Errorf("squeezed: %s", s)
			}
			for _, s := range zooms {
				t.Error(s)
			}
			for _, s := range lay.Overlaps {
				t.Errorf("change labels overlap: %s", s)
			}
			for _, s := range lay.Overflows {
				t.Errorf("a table is wider than its box: %s", s)
			}
			// Every card's title is whole and tells its card from the others.
			seenTitle := map[string]bool{}
			for _, ti := range lay.Titles {
				if ti.Overflow || seenTitle[ti.Text] {
					t.Errorf("card title %q: runs out of its card %v, or repeats another", ti.Text, ti.Overflow)
				}
				seenTitle[ti.Text] = true
			}
			checkLiveMarks(t, tc.items, lay.LiveMarks)
			termRows := 0
			for _, it := range tc.items {
				if it.Run != nil && it.Run.Terminals != nil {
					termRows += len(it.Run.Terminals.Txns)
				}
			}
			if lay.TermRows != termRows {
				t.Errorf("%d rows shown in the terminals' tables, want %d", lay.TermRows, termRows)
			}
			if len(charts) != len(tc.ids) {
				t.Fatalf("%d charts on the page, want %d", len(charts), len(tc.ids))
			}
			for i, c := range charts {
				if c.ID != tc.ids[i] {
					t.Errorf("chart %d is %q, want %q", i, c.ID, tc.ids[i])
				}
				if !c.Instance || !c.Canvas {
					t.Errorf("%s: not drawn (instance %v, canvas %v)", c.ID, c.Instance, c.Canvas)
				}
				if c.Series == 0 || c.Empty > 0 {
					t.Errorf("%s: %d series, %d without data", c.ID, c.Series, c.Empty)
				}
				// A flame graph fills its canvas with frames; the running threads' lines and
				// window band paint a good part of theirs.
				if want := map[bool]float64{true: 0.25, false: 0.03}[strings.Contains(c.ID, "flame")]; (strings.Contains(c.ID, "flame") || strings.Contains(c.ID, "running")) && c.Painted < want {
					t.Errorf("%s: %.1f%% of the canvas painted, want at least %.0f%%", c.ID, 100*c.Painted, 100*want)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkLiveMarks holds the marks a live study's charts draw to the runs they stand for: on every
// VU count's line, one for each change the run made, at the instant it took effect on the axis
// the chart names (the window's clock), inside the plot; each change labelled once.
func checkLiveMarks(t *testing.T, items []Item, got []liveMarks) {
	t.Helper()
	var st *results.Study
	for _, it := range items {
		if it.Study != nil && len(it.Study.Schedule) > 0 {
			st = it.Study
		}
	}
	if st == nil {
		return
	}
	lines := 0
	labels := map[string]int{}
	for ci, c := range st.Cases {
		for _, step := range c.Profile.Steps {
			d := firstMeasured(step)
			if d == nil {
				continue
			}
			lines++
			var m *liveMarks
			for i := range got {
				if got[i].Chart == fmt.Sprintf("study-live-%d", ci+1) && got[i].Series == vuName(step.VU) {
					m = &got[i]
				}
			}
			if m == nil {
				t.Errorf("case %d, %s: no line on the page", ci+1, vuName(step.VU))
				continue
			}
			if m.Axis != labelWindow || !m.Inside || len(m.X) != len(d.Changes) {
				t.Errorf("%s / %s: axis %q, inside %v, %d marks for %d changes", m.Chart, m.Series, m.Axis, m.Inside, len(m.X), len(d.Changes))
				continue
			}
			for k, x := range d.Changes {
				if math.Abs(m.X[k]-x.AtSec) > 1e-9 {
					t.Errorf("%s / %s: change %d drawn at %g s, it took effect %g s into the window", m.Chart, m.Series, k+1, m.X[k], x.AtSec)
				}
				if m.Labels[k] != "" {
					labels[fmt.Sprintf("%s %s", m.Chart, m.Labels[k])]++
				}
			}
		}
	}
	if len(got) != lines {
		t.Errorf("%d lines with marks on the page, want %d", len(got), lines)
	}
	for l, n := range labels {
		if n != 1 {
			t.Errorf("%s: labelled %d times", l, n)
		}
	}
	if want := len(st.Cases) * len(st.Schedule); len(labels) != want {
		t.Errorf("%d change labels, want %d (each change of each case once): %v", len(labels), want, labels)
	}
}
