package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// apiJob is what the tests read of GET /api/v1/jobs/{id}.
type apiJob struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	State    string `json:"state"`
	ResultID string `json:"result_id"`
	Error    string `json:"error"`
	Spec     string `json:"spec"`
}

// apiSpec is GET /api/v1/results/{id}/spec.
type apiSpec struct {
	Kind string `json:"kind"`
	Spec string `json:"spec"`
}

// get reads a JSON answer of the service into v.
func (s *serve) get(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// post starts a job of any kind through the API, as the form's Start does.
func (s *serve) post(t *testing.T, kind, spec string) apiJob {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"kind": kind, "spec": spec})
	resp, err := http.Post(s.base+"/api/v1/jobs", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j apiJob
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/v1/jobs %s: %s %v %s", kind, resp.Status, err, j.Error)
	}
	return j
}

// ended waits for job id to end and returns it; it must end done, with a result.
func (s *serve) ended(t *testing.T, id string, timeout time.Duration) apiJob {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var j apiJob
		s.get(t, "/api/v1/jobs/"+id, &j)
		switch j.State {
		case "done":
			if j.ResultID == "" {
				t.Fatalf("job %s is done with no result", id)
			}
			return j
		case "failed", "stopped", "interrupted":
			var log bytes.Buffer
			if resp, err := http.Get(s.base + "/api/v1/jobs/" + id + "/log"); err == nil {
				_, _ = log.ReadFrom(resp.Body)
				resp.Body.Close()
			}
			t.Fatalf("job %s ended %s (%s):\n%s", id, j.State, j.Error, log.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s after %v", id, j.State, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// click clicks sel once it is on the page, failing in 15 s when it does not come.
func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	q, _ := json.Marshal(sel)
	until[bool](t, ctx, sel, 15*time.Second, `!!document.querySelector(`+string(q)+`)`)
	if err := chromedp.Do(ctx, chromedp.Click(sel)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

func navigate(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	// A reload, not only a new hash: what the page kept (the form's draft) starts afresh.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(u)); err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
}

// TestUIRunAgain: a finished job and a stored result each run again — the same spec posted as a
// new job, which runs to its end — or open the New job form with their spec to edit. The job
// is a PostgreSQL run whose password is a ${VAR} of the service's environment: the result's spec
// keeps the reference, and neither the API nor the page ever holds the password itself. A
// finished cleanup is only edited, never run again in one click.
func TestUIRunAgain(t *testing.T) {
	testutil.Chromium(t)
	pg := testutil.PG(t)
	dbURL := testutil.Databases(t, pg, "cairn_ui_again")[0]
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	if pw == "" {
		t.Skip("the test server's URL has no password to keep out of the page")
	}
	// The password as a URL holds it: a short one ("cairn") is also a word of the spec's text.
	written := ":" + pw + "@"
	t.Setenv("CAIRN_PASSWORD", pw)
	u.User = url.UserPassword(u.User.Username(), "PW")
	db := strings.Replace(u.String(), ":PW@", ":${CAIRN_PASSWORD}@", 1)
	s := startServe(t)
	p := &page{t: t}
	ctx := testutil.Browser(t, 5*time.Minute, 1400, 900, p.listen(s.base))
	t.Cleanup(p.report)

	first := "# the first run\nworkload: tpcb\ndb: " + db + "\nvu: 1\nrampup: 0s\nduration: 2s\nprepare: {scale: 1}\n"
	j1 := s.ended(t, s.post(t, "run", first).ID, 3*time.Minute)
	var stored apiSpec
	s.get(t, "/api/v1/results/"+j1.ResultID+"/spec", &stored)
	if stored.Kind != "run" || !strings.Contains(stored.Spec, ":${CAIRN_PASSWORD}@") || strings.Contains(stored.Spec, written) {
		t.Fatalf("result %s's spec (kind %q) does not keep the password's ${CAIRN_PASSWORD}:\n%s", j1.ResultID, stored.Kind, strings.ReplaceAll(stored.Spec, written, ":***@"))
	}
	if stored.Spec == first {
		t.Fatal("the result's spec is the job's text: the test could not tell which one the form loaded")
	}
	formSpec := func(what string) (string, string) {
		t.Helper()
		v := until[[]string](t, ctx, what, 15*time.Second, `(function () {
		  var e = document.querySelector("#spec"), k = document.querySelector("#kind");
		  return /^#\/new\?from=/.test(location.hash) && e && e.value ? [k.value, e.value] : null;
		})()`)
		return v[0], v[1]
	}

	// Edit and run again from the result: the form holds the result's spec.
	navigate(t, ctx, s.base+"/#/results/"+j1.ResultID)
	click(t, ctx, "#edit-again")
	kind, text := formSpec("the form with the result's spec")
	if kind != "run" || text != stored.Spec {
		t.Errorf("Edit and run again from result %s: the form holds kind %q and\n%s\nwant kind run and\n%s", j1.ResultID, kind, text, stored.Spec)
	}

	// Edit and run again from the job: the form holds the job's spec, as it was posted.
	navigate(t, ctx, s.base+"/#/jobs/"+j1.ID)
	until[bool](t, ctx, "the finished job's buttons", 15*time.Second, `!!document.querySelector("#edit-again")`)
	click(t, ctx, "#edit-again")
	kind, text = formSpec("the form with the job's spec")
	if kind != "run" || text != first {
		t.Errorf("Edit and run again from job %s: the form holds kind %q and\n%s\nwant kind run and\n%s", j1.ID, kind, text, first)
	}

	// Run again from the result: a new job with the result's spec, which runs to its end and
	// stores what it ran with, the same spec.
	navigate(t, ctx, s.base+"/#/results/"+j1.ResultID)
	click(t, ctx, "#run-again")
	id := until[string](t, ctx, "the new job's page", 15*time.Second, `(location.hash.match(/^#\/jobs\/(.+)$/) || [])[1] || ""`)
	j2 := s.ended(t, id, 2*time.Minute)
	if j2.Kind != "run" || j2.Spec != stored.Spec {
		t.Errorf("Run again from result %s made job %s of kind %q with spec\n%s\nwant kind run and the result's spec\n%s", j1.ResultID, id, j2.Kind, j2.Spec, stored.Spec)
	}
	var again apiSpec
	s.get(t, "/api/v1/results/"+j2.ResultID+"/spec", &again)
	if again != stored {
		t.Errorf("result %s (run again of result %s) ran\n%s\nnot the same spec\n%s", j2.ResultID, j1.ResultID, again.Spec, stored.Spec)
	}
	until[bool](t, ctx, "the run-again job to show done", 30*time.Second, `(function () {
	  var st = document.querySelector("#job-state .state");
	  return !!st && st.dataset.state === "done" && !!document.querySelector("#open-result");
	})()`)

	// Run again from the finished job: a new job with the job's spec.
	navigate(t, ctx, s.base+"/#/jobs/"+j1.ID)
	until[bool](t, ctx, "the finished job's buttons", 15*time.Second, `!!document.querySelector("#run-again")`)
	click(t, ctx, "#run-again")
	id = until[string](t, ctx, "the new job's page", 15*time.Second, `(function () {
	  var m = location.hash.match(/^#\/jobs\/(.+)$/);
	  return m && m[1] !== "`+j1.ID+`" ? m[1] : "";
	})()`)
	j3 := s.ended(t, id, 2*time.Minute)
	if j3.Kind != "run" || j3.Spec != first {
		t.Errorf("Run again from job %s made job %s of kind %q with spec\n%s\nwant\n%s", j1.ID, id, j3.Kind, j3.Spec, first)
	}
	// A cleanup is never run again in one click: only edited, where the form asks first.
	jc := s.post(t, "cleanup", first)
	navigate(t, ctx, s.base+"/#/jobs/"+jc.ID)
	buttons := until[[]bool](t, ctx, "the finished cleanup's buttons", time.Minute, `(function () {
	  var st = document.querySelector("#job-state .state");
	  if (!st || ["done", "failed", "stopped", "interrupted"].indexOf(st.dataset.state) < 0 || !document.querySelector("#edit-again")) { return null; }
	  return [!!document.querySelector("#run-again"), !!document.querySelector("#edit-again")];
	})()`)
	if buttons[0] {
		t.Error("a finished cleanup offers Run again, which would drop the schema again without asking")
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(shown, written) {
		t.Error("the page shows the password")
	}
}

// TestUICompareAsCharts: the Results list shows a profile with its figure's unit and VU range;
// ticking two runs and comparing shows what cairn results compare prints and, under it, the
// report's charts with one series per compared result.
func TestUICompareAsCharts(t *testing.T) {
	testutil.Chromium(t)
	s := startServe(t)
	runs := results3(t, s)
	p := &page{t: t}
	ctx := testutil.Browser(t, 5*time.Minute, 1400, 900, p.listen(s.base))
	t.Cleanup(p.report)

	navigate(t, ctx, s.base+"/#/results")
	steps := until[string](t, ctx, "the profile's row", 15*time.Second,
		`(function () { var c = document.querySelector('#results tr[data-result="`+runs.profile+`"] [data-steps]'); return c ? c.textContent : ""; })()`)
	if want := runs.unit + ", 1–3 VU, 3 steps"; steps != want {
		t.Errorf("the profile's row says %q, want %q", steps, want)
	}

	click(t, ctx, `#results input[data-id="`+runs.a+`"]`)
	click(t, ctx, `#results input[data-id="`+runs.b+`"]`)
	click(t, ctx, "#compare")
	text := until[string](t, ctx, "the comparison", 30*time.Second, `(function () { var e = document.querySelector("#compare-text"); return e && e.textContent !== "…" ? e.textContent : ""; })()`)
	if want := s.cli(t, "results", "compare", runs.a, runs.b); strings.TrimSpace(text) != strings.TrimSpace(want) {
		t.Errorf("the UI's comparison:\n%s\nresults compare prints:\n%s", text, want)
	}
	names := until[[]string](t, ctx, "the comparison's throughput chart", 30*time.Second, `(function () {
	  var f = document.querySelector("#compare-report"), w = f && f.contentWindow;
	  var el = w && w.document.querySelector('[data-chart-id="runs-throughput"]');
	  var inst = el && w.echarts && w.echarts.getInstanceByDom(el);
	  if (!inst) { return null; }
	  return inst.getOption().series.filter(function (s) { return s.type === "line" && s.data.length > 0; }).map(function (s) { return s.name; });
	})()`)
	if len(names) != 2 || !strings.HasPrefix(names[0], "#"+runs.a+" ") || !strings.HasPrefix(names[1], "#"+runs.b+" ") {
		t.Errorf("the comparison's throughput chart draws %q, want one line for each of #%s and #%s", names, runs.a, runs.b)
	}
}

// stored are the results results3 stores: two runs and a profile.
type stored struct {
	a, b, profile string
	unit          string // the profile's figure, as results list names it
}

// results3 stores two short SQLite TPC-C runs and a profile of 1, 2 and 3 VUs with the command
// line, on the service's store.
func results3(t *testing.T, s *serve) stored {
	t.Helper()
	db := "sqlite://tpcc.db"
	write := func(name, text string) string {
		f := filepath.Join(s.dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	run := write("run.yaml", "workload: tpcc\ndb: "+db+"\nvu: 1\nrampup: 0s\nduration: 3s\nprepare: {warehouses: 1}\n")
	s.cli(t, "run", "--spec", run)
	s.cli(t, "run", "--spec", run)
	s.cli(t, "run", "--spec", write("profile.yaml", "workload: tpcc\ndb: "+db+"\nvu: [1, 2, 3]\nrampup: 0s\nduration: 2s\npause: 0s\n"))
	list := s.cli(t, "results", "list")
	ids := regexp.MustCompile(`(?m)^([0-9]+)\s+run\s`).FindAllStringSubmatch(list, -1)
	prof := regexp.MustCompile(`(?m)^([0-9]+)\s+profile\s.*\speak [0-9,.]+ (\S+)`).FindStringSubmatch(list)
	if len(ids) != 2 || prof == nil {
		t.Fatalf("results list shows %d runs and profile %q, want 2 runs and a profile with its peak:\n%s", len(ids), prof, list)
	}
	// newest first: the baseline is the older run
	return stored{a: ids[1][1], b: ids[0][1], profile: prof[1], unit: prof[2]}
}

// TestUIPages opens each page of the UI at 1400×900 and keeps a screenshot of each as
// serve-PAGE.png in $CAIRN_UI_SHOT, when set: docs/serve.md shows them, taken with
//
//	CAIRN_UI_SHOT=$PWD/docs/img go test -p 1 -run TestUIPages ./internal/serve/ui
//
// Each page must show what it is for, with no problem on the page.
func TestUIPages(t *testing.T) {
	testutil.Chromium(t)
	s := startServe(t)
	runs := results3(t, s)
	p := &page{t: t}
	ctx := testutil.Browser(t, 5*time.Minute, 1400, 900, p.listen(s.base))
	t.Cleanup(p.report)
	// The window's size leaves the page the rest of it (757 px high); the page itself is 1400×900.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900)); err != nil {
		t.Fatal(err)
	}
	take := func(name, what, ready string) {
		t.Helper()
		until[bool](t, ctx, what, time.Minute, ready)
		time.Sleep(500 * time.Millisecond) // the charts' first frame
		b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot of %s: %v", what, err)
		}
		c, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil || c.Width != 1400 || c.Height != 900 {
			t.Errorf("the screenshot of %s is %dx%d (%v), want 1400x900", what, c.Width, c.Height, err)
		}
		if dir := os.Getenv("CAIRN_UI_SHOT"); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "serve-"+name+".png"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	reportReady := func(frame string) string {
		return fmt.Sprintf(`(function () { var f = document.querySelector("%s"), d = f && f.contentDocument; return !!d && !!d.querySelector(".chart canvas"); })()`, frame)
	}

	navigate(t, ctx, s.base+"/#/new")
	take("new", "the New job form", `!!document.querySelector("#spec") && document.querySelector("#spec").value.length > 0`)

	job := s.post(t, "run", "workload: tpcc\ndb: sqlite://tpcc.db\nvu: 2\nrampup: 1s\nduration: 12s\nprogress: 1s\n")
	navigate(t, ctx, s.base+"/#/jobs/"+job.ID)
	take("job", "the job's live view", `(function () {
	  var el = document.querySelector('[data-chart-id="throughput"]'), inst = el && echarts.getInstanceByDom(el);
	  return !!inst && inst.getOption().series[0].data.length >= 5;
	})()`)
	s.ended(t, job.ID, 2*time.Minute)
	navigate(t, ctx, s.base+"/#/jobs/"+job.ID)
	take("job-done", "the finished job", `!!document.querySelector("#run-again") && !!document.querySelector("#open-result")`)

	// A build's view: rows per table and loader while it loads (4 SQLite warehouses take seconds).
	build := s.post(t, "prepare", "workload: tpcc\ndb: sqlite://build.db\nprepare: {warehouses: 4}\n")
	navigate(t, ctx, s.base+"/#/jobs/"+build.ID)
	take("build", "a build's progress", `document.querySelectorAll("#load-tables tr[data-table]").length >= 2 && /rows\/s/.test(document.querySelector("#load-text").textContent)`)
	if st := endState(t, ctx, 5*time.Minute); st != "done" {
		t.Fatalf("the build ended %s", st)
	}

	navigate(t, ctx, s.base+"/#/jobs")
	take("jobs", "the jobs list", `document.querySelectorAll("#jobs tr[data-job]").length > 0`)

	navigate(t, ctx, s.base+"/#/docs/tpcc.md")
	take("docs", "a doc served from the binary", `(function () { var d = document.querySelector("#doc"); return !!d && d.dataset.doc === "tpcc.md" && !!d.querySelector("h1"); })()`)

	navigate(t, ctx, s.base+"/#/results")
	take("results", "the results list", `document.querySelectorAll("#results tr[data-result]").length >= 4`)

	navigate(t, ctx, s.base+"/#/results/"+runs.profile)
	take("result", "a profile's report", reportReady("#report"))

	navigate(t, ctx, s.base+"/#/compare?ids="+runs.a+"+"+runs.b)
	take("compare", "the comparison", `(function () { var e = document.querySelector("#compare-text"); return !!e && e.textContent.length > 1; })() && `+reportReady("#compare-report"))
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#compare-report").scrollIntoView()`)); err != nil {
		t.Fatal(err)
	}
	take("compare-charts", "the comparison's charts", `(function () {
	  var w = document.querySelector("#compare-report").contentWindow;
	  return w.scrollY > 0 && w.document.querySelector(".chart").getBoundingClientRect().top < w.innerHeight / 2;
	})()`)
}
