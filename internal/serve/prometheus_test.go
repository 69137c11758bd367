package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/openmetrics"
	"github.com/cairn-bench/cairn/internal/serve"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestPrometheusDrawsTheDashboard: Debian's Prometheus, started on loopback with a 15 s scrape of
// a cairn serve that runs a PostgreSQL job, returns points for every query of the Grafana dashboard
// docs/serve.md ships, its $job the job and $__rate_interval what Grafana makes of a 15 s scrape
// (60 s): the panels a user imports draw. Skipped where no prometheus binary is installed (apt-get
// install prometheus); CAIRN_TEST_REQUIRE=prometheus (CI) makes that a failure.
func TestPrometheusDrawsTheDashboard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a job for 80 s under a real Prometheus")
	}
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if testutil.Required("prometheus") {
			t.Fatalf("no prometheus binary, and CAIRN_TEST_REQUIRE names prometheus: apt-get install prometheus")
		}
		t.Skip("no prometheus binary (apt-get install prometheus)")
	}
	queries := testutil.Dashboard(t, "../../docs/serve.md")
	db, _ := serverDB(t, "postgres")
	reg := openmetrics.New() // as cairn serve wires it
	s := start(t, serve.Config{Version: "test", Metrics: reg.Handler(),
		JobMetrics: func(id, workload, target string) serve.JobMetrics { return reg.Job(id, workload, target) }})
	p := startPrometheus(t, bin, strings.TrimPrefix(s.base, "http://"))

	s.done("cleanup", oltpSpec(db, ""))
	s.done("prepare", oltpSpec(db, "prepare: {tables: 1, table-size: 500}\n"))
	from := time.Now()
	// Long enough for five scrapes or more inside it: two within any 60 s range.
	spec := strings.Replace(oltpSpec(db, ""), "duration: 2s", "duration: 80s", 1)
	j := s.wait(s.submit("run", spec).ID, 3*time.Minute)
	if j.State != "done" {
		t.Fatalf("job %s: %s (%s)", j.ID, j.State, j.Error)
	}
	// The scrape after the job's end, so that its last counts are in.
	time.Sleep(16 * time.Second)
	to := time.Now()

	var targets struct {
		Active []struct {
			Health    string `json:"health"`
			LastError string `json:"lastError"`
			ScrapeURL string `json:"scrapeUrl"`
		} `json:"activeTargets"`
	}
	p.api(t, "/api/v1/targets", url.Values{}, &targets)
	for _, tg := range targets.Active {
		if tg.Health != "up" {
			t.Errorf("prometheus's scrape of %s: %s, %s", tg.ScrapeURL, tg.Health, tg.LastError)
		}
	}
	for _, q := range queries {
		expr := strings.ReplaceAll(q.Expr, "$__rate_interval", "60s")
		expr = strings.ReplaceAll(expr, "$job", regexp.QuoteMeta(j.ID))
		if m := regexp.MustCompile(`^label_values\((\w+), *(\w+)\)$`).FindStringSubmatch(expr); m != nil {
			// Grafana's variable query, not PromQL: the series' values of the label.
			vals := p.labelValues(t, m[2], m[1], from, to)
			if !contains(vals, j.ID) {
				t.Errorf("%s: %s lists %v, want job %s among them", q.Panel, q.Expr, vals, j.ID)
			}
			continue
		}
		n := p.points(t, expr, from, to)
		t.Logf("%-40s %3d points  %s", q.Panel, n, expr)
		if n == 0 {
			t.Errorf("%s: %s returned no point over the job's %v", q.Panel, expr, to.Sub(from).Round(time.Second))
		}
	}
}

type prom struct{ base string }

// startPrometheus runs Prometheus on a free loopback port, scraping cairn serve at target every
// 15 s, its data in a temporary directory; it is stopped when the test ends.
func startPrometheus(t *testing.T, bin, target string) *prom {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("global: {scrape_interval: 15s, evaluation_interval: 15s}\nscrape_configs:\n  - job_name: cairn\n    static_configs: [{targets: [%q]}]\n", target)), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	p := &prom{base: "http://" + addr}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready within 30 s: %v\n%s", err, out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// api GETs a Prometheus API route and decodes its data.
func (p *prom) api(t *testing.T, path string, args url.Values, data any) {
	t.Helper()
	resp, err := http.Get(p.base + path + "?" + args.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if body.Status != "success" {
		t.Fatalf("%s %v: %s", path, args, body.Error)
	}
	if err := json.Unmarshal(body.Data, data); err != nil {
		t.Fatal(err)
	}
}

// points counts the numeric points a range query returns at a 5 s step.
func (p *prom) points(t *testing.T, expr string, from, to time.Time) int {
	t.Helper()
	var data struct {
		Result []struct {
			Values [][2]any `json:"values"`
		} `json:"result"`
	}
	p.api(t, "/api/v1/query_range", url.Values{"query": {expr}, "start": {epoch(from)}, "end": {epoch(to)}, "step": {"5"}}, &data)
	n := 0
	for _, r := range data.Result {
		for _, v := range r.Values {
			if s, ok := v[1].(string); ok {
				if f, err := strconv.ParseFloat(s, 64); err == nil && f == f {
					n++
				}
			}
		}
	}
	return n
}

// labelValues lists a label's values on a metric's series over the span.
func (p *prom) labelValues(t *testing.T, label, metric string, from, to time.Time) []string {
	t.Helper()
	var vals []string
	p.api(t, "/api/v1/label/"+label+"/values", url.Values{"match[]": {metric}, "start": {epoch(from)}, "end": {epoch(to)}}, &vals)
	return vals
}

func epoch(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
