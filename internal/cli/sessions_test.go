package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// consumerState is performance_schema's events_waits_current consumer as the server has it now.
func consumerState(t *testing.T, c target.Conn) string {
	t.Helper()
	var on string
	if err := c.QueryRow(context.Background(), "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'events_waits_current'").Scan(&on); err != nil {
		t.Fatal(err)
	}
	return on
}

// sessionsPage is what the report's session history says in the browser: its series, whether it
// is painted, and the top events' table for the whole run and for a span brushed on it.
type sessionsPage struct {
	Series  []string   `json:"series"`
	Stacked bool       `json:"stacked"`
	Painted float64    `json:"painted"`
	Lines   int        `json:"lines"`
	Whole   [][]string `json:"whole"`
	Span    [][]string `json:"span"`
	Caption string     `json:"caption"`
}

const readSessions = `(function () {
  var el = document.querySelector('[data-chart-id="run-sessions-1"]');
  if (!el) { return null; }
  var chart = echarts.getInstanceByDom(el), o = chart.getOption();
  var cv = el.querySelector("canvas"), px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data, painted = 0, read = 0;
  for (var i = 0; i < px.length; i += 16, read++) { if (px[i + 3] > 0 && (px[i] < 235 || px[i + 1] < 235 || px[i + 2] < 235)) { painted++; } }
  var table = document.querySelector('table.sessions-top[data-for="run-sessions-1"]');
  function rows() {
    return Array.from(table.querySelectorAll("tr")).slice(1).map(function (r) {
      return Array.from(r.querySelectorAll("td")).map(function (d) { return d.textContent; });
    });
  }
  var whole = rows();
  chart.dispatchAction({ type: "brush", areas: [{ brushType: "lineX", xAxisIndex: 0, coordRange: [%f, %f] }] });
  return new Promise(function (resolve) {
    setTimeout(function () {
      resolve({
        series: o.series.map(function (s) { return s.name; }),
        stacked: o.series.every(function (s) { return s.stack === "sessions" && !!s.areaStyle; }),
        painted: painted / read, whole: whole, span: rows(), caption: table.querySelector("caption").textContent,
        lines: (o.series[0].markLine && o.series[0].markLine.data || []).length
      });
    }, 500);
  });
})()`

// The acceptance: on MariaDB a session holds the row every TPC-B transaction updates for
// a known span of a run (--waits instrument, so that the history reads performance_schema's waits
// in progress): the session history's lock/row class counts the run's one session in every sample
// of the seconds inside that span and in none of the seconds outside it; the events_waits_current
// consumer it turned on is off again after the run; the report draws the history as stacked areas
// whose table, brushed over the span, puts the row lock first.
func TestMariaDBSessionHistory(t *testing.T) {
	url := testutil.MySQL(t)
	cairn(t, "tpcb", "cleanup", "--db", url)
	t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	tg, c := testutil.Open(t, url)
	ctx := context.Background()
	var pfs int64
	if err := c.QueryRow(ctx, "SELECT @@performance_schema").Scan(&pfs); err != nil || pfs != 1 {
		t.Skipf("performance_schema is off (%v): the consumer cannot be checked", err)
	}
	before := consumerState(t, c)
	if before != "NO" {
		t.Fatalf("events_waits_current is %s before the run: a run did not restore it, or the server turns it on", before)
	}
	dir := t.TempDir()
	store, js := filepath.Join(dir, "results.db"), filepath.Join(dir, "run.json")
	type ran struct {
		code             int
		out, stderr      string
		lockAsked, held  time.Time
		released, rolled time.Time
	}
	done := make(chan ran, 1)
	go func() {
		code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "-c", "1", "-T", "14s", "-P", "1s", "--waits", "instrument",
			"--results", store, "--json", js)
		done <- ran{code: code, out: out, stderr: stderr}
	}()
	// The lock is taken about 4 s after the run was started, and held 5 s: both edges fall inside
	// the 14 s window whatever the connecting took (the test checks that they did).
	time.Sleep(4 * time.Second)
	lc, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	if err := lc.Begin(ctx, false); err != nil {
		t.Fatal(err)
	}
	asked := time.Now()
	if _, err := lc.Exec(ctx, "UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1"); err != nil {
		t.Fatal(err)
	}
	held := time.Now()
	time.Sleep(5 * time.Second)
	release := time.Now()
	if err := lc.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	rolled := time.Now()
	r := <-done
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.out, r.stderr)
	}
	if got := consumerState(t, c); got != before {
		t.Errorf("events_waits_current is %s after the run, was %s", got, before)
	}
	d := readDocument(t, js)
	if d.Waits == nil || d.Waits.History == nil {
		t.Fatalf("no session history: %+v", d.Waits)
	}
	h := d.Waits.History
	if !strings.Contains(h.Source, "events_waits_current") || h.IntervalMs != 100 {
		t.Errorf("history source %q every %d ms", h.Source, h.IntervalMs)
	}
	if !containsNote(d.Waits.Notes, "turned on performance_schema's events_waits_current consumer") {
		t.Errorf("the notes do not say the consumer was turned on: %q", d.Waits.Notes)
	}
	at := func(x time.Time) float64 { return x.Sub(d.StartedAt).Seconds() }
	// An edge is known to within what the test measured around it: the lock was granted between
	// asking and holding (the VU's transaction could hold the row for that long), released between
	// the ROLLBACK's start and its answer; a second's samples are those taken between two ticks,
	// each up to a sampling interval late against its tick; and InnoDB refreshes what INNODB_TRX
	// shows at most every 100 ms, so a wait is seen up to that late.
	const trxRefresh = 0.1
	slack := float64(h.IntervalMs)/1000 + trxRefresh
	from, to := at(held)+slack, at(release)-slack
	freeBefore, freeAfter := at(asked)-slack, at(rolled)+slack
	if freeBefore < 1 || freeAfter > d.Window.Seconds {
		t.Fatalf("the lock (%.2f s to %.2f s) did not fall inside the run (window ends at %.2f s)", freeBefore, freeAfter, d.Window.Seconds)
	}
	inside, outside := 0, 0
	prev := 0.0
	for i, s := range h.Seconds {
		lock := s.Classes["lock/row"]
		// The run has one session: cairn's own (the samplers', the disk and server readings) are
		// left out, so no sample sees more than one, and none but it while it waits.
		var all int64
		for _, n := range s.Classes {
			all += n
		}
		if all > int64(s.Reads) || i > 0 && prev >= from && s.T <= to && all != lock {
			t.Errorf("second %.3f: %d sessions in %d samples of a one-session run (%v): cairn's own were counted", s.T, all, s.Reads, s.Classes)
		}
		switch {
		case i > 0 && prev >= from && s.T <= to:
			inside++
			if s.Reads < 5 || lock != int64(s.Reads) || s.Events["innodb/row_lock_wait"] != lock {
				t.Errorf("second %.3f, inside the lock (%.2f to %.2f s): %d of %d samples saw the session wait on the row lock, want all (%v)", s.T, from, to, lock, s.Reads, s.Classes)
			}
		case i > 0 && (s.T <= freeBefore || prev >= freeAfter):
			outside++
			if lock != 0 {
				t.Errorf("second %.3f, outside the lock (before %.2f s or after %.2f s): %d samples saw a row-lock wait (%v)", s.T, freeBefore, freeAfter, lock, s.Classes)
			}
			if s.Reads > 0 && s.Classes["CPU"]+s.Classes["io/table"]+s.Classes["io/file"] == 0 {
				t.Errorf("second %.3f: the running session was not seen at all (%v)", s.T, s.Classes)
			}
		}
		prev = s.T
	}
	for _, s := range h.Seconds {
		t.Logf("t %.3f: %d samples, %v", s.T, s.Reads, s.Classes)
	}
	t.Logf("the lock held %.3f–%.3f s (asked %.3f, rolled back %.3f): %d seconds inside, %d outside", at(held), at(release), at(asked), at(rolled), inside, outside)
	if inside < 3 || outside < 4 {
		t.Errorf("%d seconds inside the lock and %d outside it: the run's seconds %v do not cover the lock %.2f–%.2f s", inside, outside, h.Seconds, from, to)
	}

	// The report: the history drawn as stacked areas; brushed over the lock, its table puts the
	// row lock first, at one session on average.
	testutil.Chromium(t)
	page := filepath.Join(dir, "report.html")
	if code, out, stderr := cairn(t, "report", d.ID, "--results", store, "-o", page); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, out, stderr)
	}
	bctx := testutil.Browser(t, 90*time.Second, 1400, 900, nil)
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	p, err := chromedp.Run(bctx, chromedp.Evaluate[*sessionsPage](fmt.Sprintf(readSessions, from, to), chromedp.EvalAwaitPromise))
	if err != nil || p == nil {
		t.Fatalf("read the session history in the page: %v", err)
	}
	if keep := os.Getenv("CAIRN_REPORT_SHOT"); keep != "" {
		_ = os.MkdirAll(keep, 0o755)
		if shot, err := chromedp.Run(bctx, chromedp.Screenshot(`[data-chart-id="run-sessions-1"]`)); err == nil {
			_ = os.WriteFile(filepath.Join(keep, "session-history.png"), shot, 0o644)
		}
		if shot, err := chromedp.Run(bctx, chromedp.Screenshot(`table.sessions-top`)); err == nil {
			_ = os.WriteFile(filepath.Join(keep, "session-history-table.png"), shot, 0o644)
		}
	}
	if !p.Stacked || p.Painted < 0.02 || len(p.Series) == 0 || !containsString(p.Series, "lock/row") {
		t.Errorf("the session history is not drawn as stacked areas with lock/row: %+v", p)
	}
	if len(p.Span) == 0 || p.Span[0][0] != "innodb/row_lock_wait" || p.Span[0][1] != "lock/row" || p.Span[0][2] != "1.00" && p.Span[0][2] != "1" {
		t.Errorf("the table over the lock's span (%.2f–%.2f s) does not put the row lock first at one session: %v (%s)", from, to, p.Span, p.Caption)
	}
	if len(p.Whole) == 0 || len(p.Whole) < len(p.Span) {
		t.Errorf("the whole run's table: %v", p.Whole)
	}
}

func containsNote(notes []string, s string) bool {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// lockedSeconds checks a session history against a lock taken at locked and held for hold, before
// a run of n sessions that all wait for it: every second of the run after the first (in which the
// sessions begin, and reach the lock) that ends within the hold (less a sampling interval) has
// each of its samples see all n sessions in class.
func lockedSeconds(t *testing.T, d *results.Document, locked time.Time, hold time.Duration, class string, n int64) {
	t.Helper()
	if d.Waits == nil || d.Waits.History == nil {
		t.Fatalf("no session history: %+v", d.Waits)
	}
	h := d.Waits.History
	end := locked.Add(hold).Sub(d.StartedAt).Seconds() - float64(h.IntervalMs)/1000
	seen := 0
	for i, s := range h.Seconds {
		if s.T > end {
			break
		}
		if i == 0 {
			continue
		}
		seen++
		if s.Reads < 5 || s.Classes[class] != n*int64(s.Reads) {
			t.Errorf("second %.3f, inside the lock (until %.2f s): %d sessions in %s over %d samples, want %d each (%v)", s.T, end, s.Classes[class], class, s.Reads, n, s.Events)
		}
	}
	if seen == 0 {
		t.Logf("the run started %.2f s after the lock was taken, too late for a second inside it", d.StartedAt.Sub(locked).Seconds())
	}
}

// --session-history off keeps the waits and takes no history, on either kind of server: no
// history in the document and, on MariaDB, no note of how the history would read its sessions
// (the query it would send is not chosen); the same run with the history on has one, and says
// what it read.
func TestSessionHistoryOff(t *testing.T) {
	for _, kind := range []string{"postgres", "mysql"} {
		t.Run(kind, func(t *testing.T) {
			url := testutil.URL(t, kind)
			cairn(t, "tpcb", "cleanup", "--db", url)
			t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
			if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
				t.Fatalf("prepare: %d %s %s", code, out, stderr)
			}
			for _, history := range []string{"off", "on"} {
				js := filepath.Join(t.TempDir(), "run.json")
				if code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "-c", "2", "-T", "3s", "-P", "1s",
					"--session-history", history, "--no-store", "--json", js); code != 0 {
					t.Fatalf("run --session-history %s: exit %d\n%s\n%s", history, code, out, stderr)
				}
				d := readDocument(t, js)
				if d.Waits == nil || len(d.Waits.Events) == 0 {
					t.Fatalf("--session-history %s: no waits read: %+v", history, d.Waits)
				}
				noted := strings.Contains(strings.Join(d.Waits.Notes, "\n"), "session history")
				switch {
				case history == "off" && d.Waits.History != nil:
					t.Errorf("--session-history off kept a history of %d seconds", len(d.Waits.History.Seconds))
				case history == "off" && noted:
					t.Errorf("--session-history off still notes the history's source: %q", d.Waits.Notes)
				case history == "on" && (d.Waits.History == nil || len(d.Waits.History.Seconds) == 0):
					t.Errorf("--session-history on kept no history: %+v", d.Waits.History)
				case history == "on" && d.Waits.History.Source == "":
					t.Errorf("--session-history on names no source for its history")
				}
			}
		})
	}
}
