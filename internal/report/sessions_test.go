package report

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// sessionsRun is a MariaDB run with a session history and two live changes: 4 sessions on CPU
// each of 10 samples a second, but from t = 10 to t = 15 three of them wait on a row lock.
func sessionsRun(t testing.TB) *results.Document {
	r := testRun(t, "15", maria, 4, 1, 6)
	h := &results.SessionHistory{Source: "information_schema.PROCESSLIST (fixture)", IntervalMs: 100,
		Classes: []string{"CPU", "lock/row"}, Events: map[string]string{"CPU": "CPU", "innodb/row_lock_wait": "lock/row"}}
	for _, s := range r.Series {
		sec := results.HistorySecond{T: s.T, Reads: 10, Classes: map[string]int64{"CPU": 40}, Events: map[string]int64{"CPU": 40}}
		if s.T > 10 && s.T <= 15.01 {
			sec.Classes = map[string]int64{"CPU": 10, "lock/row": 30}
			sec.Events = map[string]int64{"CPU": 10, "innodb/row_lock_wait": 30}
		}
		h.Seconds = append(h.Seconds, sec)
	}
	r.Waits.History = h
	r.Changes = []results.SettingChange{{AtSec: 4, T: 10, Planned: 4, Name: "innodb_spin_wait_delay", Value: "0"},
		{AtSec: 9, T: 15, Planned: 9, Name: "innodb_spin_wait_delay", Value: "6"}}
	return r
}

// The session history in the browser: each class stacked on the one before, the live changes
// as labelled lines, and the table under it the top events of the whole run, then, brushed over
// the lock's seconds, the row lock first at three sessions, and for a span holding no whole
// second, a word to widen it.
func TestSessionHistoryInBrowser(t *testing.T) {
	testutil.Chromium(t)
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := HTML(f, []Item{{Run: sessionsRun(t)}}, "session history"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx := testutil.Browser(t, 90*time.Second, 1400, 900, nil)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	type state struct {
		Stacks  []string   `json:"stacks"`
		Areas   int        `json:"areas"`
		Lines   []string   `json:"lines"`
		Whole   [][]string `json:"whole"`
		Span    [][]string `json:"span"`
		Caption string     `json:"caption"`
		Narrow  [][]string `json:"narrow"`
	}
	js := `(function () {
  var el = document.querySelector('[data-chart-id="run-sessions-1"]'), chart = echarts.getInstanceByDom(el), o = chart.getOption();
  var table = document.querySelector('table.sessions-top[data-for="run-sessions-1"]');
  function rows() { return Array.from(table.querySelectorAll("tr")).slice(1).map(function (r) { return Array.from(r.querySelectorAll("td")).map(function (d) { return d.textContent; }); }); }
  function brush(a, b) { chart.dispatchAction({ type: "brush", areas: [{ brushType: "lineX", xAxisIndex: 0, coordRange: [a, b] }] }); }
  var out = { stacks: o.series.map(function (s) { return s.stack; }), areas: o.series.filter(function (s) { return !!s.areaStyle; }).length,
    lines: (o.series[0].markLine.data || []).map(function (d) { return d.name + "@" + d.xAxis; }), whole: rows() };
  return new Promise(function (resolve) {
    brush(10, 15.01);
    setTimeout(function () {
      out.span = rows(); out.caption = table.querySelector("caption").textContent;
      brush(11.2, 11.8);
      setTimeout(function () { out.narrow = rows(); resolve(out); }, 300);
    }, 300);
  });
})()`
	s, err := chromedp.Run(ctx, chromedp.Evaluate[state](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.Stacks) != "[sessions sessions]" || s.Areas != 2 {
		t.Errorf("series stacks %v, %d areas: want both classes stacked as areas", s.Stacks, s.Areas)
	}
	if fmt.Sprint(s.Lines) != "[innodb_spin_wait_delay=0@10 innodb_spin_wait_delay=6@15]" {
		t.Errorf("live changes drawn as %v", s.Lines)
	}
	// The whole run: 31 seconds of which 5 hold the lock (10 s < t ≤ 15 s, each 30 of 40 sessions).
	if len(s.Whole) != 2 || s.Whole[0][0] != "CPU" || s.Whole[1][0] != "innodb/row_lock_wait" {
		t.Errorf("whole run's table %v", s.Whole)
	}
	if len(s.Span) != 2 || fmt.Sprint(s.Span[0]) != "[innodb/row_lock_wait lock/row 3 75.0%]" || fmt.Sprint(s.Span[1]) != "[CPU CPU 1 25.0%]" {
		t.Errorf("the lock's span: %v (%s), want the row lock at 3 sessions, 75%%, then CPU at 1", s.Span, s.Caption)
	}
	if len(s.Narrow) != 1 || len(s.Narrow[0]) != 1 || s.Narrow[0][0] != "no whole second lies in this span: widen it" {
		t.Errorf("a span without a whole second: %v", s.Narrow)
	}
}
