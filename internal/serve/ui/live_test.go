package ui_test

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// pgSpecDB is the test's PostgreSQL URL with its password as ${CAIRN_PASSWORD}, set in the
// environment the service inherits, as a spec sent to the service names it.
func pgSpecDB(t *testing.T) (db, plain string) {
	t.Helper()
	pg := testutil.PG(t)
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	t.Setenv("CAIRN_PASSWORD", pw)
	u.User = url.User(u.User.Username())
	return strings.Replace(u.String(), "@", ":${CAIRN_PASSWORD}@", 1), pg
}

// endState waits for the job's page to show a final state.
func endState(t *testing.T, ctx context.Context, timeout time.Duration) string {
	t.Helper()
	return until[string](t, ctx, "the job to end", timeout, `(function () {
	  var st = document.querySelector("#job-state .state");
	  st = st && st.dataset.state;
	  return ["done", "failed", "stopped", "interrupted"].indexOf(st) >= 0 ? st : "";
	})()`)
}

// tileNumber reads a tile's figure as the page shows it (num: thousands with commas).
func tileNumber(t *testing.T, text string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.ReplaceAll(text, ",", ""), 64)
	if err != nil {
		t.Fatalf("tile text %q is not a number", text)
	}
	return f
}

// shownAs is v as the page's num() shows it: whole from 100 up, three significant digits below.
func shownAs(v float64) float64 {
	if math.Abs(v) >= 100 {
		return math.Round(v)
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return f
}

// chartState is what a chart of the job's page draws: each series' name and points, and the
// names and places of the marks on its first series.
const chartState = `(function (id) {
  var el = document.querySelector('[data-chart-id="' + id + '"]');
  var inst = el && echarts.getInstanceByDom(el);
  if (!inst) { return null; }
  var o = inst.getOption();
  var ml = (o.series[0] && o.series[0].markLine && o.series[0].markLine.data) || [];
  return { shown: el.offsetWidth > 0 && el.offsetHeight > 0,
    series: o.series.map(function (x) { return { name: x.name, points: x.data.length }; }),
    marks: ml.map(function (d) { return { name: d.name, x: d.xAxis }; }) };
})`

type chart struct {
	Shown  bool `json:"shown"`
	Series []struct {
		Name   string `json:"name"`
		Points int    `json:"points"`
	} `json:"series"`
	Marks []struct {
		Name string  `json:"name"`
		X    float64 `json:"x"`
	} `json:"marks"`
}

func (c chart) points(name string) int {
	for _, s := range c.Series {
		if s.Name == name {
			return s.Points
		}
	}
	return 0
}

func (c chart) mark(name string) (float64, bool) {
	for _, m := range c.Marks {
		if m.Name == name {
			return m.X, true
		}
	}
	return 0, false
}

type tileView struct {
	Shown  bool   `json:"shown"`
	Label  string `json:"label"`
	Text   string `json:"text"`
	Note   string `json:"note"`
	Source string `json:"source"`
}

// tiles reads every tile of the job's page.
const tilesState = `(function () {
  var out = {};
  document.querySelectorAll(".tiles .tile").forEach(function (t) {
    var v = t.querySelector(".v");
    out[v.dataset.tile] = { shown: !t.hidden, label: t.querySelector(".k").textContent, text: v.textContent,
      note: t.querySelector(".n").textContent, source: t.dataset.source || "" };
  });
  return out;
})()`

// TestUILiveBuildRunAndHistory follows a PostgreSQL TPC-C build and run on the job's page: the
// build shows its rows per table and per loader while it loads, and no run tile; the run shows
// NOPM and TPM, counted by the server as the progress line counts them, in the tiles and on a
// chart while it runs, with the window's start marked, and once it ends the stored result's
// NOPM, TPM and p95 in the tiles (read from the API); after serve restarts on the same store, the
// finished job's page draws the same charts again.
func TestUILiveBuildRunAndHistory(t *testing.T) {
	testutil.Chromium(t)
	db, pg := pgSpecDB(t)
	s := startServe(t)
	s.cli(t, "tpcc", "cleanup", "--db", pg)
	t.Cleanup(func() { s.cli(t, "tpcc", "cleanup", "--db", pg) })
	p := &page{t: t}
	ctx := testutil.Browser(t, 6*time.Minute, 1400, 900, p.listen(s.base))
	t.Cleanup(p.report)

	// The build: 4 warehouses on 2 loaders, some seconds of loading on a busy host.
	build := s.post(t, "prepare", "workload: tpcc\ndb: "+db+"\nprepare: {warehouses: 4, loaders: 2}\n").ID
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/jobs/"+build)); err != nil {
		t.Fatal(err)
	}
	type loadView struct {
		State   string           `json:"state"`
		Tables  map[string]int64 `json:"tables"`
		Loaders []int64          `json:"loaders"`
		Text    string           `json:"text"`
	}
	const loadState = `(function () {
	  var out = { state: document.querySelector("#job-state .state").dataset.state, tables: {}, loaders: [],
	    text: document.querySelector("#load-text").textContent };
	  document.querySelectorAll("#load-tables tr[data-table]").forEach(function (tr) {
	    out.tables[tr.dataset.table] = +tr.children[1].textContent.replace(/,/g, "");
	  });
	  document.querySelectorAll("#load-loaders tr[data-loader]").forEach(function (tr) {
	    out.loaders.push(+tr.children[1].textContent.replace(/,/g, ""));
	  });
	  return out;
	})()`
	// While it loads: two tables under way, each loader counting, the rows and rate said.
	lv := until[loadView](t, ctx, "per-table progress while loading", 3*time.Minute, `(function () {
	  var v = `+loadState+`;
	  var going = Object.keys(v.tables).filter(function (k) { return v.tables[k] > 0; });
	  return v.state === "running" && going.length >= 2 && v.loaders.length === 2 && /rows\/s/.test(v.text) ? v : null;
	})()`)
	t.Logf("while loading: tables %v, loaders %v, %q", lv.Tables, lv.Loaders, lv.Text)
	if !strings.Contains(lv.Text, "left") {
		t.Errorf("the build's line %q gives no estimate of the time left", lv.Text)
	}
	for i, n := range lv.Loaders {
		if n <= 0 {
			t.Errorf("loader %d has loaded no row: %v", i+1, lv.Loaders)
		}
	}
	shot(t, ctx, "live-build")
	if st := endState(t, ctx, 5*time.Minute); st != "done" {
		t.Fatalf("the build ended %s", st)
	}
	bt := until[map[string]tileView](t, ctx, "the build's tiles", 10*time.Second, tilesState)
	for _, k := range []string{"headline", "tpm", "tps", "p95", "phase"} {
		if bt[k].Shown {
			t.Errorf("the build's page shows the %s tile (%q): a build has none", k, bt[k].Text)
		}
	}
	if !bt["rows"].Shown || tileNumber(t, bt["rows"].Text) < 400000 {
		t.Errorf("the build's rows tile %+v: want the rows of 4 warehouses (over 400,000)", bt["rows"])
	}
	if c := until[chart](t, ctx, "the build's chart", 10*time.Second, chartState+`("loading")`); c.points("all tables") < 2 {
		t.Errorf("the build's rows/s chart has %d points", c.points("all tables"))
	}

	// The run: NOPM and TPM live.
	run := s.post(t, "run", "workload: tpcc\ndb: "+db+"\nvu: 2\nrampup: 2s\nduration: 20s\nprogress: 2s\n").ID
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/jobs/"+run)); err != nil {
		t.Fatal(err)
	}
	live := until[map[string]tileView](t, ctx, "NOPM and TPM counted by the server while running", 2*time.Minute, `(function () {
	  var v = `+tilesState+`;
	  var st = document.querySelector("#job-state .state").dataset.state;
	  return st === "running" && v.headline.shown && v.tpm.shown && /server/.test(v.headline.note) && /window/.test(v.phase.text) ? v : null;
	})()`)
	if live["headline"].Label != "NOPM" || live["headline"].Source != "live" || live["tpm"].Source != "live" {
		t.Errorf("while running, the big tiles read %+v and %+v: want NOPM and TPM, live", live["headline"], live["tpm"])
	}
	if tileNumber(t, live["tpm"].Text) <= 0 {
		t.Errorf("TPM while running: %q", live["tpm"].Text)
	}
	rc := until[chart](t, ctx, "NOPM and TPM on the chart", time.Minute, `(function () {
	  var c = `+chartState+`("rates");
	  var n = function (name) { var s = c.series.filter(function (x) { return x.name === name; })[0]; return s ? s.points : 0; };
	  return c.shown && n("NOPM") >= 3 && n("TPM") >= 3 && c.marks.some(function (m) { return m.name === "window start"; }) ? c : null;
	})()`)
	ws, _ := rc.mark("window start")
	if ws < 1.5 || ws > 3.5 {
		t.Errorf("the window's start is marked at %.1f s, want at the 2 s rampup's end", ws)
	}
	if tc := until[chart](t, ctx, "the throughput chart", 10*time.Second, chartState+`("throughput")`); func() bool { _, ok := tc.mark("window start"); return !ok }() {
		t.Errorf("the throughput chart does not mark the window's start: %+v", tc.Marks)
	}
	// Each type's completions per minute, on demand.
	if err := chromedp.Do(ctx, chromedp.Click("#per-type")); err != nil {
		t.Fatal(err)
	}
	until[bool](t, ctx, "each type's lines on the charts", 10*time.Second, `(function () {
	  var c = `+chartState+`("rates"), l = `+chartState+`("latency");
	  return c.series.filter(function (x) { return / \/min$/.test(x.name) && x.points > 0; }).length === 5 &&
	    l.series.filter(function (x) { return / p95$/.test(x.name) && x.points > 0; }).length === 5;
	})()`)
	shot(t, ctx, "live-run")

	if st := endState(t, ctx, 2*time.Minute); st != "done" {
		t.Fatalf("the run ended %s", st)
	}
	var job struct {
		ResultID string `json:"result_id"`
	}
	s.get(t, "/api/v1/jobs/"+run, &job)
	var doc struct {
		Result struct {
			Headline struct {
				Name  string  `json:"name"`
				Value float64 `json:"value"`
			} `json:"headline"`
			TPM *float64 `json:"tpm"`
		} `json:"result"`
		Main string `json:"main_transaction"`
		Txns map[string]struct {
			Latency struct {
				P95 float64 `json:"p95"`
			} `json:"latency_ms"`
		} `json:"transactions"`
	}
	s.get(t, "/api/v1/results/"+job.ResultID, &doc)
	if doc.Result.TPM == nil {
		t.Fatalf("result %s has no TPM", job.ResultID)
	}
	end := until[map[string]tileView](t, ctx, "the stored result's figures in the tiles", 20*time.Second, `(function () {
	  var v = `+tilesState+`;
	  return v.headline.source === "stored" && v.tpm.source === "stored" && v.p95.source === "stored" ? v : null;
	})()`)
	for _, c := range []struct {
		tile string
		want float64
	}{{"headline", doc.Result.Headline.Value}, {"tpm", *doc.Result.TPM}, {"p95", doc.Txns[doc.Main].Latency.P95}} {
		if got := tileNumber(t, end[c.tile].Text); got != shownAs(c.want) {
			t.Errorf("after the run the %s tile reads %q, the stored result %s holds %v", c.tile, end[c.tile].Text, job.ResultID, c.want)
		}
	}
	if !strings.HasPrefix(end["tpm"].Note, "stored result "+job.ResultID+", server: ") {
		t.Errorf("after the run the TPM tile says %q: want the stored result %s's source, the server's counter", end["tpm"].Note, job.ResultID)
	}
	if end["headline"].Label != doc.Result.Headline.Name || !strings.Contains(end["headline"].Note, "stored result "+job.ResultID) {
		t.Errorf("after the run the headline tile is %+v, want %s of stored result %s", end["headline"], doc.Result.Headline.Name, job.ResultID)
	}
	before := until[chart](t, ctx, "the finished run's chart", 10*time.Second, chartState+`("rates")`)
	shot(t, ctx, "live-run-ended")

	// serve restarts on the same store: the finished jobs' pages draw their charts again.
	s.restart(t)
	for _, c := range []struct{ job, chart, series string }{{run, "rates", "NOPM"}, {run, "throughput", "TPS"}, {build, "loading", "all tables"}} {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/jobs/"+c.job), chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		after := until[chart](t, ctx, "job "+c.job+"'s "+c.chart+" chart after the restart", 20*time.Second, `(function () {
		  var c = `+chartState+`("`+c.chart+`");
		  return c && c.shown && c.series.some(function (s) { return s.points > 0; }) ? c : null;
		})()`)
		if c.chart == "rates" {
			if after.points("NOPM") != before.points("NOPM") || after.points("TPM") != before.points("TPM") {
				t.Errorf("after the restart the run's chart has %d NOPM and %d TPM points, before it %d and %d",
					after.points("NOPM"), after.points("TPM"), before.points("NOPM"), before.points("TPM"))
			}
			if x, ok := after.mark("window start"); !ok || x != ws {
				t.Errorf("after the restart the window's start is marked at %v (%v), before at %v", x, ok, ws)
			}
		}
		t.Logf("job %s after the restart: %s chart %+v", c.job, c.chart, after.Series)
	}
	shot(t, ctx, "history-after-restart")
}

// restart stops the service and starts it again on the same store.
func (s *serve) restart(t *testing.T) {
	t.Helper()
	if s.stop != nil {
		s.stop()
	}
	s.stop = s.launch(t)
}

// TestUIProfileMarksSteps: a profile's step boundaries are marked on the live charts, between
// the steps' windows.
func TestUIProfileMarksSteps(t *testing.T) {
	testutil.Chromium(t)
	s := startServe(t)
	p := &page{t: t}
	ctx := testutil.Browser(t, 4*time.Minute, 1400, 900, p.listen(s.base))
	t.Cleanup(p.report)
	id := s.post(t, "run", "workload: tpcc\ndb: sqlite://tpcc.db\nvu: [1, 2]\nrampup: 1s\nduration: 3s\npause: 0s\nprogress: 1s\nprepare: {warehouses: 1}\n").ID
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/jobs/"+id)); err != nil {
		t.Fatal(err)
	}
	if st := endState(t, ctx, 3*time.Minute); st != "done" {
		t.Fatalf("the profile ended %s", st)
	}
	c := until[chart](t, ctx, "the profile's marks", 10*time.Second, `(function () {
	  var c = `+chartState+`("throughput");
	  return c && c.marks.length >= 5 ? c : null;
	})()`)
	var names []string
	for _, m := range c.Marks {
		names = append(names, fmt.Sprintf("%s@%.1f", m.Name, m.X))
	}
	step, ok := c.mark("step 2: 2 VUs")
	if !ok {
		t.Fatalf("no mark of step 2 among %v", names)
	}
	// step 1's window ends before the boundary, step 2's starts after it
	var starts, ends []float64
	for _, m := range c.Marks {
		switch m.Name {
		case "window start":
			starts = append(starts, m.X)
		case "window end":
			ends = append(ends, m.X)
		}
	}
	if len(starts) != 2 || len(ends) != 2 || !(starts[0] < ends[0] && ends[0] <= step && step < starts[1] && starts[1] < ends[1]) {
		t.Errorf("the profile's marks %v: want each step's window start and end, the boundary between them", names)
	}
	shot(t, ctx, "profile-marks")

	// Ended, the tiles show the stored profile's peak step, as the API has it.
	var job struct {
		ResultID string `json:"result_id"`
	}
	s.get(t, "/api/v1/jobs/"+id, &job)
	var prof struct {
		Headline string `json:"headline"`
		Marks    struct {
			Peak int `json:"peak_vu"`
		} `json:"marks"`
		Steps []struct {
			VU      int `json:"vu"`
			Summary struct {
				Headline struct {
					Mean float64 `json:"mean"`
				} `json:"headline"`
			} `json:"summary"`
		} `json:"steps"`
	}
	s.get(t, "/api/v1/results/"+job.ResultID, &prof)
	want, found := 0.0, false
	for _, st := range prof.Steps {
		if st.VU == prof.Marks.Peak {
			want, found = st.Summary.Headline.Mean, true
		}
	}
	if !found {
		t.Fatalf("profile %s: no step at its peak, %d VUs", job.ResultID, prof.Marks.Peak)
	}
	tv := until[map[string]tileView](t, ctx, "the stored profile's peak in the tiles", 20*time.Second, `(function () {
	  var v = `+tilesState+`;
	  return v.headline.source === "stored" ? v : null;
	})()`)
	if got := tileNumber(t, tv["headline"].Text); got != shownAs(want) || tv["headline"].Label != prof.Headline ||
		!strings.Contains(tv["headline"].Note, fmt.Sprintf("the peak step, %d VUs", prof.Marks.Peak)) {
		t.Errorf("the ended profile's headline tile %+v; the stored profile %s's peak step (%d VUs) has %s %v", tv["headline"], job.ResultID, prof.Marks.Peak, prof.Headline, want)
	}
}

// TestUIOwnHeadline: a workload whose headline is not NOPM (sysbench's oltp: TPS) shows its own
// headline live, counted by cairn over the progress interval, and the stored one once it ends;
// no NOPM tile or line.
func TestUIOwnHeadline(t *testing.T) {
	testutil.Chromium(t)
	s := startServe(t)
	p := &page{t: t}
	ctx := testutil.Browser(t, 3*time.Minute, 1400, 900, p.listen(s.base))
	t.Cleanup(p.report)
	// 30 s: the page must see it run on a host busy enough to take seconds to open a page
	id := s.post(t, "run", "workload: oltp\ndb: sqlite://oltp.db\nvu: 1\nrampup: 1s\nduration: 30s\nprogress: 1s\noptions: {workload: point-select}\nprepare: {tables: 1, table-size: 1000}\n").ID
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/jobs/"+id)); err != nil {
		t.Fatal(err)
	}
	live := until[map[string]tileView](t, ctx, "the live headline", 2*time.Minute, `(function () {
	  var v = `+tilesState+`;
	  return v.headline.shown && v.headline.source === "live" && /window/.test(v.phase.text) ? v : null;
	})()`)
	if live["headline"].Label != "TPS" || !strings.Contains(live["headline"].Note, "counted by cairn") {
		t.Errorf("oltp's live headline tile %+v: want TPS, counted by cairn", live["headline"])
	}
	c := until[chart](t, ctx, "the headline's line", 30*time.Second, `(function () {
	  var c = `+chartState+`("rates");
	  return c.series.some(function (x) { return x.name === "TPS" && x.points >= 2; }) ? c : null;
	})()`)
	if c.points("NOPM") != 0 {
		t.Errorf("oltp's chart draws NOPM: %+v", c.Series)
	}
	if st := endState(t, ctx, 2*time.Minute); st != "done" {
		t.Fatalf("the run ended %s", st)
	}
	var job struct {
		ResultID string `json:"result_id"`
	}
	s.get(t, "/api/v1/jobs/"+id, &job)
	var doc struct {
		Result struct {
			Headline struct {
				Name  string  `json:"name"`
				Value float64 `json:"value"`
			} `json:"headline"`
		} `json:"result"`
	}
	s.get(t, "/api/v1/results/"+job.ResultID, &doc)
	end := until[map[string]tileView](t, ctx, "the stored headline", 20*time.Second, `(function () {
	  var v = `+tilesState+`;
	  return v.headline.source === "stored" ? v : null;
	})()`)
	if got := tileNumber(t, end["headline"].Text); got != shownAs(doc.Result.Headline.Value) || end["headline"].Label != doc.Result.Headline.Name {
		t.Errorf("the ended oltp run's headline tile %+v; stored result %s holds %s %v", end["headline"], job.ResultID, doc.Result.Headline.Name, doc.Result.Headline.Value)
	}
	shot(t, ctx, "own-headline")
}
