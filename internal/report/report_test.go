package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/results"
)

// chartCases are the item sets every renderer is tested with, and the charts each must yield.
func chartCases(t *testing.T) []struct {
	name  string
	items []Item
	ids   []string
} {
	r1 := testRun(t, "12", pg, 8, 1, 1)
	r2 := testRun(t, "13", maria, 8, 0.8, 2)
	p1 := testProfile(t, "20", pg, 1, 2, 3)
	p2 := testProfile(t, "21", maria, 0.8, 1, 4)
	runIDs := []string{"run-throughput", "run-p95", "run-distribution"}
	profileIDs := []string{"profile-headline", "profile-tpm", "profile-latency", "profile-throughput-time", "profile-p95-time", "profile-distribution"}
	var perType []string
	for _, n := range []string{"new-order", "payment", "order-status", "delivery", "stock-level"} {
		perType = append(perType, "-distribution-"+n)
	}
	with := func(ids []string, prefix string) []string {
		for _, p := range perType {
			ids = append(ids, prefix+p)
		}
		return ids
	}
	// Overlays draw every transaction type's distribution; profiles also their peaks over time.
	runsIDs := with([]string{"runs-throughput", "runs-p95"}, "runs")
	profilesIDs := with([]string{"profiles-headline", "profiles-p95", "profiles-peak-throughput", "profiles-peak-p95"}, "profiles-peak")
	// What was observed follows: each run's per-core CPU, the runs' waits, each profile's waits per
	// step and its peak step's per-core CPU.
	cat := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			out = append(out, l...)
		}
		return out
	}
	return []struct {
		name  string
		items []Item
		ids   []string
	}{
		{"run", []Item{{Run: r1}}, cat(runIDs, []string{"run-cpu-1", "run-waits"})},
		{"profile", []Item{{Profile: p1}}, cat(profileIDs, []string{"profile-waits-1", "profile-cpu-1"})},
		{"runs", []Item{{Run: r1}, {Run: r2}}, cat(runsIDs, []string{"run-cpu-1", "run-cpu-2", "run-waits"})},
		{"profiles", []Item{{Profile: p1}, {Profile: p2}}, cat(profilesIDs, []string{"profile-waits-1", "profile-cpu-1", "profile-waits-2", "profile-cpu-2"})},
		{"mix", []Item{{Profile: p1}, {Run: r1}, {Profile: p2}, {Run: r2}}, cat(profilesIDs, runsIDs,
			[]string{"run-cpu-1", "run-cpu-2", "run-waits", "profile-waits-1", "profile-cpu-1", "profile-waits-2", "profile-cpu-2"})},
		{"one-of-each", []Item{{Run: r1}, {Profile: p1}}, cat(profileIDs, runIDs, []string{"run-cpu-1", "run-waits", "profile-waits-1", "profile-cpu-1"})},
		// A run of terminals draws a run's charts; its section is in the details (terminals_test.go).
		{"terminals", []Item{{Run: terminalsRun(t)}}, cat(runIDs, []string{"run-cpu-1", "run-waits"})},
		// A run with synch waits and running threads adds their charts, the running threads next
		// to the throughput they explain.
		// Its disk I/O is drawn after its per-core CPU, requests and MB per second.
		// A run with a session history draws it after its per-core CPU.
		{"sessions", []Item{{Run: sessionsRun(t)}}, cat(runIDs, []string{"run-cpu-1", "run-sessions-1", "run-waits"})},
		{"observed", []Item{{Run: observedRun(t)}}, []string{"run-throughput", "run-running-1", "run-p95", "run-distribution",
			"run-cpu-1", "run-disk-1-ops", "run-disk-1-mbs", "run-waits", "run-wait-groups", "run-synch-waits"}},
		// A study with live changes opens with each case's runs over time, the changes marked, then
		// each live value's TPS and p95 against VUs from the segments, then each case's waits; no
		// peak is judged from its runs, which mix the live values, so no peak step's CPU is drawn.
		{"study", []Item{{Study: testStudy(t, "30", maria)}}, []string{"study-live-1", "study-live-2", "study-segments-tps",
			"study-segments-p95", "profile-waits-1", "profile-waits-2"}},
		// A study without live changes draws its cases as overlaid profiles, then each case's
		// waits and per-core CPU at its peak.
		{"study-cases", []Item{{Study: testCaseStudy(t, "31", maria)}}, cat(profilesIDs, []string{"profile-waits-1", "profile-cpu-1",
			"profile-waits-2", "profile-cpu-2", "profile-waits-3", "profile-cpu-3", "profile-waits-4", "profile-cpu-4"})},
		// A live study whose runs profiled each segment adds a flame graph per segment of the case
		// and the differential graph of the two chosen segments.
		{"study-segments", []Item{{Study: segmentStudy(t), Diff: []string{"2", "5"}}}, []string{"study-live-1", "study-live-2",
			"study-segments-tps", "study-segments-p95", "profile-waits-1", "profile-waits-2", "study-seg-flame-1-1", "study-seg-flame-1-2",
			"study-seg-flame-1-3", "study-seg-flame-1-4", "study-seg-flame-1-5", "study-seg-flame-diff-1"}},
		// One of its runs reported alone draws its segments' flame graphs last.
		{"run-segments", []Item{{Run: segmentRun(t), Diff: []string{"1", "3"}}}, cat(runIDs, []string{"run-cpu-1", "run-waits", "run-flame-1",
			"run-seg-flame-1-1", "run-seg-flame-1-2", "run-seg-flame-1-3", "run-seg-flame-1-4", "run-seg-flame-1-5", "run-seg-flame-diff-1"})},
		// Runs with an on-CPU profile add a flame graph each and, two of them, the differential one.
		{"stacks", []Item{{Run: withStacks(testRun(t, "15", maria, 8, 1, 6), 0.05)}, {Run: withStacks(testRun(t, "16", maria, 8, 0.8, 7), 0.35)}},
			cat(runsIDs, []string{"run-cpu-1", "run-cpu-2", "run-waits", "run-flame-1", "run-flame-2", "runs-flame-diff"})},
		// A profile whose runs observed running threads and stacks draws the running threads per
		// step next to the throughput per step, and its peak step's flame graph.
		{"profile-observed", []Item{{Profile: observedProfile(t)}}, []string{"profile-headline", "profile-tpm", "profile-latency",
			"profile-throughput-time", "profile-running-1", "profile-p95-time", "profile-distribution", "profile-waits-1", "profile-cpu-1",
			"profile-flame-1"}},
	}
}

func chartIDs(cs []Chart) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

func TestCharts(t *testing.T) {
	for _, tc := range chartCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			cs := Charts(tc.items)
			if got := strings.Join(chartIDs(cs), " "); got != strings.Join(tc.ids, " ") {
				t.Fatalf("charts\n got %s\nwant %s", got, strings.Join(tc.ids, " "))
			}
			for _, c := range cs {
				if c.Title == "" || c.XLabel == "" || c.YLabel == "" {
					t.Errorf("%s: missing title or axis label: %+v", c.ID, c)
				}
				if h := c.Heat; h != nil {
					if len(h.X) < 2 || len(h.Rows) == 0 || len(h.Values) != len(h.X) {
						t.Errorf("%s: heat map of %d seconds × %d rows, %d columns of values", c.ID, len(h.X), len(h.Rows), len(h.Values))
					}
					for i, col := range h.Values {
						if len(col) != len(h.Rows) {
							t.Errorf("%s: column %d has %d values for %d rows", c.ID, i, len(col), len(h.Rows))
						}
					}
					continue
				}
				if f := c.Flame; f != nil {
					if len(f.Nodes) == 0 || f.Depth == 0 || f.Width == 0 {
						t.Errorf("%s: flame graph of %d frames, depth %d, width %d", c.ID, len(f.Nodes), f.Depth, f.Width)
					}
					continue
				}
				if len(c.Series) == 0 {
					t.Errorf("%s: no series", c.ID)
				}
				for _, s := range c.Series {
					if len(s.Points) == 0 {
						t.Errorf("%s / %s: no points", c.ID, s.Name)
					}
					if s.Range != nil && len(s.Range) != len(s.Points) {
						t.Errorf("%s / %s: %d ranges for %d points", c.ID, s.Name, len(s.Range), len(s.Points))
					}
					for i := 1; i < len(s.Points); i++ {
						if s.Points[i][0] < s.Points[i-1][0] {
							t.Errorf("%s / %s: x goes back at point %d", c.ID, s.Name, i)
							break
						}
					}
				}
				if c.XAxis == AxisPercentile {
					var labels []string
					for _, tk := range c.Ticks {
						labels = append(labels, tk.Label)
					}
					if got := strings.Join(labels, " "); !strings.HasPrefix(got, "0% 50% 90% 99% 99.9%") {
						t.Errorf("%s: percentile ticks %q", c.ID, got)
					}
				}
			}
		})
	}
}

func TestChartSeries(t *testing.T) {
	cases := chartCases(t)
	byID := func(items []Item) map[string]Chart {
		m := map[string]Chart{}
		for _, c := range Charts(items) {
			m[c.ID] = c
		}
		return m
	}
	names := func(c Chart) string {
		var ns []string
		for _, s := range c.Series {
			ns = append(ns, s.Name)
		}
		return strings.Join(ns, " | ")
	}

	run := byID(cases[0].items)
	if got := names(run["run-throughput"]); got != "TPM (all transactions) | New-Orders per minute" {
		t.Errorf("run throughput series: %s", got)
	}
	if got := names(run["run-distribution"]); got != strings.Join(tpccTypes, " | ") {
		t.Errorf("run distribution series: %s", got)
	}
	// The fixture ramps up for 5 ticks of about a second: the first band covers them.
	if b := run["run-throughput"].Bands; len(b) != 1 || b[0].Label != "rampup" || b[0].From != 0 || b[0].To < 4.9 || b[0].To > 5.1 {
		t.Errorf("run bands: %+v", b)
	}
	// The last tick lasts 40 ms: too short to be a rate, so it is left out of throughput.
	tp := run["run-throughput"].Series[0].Points
	if last := tp[len(tp)-1]; last[0] > 30.01 {
		t.Errorf("a 40 ms tick became a rate point: %v", last)
	}
	p95 := run["run-p95"].Series[0].Points
	if last := p95[len(p95)-1]; last[0] > 30.01 {
		t.Errorf("a 40 ms tick became a p95 point: %v", last)
	}

	prof := byID(cases[1].items)
	head := prof["profile-headline"].Series[0]
	if head.Name != "NOPM" || len(head.Points) != 3 || len(head.Range) != 3 {
		t.Errorf("profile headline: %s, %d points, %d ranges", head.Name, len(head.Points), len(head.Range))
	}
	if len(head.Marks) == 0 || !strings.Contains(head.Marks[0].Label, "peak (4 VUs)") {
		t.Errorf("profile marks: %+v", head.Marks)
	}
	if got := names(prof["profile-distribution"]); got != "1 VU | 2 VUs | 4 VUs" {
		t.Errorf("profile distribution series: %s", got)
	}
	if got := names(prof["profile-latency"]); got != "p95 | p99" {
		t.Errorf("profile latency series: %s", got)
	}

	runs := byID(cases[2].items)
	if got := names(runs["runs-throughput"]); got != "#12 PostgreSQL 15.18 | #13 MariaDB 10.11.6" {
		t.Errorf("overlay names: %s", got)
	}
	profiles := byID(cases[3].items)
	if got := names(profiles["profiles-headline"]); got != "#20 PostgreSQL 15.18 | #21 MariaDB 10.11.6" {
		t.Errorf("profile overlay names: %s", got)
	}
	// A profile run once has no spread to draw.
	if r := profiles["profiles-headline"].Series[1].Range; r != nil {
		t.Errorf("single-run steps got error bars: %v", r)
	}
}

// The percentile curve must read the same values as the histogram it comes from.
func TestDistribution(t *testing.T) {
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	for v := int64(1); v <= 100_000; v++ {
		if err := h.RecordValue(v * 10); err != nil { // 10 µs … 1 s, uniform
			t.Fatal(err)
		}
	}
	pts := distribution(encode(t, h))
	find := func(x float64) float64 {
		for _, p := range pts {
			if p[0] > x*0.9999 && p[0] < x*1.0001 {
				return p[1]
			}
		}
		t.Fatalf("no point at x=%g", x)
		return 0
	}
	for _, q := range []struct{ x, pct float64 }{{2, 50}, {10, 90}, {100, 99}, {1000, 99.9}, {10000, 99.99}} {
		if got, want := find(q.x), float64(h.ValueAtQuantile(q.pct))/1000; got != want {
			t.Errorf("%g%%: %g ms, histogram says %g", q.pct, got, want)
		}
	}
	last := pts[len(pts)-1]
	if last[0] != 100_000 || last[1] != float64(h.Max())/1000 {
		t.Errorf("last point %v, want the max %g at 1/(1-q) = count", last, float64(h.Max())/1000)
	}
	// Merging: two copies of the same histogram have the same percentiles.
	if two := distribution(encode(t, h), encode(t, h)); two[len(two)-1][0] != 200_000 || two[10][1] != pts[10][1] {
		t.Errorf("merged distribution differs: %v vs %v", two[10], pts[10])
	}
	if distribution("not a histogram") != nil || distribution() != nil {
		t.Error("undecodable or missing histograms should draw nothing")
	}
}

func TestPercentileLabel(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{1, "0%"}, {2, "50.0%"}, {10, "90%"}, {100, "99%"}, {1000, "99.9%"}, {10000, "99.99%"}, {1e6, "99.9999%"}, {31.6227766, "96.8%"}, {316.227766, "99.68%"}} {
		if got := PercentileLabel(c.x); got != c.want {
			t.Errorf("PercentileLabel(%g) = %q, want %q", c.x, got, c.want)
		}
	}
}

// Documents read back from JSON (Config as map[string]any, times as text) draw the same charts.
func TestChartsFromJSON(t *testing.T) {
	for _, tc := range chartCases(t) {
		var back []Item
		for _, it := range tc.items {
			var b []byte
			var err error
			if it.Run != nil {
				b, err = json.Marshal(it.Run)
				var d results.Document
				if err == nil {
					err = json.Unmarshal(b, &d)
				}
				back = append(back, Item{Run: &d, Diff: it.Diff})
			} else if it.Study != nil {
				b, err = json.Marshal(it.Study)
				var st results.Study
				if err == nil {
					err = json.Unmarshal(b, &st)
				}
				back = append(back, Item{Study: &st, Diff: it.Diff})
			} else {
				b, err = json.Marshal(it.Profile)
				var p results.Profile
				if err == nil {
					err = json.Unmarshal(b, &p)
				}
				back = append(back, Item{Profile: &p})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		want, err := json.Marshal(Charts(tc.items))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(Charts(back))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: charts from JSON differ from charts from the documents", tc.name)
		}
		if err := HTML(&bytes.Buffer{}, back, "from JSON"); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestHTML(t *testing.T) {
	r := testRun(t, "12", pg, 8, 1, 1)
	var b bytes.Buffer
	if err := HTML(&b, []Item{{Run: r}}, "TPC-C on PostgreSQL"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"<title>TPC-C on PostgreSQL</title>", "#12 PostgreSQL 15.18", "AMD EPYC 7B13", "shared_buffers", "2GB",
		"Linux 6.1.0", "62.8 GiB", "new_order", "pg_stat_database", "duration_seconds", "2026-03-14",
		`data-chart-id="run-throughput"`, `data-chart-id="run-p95"`, `data-chart-id="run-distribution"`,
		`data-chart-id="run-cpu-1"`, `data-chart-id="run-waits"`, "Lock:transactionid", "server CPU per transaction",
		"147 µs", "echarts.init(", "Apache ECharts 6.1.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(out, `class="chart"`); n != 5 {
		t.Errorf("%d chart divs, want 5", n)
	}
	// Self-contained: the page itself (ECharts aside, which has markup in its strings) loads nothing.
	page := strings.Replace(out, echartsJS, "", 1)
	if len(page) == len(out) {
		t.Error("ECharts is not inlined")
	}
	if m := regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]+(src|href)=`).FindString(page); m != "" {
		t.Errorf("report loads something: %s", m)
	}
}

// User-derived strings (settings, host names, target names) must not break out of the page.
func TestHTMLEscapes(t *testing.T) {
	evil := `</script><script>alert("x")</script><marquee>`
	tg := pg
	tg.Name = "Postgre" + evil
	tg.Settings = map[string]string{"application_name": evil, evil: "on"}
	r := testRun(t, "7", tg, 4, 1, 5)
	h := *testHost
	h.Hostname = evil
	r.Host = &h
	r.Notes = []string{evil}
	r.Config = map[string]any{"label": evil}
	var b bytes.Buffer
	if err := HTML(&b, []Item{{Run: r}}, evil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<script>alert") || strings.Contains(out, "<marquee>") {
		t.Error("a user-derived string reached the page unescaped")
	}
	// ECharts' script and the page's own: nothing else opens a script.
	if n := strings.Count(out, "<script"); n != 2 {
		t.Errorf("%d <script tags, want 2", n)
	}
	if n := strings.Count(strings.ToLower(out), "</script"); n != 2 {
		t.Errorf("%d </script tags, want 2", n)
	}
}

func TestHTMLRejectsBadItems(t *testing.T) {
	r := testRun(t, "1", pg, 1, 1, 1)
	p := testProfile(t, "2", pg, 1, 1, 1)
	for _, items := range [][]Item{nil, {{}}, {{Run: r, Profile: p}}} {
		if err := HTML(&bytes.Buffer{}, items, ""); err == nil {
			t.Errorf("%d items: no error", len(items))
		}
		if _, err := PNG(t.TempDir(), items); err == nil {
			t.Errorf("%d items: no error from PNG", len(items))
		}
	}
}

// The embedded script is the one assets/README.md says it is.
func TestEChartsAsset(t *testing.T) {
	readme, err := os.ReadFile("assets/README.md")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(echartsJS))
	if !strings.Contains(string(readme), hex.EncodeToString(sum[:])) {
		t.Errorf("assets/README.md does not record the sha256 of echarts.min.js (%x)", sum)
	}
	if !strings.Contains(echartsJS, `"6.1.0"`) {
		t.Error("the embedded ECharts is not version 6.1.0")
	}
}

// PNG writes one decodable image of the documented size per chart. Set CAIRN_REPORT_PNG to a
// directory to keep the images and look at them.
func TestPNG(t *testing.T) {
	for _, tc := range chartCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "charts") // PNG creates it
			if keep := os.Getenv("CAIRN_REPORT_PNG"); keep != "" {
				dir = filepath.Join(keep, tc.name)
			}
			paths, err := PNG(dir, tc.items)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != len(tc.ids) {
				t.Fatalf("%d files, want %d", len(paths), len(tc.ids))
			}
			for i, p := range paths {
				if filepath.Base(p) != tc.ids[i]+".png" {
					t.Errorf("file %s, want %s.png", p, tc.ids[i])
				}
				f, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(f)
				f.Close()
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if b := img.Bounds(); b.Dx() != PNGWidth || b.Dy() != PNGHeight {
					t.Errorf("%s is %dx%d, want %dx%d", p, b.Dx(), b.Dy(), PNGWidth, PNGHeight)
				}
			}
		})
	}
}

// Results that measured little or nothing still make a report: empty charts are left out, and
// charts of a single point still render.
func TestSparseResults(t *testing.T) {
	empty := testRun(t, "30", pg, 2, 1, 9)
	empty.Series, empty.Histograms, empty.Result, empty.Waits = nil, map[string]string{}, results.Result{}, nil
	one := testProfile(t, "31", pg, 1, 1, 9)
	one.Steps, one.VUs = one.Steps[:1], one.VUs[:1]
	one.Summarize()
	for _, tc := range []struct {
		name  string
		items []Item
		ids   []string
	}{
		{"nothing measured", []Item{{Run: empty}}, nil},
		{"one step", []Item{{Profile: one}}, []string{"profile-headline", "profile-tpm", "profile-latency",
			"profile-throughput-time", "profile-p95-time", "profile-distribution", "profile-waits-1", "profile-cpu-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(chartIDs(Charts(tc.items)), " "); got != strings.Join(tc.ids, " ") {
				t.Errorf("charts %q, want %q", got, strings.Join(tc.ids, " "))
			}
			if err := HTML(&bytes.Buffer{}, tc.items, ""); err != nil {
				t.Error(err)
			}
			paths, err := PNG(t.TempDir(), tc.items)
			if err != nil || len(paths) != len(tc.ids) {
				t.Errorf("PNG: %d files, %v", len(paths), err)
			}
		})
	}
}

func TestNumberTicks(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     string
	}{
		{0, 100, "0 20 40 60 80 100"},
		{0, 95000, "0 20,000 40,000 60,000 80,000"},
		{0, 3.3, "0 1 2 3"},
		{0, 14, "0.0 2.5 5.0 7.5 10.0 12.5"},
		{0, 0.9, "0.0 0.2 0.4 0.6 0.8"},
		{-5.2, 25, "0 10 20"}, // a live chart's rampup below 0: "0", not "-0"
	} {
		var labels []string
		for _, tk := range (numberTicks{}).Ticks(c.min, c.max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("ticks of [%g, %g]: %q, want %q", c.min, c.max, got, c.want)
		}
	}
}
