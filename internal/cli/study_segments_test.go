package cli

import (
	"encoding/csv"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// segmentRows counts the lines of 'results compare STUDY' in its per-segment table for a VU count.
func segmentRows(out string, vu string) int {
	n := 0
	in := false
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "per live segment") {
			in = true
			continue
		}
		if in && strings.TrimSpace(line) == "" {
			break
		}
		if f := strings.Fields(line); in && len(f) > 3 && f[0] == "A" && f[1] == vu {
			n++
		}
	}
	return n
}

// TestStudyLiveSegments is the acceptance of figures per live segment on MariaDB: the live study
// at 10 s windows stores 5 segments a run, whose spans are the window's seconds exactly, which
// span the window and count its transactions exactly, so their length-weighted TPS is the run's;
// 'results compare' prints 5 segment rows per VU count and the CSV has a segment column.
func TestStudyLiveSegments(t *testing.T) {
	url := testutil.MySQL(t)
	fresh(t, "oltp", url)
	store := filepath.Join(t.TempDir(), "results.db")
	js := filepath.Join(t.TempDir(), "study.json")
	code, out, stderr := cairn(t, "study", "run", "../../studies/ci/spin-wait-delay-live.yaml", "--set", "db="+url,
		"--set", "duration=10s", "--results", store, "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	st := readStudyDoc(t, js)
	for _, d := range st.Runs() {
		if len(d.Segments) != 5 {
			t.Fatalf("run %s: %d segments, want 5", d.ID, len(d.Segments))
		}
		for i, g := range d.Segments {
			want := "innodb_spin_wait_delay=" + []string{"6", "12", "24", "48", "96"}[i]
			// A segment is measured by the ticks that lie (three quarters or more) in its span
			// after the settling second. A 2 s segment leaves one such second, which a busy
			// host's late ticks can straddle: then it has no figures, and says so with 0 s.
			settled := false
			prev := 0.0
			for _, x := range d.Series {
				if x.Window && min(x.T, g.To)-max(prev, g.From+g.SettleSeconds) >= 0.75*(x.T-prev) {
					settled = true
				}
				prev = x.T
			}
			if g.Label() != want || settled != (g.Seconds > 0) || settled != (g.TPS > 0) {
				t.Errorf("run %s segment %d: %s, %v s, %v TPS (want %s, measured: %v)", d.ID, i+1, g.Label(), g.Seconds, g.TPS, want, settled)
			}
			if !settled {
				t.Logf("run %s segment %d: no tick of the series lay in its settled span %.3f..%.3f: no figures", d.ID, i+1, g.From+g.SettleSeconds, g.To)
			}
		}
		// The segments' spans partition the window's seconds of the time series: together they
		// are every window second once, its transactions and its length, exactly. The window's
		// seconds span the window and count its transactions, exactly.
		var spanTxns, seriesTxns, runTxns int64
		var spanSec, first, last, prev float64
		seen := false
		for _, g := range d.Segments {
			spanTxns += g.SpanTxns
			spanSec += g.SpanSeconds
		}
		for _, x := range d.Series {
			if x.Window {
				if !seen {
					first, seen = prev, true
				}
				last = x.T
				seriesTxns += x.Txns
			}
			prev = x.T
		}
		for _, tx := range d.Txns {
			runTxns += tx.Count
		}
		if spanTxns != seriesTxns || math.Abs(spanSec-(last-first)) > 1e-6 {
			t.Errorf("run %s: the segments span %d transactions over %.3f s, the window's seconds %d over %.3f s", d.ID, spanTxns, spanSec, seriesTxns, last-first)
		}
		w, r := d.Window.ClientSeconds, d.Window.RampupSeconds
		if seriesTxns != runTxns || math.Abs(first-r) > 0.0005 || math.Abs(last-(r+w)) > 0.0005 {
			t.Errorf("run %s: the window's seconds count %d transactions over %.3f..%.3f s, the window %d over %.3f..%.3f s", d.ID, seriesTxns, first, last, runTxns, r, r+w)
		}
		// So their length-weighted TPS is the run's, but for the series' clock in milliseconds.
		if got, run := results.WeightedTPS(d.Segments), *d.Result.TPS; math.Abs(got-run) > run*0.001/(w-0.001) {
			t.Errorf("run %s: length-weighted segment TPS %.3f, run %.3f", d.ID, got, run)
		}
	}
	code, out, _ = cairn(t, "results", "compare", st.ID, "--results", store)
	for _, vu := range []string{"2", "4"} {
		if n := segmentRows(out, vu); code != 0 || n != 5 {
			t.Errorf("compare STUDY: %d segment rows at %s VUs, want 5 (exit %d)\n%s", n, vu, code, out)
		}
	}
	// The study has no one figure: its runs' mix the live values.
	code, out, _ = cairn(t, "results", "list", "--results", store)
	if code != 0 || !strings.Contains(out, "per live segment: compare "+st.ID) || strings.Contains(out, " TPS ") {
		t.Errorf("results list shows a figure for the live study:\n%s", out)
	}
	code, out, _ = cairn(t, "results", "export", st.ID, "--format", "csv", "--results", store)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil {
		t.Fatalf("export csv: exit %d, %v", code, err)
	}
	col := -1
	names := map[string]bool{}
	for i, h := range recs[0] {
		if h == "segment" {
			col = i
		}
		if names[h] {
			t.Errorf("export csv: column %q twice", h)
		}
		names[h] = true
	}
	segs := 0
	for _, r := range recs[1:] {
		if col >= 0 && r[col] != "all" {
			segs++
		}
	}
	if col < 0 || segs != 10 || len(recs) != 13 {
		t.Errorf("export csv: segment column %d, %d segment rows of %d (want 10 of 12)\n%s", col, segs, len(recs)-1, out)
	}
}

// TestStudyLiveSegmentsPG: tpcb-like with synchronous_commit set off live at 50% of the window
// shows the two segments apart, each with its value and its own figures.
func TestStudyLiveSegmentsPG(t *testing.T) {
	url := testutil.PG(t)
	fresh(t, "tpcb", url)
	store := filepath.Join(t.TempDir(), "results.db")
	js := filepath.Join(t.TempDir(), "study.json")
	code, out, stderr := cairn(t, "study", "run", "../../studies/ci/postgres-synchronous-commit-live.yaml", "--set", "db="+url,
		"--results", store, "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	st := readStudyDoc(t, js)
	d := st.Runs()[0]
	if len(d.Segments) != 2 || d.Segments[0].Label() != "synchronous_commit=on" || d.Segments[1].Label() != "synchronous_commit=off" ||
		d.Segments[0].TPS <= 0 || d.Segments[1].TPS <= 0 {
		t.Fatalf("segments %+v", d.Segments)
	}
	t.Logf("synchronous_commit on: %.0f TPS, off: %.0f TPS", d.Segments[0].TPS, d.Segments[1].TPS)
	// PostgreSQL's waits are sampled: each segment's settled part has the samples taken in it,
	// without progress lines.
	for i := 1; i <= 2; i++ {
		ws := results.WaitsOfSegment(d, i)
		if ws == nil || ws.Samples <= 0 || ws.Samples > d.Waits.Samples || len(ws.Events) == 0 || ws.Seconds < 1 {
			t.Errorf("segment %d: waits %+v (the window's samples %d)", i, ws, d.Waits.Samples)
		}
	}
	code, out, _ = cairn(t, "results", "compare", st.ID, "--results", store)
	if n := segmentRows(out, "2"); code != 0 || n != 2 || !strings.Contains(out, "synchronous_commit=off") {
		t.Errorf("compare STUDY: %d segment rows, want 2 (exit %d)\n%s", n, code, out)
	}
}

// TestSetDBExpandsVariables: '--set db=…${VAR}' expands VAR from the environment as the study
// file's own db key does (target.ExpandURL); the value never shows; an unset VAR is one line, exit 2.
func TestSetDBExpandsVariables(t *testing.T) {
	raw := testutil.MySQL(t)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" {
		t.Skip("the test server's URL has no password to take from the environment")
	}
	withVar := strings.Replace(raw, ":"+pw+"@", ":${CAIRN_TEST_SET_PASSWORD}@", 1)
	t.Setenv("CAIRN_TEST_SET_PASSWORD", pw)
	code, out, stderr := cairn(t, "study", "plan", "../../studies/ci/spin-wait-delay-live.yaml", "--set", "db="+withVar)
	if code != 0 || !strings.Contains(out, "innodb_spin_wait_delay") || strings.Contains(out+stderr, pw+"@") {
		t.Errorf("plan with --set db=…${VAR}: exit %d\n%s%s", code, out, stderr)
	}
	os.Unsetenv("CAIRN_TEST_SET_PASSWORD")
	code, _, stderr = cairn(t, "study", "plan", "../../studies/ci/spin-wait-delay-live.yaml", "--set", "db="+withVar)
	if code != 2 || !strings.Contains(stderr, "${CAIRN_TEST_SET_PASSWORD} is not set") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("plan with an unset ${VAR}: exit %d %s", code, stderr)
	}
}

// TestShippedStudiesAsOriginals holds two shipped studies to what their originals did and their
// comments say: point-select-binding binds cairn (client_cpus) beside the server and varies the
// schema, 1 table against 8, and the MySQL 8 spin-wait study prepares the partitioned schema its
// original used and the unpartitioned one, partitioned first.
func TestShippedStudiesAsOriginals(t *testing.T) {
	t.Setenv("CAIRN_PASSWORD", "cairn")
	ps, err := study.ReadFile("../../studies/point-select-binding.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps.ClientCPUs) == 0 || ps.ClientCPUs[0] == "" || len(ps.ServerCPUs) < 2 {
		t.Errorf("point-select-binding: client CPUs %q, server CPUs %q", ps.ClientCPUs, ps.ServerCPUs)
	}
	if sf := ps.SchemaFactors(); len(sf) != 1 || sf[0].Name != "options.tables" || fmt.Sprint(sf[0].Values) != "[1 8]" {
		t.Errorf("point-select-binding: schema factors %+v, want options.tables 1 and 8", sf)
	}
	for _, f := range []string{"../../studies/mysql8-spin-wait-pause-multiplier.yaml", "../../studies/ci/mysql8-spin-wait-pause-multiplier.yaml"} {
		m8, err := study.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sf := m8.SchemaFactors()
		if m8.Spec.Prepare == nil || len(sf) != 1 || sf[0].Name != "prepare.partition" || fmt.Sprint(sf[0].Values) != "[true false]" {
			t.Errorf("%s does not prepare the original's partitioned schema and then the unpartitioned one: %+v", f, sf)
		}
	}
}
