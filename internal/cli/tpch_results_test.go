package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// A stored TPC-H run is shown with its own figures (QphH, Power, Throughput, the geometric mean and
// per-query times), drawn query by query in HTML and PNG, alone and overlaid; one stopped with
// Ctrl-C is stored as interrupted and listed so.
func TestTPCHResultsShowAndReport(t *testing.T) {
	url := testutil.SQLite(t)
	store := filepath.Join(t.TempDir(), "results.db")
	if code, out, stderr := cairn(t, "tpch", "prepare", "--db", url, "--sf", "0.01"); code != 0 {
		t.Fatalf("prepare: %d\n%s%s", code, out, stderr)
	}
	var q1 []float64 // Q1's power-test ms in each run
	for i := 0; i < 2; i++ {
		js := filepath.Join(t.TempDir(), "r.json")
		if code, out, stderr := cairn(t, "tpch", "run", "--db", url, "--results", store, "--seed", "3", "--json", js); code != 0 {
			t.Fatalf("run: %d\n%s%s", code, out, stderr)
		}
		var d results.Document
		if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &d) != nil {
			t.Fatalf("read %s: %v", js, err)
		}
		for _, tm := range d.Timings {
			if tm.Stream == 0 && tm.Name == "Q1" {
				q1 = append(q1, 1000*tm.Seconds)
			}
		}
	}
	// Across the two runs, each power-test query's time has its 95% interval: Student's t with
	// one degree of freedom, recomputed here from the runs' own timings.
	code, out, stderr := cairn(t, "results", "compare", "1,2", "2,1", "--results", store)
	if code != 0 || len(q1) != 2 {
		t.Fatalf("compare: %d %s (Q1 timings %v)", code, stderr, q1)
	}
	mean := (q1[0] + q1[1]) / 2
	sd := math.Abs(q1[0]-q1[1]) / math.Sqrt2
	half := 12.706204736174707 * sd / math.Sqrt2 // t(0.975, 1)
	want := fmt.Sprintf("power-test times of A (95%%, Student's t over 2 runs): Q1 %s ms ±%.1f%%, Q2 ", summary.Thousands(mean), 100*half/mean)
	if mean < 100 {
		want = fmt.Sprintf("power-test times of A (95%%, Student's t over 2 runs): Q1 %.1f ms ±%.1f%%, Q2 ", mean, 100*half/mean)
	}
	for _, w := range []string{want, "QphH of A: "} {
		if !strings.Contains(out, w) {
			t.Errorf("compare of two TPC-H runs lacks %q:\n%s", w, out)
		}
	}
	code, out, stderr = cairn(t, "results", "show", "1", "--results", store)
	if code != 0 {
		t.Fatalf("show: %d %s", code, stderr)
	}
	for _, want := range []string{"95% interval: none (one power run)", "QphH@0.01GB = ", "Power@0.01GB = ", "Throughput@0.01GB = ", "geometric mean of the 22 queries", "Q22", "RF2", "TPC-H run on SQLite"} {
		if !strings.Contains(out, want) {
			t.Errorf("results show of a tpch run lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"per min", "planned 0 s", "mix %"} {
		if strings.Contains(out, bad) {
			t.Errorf("results show of a tpch run prints the TPC-C table (%q):\n%s", bad, out)
		}
	}
	dir := t.TempDir()
	for _, ids := range [][]string{{"1"}, {"1", "2"}} {
		html := filepath.Join(dir, "r.html")
		png := filepath.Join(dir, "png"+strings.Join(ids, "-"))
		args := append(append([]string{"report"}, ids...), "-o", html, "--png", png, "--results", store)
		code, out, stderr := cairn(t, args...)
		if code != 0 {
			t.Fatalf("%v: %d %s %s", args, code, out, stderr)
		}
		b, _ := os.ReadFile(html)
		for _, want := range []string{"tpch-power", "QphH@Size", "Nothing to draw"} {
			if got := strings.Contains(string(b), want); got != (want != "Nothing to draw") {
				t.Errorf("report %v: %q present %v", ids, want, got)
			}
		}
		files, _ := filepath.Glob(filepath.Join(png, "tpch-*.png"))
		want := 2 // the power test, and the throughput test's streams (one chart, or one per stream)
		if len(ids) > 1 {
			want = 1 + 3 // power, streams 1 and 2, the refresh stream
		}
		if len(files) != want {
			t.Errorf("report %v --png wrote %d TPC-H charts (%v), want %d", ids, len(files), files, want)
		}
		// The observers ran over the tests as over any run: each run's CPU and running threads.
		for _, kind := range []string{"cpu", "running"} {
			if files, _ := filepath.Glob(filepath.Join(png, "run-"+kind+"-*.png")); len(files) != len(ids) {
				t.Errorf("report %v --png wrote %d %s charts (%v), want one per run", ids, len(files), kind, files)
			}
		}
	}
	// Ctrl-C in the middle of a throughput test: stored, marked interrupted, listed so.
	cmd, _ := startUntil(t, cairnBinary(t), "stream 1", "tpch", "run", "--db", url, "--results", store, "--throughput", "--streams", "40")
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("interrupted tpch run: %v, want exit %d", err, ExitInterrupted)
	}
	code, out, _ = cairn(t, "results", "list", "--results", store)
	if code != 0 || !strings.Contains(out, "(interrupted)") {
		t.Errorf("the interrupted tpch run is not listed as such:\n%s", out)
	}
	code, out, _ = cairn(t, "results", "export", "3", "--results", store)
	if code != 0 || !strings.Contains(out, `"interrupted": true`) {
		t.Errorf("the interrupted tpch run is not stored with interrupted: true (exit %d)", code)
	}
}
