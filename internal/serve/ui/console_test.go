package ui_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestUIConsoleByForms is issue 42's walk through the console as a HammerDB GUI user would take
// it, with the New job form's fields alone (no YAML typed): a PostgreSQL TPC-C build whose rows
// per table show while it loads, Test connection naming the server and then the complete schema
// and its size; a run in --mode sql whose NOPM and TPM show live in the tiles and on the chart,
// stopped; that result run again from its page, to the end; a profile; the two runs compared as
// charts; and a MariaDB study, from the MySQL/MariaDB example with its fields set.
func TestUIConsoleByForms(t *testing.T) {
	testutil.Chromium(t)
	pg := testutil.PG(t)
	my := testutil.MySQL(t)
	pgu, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	myu, err := url.Parse(my)
	if err != nil {
		t.Fatal(err)
	}
	// One variable names both servers' passwords; the tests' servers share theirs.
	pw, _ := pgu.User.Password()
	if mpw, _ := myu.User.Password(); mpw != pw {
		t.Skipf("the PostgreSQL and MariaDB test servers have different passwords: one ${CAIRN_PASSWORD} cannot name both")
	}
	t.Setenv("CAIRN_PASSWORD", pw)
	testutil.Databases(t, pg, "cairn_ui_console")
	testutil.Databases(t, my, "cairn_ui_console")
	s := startServe(t)
	p := &page{t: t}
	ctx := testutil.Browser(t, 15*time.Minute, 1400, 900, p.listen(s.base))
	t.Cleanup(p.report)
	pgDB := strings.Replace(pg, pgu.Path, "/cairn_ui_console", 1)
	t.Cleanup(func() { s.cli(t, "tpcc", "cleanup", "--db", pgDB) })

	// The New job page, by its link: the page keeps what the form held (its draft).
	newJob := func() {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/new")); err != nil {
			t.Fatal(err)
		}
		until[bool](t, ctx, "the form's fields", 15*time.Second, `!!document.querySelector("#f-workload") && !!document.querySelector("#f-vu")`)
	}
	server := func(kind string, u *url.URL) {
		t.Helper()
		setField(t, ctx, "db-kind", kind, "db: "+kind+"://")
		setField(t, ctx, "db-host", u.Hostname(), "@"+u.Hostname())
		setField(t, ctx, "db-port", u.Port(), ":"+u.Port()+"/")
		setField(t, ctx, "db-user", u.User.Username(), kind+"://"+u.User.Username()+":")
		setField(t, ctx, "db-password", "CAIRN_PASSWORD", ":${CAIRN_PASSWORD}@")
		setField(t, ctx, "db-name", "cairn_ui_console", "/cairn_ui_console\n")
	}
	jobOpened := func() string {
		t.Helper()
		return until[string](t, ctx, "the job's page", 15*time.Second, `(location.hash.match(/^#\/jobs\/(.+)$/) || [])[1] || ""`)
	}
	resultOf := func(job string) string {
		t.Helper()
		var j struct {
			ResultID string `json:"result_id"`
		}
		s.get(t, "/api/v1/jobs/"+job, &j)
		if j.ResultID == "" {
			t.Fatalf("job %s stored no result", job)
		}
		return j.ResultID
	}

	// The build: 2 warehouses on 2 loaders, its rows per table shown while it loads.
	newJob()
	setField(t, ctx, "f-workload", "tpcc", "workload: tpcc")
	server("postgres", pgu)
	setField(t, ctx, "f-prepare-warehouses", "2", "  warehouses: 2\n")
	setField(t, ctx, "f-prepare-loaders", "2", "  loaders: 2\n")
	setField(t, ctx, "f-vu", "2", "vu: 2\n")
	setField(t, ctx, "f-rampup", "2s", "rampup: 2s\n")
	setField(t, ctx, "f-duration", "30s", "duration: 30s\n")
	setField(t, ctx, "f-progress", "2s", "progress: 2s\n")
	shot(t, ctx, "form-fields")
	said := testConnection(t, ctx)
	if !regexp.MustCompile(`PostgreSQL \d+`).MatchString(said) || !strings.Contains(said, "cairn_ui_console: no TPC-C schema") {
		t.Errorf("Test connection on an empty database says %q: want PostgreSQL's version and no TPC-C schema", said)
	}
	pickKind(t, ctx, "prepare")
	click(t, ctx, "#start")
	build := jobOpened()
	tables := until[map[string]int64](t, ctx, "rows per table while loading", 3*time.Minute, `(function () {
	  var st = document.querySelector("#job-state .state").dataset.state, out = {}, going = 0;
	  document.querySelectorAll("#load-tables tr[data-table]").forEach(function (tr) {
	    var n = +tr.children[1].textContent.replace(/,/g, ""); out[tr.dataset.table] = n; if (n > 0) { going++; }
	  });
	  return st === "running" && going >= 2 ? out : null;
	})()`)
	t.Logf("build %s while loading: %v", build, tables)
	if st := endState(t, ctx, 5*time.Minute); st != "done" {
		t.Fatalf("the build ended %s", st)
	}

	// The run, from the same fields: NOPM and TPM live, counted by the server; then Stop.
	newJob()
	if v := until[string](t, ctx, "the form as it was left", 10*time.Second, `document.querySelector("#f-duration").value`); v != "30s" {
		t.Fatalf("the form came back with duration %q, want the 30s set before", v)
	}
	said = testConnection(t, ctx)
	if !strings.Contains(said, "a complete TPC-C schema") || !strings.Contains(said, "warehouses 2") || !strings.Contains(said, "B on disk") {
		t.Errorf("Test connection after the build says %q: want the complete TPC-C schema of 2 warehouses and its size on disk", said)
	}
	// An option of the workload's own (an enum under options:), beside the run's fields.
	setField(t, ctx, "f-options-mode", "sql", "  mode: sql\n")
	pickKind(t, ctx, "run")
	click(t, ctx, "#start")
	stopped := jobOpened()
	live := until[map[string]tileView](t, ctx, "NOPM and TPM live", 2*time.Minute, `(function () {
	  var v = `+tilesState+`;
	  var st = document.querySelector("#job-state .state").dataset.state;
	  return st === "running" && v.headline.shown && v.tpm.shown && v.headline.source === "live" && /server/.test(v.tpm.note) ? v : null;
	})()`)
	if live["headline"].Label != "NOPM" || tileNumber(t, live["tpm"].Text) <= 0 {
		t.Errorf("while running the big tiles read %+v and %+v: want NOPM and a TPM counted by the server", live["headline"], live["tpm"])
	}
	until[bool](t, ctx, "NOPM and TPM on the chart", time.Minute, `(function () {
	  var c = `+chartState+`("rates");
	  var n = function (name) { var s = c.series.filter(function (x) { return x.name === name; })[0]; return s ? s.points : 0; };
	  return c.shown && n("NOPM") >= 2 && n("TPM") >= 2;
	})()`)
	click(t, ctx, "#stop")
	if st := endState(t, ctx, time.Minute); st != "stopped" {
		t.Fatalf("the run ended %s after Stop, want stopped", st)
	}
	first := resultOf(stopped)

	// Run again from the stored result's page: the same spec, run to its end.
	navigate(t, ctx, s.base+"/#/results/"+first)
	click(t, ctx, "#run-again")
	again := jobOpened()
	if again == stopped {
		t.Fatalf("Run again opened the first job %s", again)
	}
	if st := endState(t, ctx, 3*time.Minute); st != "done" {
		t.Fatalf("the run started again ended %s", st)
	}
	second := resultOf(again)
	var spec1, spec2 struct {
		Spec string `json:"spec"`
	}
	s.get(t, "/api/v1/results/"+first+"/spec", &spec1)
	s.get(t, "/api/v1/results/"+second+"/spec", &spec2)
	if spec1.Spec != spec2.Spec {
		t.Errorf("result %s run again stored another spec:\n%s\nwant\n%s", second, spec2.Spec, spec1.Spec)
	}

	// A profile: the VU field given a list.
	newJob()
	setField(t, ctx, "f-vu", "1,2", "vu: [1, 2]")
	setField(t, ctx, "f-rampup", "1s", "rampup: 1s\n")
	setField(t, ctx, "f-duration", "4s", "duration: 4s\n")
	pickKind(t, ctx, "run")
	click(t, ctx, "#start")
	profile := jobOpened()
	if st := endState(t, ctx, 3*time.Minute); st != "done" {
		t.Fatalf("the profile ended %s", st)
	}
	resultOf(profile)

	// The two runs compared as charts: one line each on the throughput chart.
	navigate(t, ctx, s.base+"/#/results")
	click(t, ctx, `#results input[data-id="`+first+`"]`)
	click(t, ctx, `#results input[data-id="`+second+`"]`)
	click(t, ctx, "#compare")
	names := until[[]string](t, ctx, "the comparison's throughput chart", time.Minute, `(function () {
	  var f = document.querySelector("#compare-report"), w = f && f.contentWindow;
	  var el = w && w.document.querySelector('[data-chart-id="runs-throughput"]');
	  var inst = el && w.echarts && w.echarts.getInstanceByDom(el);
	  if (!inst) { return null; }
	  return inst.getOption().series.filter(function (s) { return s.type === "line" && s.data.length > 0; }).map(function (s) { return s.name; });
	})()`)
	if len(names) != 2 || !strings.HasPrefix(names[0], "#"+first+" ") || !strings.HasPrefix(names[1], "#"+second+" ") {
		t.Errorf("the comparison's throughput chart draws %q, want one line for each of #%s and #%s", names, first, second)
	}

	// A MariaDB study: the MySQL/MariaDB example, its server and a VU list set in the fields.
	newJob()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function(){var e=document.querySelector("#example"); e.value="mysql-tpcc"; e.dispatchEvent(new Event("change"));})()`)); err != nil {
		t.Fatal(err)
	}
	until[bool](t, ctx, "the MySQL/MariaDB example in the fields", 10*time.Second, `document.querySelector("#db-kind").value === "mysql"`)
	server("mysql", myu)
	setField(t, ctx, "f-prepare-warehouses", "1", "  warehouses: 1\n")
	setField(t, ctx, "f-vu", "1,2", "vu: [1, 2]")
	setField(t, ctx, "f-rampup", "1s", "rampup: 1s\n")
	setField(t, ctx, "f-duration", "4s", "duration: 4s\n")
	pickKind(t, ctx, "study")
	until[bool](t, ctx, "the study's fields", 10*time.Second, `!document.querySelector('[data-group="study"]').hidden`)
	setField(t, ctx, "f-name", "console-vus", "name: console-vus\n")
	setField(t, ctx, "f-order", "random", "order: random\n")
	click(t, ctx, "#start")
	study := jobOpened()
	if st := endState(t, ctx, 5*time.Minute); st != "done" {
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("the MariaDB study ended %s:\n%s", st, body)
	}
	sr := resultOf(study)
	show := s.cli(t, "results", "show", sr)
	if !strings.Contains(show, "MariaDB") && !strings.Contains(show, "mariadb") {
		t.Errorf("results show %s:\n%s\nwant a study on MariaDB", sr, show)
	}
	myDB := strings.Replace(my, myu.Path, "/cairn_ui_console", 1)
	s.cli(t, "tpcc", "cleanup", "--db", myDB)
	if body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(body, ":"+pw+"@") {
		t.Errorf("the page holds a password")
	}
}
