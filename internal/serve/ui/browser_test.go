package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// serve is a real cairn serve: the binary built from this tree, on a free loopback port, with a
// results store and state of its own, stopped with SIGTERM (which must exit 0) when the test ends.
type serve struct {
	bin, dir, store, base string
	stop                  func() // stops the service started last
}

func startServe(t *testing.T, args ...string) *serve {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs cairn serve")
	}
	dir := t.TempDir()
	s := &serve{bin: filepath.Join(dir, "cairn"), dir: dir, store: filepath.Join(dir, "results.db")}
	if out, err := exec.Command("go", "build", "-o", s.bin, "../../../cmd/cairn").CombinedOutput(); err != nil {
		t.Fatalf("build cairn: %v\n%s", err, out)
	}
	s.stop = s.launch(t, args...)
	return s
}

// launch starts s's binary as cairn serve on its store, on a free loopback port (s.base), and
// returns once it answers; stop sends SIGTERM and waits for its exit 0 (at the test's end if not
// called before): a test starts serve again on the same store this way.
func (s *serve) launch(t *testing.T, args ...string) (stop func()) {
	t.Helper()
	// Started again, it takes the address it had: the page's origin stays the same.
	addr := strings.TrimPrefix(s.base, "http://")
	if addr == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = l.Addr().String()
		l.Close()
		s.base = "http://" + addr
	}

	cmd := exec.Command(s.bin, append([]string{"serve", "--listen", addr, "--results", s.store}, args...)...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "CAIRN_STATE="+filepath.Join(s.dir, "state"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("cairn serve after SIGTERM: %v, want exit 0; it said:\n%s", err, out.String())
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Errorf("cairn serve did not exit within 30 s of SIGTERM; it said:\n%s", out.String())
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return stop
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("cairn serve exited: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("cairn serve did not answer /healthz within 30 s: %v\n%s", err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cli runs the same binary on the same store, as a user would beside the service.
func (s *serve) cli(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(s.bin, append(args, "--results", s.store)...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "CAIRN_STATE="+filepath.Join(s.dir, "state"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// page is a browser tab on the UI that records what goes wrong in it: script errors, and any
// request to anywhere but the server.
type page struct {
	t        *testing.T
	mu       sync.Mutex
	problems []string
	foreign  []string
}

// report fails the test for each problem the page had and each request it made elsewhere.
func (p *page) report() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.problems {
		p.t.Error(m)
	}
	for _, u := range p.foreign {
		p.t.Errorf("the page asked for %s, not of the server", u)
	}
}

func (p *page) note(list *[]string, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*list = append(*list, s)
}

func (p *page) listen(base string) func(ev any) {
	return func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			p.note(&p.problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, a.Description+string(a.Value))
				}
				p.note(&p.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *log.EventEntryAdded:
			// The test's bad spec is answered 400, as it should be (validate's, and the form's
			// edit of a text that is not YAML).
			expected := ev.Entry.Source == log.EntrySourceNetwork && (strings.HasSuffix(ev.Entry.URL, "/api/v1/validate") || strings.HasSuffix(ev.Entry.URL, "/api/v1/edit"))
			if ev.Entry.Level == log.EntryLevelError && !expected {
				p.note(&p.problems, "browser log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			if !strings.HasPrefix(u, base+"/") && !strings.HasPrefix(u, "blob:") && !strings.HasPrefix(u, "data:") && u != "about:blank" {
				p.note(&p.foreign, u)
			}
		}
	}
}

// until evaluates expr every 250 ms until it gives a value that is not false, null, 0 or "".
func until[T any](t *testing.T, ctx context.Context, what string, timeout time.Duration, expr string) T {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
		if err == nil {
			b, _ := json.Marshal(v)
			if s := string(b); s != "false" && s != "null" && s != "0" && s != `""` {
				return v
			}
		}
		if time.Now().After(deadline) {
			shot(t, ctx, "timeout-"+regexp.MustCompile(`\W+`).ReplaceAllString(what, "-"))
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waited %v for %s (last error %v); the page shows:\n%s", timeout, what, err, body)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// shot keeps a screenshot of the window in $CAIRN_UI_SHOT, when set, to look at.
func shot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("CAIRN_UI_SHOT")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUIInBrowser drives the web UI in real headless Chromium against a real cairn serve: a bad
// spec's message stands beside the line of the key it names; a SQLite TPC-C run started from the
// form draws its live chart as it runs, stops from the Stop button and opens its report, whose
// figures are the ones cairn results show prints of the stored result; the results browser
// filters and compares as cairn results compare does. Nothing on the page fails, and it asks
// nothing of the network but the server. Set CAIRN_UI_SHOT to a directory to keep screenshots.
func TestUIInBrowser(t *testing.T) {
	s, _, ctx := openForm(t)
	setSpec := func(text string) { t.Helper(); fillSpec(t, ctx, text) }
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(sel)); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}

	// The message of a bad key stands beside the line that holds it.
	// relative to the service's directory (and the command line's: the same file)
	db := "sqlite://tpcc.db"
	setSpec("workload: tpcc\ndb: " + db + "\nvu: 1\noptions:\n  mode: fast\n")
	click("#validate")
	type mark struct {
		Field    string  `json:"field"`
		Line     int     `json:"line"`
		Text     string  `json:"text"`
		Top      float64 `json:"top"`
		BandTop  float64 `json:"bandTop"`
		BandShow bool    `json:"bandShow"`
	}
	m := until[mark](t, ctx, "the validation message", 15*time.Second, `(function () {
	  var m = document.querySelector("#mark"), band = document.querySelector(".code .band");
	  if (!m) { return null; }
	  return { field: m.dataset.field, line: +m.dataset.line, text: m.textContent,
	    top: m.getBoundingClientRect().top, bandTop: band.getBoundingClientRect().top, bandShow: band.style.display === "block" };
	})()`)
	if m.Field != "options.mode" || m.Line != 4 || !strings.Contains(m.Text, "fast") {
		t.Errorf("validation message %+v: want field options.mode at line 4 (0-based), naming the value fast", m)
	}
	if !m.BandShow || m.Top-m.BandTop > 2 || m.BandTop-m.Top > 2 {
		t.Errorf("the message (top %.0f px) does not stand beside its marked line (top %.0f px, shown %v)", m.Top, m.BandTop, m.BandShow)
	}
	shot(t, ctx, "form")

	// A run from the form: its live chart grows, tick by tick.
	setSpec("workload: tpcc\ndb: " + db + "\nvu: 1\nrampup: 1s\nduration: 20s\nprogress: 1s\nprepare:\n  warehouses: 1\n")
	click("#start")
	id := until[string](t, ctx, "the job's page", 15*time.Second, `(location.hash.match(/^#\/jobs\/(.+)$/) || [])[1] || ""`)
	const points = `(function () {
	  var el = document.querySelector('[data-chart-id="throughput"]');
	  var inst = el && echarts.getInstanceByDom(el);
	  return inst ? inst.getOption().series[0].data.length : -1;
	})()`
	var seen []int
	deadline := time.Now().Add(2 * time.Minute)
	for len(seen) < 4 {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](points))
		if err != nil {
			t.Fatalf("read the live chart: %v", err)
		}
		if n > 0 && (len(seen) == 0 || n > seen[len(seen)-1]) {
			seen = append(seen, n)
		}
		if time.Now().After(deadline) {
			shot(t, ctx, "live-timeout")
			t.Fatalf("the live chart of job %s drew %v points over 2 minutes: want it to grow three times", id, seen)
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Logf("job %s: the live chart grew through %v points", id, seen)
	other := until[[]int](t, ctx, "the latency and per-core charts", 10*time.Second, `(function () {
	  var n = ["latency", "cores"].map(function (id) {
	    var inst = echarts.getInstanceByDom(document.querySelector('[data-chart-id="' + id + '"]'));
	    return inst.getOption().series[0].data.length;
	  });
	  return n[0] > 0 && n[1] > 0 ? n : null;
	})()`)
	t.Logf("latency points %d, cores %d", other[0], other[1])
	// The disk tiles show the writes and MB per second of the whole device under the SQLite
	// file, named on hover.
	type diskTile struct {
		Writes string `json:"writes"`
		MB     string `json:"mb"`
		Device string `json:"device"`
	}
	dt := until[diskTile](t, ctx, "the disk tiles", 10*time.Second, `(function () {
	  var w = document.querySelector('[data-tile="diskw"]'), m = document.querySelector('[data-tile="diskmb"]');
	  if (!w || !m || w.parentNode.hidden || m.parentNode.hidden) { return null; }
	  return { writes: w.textContent, mb: m.textContent, device: w.parentNode.title };
	})()`)
	if _, err := os.Stat("/sys/block/" + dt.Device); err != nil || dt.Device == "" || !regexp.MustCompile(`^[0-9][0-9,.]*$`).MatchString(dt.Writes) || !regexp.MustCompile(`^[0-9][0-9,.]*$`).MatchString(dt.MB) {
		t.Errorf("disk tiles %+v: want figures of a whole device of /sys/block", dt)
	}
	shot(t, ctx, "live")

	// Stop: the measured part is stored, and the job links to it.
	click("#stop")
	state := until[string](t, ctx, "the job to stop", time.Minute, `(function () {
	  var st = document.querySelector("#job-state .state").dataset.state;
	  return ["done", "failed", "stopped", "interrupted"].indexOf(st) >= 0 && document.querySelector("#open-result") ? st : "";
	})()`)
	if state != "stopped" {
		t.Errorf("job %s ended %s after Stop, want stopped", id, state)
	}
	result := until[string](t, ctx, "the result link", 5*time.Second, `(document.querySelector("#open-result").getAttribute("href").match(/^#\/results\/(.+)$/) || [])[1] || ""`)
	click("#open-result")
	type report struct {
		Heads [][2]string `json:"heads"`
		Txns  [][2]string `json:"txns"`
	}
	rep := until[report](t, ctx, "the report", 30*time.Second, `(function () {
	  var f = document.querySelector("#report"), d = f && f.contentDocument;
	  if (!d || !d.querySelector(".heads table.kv") || !window.echarts) { return null; }
	  var cells = function (tr) { return Array.from(tr.children).slice(0, 2).map(function (c) { return c.textContent.trim(); }); };
	  var out = { heads: Array.from(d.querySelectorAll(".heads table.kv tr")).map(cells), txns: [] };
	  d.querySelectorAll("table.data").forEach(function (tb) {
	    var head = tb.querySelector("tr");
	    if (!head || head.textContent.trim().indexOf("transaction") !== 0) { return; }
	    Array.from(tb.querySelectorAll("tr")).slice(1).forEach(function (tr) { out.txns.push(cells(tr)); });
	  });
	  return out.txns.length ? out : null;
	})()`)
	shot(t, ctx, "report")

	// The report's figures are the stored result's, as cairn results show prints them.
	show := s.cli(t, "results", "show", result)
	if !strings.Contains(show, "result "+result+",") {
		t.Errorf("results show %s does not name result %s:\n%s", result, result, show)
	}
	digits := regexp.MustCompile(`^[0-9][0-9,]*`)
	checked := 0
	for _, kv := range rep.Heads {
		if kv[0] != "NOPM" && kv[0] != "TPM" {
			continue
		}
		n := strings.ReplaceAll(digits.FindString(kv[1]), ",", "")
		if n == "" || !regexp.MustCompile(`\b`+n+`\b`).MatchString(show) {
			t.Errorf("the report's %s is %q; results show prints no %s:\n%s", kv[0], kv[1], n, show)
		}
		checked++
	}
	for _, tx := range rep.Txns {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(tx[0]) + `\s+` + regexp.QuoteMeta(strings.ReplaceAll(tx[1], ",", "")) + `\s`).MatchString(show) {
			t.Errorf("the report counts %s %s transactions; results show does not:\n%s", tx[1], tx[0], show)
		}
		checked++
	}
	if checked < 7 {
		t.Errorf("compared %d of the report's figures with results show, want NOPM, TPM and five transaction types: %+v", checked, rep)
	}

	// The results browser: a second result from the command line, a filter, and a comparison
	// that is what results compare prints.
	spec := filepath.Join(s.dir, "short.yaml")
	if err := os.WriteFile(spec, []byte("workload: tpcc\ndb: "+db+"\nvu: 1\nrampup: 0s\nduration: 2s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.cli(t, "run", "--spec", spec)
	ids := regexp.MustCompile(`(?m)^([0-9]+)\s+run\s`).FindAllStringSubmatch(s.cli(t, "results", "list"), -1)
	if len(ids) != 2 {
		t.Fatalf("results list: %d runs, want 2", len(ids))
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/results")); err != nil {
		t.Fatal(err)
	}
	rows := until[int](t, ctx, "the results list", 15*time.Second, `document.querySelectorAll("#results tr[data-result]").length`)
	if rows != 2 {
		t.Errorf("the results list shows %d results, want 2", rows)
	}
	shot(t, ctx, "results")
	for _, id := range ids {
		click(`#results input[data-id="` + id[1] + `"]`)
	}
	click("#compare")
	text := until[string](t, ctx, "the comparison", 30*time.Second, `(function () { var e = document.querySelector("#compare-text"); return e && e.textContent !== "…" ? e.textContent : ""; })()`)
	want := s.cli(t, "results", "compare", ids[0][1], ids[1][1])
	if strings.TrimSpace(text) != strings.TrimSpace(want) {
		t.Errorf("the UI's comparison:\n%s\nresults compare prints:\n%s", text, want)
	}
	shot(t, ctx, "compare")
	// The jobs list keeps the job, stopped, with its result.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/jobs")); err != nil {
		t.Fatal(err)
	}
	until[bool](t, ctx, "the jobs list", 15*time.Second, `(function () {
	  var tr = document.querySelector('#jobs tr[data-job="`+id+`"]');
	  return !!tr && !!tr.querySelector('[data-state="stopped"]') && tr.textContent.indexOf("result `+result+`") >= 0;
	})()`)
	shot(t, ctx, "jobs")
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/results?workload=tpch")); err != nil {
		t.Fatal(err)
	}
	until[bool](t, ctx, "the filtered list", 15*time.Second, `/No stored results match/.test(document.querySelector("#results").textContent) && document.querySelector("#f-workload").value === "tpch"`)
}

// TestUIAsksForTheToken: a cairn serve with a token serves the page without it (a browser cannot
// add a header to the request that loads a page); the page asks for the token once, keeps it in
// the tab, sends it with every API call, asks again when it is refused, and never shows it.
func TestUIAsksForTheToken(t *testing.T) {
	testutil.Chromium(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	const token = "ui-test-token-0123456789abcdef"
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, "--token-file", tokenFile)
	resp, err := http.Get(s.base + "/api/v1/jobs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /api/v1/jobs without the token: %d, want 401", resp.StatusCode)
	}
	p := &page{t: t}
	ctx := testutil.Browser(t, 2*time.Minute, 1400, 900, func(ev any) {
		// The refused calls before the token is given are the point of this test.
		if e, ok := ev.(*log.EventEntryAdded); ok && e.Entry.Source == log.EntrySourceNetwork && strings.Contains(e.Entry.Text, "401") {
			return
		}
		p.listen(s.base)(ev)
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/jobs")); err != nil {
		t.Fatalf("open the UI: %v", err)
	}
	give := func(tok string) {
		t.Helper()
		until[bool](t, ctx, "the token dialog", 15*time.Second, `document.querySelector("#token-dialog").open`)
		if err := chromedp.Do(ctx, chromedp.SendKeys("#token-input", tok), chromedp.Click(`#token-form button[type="submit"]`)); err != nil {
			t.Fatal(err)
		}
	}
	give("not-the-token-at-all")
	until[bool](t, ctx, "the dialog to say the token was refused", 15*time.Second,
		`document.querySelector("#token-dialog").open && /refused/.test(document.querySelector("#token-problem").textContent)`)
	give(token)
	until[bool](t, ctx, "the jobs list", 15*time.Second, `!document.querySelector("#token-dialog").open && !document.querySelector("#jobs-empty").hidden`)
	// A reload keeps the token: the page loads its lists without asking again.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/results")); err != nil {
		t.Fatal(err)
	}
	until[bool](t, ctx, "the results list", 15*time.Second, `!document.querySelector("#token-dialog").open && /No stored results match/.test(document.body.textContent)`)
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML + document.querySelector("#token-input").value`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(shown, token) {
		t.Error("the page shows the token")
	}
	p.report()
}

// TestUIStudyInBrowser follows a PostgreSQL study with a live change from the form to its end:
// the view shows its step, each setting applied with the value read back, the live change marked
// on the throughput chart, and the restore.
func TestUIStudyInBrowser(t *testing.T) {
	testutil.Chromium(t)
	pg := testutil.PG(t)
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	// A spec sent to the service names its password as ${VAR}, read from the service's environment.
	pw, _ := u.User.Password()
	t.Setenv("CAIRN_PASSWORD", pw)
	u.User = url.User(u.User.Username())
	db := strings.Replace(u.String(), "@", ":${CAIRN_PASSWORD}@", 1)
	s := startServe(t)
	t.Cleanup(func() { s.cli(t, "tpcb", "cleanup", "--db", pg) })
	p := &page{t: t}
	ctx := testutil.Browser(t, 4*time.Minute, 1400, 900, p.listen(s.base))
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/new")); err != nil {
		t.Fatalf("open the UI: %v", err)
	}
	until[bool](t, ctx, "the spec form", 15*time.Second, `!!document.querySelector("#spec")`)
	study := "name: ui-live-study\nworkload: tpcb\ndb: " + db + "\noptions: {script: tpcb-like}\nprepare: {scale: 1}\n" +
		"vu: [2]\nrampup: 1s\nduration: 6s\npause: 0s\nrepeat: 1\nsettings:\n  synchronous_commit: [\"local\"]\n" +
		"schedule:\n  - {at: 50%, set: {synchronous_commit: \"off\"}}\n"
	b, _ := json.Marshal(study)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function () {
	  var k = document.querySelector("#kind"); k.value = "study"; k.dispatchEvent(new Event("change"));
	  var e = document.querySelector("#spec"); e.value = `+string(b)+`; e.dispatchEvent(new Event("input"));
	})()`), chromedp.Click("#start")); err != nil {
		t.Fatal(err)
	}
	until[string](t, ctx, "the job's page", 15*time.Second, `(location.hash.match(/^#\/jobs\/(.+)$/) || [])[1] || ""`)
	state := until[string](t, ctx, "the study to end", 3*time.Minute, `(function () {
	  var st = document.querySelector("#job-state .state");
	  st = st && st.dataset.state;
	  return ["done", "failed", "stopped", "interrupted"].indexOf(st) >= 0 ? st : "";
	})()`)
	if state != "done" {
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("the study ended %s:\n%s", state, body)
	}
	type view struct {
		Step     string     `json:"step"`
		Shown    bool       `json:"shown"`
		Settings [][]string `json:"settings"`
		Marks    []string   `json:"marks"`
		MarkX    []float64  `json:"markX"`
		Points   int        `json:"points"`
	}
	v := until[view](t, ctx, "the study's view", 10*time.Second, `(function () {
	  var inst = echarts.getInstanceByDom(document.querySelector('[data-chart-id="throughput"]'));
	  var tps = inst.getOption().series[0];
	  return {
	    step: document.querySelector("#step-text").textContent,
	    shown: !document.querySelector("#study").hidden,
	    settings: Array.from(document.querySelectorAll("#settings tbody tr")).map(function (tr) {
	      return Array.from(tr.children).slice(1).map(function (td) { return td.textContent; });
	    }),
	    marks: ((tps.markLine && tps.markLine.data) || []).map(function (d) { return d.name; }),
	    markX: ((tps.markLine && tps.markLine.data) || []).map(function (d) { return d.xAxis; }),
	    points: tps.data.length
	  };
	})()`)
	shot(t, ctx, "study")
	if !v.Shown || !strings.Contains(v.Step, "run 1 of 1") || !strings.Contains(v.Step, "2 VUs") {
		t.Errorf("the study's step reads %q (shown %v), want run 1 of 1 at 2 VUs", v.Step, v.Shown)
	}
	want := [][]string{
		{"synchronous_commit", "local", "local", "before the run"},
		{"synchronous_commit", "off", "off", "live, in the window"},
	}
	for _, w := range want {
		found := false
		for _, row := range v.Settings {
			found = found || strings.Join(row, "|") == strings.Join(w, "|")
		}
		if !found {
			t.Errorf("no setting row %q among %q", w, v.Settings)
		}
	}
	// The live change is marked where the schedule put it: half the 6 s window after its start.
	at := map[string]float64{}
	for i, name := range v.Marks {
		at[name] = v.MarkX[i]
	}
	ws, okW := at["window start"]
	ch, okC := at["synchronous_commit=off"]
	if len(v.Marks) != 3 || !okW || !okC || at["window end"] <= ch {
		t.Errorf("the throughput chart marks %q, want the window's start, the live change synchronous_commit=off and the window's end", v.Marks)
	} else if d := ch - ws; d < 2.9 || d > 3.1 {
		t.Errorf("the live change is marked %.1f s after the window's start (%.1f), want 3 s (at: 50%% of 6 s)", d, ws)
	}
	if v.Points < 5 {
		t.Errorf("the throughput chart has %d points of a 7 s run", v.Points)
	}
	p.report()
}

// openForm starts a service and a browser on its new-job form; at the test's end the page must
// have reported no problem and asked nothing of any host but the service.
func openForm(t *testing.T) (*serve, *page, context.Context) {
	t.Helper()
	return openFormWith(t)
}

// openFormWith is openForm with cairn serve started with args.
func openFormWith(t *testing.T, args ...string) (*serve, *page, context.Context) {
	t.Helper()
	testutil.Chromium(t)
	s := startServe(t, args...)
	p := &page{t: t}
	ctx := testutil.Browser(t, 5*time.Minute, 1400, 900, p.listen(s.base))
	t.Cleanup(p.report)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/new")); err != nil {
		t.Fatalf("open the UI: %v", err)
	}
	until[bool](t, ctx, "the spec form", 15*time.Second, `!!document.querySelector("#spec")`)
	return s, p, ctx
}

// fillSpec puts text in the form's spec, as typing it would.
func fillSpec(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	b, _ := json.Marshal(text)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function(){var e=document.querySelector("#spec"); e.value=`+string(b)+`; e.dispatchEvent(new Event("input"));})()`)); err != nil {
		t.Fatal(err)
	}
}
