package cli

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// An outage inside the window: the database is taken away from a running TPC-C run for 5 s (a
// proxy between cairn and the server closes every connection and refuses new ones, as a
// server that is down does), then given back. The run goes on and exits 0, and says what it
// lost: the time without service — from the first connection lost to the database's next
// answer, measured by the run's clock against the test's own — and the failed attempts to
// reconnect, in the document, its per-second series, 'results show', the list and the CSV
// export; the run is marked (outage). With --max-outage 2s, an outage that lasts stops the run
// after about 2 s without service: exit 1, its window cut short, both reasons marked.
func TestOutageInTheWindow(t *testing.T) {
	for _, tc := range testutil.Servers() {
		t.Run(tc.Name, func(t *testing.T) {
			url := tc.URL(t)
			prepared(t, url)
			px := testutil.NewProxy(t, url)
			bin := cairnBinary(t)
			store := filepath.Join(t.TempDir(), "results.db")
			js := filepath.Join(t.TempDir(), "r.json")
			run := []string{"tpcc", "run", "--db", px.URL(url), "--results", store, "--vu", "3", "--rampup", "1s", "--duration", "12s",
				"--progress", "1s", "--json", js}
			cmd, out := startUntil(t, bin, "window 2s", run...)
			t0 := time.Now()
			px.Cut()
			time.Sleep(5 * time.Second)
			cut := time.Since(t0).Seconds()
			px.Restore()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("run across an outage: %v\n%s", err, out)
			}
			d := readDoc(t, js)
			secs := field(t, d, "outage.seconds").(float64)
			fails := field(t, d, "outage.connect_failures").(float64)
			// The outage begins when a VU's statement fails for its lost connection (at once: the
			// proxy closed them) and ends at the first reconnect after the restore, a backoff of
			// at most a second later.
			if secs < 0.8*cut || secs > cut+2.5 || fails < 1 {
				t.Errorf("outage %.3f s with %v failed attempts; the database was away %.3f s\n%s", secs, fails, cut, out)
			}
			t.Logf("the database away %.3f s: outage %.3f s, %v failed attempts", cut, secs, fails)
			if m := marks(d); !strings.Contains(m, "outage") {
				t.Errorf("not_as_planned %q: want the outage", m)
			}
			var noService, failures float64
			for _, s := range field(t, d, "timeseries").([]any) {
				s := s.(map[string]any)
				if v, ok := s["no_service_s"].(float64); ok && s["window"] == true {
					noService += v
				}
				if v, ok := s["connect_failures"].(float64); ok {
					failures += v
				}
			}
			// The series' seconds cover the window to within one tick at each edge.
			if math.Abs(noService-secs) > 1.1 || failures < fails {
				t.Errorf("the series' seconds without service add up to %.3f s (the window's %.3f s), their failed attempts to %v (the window's %v)",
					noService, secs, failures, fails)
			}
			id := field(t, d, "id").(string)
			if _, show, _ := cairn(t, "results", "show", id, "--results", store); !strings.Contains(show, "OUTAGE: ") || !strings.Contains(show, "s without service in the window") {
				t.Errorf("results show does not report the outage:\n%s", show)
			}
			if _, list, _ := cairn(t, "results", "list", "--results", store); !strings.Contains(list, "s, outage") {
				t.Errorf("results list does not mark the run:\n%s", list)
			}
			if _, csv, _ := cairn(t, "results", "export", id, "--format", "csv", "--series", "--results", store); !strings.Contains(csv, "connect_failures,no_service_s") {
				t.Errorf("the series' CSV lacks the outage's columns:\n%s", csv)
			}

			// An outage longer than --max-outage stops the run.
			js2 := filepath.Join(t.TempDir(), "r2.json")
			run = append(run[:len(run)-1], js2, "--max-outage", "2s", "--duration", "30s")
			cmd, out = startUntil(t, bin, "window 1s", run...)
			px.Cut()
			start := time.Now()
			err := cmd.Wait()
			took := time.Since(start)
			px.Restore()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(out.String(), "no service for longer than max-outage 2s") {
				t.Fatalf("an outage beyond --max-outage: exit %d (%v)\n%s", code, err, out)
			}
			if took > 20*time.Second {
				t.Errorf("the run took %s to stop after the database went away, with --max-outage 2s", took)
			}
			d = readDoc(t, js2)
			if m := marks(d); !strings.Contains(m, "cut_short") || !strings.Contains(m, "outage") || field(t, d, "outage.aborted") != true {
				t.Errorf("a run stopped by --max-outage: marks %q, outage %v", m, d["outage"])
			}
			if s := field(t, d, "outage.seconds").(float64); s < 2 {
				t.Errorf("stopped after %.3f s without service, want more than --max-outage 2s", s)
			}
		})
	}
}

// marks are the codes of a decoded document's mark, comma-separated.
func marks(d map[string]any) string {
	var out []string
	rs, _ := d["not_as_planned"].([]any)
	for _, r := range rs {
		out = append(out, r.(map[string]any)["code"].(string))
	}
	return strings.Join(out, ",")
}

// A profile whose second step cannot connect (the database taken away after the first step,
// through a proxy) fails (exit 1), and is stored marked, not as a normal result: its mark
// (step failed) shows in 'results list', 'results show', 'results compare', the CSV export and
// the report, and the regression gate refuses it (issue 37).
func TestFailedProfileStepMarked(t *testing.T) {
	url := testutil.PG(t)
	prepared(t, url)
	px := testutil.NewProxy(t, url)
	bin := cairnBinary(t)
	store := filepath.Join(t.TempDir(), "results.db")
	profile := []string{"tpcc", "profile", "--results", store, "--vu", "1,2", "--rampup", "0s", "--duration", "2s", "--pause", "3s", "--seed", "4"}
	if code, out, stderr := cairn(t, append(profile, "--db", url)...); code != 0 {
		t.Fatalf("a whole profile: exit %d\n%s%s", code, out, stderr)
	}
	cmd, out := startUntil(t, bin, "  1 VU:", append(profile, "--db", px.URL(url))...)
	px.Cut()
	defer px.Restore()
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(out.String(), "profile step 2 VUs") {
		t.Fatalf("a profile whose second step cannot connect: exit %d (%v)\n%s", code, err, out)
	}
	_, list, _ := cairn(t, "results", "list", "--results", store)
	var whole, failed string
	for _, l := range strings.Split(list, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[1] == "profile" {
			if strings.Contains(l, "(step failed)") {
				failed = f[0]
			} else {
				whole = f[0]
			}
		}
	}
	if failed == "" || whole == "" {
		t.Fatalf("results list does not mark the failed profile apart from the whole one:\n%s", list)
	}
	if _, show, _ := cairn(t, "results", "show", failed, "--results", store); !strings.Contains(show, "STEP FAILED: the step at 2 VUs failed") {
		t.Errorf("results show lacks the mark:\n%s", show)
	}
	if _, cmp, _ := cairn(t, "results", "compare", whole, failed, "--results", store); !strings.Contains(cmp, "STEP FAILED") {
		t.Errorf("results compare lacks the mark:\n%s", cmp)
	}
	if _, csv, _ := cairn(t, "results", "export", failed, "--format", "csv", "--results", store); !strings.Contains(csv, "step_failed") {
		t.Errorf("the CSV export lacks the mark:\n%s", csv)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, stderr := cairn(t, "report", failed, "--results", store, "-o", html); code != 0 {
		t.Fatalf("report: %d %s", code, stderr)
	}
	if page, _ := os.ReadFile(html); !strings.Contains(string(page), "STEP FAILED: the step at 2 VUs failed") {
		t.Errorf("the report lacks the mark")
	}
	if code, _, stderr := cairn(t, "results", "compare", whole, failed, "--fail-on-regression", "5", "--results", store); code != ExitUsage || !strings.Contains(stderr, "did not measure what was planned") {
		t.Errorf("the gate on a failed profile: exit %d %q", code, stderr)
	}
}

// A shard of a fan-out taken away for 4 s (its database closed to new connections and its
// sessions ended, as a shard's server that dies) is an outage of the run: reported and marked
// like any other, the window as planned — the window's end reading connects to the shard again,
// rather than retrying on its dead connection for ten seconds and calling the window 30 s long.
func TestFanoutShardOutage(t *testing.T) {
	url := testutil.PG(t)
	dbs := testutil.Databases(t, url, "cairn_out_0", "cairn_out_1")
	set := strings.TrimSuffix(dbs[0], "0") + "{0..1}"
	if code, out, stderr := cairn(t, "fanout", "prepare", "--db", set, "--rows", "2000"); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	bin := cairnBinary(t)
	js := filepath.Join(t.TempDir(), "f.json")
	cmd, out := startUntil(t, bin, "window 2s", "fanout", "run", "--db", set, "--vu", "2", "--rampup", "1s", "--duration", "10s",
		"--progress", "1s", "--no-store", "--json", js)
	_, c := testutil.Open(t, url)
	ctx := context.Background()
	t0 := time.Now()
	for _, q := range []string{"ALTER DATABASE cairn_out_1 WITH ALLOW_CONNECTIONS false",
		"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = 'cairn_out_1'"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(4 * time.Second)
	if _, err := c.Exec(ctx, "ALTER DATABASE cairn_out_1 WITH ALLOW_CONNECTIONS true"); err != nil {
		t.Fatal(err)
	}
	away := time.Since(t0).Seconds()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fan-out across a shard's outage: %v\n%s", err, out)
	}
	d := readDoc(t, js)
	secs := field(t, d, "outage.seconds").(float64)
	if secs < 0.8*away || secs > away+2.5 {
		t.Errorf("outage %.3f s; the shard was away %.3f s\n%s", secs, away, out)
	}
	if w := field(t, d, "window.seconds").(float64); w > 11 || marks(d) != "outage" {
		t.Errorf("window %.3f s of 10 planned, marks %q: want the window as planned, marked outage\n%s", w, marks(d), out)
	}
}
