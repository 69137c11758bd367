package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload/tpcc"
)

// cairn runs the command line in-process and returns exit code, stdout and stderr.
func cairn(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// oneCleanLine asserts stderr is a single "cairn: …" line with no stack trace.
func oneCleanLine(t *testing.T, stderr string) {
	t.Helper()
	s := strings.TrimSpace(stderr)
	if strings.Count(s, "\n") > 0 || !strings.HasPrefix(s, "cairn: ") {
		t.Errorf("want one line starting with 'cairn: ', got %q", stderr)
	}
	if strings.Contains(s, "goroutine") || strings.Contains(s, "panic") {
		t.Errorf("stack trace in %q", stderr)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tpcc", "run", "--db", "foo"}, ExitUsage, "is not a URL"},
		{[]string{"tpcc", "run", "--db", "oracle://h/db"}, ExitUsage, "unknown scheme"},
		{[]string{"tpcc", "run", "--db", "postgres://u:p@h:12x/db"}, ExitUsage, "port"},
		{[]string{"tpcc", "run", "--db", "postgres://u:p@127.0.0.1:1/db"}, ExitFailed, "127.0.0.1:1"},
		{[]string{"tpcc", "run", "--db", "mysql://u:p@127.0.0.1:1/db"}, ExitFailed, "127.0.0.1:1"},
		{[]string{"tpcc", "run", "--vu", "0"}, ExitUsage, "--vu 0"},
		{[]string{"tpcc", "run", "--duration", "-1m"}, ExitUsage, "negative"},
		{[]string{"tpcc", "run", "--duration", "99999999999"}, ExitUsage, "duration 99999999999: too large: the longest duration is 2562047h47m16s"},
		{[]string{"tpcc", "run", "--duration", "9999999999h"}, ExitUsage, "too large: the longest duration is 2562047h47m16s"},
		{[]string{"tpcc", "run", "--rampup", "soon"}, ExitUsage, "not a duration"},
		{[]string{"tpcc", "run", "--duration", "0"}, ExitUsage, "--duration"},
		{[]string{"tpcc", "prepare", "--warehouses", "0", "--db", "sqlite://" + dir + "/w.db"}, ExitUsage, "--warehouses 0"},
		{[]string{"tpcc", "run", "--db", "sqlite://" + dir + "/none.db"}, ExitUsage, "prepare"},
		{[]string{"tpcc", "check", "--db", "sqlite://" + dir + "/none.db"}, ExitUsage, "prepare"},
		{[]string{"tpcc", "run", "--mode", "fast"}, ExitUsage, "--mode"},
		{[]string{"tpcc", "nosuch"}, ExitUsage, "unknown command"},
		{[]string{"nosuch"}, ExitUsage, "unknown command"},
		{[]string{"tpcc", "run", "--no-such-flag"}, ExitUsage, "unknown flag"},
		{[]string{"restore", "--db", "ftp://x"}, ExitUsage, `--db "ftp://x": unknown scheme "ftp"`},
		{[]string{"results", "list", "--workload", "nosuch", "--results", dir + "/r.db"}, ExitUsage, `--workload "nosuch": use fanout, oltp, tpcb, tpcc, tpch`},
	}
	for _, c := range cases {
		code, _, stderr := cairn(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, stderr)
			continue
		}
		oneCleanLine(t, stderr)
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, c.want)
		}
	}
	// Running before prepare must not leave an empty database file behind.
	if _, err := os.Stat(dir + "/none.db"); err == nil {
		t.Error("run on a missing SQLite file created it")
	}
}

func TestBadLogin(t *testing.T) {
	for _, tc := range testutil.Servers() {
		t.Run(tc.Name, func(t *testing.T) {
			u := tc.URL(t)
			wrongPass := strings.Replace(u, ":cairn@", ":wrong@", 1)
			code, _, stderr := cairn(t, "tpcc", "run", "--db", wrongPass)
			if code != ExitFailed || !strings.Contains(stderr, "login failed") {
				t.Errorf("wrong password: exit %d, %q", code, stderr)
			}
			oneCleanLine(t, stderr)
			i := strings.LastIndex(u, "/")
			noDB := u[:i] + "/cairn_no_such_db"
			code, _, stderr = cairn(t, "tpcc", "run", "--db", noDB)
			if code != ExitFailed || !strings.Contains(stderr, "does not exist") {
				t.Errorf("missing database: exit %d, %q", code, stderr)
			}
			oneCleanLine(t, stderr)
		})
	}
}

// prepared prepares one warehouse on url (after dropping whatever was there) and registers a
// cleanup; it returns what prepare printed.
func prepared(t *testing.T, url string, extra ...string) string {
	t.Helper()
	if code, _, stderr := cairn(t, "tpcc", "cleanup", "--db", url); code != 0 && !strings.HasPrefix(url, "sqlite") {
		t.Fatalf("cleanup: %d %s", code, stderr)
	}
	args := append([]string{"tpcc", "prepare", "--db", url, "-w", "1", "--seed", "7"}, extra...)
	if code, out, stderr := cairn(t, args...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s\n%s", code, out, stderr)
	} else {
		t.Cleanup(func() { cairn(t, "tpcc", "cleanup", "--db", url) })
		return out + stderr
	}
	return ""
}

// readDocument reads a result document written by --json or results export, typed.
func readDocument(t *testing.T, path string) *results.Document {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d results.Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func readDoc(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// field follows a dotted path in a decoded JSON document.
func field(t *testing.T, m map[string]any, path string) any {
	t.Helper()
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("result document: %s: %q is not an object", path, k)
		}
		if cur, ok = mm[k]; !ok {
			t.Fatalf("result document lacks %s", path)
		}
	}
	return cur
}

func TestTPCCEndToEnd(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel() // the targets are independent servers and files: CI's time
			url := tg.URL(t)
			if tg.Name == "sqlite" {
				// SQLite has no partitioning: prepare says it left the tables whole.
				if out := prepared(t, url, "--partition"); !strings.Contains(out, "--partition: SQLite has no table partitioning") {
					t.Errorf("prepare --partition on SQLite does not say it did not partition:\n%s", out)
				}
			} else {
				prepared(t, url)
			}

			// Prepare again on a complete schema: says so, exit 0, touches nothing.
			code, out, _ := cairn(t, "tpcc", "prepare", "--db", url, "-w", "1")
			if code != 0 || !strings.Contains(out, "already holds a complete TPC-C schema") {
				t.Fatalf("second prepare: exit %d, %q", code, out)
			}

			modes := []string{"sql"}
			if tg.Name != "sqlite" {
				modes = append(modes, "procs")
			}
			for _, mode := range modes {
				js := filepath.Join(t.TempDir(), "r.json")
				code, out, stderr := cairn(t, "tpcc", "run", "--db", url, "--vu", "3", "--rampup", "2s",
					"--duration", "6s", "--progress", "2s", "--mode", mode, "--seed", "99", "--json", js)
				if code != 0 {
					t.Fatalf("run --mode %s: exit %d\n%s\n%s", mode, code, out, stderr)
				}
				if !strings.Contains(out, "TEST RESULT : System achieved ") {
					t.Fatalf("no TEST RESULT line:\n%s", out)
				}
				if !strings.Contains(stderr, "window") || !strings.Contains(stderr, "NOPM") {
					t.Errorf("no progress lines on stderr:\n%s", stderr)
				}
				d := readDoc(t, js)
				for _, p := range []string{"result.nopm", "result.tpm", "result.tpm_source", "window.seconds", "vu", "mode",
					"target.kind", "target.version", "client.cpu_us_per_txn", "seed", "cairn.version", "config.vu",
					"config.options.mode", "extra.tpcc.warehouses", "window.in_flight.at_end", "window.in_flight.oldest_ms"} {
					field(t, d, p)
				}
				for _, tx := range tpcc.TxnNames {
					for _, p := range []string{"count", "errors", "retries", "latency_ms.p50", "latency_ms.p90", "latency_ms.p95",
						"latency_ms.p99", "latency_ms.p999", "latency_ms.max", "latency_ms.mean"} {
						field(t, d, "transactions."+tx+"."+p)
					}
				}
				if n := field(t, d, "result.nopm").(float64); n <= 0 {
					t.Errorf("mode %s: NOPM %v", mode, n)
				}
				// Before PostgreSQL 15 no session can be made to publish its counts at the edges:
				// TPM is approximate, and says so (docs/tpcc.md).
				if v := field(t, d, "target.version").(string); tg.Name == "postgres" && !target.VersionAtLeast(v, "15") {
					field(t, d, "result.tpm_approx")
					if !strings.Contains(out, "~TPM") && !strings.Contains(out, "approximate") {
						t.Errorf("PostgreSQL %s: the summary does not say TPM is approximate:\n%s", v, out)
					}
				}
				// On PostgreSQL each reading waits for the transactions in flight at its edge, whose
				// latency is in the window's figures (start) or after_window's (end).
				slowest := 0.0
				for _, tx := range tpcc.TxnNames {
					slowest = max(slowest, field(t, d, "transactions."+tx+".latency_ms.max").(float64))
					if a, ok := d["transactions"].(map[string]any)[tx].(map[string]any)["after_window"].(map[string]any); ok {
						slowest = max(slowest, a["latency_ms"].(map[string]any)["max"].(float64))
					}
				}
				if w := field(t, d, "window.seconds").(float64); w < 5.9-slowest/1000 || w > 6.5+slowest/1000 {
					t.Errorf("window.seconds %.3f for a 6 s window (slowest transaction %.0f ms)", w, slowest)
				}
				if got := field(t, d, "mode").(string); got != mode {
					t.Errorf("mode %q, want %q", got, mode)
				}
				if s := field(t, d, "seed").(float64); s != 99 {
					t.Errorf("seed %v", s)
				}
				no := field(t, d, "transactions.new_order.count").(float64)
				pay := field(t, d, "transactions.payment.count").(float64)
				if no < 10 || pay < 10 {
					t.Errorf("too few transactions: new_order %v payment %v", no, pay)
				}
				// The database's count (NOPM) and the client's committed New-Orders agree, up to the
				// transactions in flight at the two ends of the window.
				nopm := field(t, d, "result.nopm").(float64)
				noRb := field(t, d, "transactions.new_order.rollbacks").(float64)
				clientNOPM := (no - noRb) / (field(t, d, "window.seconds").(float64) / 60)
				if diff := clientNOPM - nopm; diff > 0.1*nopm || diff < -0.1*nopm {
					t.Errorf("NOPM %v from the database, %.0f from the client's count", nopm, clientNOPM)
				}
				code, out, stderr = cairn(t, "tpcc", "check", "--db", url, "--all")
				if code != 0 {
					t.Fatalf("check after --mode %s: exit %d\n%s%s", mode, code, out, stderr)
				}
			}

			code, _, _ = cairn(t, "tpcc", "cleanup", "--db", url)
			if code != 0 {
				t.Fatal("cleanup failed")
			}
			code, _, stderr := cairn(t, "tpcc", "run", "--db", url, "--duration", "1s")
			if code != ExitUsage || !strings.Contains(stderr, "prepare") {
				t.Errorf("run after cleanup: exit %d %q", code, stderr)
			}
		})
	}
}

// TestRestartDuringRun restarts the server in the middle of the window: the run goes on, VUs
// reconnect, errors are counted, NOPM is reported, and the data stays consistent. The window
// outlasts a slow restart: MySQL 8's crash recovery took 15 s on the loaded 2-core host.
func TestRestartDuringRun(t *testing.T) {
	for _, tc := range testutil.Servers() {
		t.Run(tc.Name, func(t *testing.T) {
			url := tc.URL(t)
			restart := testutil.Restart(t, tc.Name)
			prepared(t, url)
			js := filepath.Join(t.TempDir(), "r.json")
			done := make(chan error, 1)
			go func() {
				time.Sleep(4 * time.Second)
				out, err := exec.Command("bash", "-c", restart).CombinedOutput()
				if err != nil {
					err = &exec.Error{Name: string(out), Err: err}
				}
				done <- err
			}()
			code, out, stderr := cairn(t, "tpcc", "run", "--db", url, "--vu", "3", "--rampup", "2s", "--duration", "24s",
				"--progress", "2s", "--json", js)
			if err := <-done; err != nil {
				t.Fatalf("restart command failed: %v", err)
			}
			if code != 0 {
				t.Fatalf("run across a restart: exit %d\n%s\n%s", code, out, stderr)
			}
			if !strings.Contains(out, "TEST RESULT : System achieved ") {
				t.Fatalf("no result after the restart:\n%s", out)
			}
			d := readDoc(t, js)
			if n := field(t, d, "result.nopm").(float64); n <= 0 {
				t.Errorf("NOPM %v after a restart", n)
			}
			if r := field(t, d, "client.reconnects").(float64); r < 1 {
				t.Errorf("no reconnects counted across a restart:\n%s", out)
			}
			errs := field(t, d, "errors").(map[string]any)
			if len(errs) == 0 {
				t.Errorf("no errors counted across a restart:\n%s", out)
			}
			if !strings.Contains(out, "errors in the window") {
				t.Errorf("errors not printed:\n%s", out)
			}
			// The run must have gone on after the restart: transactions in the window's seconds
			// after the outage ended (MariaDB 11.4 took 23 s to come back on a host at load 20,
			// leaving less than a second of the window: then only the run going on is checked).
			series := field(t, d, "timeseries").([]any)
			back := 0.0
			if o, ok := d["outage"].(map[string]any); ok {
				for _, sp := range o["spans"].([]any) {
					back = max(back, sp.(map[string]any)["to"].(float64))
				}
			}
			var after, resumed float64
			for _, x := range series {
				x := x.(map[string]any)
				if x["window"] == true && x["t"].(float64)-1 >= back {
					after++
					resumed += x["txns"].(float64)
				}
			}
			switch {
			case after == 0:
				t.Logf("the outage lasted until %.1f s of the run, past the window's last whole second: reconnection not checked", back)
			case resumed == 0:
				t.Errorf("no transactions in the %.0f s of the window after the outage ended at %.1f s: VUs did not reconnect", after, back)
			}
			// Wait for the server, then check consistency.
			var code2 int
			var out2, err2 string
			for i := 0; i < 30; i++ {
				code2, out2, err2 = cairn(t, "tpcc", "check", "--db", url, "--all")
				if code2 == 0 || !strings.Contains(err2, "cannot connect") {
					break
				}
				time.Sleep(time.Second)
			}
			if code2 != 0 {
				t.Fatalf("check after a restart: exit %d\n%s%s", code2, out2, err2)
			}
		})
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// cairnBinary builds cairn once per test run, for the tests that need a real process (signals, other
// users' permissions).
func cairnBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-bin")
		if err != nil {
			binErr = err
			return
		}
		os.Chmod(dir, 0o755) // tests run it as another user too
		binPath = filepath.Join(dir, "cairn")
		if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binPath, "../../cmd/cairn").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// TestInterrupt sends SIGINT to a real process: it stops, prints and stores what it measured, exits 130.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	bin := cairnBinary(t)
	url := "sqlite://" + dir + "/i.db"
	if out, err := exec.Command(bin, "tpcc", "prepare", "--db", url, "--seed", "3").CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	js := filepath.Join(dir, "r.json")
	store := filepath.Join(dir, "results.db")
	cmd := exec.Command(bin, "tpcc", "run", "--db", url, "--vu", "2", "--rampup", "1s", "--duration", "10m", "--json", js, "--results", store)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("exit: %v, want %d\n%s", err, ExitInterrupted, out.String())
	}
	if !strings.Contains(out.String(), "TEST RESULT : System achieved") || !strings.Contains(out.String(), "interrupted") {
		t.Errorf("no summary after Ctrl-C:\n%s", out.String())
	}
	d := readDoc(t, js)
	if field(t, d, "interrupted") != true {
		t.Error("document not marked interrupted")
	}
	if w := field(t, d, "window.seconds").(float64); w < 1 || w > 5 {
		t.Errorf("window.seconds %.2f, want the ~3 s measured before the interrupt", w)
	}
	// What was measured is stored too, marked interrupted, under the id the document carries.
	code, list, _ := cairn(t, "results", "list", "--results", store)
	if code != 0 || !strings.Contains(list, "(interrupted)") || field(t, d, "id") != "1" {
		t.Errorf("interrupted run not stored as result 1: exit %d\n%s", code, list)
	}
}
