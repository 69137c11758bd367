package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/testutil"
)

func TestTPCHBadInput(t *testing.T) {
	dir := t.TempDir()
	none := "sqlite://" + dir + "/none.db"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tpch", "gen", "--sf", "0", "-o", dir}, "must be positive"},
		{[]string{"tpch", "gen", "--sf", "-1", "-o", dir}, "must be positive"},
		{[]string{"tpch", "gen", "--sf", "abc", "-o", dir}, "not a number"},
		{[]string{"tpch", "gen", "--sf", "1.5", "-o", dir}, "whole scale factors"},
		{[]string{"tpch", "gen", "--sf", "0.0005", "-o", dir}, "smallest"},
		{[]string{"tpch", "gen", "--sf", "0.01", "--tables", "lineitem,nosuch", "-o", dir}, `unknown table "nosuch"`},
		{[]string{"tpch", "gen", "--sf", "0.01", "--parts", "4", "--part", "5", "-o", dir}, "--part 5: is outside 1..4"},
		{[]string{"tpch", "gen", "--sf", "0.01", "--parts", "4", "--part", "0", "-o", dir}, "--part 0"},
		{[]string{"tpch", "gen", "--sf", "0.01", "--parts", "0", "-o", dir}, "--parts 0"},
		{[]string{"tpch", "prepare", "--db", "sqlite://" + dir + "/p.db", "--sf", "0"}, "must be positive"},
		{[]string{"tpch", "run", "--db", none}, "prepare"},
		{[]string{"tpch", "run", "--db", none, "--validate"}, "prepare"},
		{[]string{"tpch", "run", "--db", none, "--validate", "--power"}, "--validate runs alone"},
		{[]string{"tpch", "run", "--db", none, "--q11-fraction", "half"}, "--q11-fraction"},
		{[]string{"tpch", "nosuch"}, "unknown command"},
	}
	for _, c := range cases {
		code, _, stderr := cairn(t, c.args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, ExitUsage, stderr)
			continue
		}
		oneCleanLine(t, stderr)
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, c.want)
		}
	}
}

// TestTPCHGenFiles checks the command's files against the official dbgen's (the generator's own
// tests cover every table; this covers naming, --tables and --parts).
func TestTPCHGenFiles(t *testing.T) {
	ref := "../workload/tpch/testdata/official_sf0.01/"
	f, err := os.Open(ref + "nation.tbl.gz")
	if err != nil {
		t.Fatalf("no reference data: %v", err)
	}
	z, _ := gzip.NewReader(f)
	want, _ := io.ReadAll(z)
	f.Close()
	dir := t.TempDir()
	if code, out, stderr := cairn(t, "tpch", "gen", "--sf", "0.01", "--tables", "nation,supplier", "-o", dir); code != 0 {
		t.Fatalf("gen: %d\n%s\n%s", code, out, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, "nation.tbl"))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("nation.tbl differs from dbgen's (%v)", err)
	}
	// --updates writes dbgen's -U files; the generator's tests compare their content with dbgen's.
	if code, _, stderr := cairn(t, "tpch", "gen", "--sf", "0.01", "--tables", "region", "--updates", "2", "-o", dir); code != 0 {
		t.Fatalf("gen --updates: %s", stderr)
	}
	for _, n := range []string{"orders.tbl.u1", "lineitem.tbl.u2", "delete.2"} {
		if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.Size() == 0 {
			t.Errorf("gen --updates 2 did not write %s (%v)", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "lineitem.tbl")); err == nil {
		t.Fatal("--tables nation,supplier wrote lineitem.tbl")
	}
	whole, _ := os.ReadFile(filepath.Join(dir, "supplier.tbl"))
	var joined []byte
	for _, p := range []string{"1", "2", "3"} {
		if code, _, stderr := cairn(t, "tpch", "gen", "--sf", "0.01", "--tables", "supplier", "--parts", "3", "--part", p, "-o", dir); code != 0 {
			t.Fatalf("gen part %s: %s", p, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, "supplier.tbl."+p))
		if err != nil {
			t.Fatal(err)
		}
		joined = append(joined, b...)
	}
	if !bytes.Equal(joined, whole) || len(whole) == 0 {
		t.Fatal("supplier.tbl.1..3 joined differ from supplier.tbl")
	}
}

// TestTPCHOnEveryTarget prepares SF 0.01, validates the answers with both Q11 rules, runs the
// power and throughput tests with the refresh stream, and checks the stored document's figures.
func TestTPCHOnEveryTarget(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel() // the targets are independent servers and files: CI's time
			url := tg.URL(t)
			cairn(t, "tpch", "cleanup", "--db", url)
			t.Cleanup(func() { cairn(t, "tpch", "cleanup", "--db", url) })
			code, out, stderr := cairn(t, "tpch", "prepare", "--db", url, "--sf", "0.01")
			if code != 0 || !strings.Contains(out, "86,805 rows") {
				t.Fatalf("prepare: exit %d\n%s\n%s", code, out, stderr)
			}
			if code, out, _ := cairn(t, "tpch", "prepare", "--db", url, "--sf", "0.01"); code != 0 || !strings.Contains(out, "nothing to do") {
				t.Fatalf("second prepare: exit %d\n%s", code, out)
			}
			if code, _, stderr := cairn(t, "tpch", "prepare", "--db", url, "--sf", "0.1"); code != ExitUsage || !strings.Contains(stderr, "SF 0.01, not SF 0.1") {
				t.Fatalf("prepare --sf 0.1 over SF 0.01 data: exit %d %s", code, stderr)
			}
			if code, _, stderr := cairn(t, "tpch", "run", "--db", url, "--sf", "0.1", "--power"); code != ExitUsage || !strings.Contains(stderr, "prepared at SF 0.01") {
				t.Fatalf("run --sf 0.1 on SF 0.01 data: exit %d %s", code, stderr)
			}
			for _, rule := range []string{"spec", "fixed"} {
				code, out, stderr := cairn(t, "tpch", "run", "--db", url, "--validate", "--q11-fraction", rule)
				if code != 0 || !strings.Contains(out, "all 22 answers match") || strings.Count(out, " ok ") != 22 {
					t.Fatalf("validate (Q11 %s): exit %d\n%s\n%s", rule, code, out, stderr)
				}
			}
			js := filepath.Join(t.TempDir(), "run.json")
			code, out, stderr = cairn(t, "tpch", "run", "--db", url, "--seed", "5", "--json", js)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
			}
			for _, s := range []string{"Power@0.01GB = ", "Throughput@0.01GB = ", "QphH@0.01GB = ", "not an audited TPC-H result", "update sets [1 2 3]"} {
				if !strings.Contains(out, s) {
					t.Errorf("run output lacks %q:\n%s", s, out)
				}
			}
			var doc struct {
				Result struct {
					Power, Throughput, QphH *float64
					GeomeanS                *float64 `json:"geomean_s"`
				}
				Transactions map[string]struct{ Count, Errors int64 }
				Timings      []struct {
					Stream int
					Name   string
				}
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			r := doc.Result
			if r.Power == nil || r.Throughput == nil || r.QphH == nil || r.GeomeanS == nil || *r.QphH <= 0 {
				t.Fatalf("result lacks figures: %s", b[:min(len(b), 400)])
			}
			// QphH is the geometric mean of the other two (clause 5.4.3).
			if q := *r.QphH; q*q < 0.999**r.Power**r.Throughput || q*q > 1.001**r.Power**r.Throughput {
				t.Errorf("QphH %g is not sqrt(%g × %g)", q, *r.Power, *r.Throughput)
			}
			power := 0
			for _, tm := range doc.Timings {
				if tm.Stream == 0 {
					power++
				}
			}
			if power != 24 {
				t.Errorf("power test timed %d intervals, want 24 (RF1, 22 queries, RF2)", power)
			}
			if n := len(doc.Timings) - power; n != 2*22+2*2 {
				t.Errorf("throughput test timed %d intervals, want 48 (2 streams × 22, 2 refresh pairs)", n)
			}
			if q := doc.Transactions["Q1"]; q.Count != 3 || q.Errors != 0 {
				t.Errorf("Q1 ran %d times with %d errors, want 3 and 0", q.Count, q.Errors)
			}
			// The refresh sets changed the data: validation must now refuse.
			if code, _, stderr := cairn(t, "tpch", "run", "--db", url, "--validate"); code != ExitUsage || !strings.Contains(stderr, "refresh sets") {
				t.Errorf("validate after refresh: exit %d %s", code, stderr)
			}
		})
	}
}

// startUntil starts bin with args and returns once a line of its output contains marker; the
// process is still running.
func startUntil(t *testing.T, bin, marker string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	var out bytes.Buffer
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		seen := false
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if !seen && strings.Contains(sc.Text(), marker) {
				seen = true
				found <- true
			}
		}
		if !seen {
			found <- false
		}
	}()
	select {
	case ok := <-found:
		if !ok {
			cmd.Wait()
			t.Fatalf("%v ended before printing %q:\n%s", args, marker, out.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%v did not print %q in 2 minutes:\n%s", args, marker, out.String())
	}
	return cmd, &out
}

// A power test killed (SIGKILL) after RF1 leaves update set 1 half applied; the next run finishes
// it, says so, and runs; no update set is ever applied twice and the order count is as prepared.
func TestTPCHRefreshSurvivesAKill(t *testing.T) {
	bin := cairnBinary(t)
	for _, tg := range testutil.Targets() {
		if tg.Name == "mysql" {
			continue // the journal is the same code on every target; SQLite and PostgreSQL were the reported ones
		}
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			cairn(t, "tpch", "cleanup", "--db", url)
			t.Cleanup(func() { cairn(t, "tpch", "cleanup", "--db", url) })
			if code, out, stderr := cairn(t, "tpch", "prepare", "--db", url, "--sf", "0.01"); code != 0 {
				t.Fatalf("prepare: %d\n%s\n%s", code, out, stderr)
			}
			orders := func() int {
				_, c := testutil.Open(t, url)
				var n int
				if err := c.QueryRow(context.Background(), "SELECT COUNT(*) FROM orders").Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			before := orders()
			cmd, _ := startUntil(t, bin, "RF1", "tpch", "run", "--db", url, "--power", "--no-store", "--seed", "1")
			cmd.Process.Kill()
			cmd.Wait()
			code, out, stderr := cairn(t, "tpch", "run", "--db", url, "--power", "--no-store", "--seed", "1")
			if code != 0 {
				t.Fatalf("run after the kill: exit %d\n%s\n%s", code, out, stderr)
			}
			if !strings.Contains(out, "update set 1 was half applied") {
				t.Errorf("the run after the kill does not say what it repaired:\n%s", out)
			}
			if !strings.Contains(out, "dbgen update sets [2]") {
				t.Errorf("the run after the kill did not go on with update set 2:\n%s", out)
			}
			if n := orders(); n != before {
				t.Errorf("orders: %d after two refresh pairs, %d after prepare", n, before)
			}
		})
	}
}

// TestTPCHRunObservesStacks: 'cairn tpch run --observe stacks' on PostgreSQL prints each timing
// as it ends, in the lines it always printed, and stores what an engine run stores: per-core CPU
// in the time series, the server's CPU, its waits, the running threads and the server's stacks.
func TestTPCHRunObservesStacks(t *testing.T) {
	url := testutil.PG(t)
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		t.Skip("perf sampling another user's server needs perf installed and root")
	}
	cairn(t, "tpch", "cleanup", "--db", url)
	t.Cleanup(func() { cairn(t, "tpch", "cleanup", "--db", url) })
	if code, out, stderr := cairn(t, "tpch", "prepare", "--db", url, "--sf", "0.01"); code != 0 {
		t.Fatalf("prepare: exit %d\n%s\n%s", code, out, stderr)
	}
	js := filepath.Join(t.TempDir(), "run.json")
	// Both tests: SF 0.01's power test alone can be over before perf, started on a busy host,
	// takes its first samples.
	code, out, stderr := cairn(t, "tpch", "run", "--db", url, "--seed", "5", "--observe", "stacks", "--stacks-hz", "999", "--json", js, "--no-store")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	if n := len(regexp.MustCompile(`(?m)^  power     (Q[0-9]+ |RF[12]) +[0-9]+\.[0-9]{3} s  [0-9]+ rows?$`).FindAllString(out, -1)); n != 24 {
		t.Errorf("run printed %d timing lines of the power test, want 24:\n%s", n, out)
	}
	var doc struct {
		Window     struct{ Seconds float64 }
		Timeseries []struct {
			Txns  int64
			Cores [][6]float64
		}
		Server struct {
			CPUSeconds float64 `json:"cpu_seconds"`
		}
		Waits struct{ Events []struct{ Name string } }
		Extra struct {
			Observations struct {
				Stacks struct {
					Samples   int64
					Functions []struct{ Name string }
					Note      string
				}
				Running struct{ Series []struct{ Samples int64 } } `json:"running-threads"`
			}
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var timed int64
	cores := 0
	for _, s := range doc.Timeseries {
		timed += s.Txns
		cores = max(cores, len(s.Cores))
	}
	// 24 timings of the power test, 2 streams × 22 queries and 2 refresh pairs of the throughput test
	if len(doc.Timeseries) == 0 || timed != 24+48 || cores == 0 {
		t.Errorf("time series of %d seconds counts %d timings with %d cores: want 72 timings and per-core CPU", len(doc.Timeseries), timed, cores)
	}
	t.Logf("the tests took %.2f s", doc.Window.Seconds)
	if doc.Server.CPUSeconds <= 0 {
		t.Errorf("server CPU %g s", doc.Server.CPUSeconds)
	}
	if len(doc.Waits.Events) == 0 {
		t.Error("no waits stored")
	}
	if st := doc.Extra.Observations.Stacks; st.Samples <= 0 || len(st.Functions) == 0 {
		t.Errorf("stacks: %d samples, %d functions (%s)", st.Samples, len(st.Functions), st.Note)
	}
	if len(doc.Extra.Observations.Running.Series) == 0 {
		t.Errorf("no running threads stored: %s", b[:min(len(b), 300)])
	}
}
