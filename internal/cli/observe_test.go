package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/undo"
)

// cairn host reads every fact or says why not.
func TestHostCommand(t *testing.T) {
	code, out, stderr := cairn(t, "host", "--json")
	if code != 0 {
		t.Fatalf("host --json: exit %d %s", code, stderr)
	}
	var h map[string]any
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatal(err)
	}
	unknown, _ := h["unknown"].(map[string]any)
	for _, k := range []string{"hostname", "os", "kernel", "arch", "cpu_model", "threads", "cpu_governor", "smt",
		"frequency_driver", "pstate", "energy_performance_preference", "turbo", "cpuidle_driver", "transparent_hugepages",
		"transparent_hugepages_defrag", "clocksource", "virtualized", "pause"} {
		v, ok := h[k]
		if !ok {
			t.Errorf("cairn host --json lacks %s", k)
			continue
		}
		if v == "unknown" && (unknown == nil || unknown[k] == "") {
			t.Errorf("%s is unknown without a reason", k)
		}
	}
	if _, ok := h["numa"]; !ok && (unknown == nil || unknown["numa"] == nil) {
		t.Error("no NUMA nodes and no reason")
	}
	if p, _ := h["pause"].(map[string]any); runtime.GOARCH == "amd64" && (p == nil || p["ns"] == nil || p["tsc_ticks"] == nil) {
		t.Errorf("pause %v", h["pause"])
	}
	code, text, _ := cairn(t, "host")
	if code != 0 || !strings.Contains(text, "PAUSE: ") || !strings.Contains(text, "clocksource") {
		t.Errorf("host: exit %d\n%s", code, text)
	}
	for k, why := range unknown {
		if !strings.Contains(text, "unknown "+k+": "+why.(string)) {
			t.Errorf("host does not explain %s:\n%s", k, text)
		}
	}
}

// A run on PostgreSQL in which a session holds the row every transaction updates: the top wait
// is the lock, every second of the window has each core's CPU, the server's CPU is found, and a
// comparison with a run without the lock shows both runs' top waits.
func TestObservedRunPG(t *testing.T) {
	url := testutil.PG(t)
	cairn(t, "tpcb", "cleanup", "--db", url)
	t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	_, c := testutil.Open(t, url)
	ctx := context.Background()
	if err := c.Begin(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1"); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	lockedAt := time.Now()
	go func() {
		time.Sleep(3 * time.Second) // three quarters of the window
		c.Rollback(ctx)
		close(released)
	}()
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked.json")
	code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "-c", "2", "-T", "4s", "-P", "1s", "--json", locked)
	<-released
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "top waits: Lock:transactionid") {
		t.Errorf("the summary does not put the lock first:\n%s", out)
	}
	d := readDoc(t, locked)
	w := field(t, d, "waits").(map[string]any)
	evs := w["events"].([]any)
	if len(evs) == 0 || evs[0].(map[string]any)["name"] != "Lock:transactionid" || w["sampled"] != true || w["interval_ms"] != 100.0 {
		t.Errorf("waits %v", w)
	}
	if !strings.Contains(stderr, "waits Lock:transactionid") {
		t.Errorf("no progress line shows the lock:\n%s", stderr)
	}
	var doc results.Document
	if b, err := os.ReadFile(locked); err != nil || json.Unmarshal(b, &doc) != nil {
		t.Fatalf("read %s: %v", locked, err)
	}
	// The session history: both sessions in Lock in every sample while the row is held.
	lockedSeconds(t, &doc, lockedAt, 3*time.Second, "Lock", 2)
	if doc.Waits.History.Events["Lock:transactionid"] != "Lock" || !strings.HasPrefix(doc.Waits.History.Source, "pg_stat_activity") {
		t.Errorf("history events %v from %q", doc.Waits.History.Events, doc.Waits.History.Source)
	}
	inWindow := 0
	for _, s := range field(t, d, "timeseries").([]any) {
		sec := s.(map[string]any)
		if sec["window"] != true {
			continue
		}
		inWindow++
		cores, _ := sec["cores"].([]any)
		if len(cores) != runtime.NumCPU() || sec["cpu"] == nil {
			t.Errorf("second %v: %d cores of %d, host %v", sec["t"], len(cores), runtime.NumCPU(), sec["cpu"])
		}
	}
	if inWindow < 4 {
		t.Errorf("%d seconds of the window in the series", inWindow)
	}
	srv := field(t, d, "server").(map[string]any)
	if srv["where"] != "local" || srv["pid"] == nil || srv["cpu_us_per_txn"] == nil {
		t.Errorf("server %v", srv)
	}
	if !strings.Contains(out, "server CPU: ") || !strings.Contains(out, "host CPU: ") {
		t.Errorf("the summary lacks the server's or the host's CPU:\n%s", out)
	}

	code, out2, stderr := cairn(t, "tpcb", "run", "--db", url, "-c", "2", "-T", "2s")
	if code != 0 {
		t.Fatalf("second run: exit %d %s", code, stderr)
	}
	a, b := storedID.FindStringSubmatch(out), storedID.FindStringSubmatch(out2)
	if a == nil || b == nil {
		t.Fatalf("no stored ids:\n%s\n%s", out, out2)
	}
	code, cmp, stderr := cairn(t, "results", "compare", a[1], b[1])
	if code != 0 || !strings.Contains(cmp, "top waits") || !strings.Contains(cmp, "A: Lock:transactionid") || !strings.Contains(cmp, "B: ") ||
		!strings.Contains(cmp, "server CPU µs/txn") || !strings.Contains(cmp, "host CPU busy %") {
		t.Errorf("compare: exit %d %s\n%s", code, stderr, cmp)
	}
}

// On MariaDB, --waits instrument turns InnoDB's mutex and rw-lock instruments on for the run and
// restores them; the waits are performance_schema's, or, with it off, the result says so.
func TestMariaDBWaits(t *testing.T) {
	url := testutil.MySQL(t)
	oltpPrepared(t, url)
	tg, c := testutil.Open(t, url)
	_ = tg
	ctx := context.Background()
	var pfs int64
	if err := c.QueryRow(ctx, "SELECT @@performance_schema").Scan(&pfs); err != nil {
		t.Fatal(err)
	}
	enabled := func() int64 {
		var n int64
		if pfs == 1 {
			if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/synch/%/innodb/%' AND ENABLED = 'YES'").Scan(&n); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	before := enabled()
	js := filepath.Join(t.TempDir(), "w.json")
	code, out, stderr := cairn(t, "oltp", "run", "--db", url, "--workload", "read-write", "--vu", "2", "--duration", "3s", "--waits", "instrument", "--json", js)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	w := field(t, readDoc(t, js), "waits").(map[string]any)
	notes, _ := json.Marshal(w["notes"])
	if pfs != 1 {
		if !strings.Contains(string(notes), "performance_schema is off") || !strings.Contains(out, "performance_schema is off") {
			t.Errorf("performance_schema is off, and the result does not say so: %s\n%s", notes, out)
		}
		return
	}
	innodb := false
	for _, e := range w["events"].([]any) {
		name := e.(map[string]any)["name"].(string)
		if strings.HasPrefix(name, "wait/synch/") && strings.Contains(name, "/innodb/") {
			innodb = true
		}
	}
	if !innodb || !strings.Contains(w["source"].(string), "performance_schema") || !strings.Contains(string(notes), "turned on") {
		t.Errorf("no InnoDB waits: %v", w)
	}
	if after := enabled(); after != before {
		t.Errorf("%d InnoDB instruments enabled after the run, %d before: not restored", after, before)
	}
	if p, _ := undo.Pending(); len(p) != 0 {
		t.Errorf("the journal keeps %d entries after a finished run", len(p))
	}
}

// On MariaDB, a session holding the row every TPC-B transaction updates makes InnoDB's row-lock
// wait the top wait, timed as the server counts it, with performance_schema on or off; the
// handler calls it stalled keep only their own time.
func TestMariaDBRowLockWaits(t *testing.T) {
	url := testutil.MySQL(t)
	cairn(t, "tpcb", "cleanup", "--db", url)
	t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	tg, c := testutil.Open(t, url)
	// Whether the sessions can come from performance_schema.threads: its thread instrumentation on.
	var threads int64
	if err := c.QueryRow(context.Background(), `SELECT @@performance_schema AND (SELECT COUNT(*) = 2 FROM performance_schema.setup_consumers
		WHERE NAME IN ('global_instrumentation', 'thread_instrumentation') AND ENABLED = 'YES')`).Scan(&threads); err != nil {
		t.Fatal(err)
	}
	const hold = 3 * time.Second // three quarters of the window
	lockedAt := time.Now()
	released := testutil.HoldLock(t, tg, "UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1", hold)
	js := filepath.Join(t.TempDir(), "locked.json")
	code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "-c", "2", "-T", "4s", "-P", "1s", "--no-store", "--json", js)
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "top waits: innodb/row_lock_wait") {
		t.Errorf("the summary does not put the row lock first:\n%s", out)
	}
	if !strings.Contains(stderr, "waits innodb/row_lock_wait") {
		t.Errorf("no progress line shows the row lock:\n%s", stderr)
	}
	w := field(t, readDoc(t, js), "waits").(map[string]any)
	evs := w["events"].([]any)
	if len(evs) == 0 {
		t.Fatalf("no waits: %v", w)
	}
	top := evs[0].(map[string]any)
	// Both VUs wait for the lock from the window's start until it is released: close to twice the
	// hold, less the rampup-free start, in lock time.
	if top["name"] != "innodb/row_lock_wait" || top["class"] != "lock/row" || top["count"].(float64) < 1 ||
		top["time_ms"].(float64) < float64(hold.Milliseconds()) || top["share"].(float64) < 0.5 {
		t.Errorf("top wait %v, want innodb/row_lock_wait with at least %s and half the time", top, hold)
	}
	if !strings.Contains(w["source"].(string), "Innodb_row_lock_time") {
		t.Errorf("source %v", w["source"])
	}
	// The session history without --waits instrument: the processlist's states and INNODB_TRX's
	// lock waits, the consumer left off (and said so); both sessions on the row lock while it is
	// held.
	var doc results.Document
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &doc) != nil {
		t.Fatalf("read %s: %v", js, err)
	}
	lockedSeconds(t, &doc, lockedAt, hold, "lock/row", 2)
	if h := doc.Waits.History; !strings.Contains(h.Source, "by state") || h.Events["CPU"] != "" {
		t.Errorf("without the consumer the history reads %q, events %v", h.Source, h.Events)
	}
	if want := map[int64]string{0: "information_schema.PROCESSLIST's", 1: "performance_schema.threads'"}[threads]; !strings.HasPrefix(doc.Waits.History.Source, want) {
		t.Errorf("the history's source %q, want the sessions of %s", doc.Waits.History.Source, want)
	}
	// Why the states: the consumer off, or (the processlist read) performance_schema's threads unseen.
	if why := map[int64]string{0: "the sessions are information_schema.PROCESSLIST's", 1: "events_waits_current consumer is off"}[threads]; !containsNote(doc.Waits.Notes, why) {
		t.Errorf("the notes do not say %q: %q", why, doc.Waits.Notes)
	}
}

// localServer finds the process of the server url names on this host and its CPU binding now.
func localServer(t *testing.T, url string) (*observe.Server, string) {
	t.Helper()
	tg, _ := testutil.Open(t, url)
	srv := observe.FindServer(tg)
	if srv.PID == 0 {
		t.Fatalf("the server of %s is not found on this host: %s", target.Redact(url), srv.Why)
	}
	cpus, err := observe.Affinity(srv.PID)
	if err != nil {
		t.Fatal(err)
	}
	return srv, cpus
}

func cpusAllowed(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// threadsAllowed is the distinct CPU lists of every thread of pid.
func threadsAllowed(t *testing.T, pid int) map[string]bool {
	t.Helper()
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range tasks {
		tid, _ := strconv.Atoi(e.Name())
		if l, err := observe.Affinity(tid); err == nil {
			out[l] = true
		}
	}
	return out
}

// --client-cpus binds cairn and --server-cpus the local MariaDB for the run; the server's binding
// is restored when the run ends, after Ctrl-C, and by 'cairn restore' after cairn was killed.
func TestCPUBinding(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs")
	}
	bin := cairnBinary(t)
	url := testutil.MySQL(t)
	oltpPrepared(t, url)
	srv, before := localServer(t, url)
	if before == "1" {
		t.Fatalf("the server is bound to CPU 1 already: a previous run was not restored")
	}
	run := func(duration string) *os.Process {
		cmd, out := startUntil(t, bin, "] window", "oltp", "run", "--db", url, "--workload", "point-select", "--vu", "2",
			"--rampup", "0s", "--duration", duration, "--progress", "1s", "--client-cpus", "0", "--server-cpus", "1", "--no-store")
		if got := cpusAllowed(t, cmd.Process.Pid); got != "0" {
			t.Errorf("cairn runs on CPUs %q, want 0", got)
		}
		if got := threadsAllowed(t, srv.PID); len(got) != 1 || !got["1"] {
			t.Errorf("the server's threads run on %v, want only 1", got)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		go func() { cmd.Wait(); _ = out }()
		return cmd.Process
	}
	restored := func(when string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			got := threadsAllowed(t, srv.PID)
			if len(got) == 1 && got[before] {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the server's threads run on %v, want %s", when, got, before)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitExit := func(p *os.Process) {
		for i := 0; i < 200 && p.Signal(syscall.Signal(0)) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
	}

	p := run("2s")
	waitExit(p)
	restored("after the run")

	p = run("60s")
	p.Signal(syscall.SIGINT)
	waitExit(p)
	restored("after Ctrl-C")

	p = run("60s")
	p.Kill()
	waitExit(p)
	if got := threadsAllowed(t, srv.PID); !got["1"] {
		t.Fatalf("after kill -9 the server runs on %v: the test cannot check the restore", got)
	}
	if pend, _ := undo.Pending(); len(pend) != 1 {
		t.Fatalf("%d journal entries after kill -9, want 1", len(pend))
	}
	code, out, stderr := cairn(t, "restore")
	if code != 0 || !strings.Contains(out, "restored: CPU binding of MariaDB") {
		t.Errorf("restore: exit %d %q %q", code, out, stderr)
	}
	restored("after cairn restore")
	if code, out, _ := cairn(t, "restore"); code != 0 || !strings.Contains(out, "nothing to restore") {
		t.Errorf("restore again: exit %d %q", code, out)
	}
}

// Bad CPU lists and a binding of a server cairn cannot reach: one line, exit 2, before connecting.
func TestBindingBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--client-cpus", "0-x"}, "--client-cpus 0-x: not a CPU list"},
		{[]string{"--client-cpus", "4096"}, "this host has no CPU 4096"},
		{[]string{"--server-cpus", "0", "--db", "postgres://u:p@192.0.2.1/db"}, "cairn binds only a server on this host"},
		{[]string{"--server-cpus", "0", "--db", "sqlite://" + t.TempDir() + "/x.db"}, "SQLite runs inside cairn"},
		{[]string{"--observe", "maybe"}, "--observe maybe: use on, off or stacks"},
		{[]string{"--waits", "all"}, "--waits all: use read or instrument"},
		{[]string{"--wait-sample", "1ms"}, "--wait-sample 1ms: need between 10ms and 10s"},
	} {
		code, _, stderr := cairn(t, append([]string{"oltp", "run"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %q", c.args, code, stderr, c.want)
		}
		oneCleanLine(t, stderr)
	}
}

// The samplers' intervals have a floor of 10 ms, refused below it on the command line and in a
// spec (exit 2, one line): --running-sample 1ns once sampled "every 0 ms" and counted hundreds of
// thousands of its own statements into TPM. 0 still turns the running-threads sampler off.
func TestSamplingFloor(t *testing.T) {
	for _, args := range [][]string{{"--running-sample", "1ns"}, {"--running-sample", "9ms"}, {"--wait-sample", "1ms"}} {
		code, _, stderr := cairn(t, append([]string{"tpcc", "run", "--print-spec"}, args...)...)
		if code != ExitUsage || !strings.Contains(stderr, args[0]+" "+args[1]) || !strings.Contains(stderr, "10ms") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
		oneCleanLine(t, stderr)
	}
	spec := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(spec, []byte("workload: tpcc\nrunning-sample: 5ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cairn(t, "run", "--spec", spec); code != ExitUsage || !strings.Contains(stderr, "running-sample: need 0s (none) or between 10ms and 1s") {
		t.Errorf("spec running-sample 5ms: exit %d, %q", code, stderr)
	}
	for _, v := range []string{"0s", "10ms"} {
		if code, out, stderr := cairn(t, "tpcc", "run", "--print-spec", "--running-sample", v); code != 0 || !strings.Contains(out, "running-sample: "+v) {
			t.Errorf("--running-sample %s: exit %d, %q %q", v, code, out, stderr)
		}
	}
}

// A --waits instrument run puts back what it turned on (InnoDB's mutexes and rw-locks, the
// metadata locks', the session history's events_waits_current consumer) when interrupted
// (SIGINT). Killed with SIGKILL it cannot: the next plain run says how many instruments are still
// on and how to restore them, and 'cairn restore' restores them and the consumer, each as it was.
func TestMariaDBInstrumentsLeftOnWarned(t *testing.T) {
	url := testutil.MySQL(t)
	oltpPrepared(t, url)
	_, c := testutil.Open(t, url)
	ctx := context.Background()
	var pfs int64
	if err := c.QueryRow(ctx, "SELECT @@performance_schema").Scan(&pfs); err != nil || pfs != 1 {
		t.Skipf("performance_schema is off (%v): no instruments to leave on", err)
	}
	enabled := func() int64 {
		var n int64
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE (NAME LIKE 'wait/synch/%/innodb/%' OR NAME = 'wait/lock/metadata/sql/mdl') AND ENABLED = 'YES'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before, instruments, consumer := enabled(), waitInstruments(t, c), consumerState(t, c)
	start := func() *exec.Cmd {
		cmd := exec.Command(cairnBinary(t), "oltp", "run", "--db", url, "--workload", "point-select", "--vu", "1", "--rampup", "0s", "--duration", "60s", "--waits", "instrument", "--no-store")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); cairn(t, "restore", "--db", url, "--force") })
		for i := 0; enabled() == before; i++ {
			if i > 300 {
				t.Fatal("the run did not turn the instruments on")
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // all of them: one UPDATE turns them on
		// The session history's consumer is turned on after them.
		for i := 0; consumerState(t, c) != "YES"; i++ {
			if i > 100 {
				t.Fatal("the run did not turn the events_waits_current consumer on")
			}
			time.Sleep(100 * time.Millisecond)
		}
		return cmd
	}

	cmd := start()
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != ExitInterrupted {
		t.Errorf("the interrupted run: %v, want exit %d", err, ExitInterrupted)
	}
	if waitInstruments(t, c) != instruments {
		t.Errorf("the wait instruments after Ctrl-C differ from before the run")
	}
	if got := consumerState(t, c); got != consumer {
		t.Errorf("the events_waits_current consumer is %s after Ctrl-C, was %s", got, consumer)
	}
	if p, _ := undo.Pending(); len(p) != 0 {
		t.Errorf("the journal keeps %d entries after an interrupted run", len(p))
	}

	cmd = start()
	on := enabled() - before
	cmd.Process.Kill()
	cmd.Wait()
	if got := consumerState(t, c); got != "YES" {
		t.Fatalf("after kill -9 the consumer is %s: the test cannot check its restore", got)
	}
	code, out, stderr := cairn(t, "oltp", "run", "--db", url, "--workload", "point-select", "--vu", "1", "--rampup", "0s", "--duration", "1s", "--no-store")
	want := fmt.Sprintf("waits: %d performance_schema instruments a cairn that did not finish (pid %d, --waits instrument) turned on are still on: 'cairn restore --db URL' turns them off", on, cmd.Process.Pid)
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("the run after a killed --waits instrument run: exit %d, want %q in\n%s%s", code, want, out, stderr)
	}
	want = fmt.Sprintf("performance_schema's events_waits_current consumer a cairn that did not finish (pid %d, --waits instrument) turned on is still on: 'cairn restore --db URL' turns it off", cmd.Process.Pid)
	if !strings.Contains(out, want) {
		t.Errorf("the run after a killed --waits instrument run does not say the consumer is still on: want %q in\n%s", want, out)
	}
	if code, out, stderr := cairn(t, "restore", "--db", url); code != 0 || !strings.Contains(out, "restored:") {
		t.Errorf("restore: exit %d %q %q", code, out, stderr)
	}
	if waitInstruments(t, c) != instruments {
		t.Errorf("the wait instruments after restore differ from before the run")
	}
	if got := consumerState(t, c); got != consumer {
		t.Errorf("the events_waits_current consumer is %s after cairn restore, was %s", got, consumer)
	}
	code, out, _ = cairn(t, "oltp", "run", "--db", url, "--workload", "point-select", "--vu", "1", "--rampup", "0s", "--duration", "1s", "--no-store")
	if code != 0 || strings.Contains(out, "are still on") || strings.Contains(out, "is still on") {
		t.Errorf("after restore the run still warns:\n%s", out)
	}
}

// watched is a cairn process whose output lines are kept as they come, with when each came.
type watched struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	at    []time.Time
	done  chan struct{}
}

func startWatched(t *testing.T, args ...string) *watched {
	t.Helper()
	w := &watched{cmd: exec.Command(cairnBinary(t), args...), done: make(chan struct{})}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.cmd.Stdout, w.cmd.Stderr = pw, pw
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { w.cmd.Process.Kill(); <-w.done })
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			w.mu.Lock()
			w.lines, w.at = append(w.lines, sc.Text()), append(w.at, time.Now())
			w.mu.Unlock()
		}
		w.cmd.Wait()
	}()
	return w
}

// line waits for the first line with s and returns when it came.
func (w *watched) line(t *testing.T, s string) time.Time {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		w.mu.Lock()
		for i, l := range w.lines {
			if strings.Contains(l, s) {
				at := w.at[i]
				w.mu.Unlock()
				return at
			}
		}
		w.mu.Unlock()
		select {
		case <-w.done:
			t.Fatalf("cairn ended without printing %q:\n%s", s, w.output())
		default:
		}
	}
	t.Fatalf("cairn did not print %q in 2 minutes:\n%s", s, w.output())
	return time.Time{}
}

func (w *watched) output() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

// wait waits for the process to end and returns its exit code.
func (w *watched) wait() int {
	<-w.done
	return w.cmd.ProcessState.ExitCode()
}

// waitInstruments reads every performance_schema wait instrument's ENABLED and TIMED, to compare
// a server's instruments before and after cairn.
func waitInstruments(t *testing.T, c target.Conn) string {
	t.Helper()
	rows, err := c.Query(context.Background(), "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/%' ORDER BY NAME")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var n, e, tm string
		if err := rows.Scan(&n, &e, &tm); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s\n", n, e, tm)
	}
	return b.String()
}

// instrumentOn says whether a performance_schema instrument is on and timed.
func instrumentOn(t *testing.T, c target.Conn, name string) bool {
	t.Helper()
	var on int64
	if err := c.QueryRow(context.Background(), "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME = ? AND ENABLED = 'YES' AND TIMED = 'YES'", name).Scan(&on); err != nil {
		t.Fatal(err)
	}
	return on == 1
}

// lockSpan is one hold of LOCK TABLES … WRITE, on the test's clock: when it was asked for and
// granted, when the VU was first seen waiting for it, when UNLOCK TABLES was sent and returned.
type lockSpan struct{ ask, locked, seen, unlock, released time.Time }

// holdTableLock locks table for writing from holder, watches for a session waiting for its
// metadata lock from watch, and unlocks when release returns.
func holdTableLock(t *testing.T, holder, watch target.Conn, table string, release func()) lockSpan {
	t.Helper()
	ctx := context.Background()
	var s lockSpan
	s.ask = time.Now()
	if _, err := holder.Exec(ctx, "LOCK TABLES "+table+" WRITE"); err != nil {
		t.Fatal(err)
	}
	s.locked = time.Now()
	for deadline := s.locked.Add(30 * time.Second); s.seen.IsZero(); time.Sleep(2 * time.Millisecond) {
		var n int64
		if err := watch.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = 'Waiting for table metadata lock'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			s.seen = time.Now()
		} else if time.Now().After(deadline) {
			t.Fatal("no session waited for the table lock in 30 s")
		}
	}
	release()
	s.unlock = time.Now()
	if _, err := holder.Exec(ctx, "UNLOCK TABLES"); err != nil {
		t.Fatal(err)
	}
	s.released = time.Now()
	return s
}

// On MariaDB, a session holding LOCK TABLES … WRITE on the table every TPC-B transaction updates
// stalls the VU in a metadata-lock wait, which performance_schema times only with the
// wait/lock/metadata/sql/mdl instrument, off by default. --waits instrument turns it on for the
// run and restores it; the waits name the stall a lock wait (class lock/metadata) and time it
// as the VU waited inside the window: a hold inside it, and a hold past the window's end up to
// the end (performance_schema counts a wait only when it ends). Each progress interval inside a
// hold has the wait first. With --waits read and the instrument off, a note says so.
func TestMariaDBTableLockWaits(t *testing.T) {
	url := testutil.MySQL(t)
	tg, c := testutil.Open(t, url)
	ctx := context.Background()
	var pfs int64
	if err := c.QueryRow(ctx, "SELECT @@performance_schema").Scan(&pfs); err != nil || pfs != 1 {
		t.Skipf("performance_schema is off (%v): no metadata-lock waits to time", err)
	}
	cairn(t, "tpcb", "cleanup", "--db", url)
	t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	holder, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	before := waitInstruments(t, c)
	mdlOn := instrumentOn(t, c, "wait/lock/metadata/sql/mdl")

	js := filepath.Join(t.TempDir(), "locked.json")
	run := startWatched(t, "tpcb", "run", "--db", url, "-c", "1", "-T", "8s", "-P", "1s", "--waits", "instrument", "--no-store", "--json", js)
	run.line(t, "progress: 1.0 s")
	if !instrumentOn(t, c, "wait/lock/metadata/sql/mdl") {
		t.Fatal("--waits instrument did not turn on wait/lock/metadata/sql/mdl")
	}
	// One hold inside the window, one from its fifth second past its end.
	inside := holdTableLock(t, holder, c, "pgbench_branches", func() { time.Sleep(2500 * time.Millisecond) })
	run.line(t, "progress: 5.0 s")
	var endLine time.Time // when the last progress line came: after the waits were read at the end
	past := holdTableLock(t, holder, c, "pgbench_branches", func() { endLine = run.line(t, "(end)"); time.Sleep(200 * time.Millisecond) })
	if code := run.wait(); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, run.output())
	}
	if after := waitInstruments(t, c); after != before {
		t.Errorf("the wait instruments after the run differ from before it")
	}
	if p, _ := undo.Pending(); len(p) != 0 {
		t.Errorf("the journal keeps %d entries after a finished run", len(p))
	}

	doc := readDoc(t, js)
	window := field(t, doc, "window").(map[string]any)
	start, err1 := time.Parse(time.RFC3339Nano, window["start"].(string))
	end, err2 := time.Parse(time.RFC3339Nano, window["end"].(string))
	started, err3 := time.Parse(time.RFC3339Nano, doc["started_at"].(string))
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	if !past.ask.Before(end) || !past.unlock.After(end) {
		t.Fatalf("the second hold (%s to %s) does not hold the window's end %s", past.ask, past.unlock, end)
	}
	// The VU waits at least from when it was seen waiting until UNLOCK was sent, and at most from
	// when the lock was asked for until UNLOCK returned; the holder itself waits for the lock
	// while the VU's transaction holds the table, between asking and being granted. Only the
	// parts inside the window count, as read at its edges: the end is read at or after the
	// window's end, before the last progress line. performance_schema times a wait that ended
	// with its CYCLE timer, converted at a frequency the server estimated when it started
	// (2436.1 MHz where the kernel's TSC runs at 2445.4: 0.38% long): 1% is allowed for the
	// server's clock.
	within := func(a, b, last time.Time) float64 {
		if a.Before(start) {
			a = start
		}
		if b.After(last) {
			b = last
		}
		return max(0, float64(b.Sub(a))/float64(time.Millisecond))
	}
	var lo, hi float64
	for _, s := range []lockSpan{inside, past} {
		lo += within(s.seen, s.unlock, end)
		hi += within(s.ask, s.released, endLine) + within(s.ask, s.locked, endLine)
	}
	if tg.Dialect().Name != "mariadb" {
		// MySQL's PROCESSLIST says how long the VU waiting at the window's end has waited as a
		// difference of whole seconds: within a second.
		lo, hi = lo-1000, hi+1000
	}
	w := field(t, doc, "waits").(map[string]any)
	var mdl map[string]any
	for _, e := range w["events"].([]any) {
		if e := e.(map[string]any); e["name"] == "wait/lock/metadata/sql/mdl" {
			mdl = e
		}
	}
	top := w["events"].([]any)[0].(map[string]any)
	if mdl == nil || top["name"] != "wait/lock/metadata/sql/mdl" || mdl["class"] != "lock/metadata" {
		t.Fatalf("top wait %v, want wait/lock/metadata/sql/mdl of class lock/metadata; events %v", top, w["events"])
	}
	t.Logf("metadata-lock wait %.1f ms in the window; the VU's wait in it between %.1f and %.1f ms", mdl["time_ms"], lo, hi)
	if ms := mdl["time_ms"].(float64); ms < 0.99*lo || ms > 1.01*hi {
		t.Errorf("the metadata-lock wait is %.1f ms of the window, want the VU's wait in it, between %.1f and %.1f ms", ms, lo, hi)
	}
	if out := run.output(); !strings.Contains(out, "top waits: wait/lock/metadata/sql/mdl") || !strings.Contains(out, "waits by group:") {
		t.Errorf("the summary does not put the metadata lock first:\n%s", out)
	}
	checked := 0
	prev := 0.0
	for _, iv := range w["intervals"].([]any) {
		iv := iv.(map[string]any)
		at := iv["t"].(float64)
		from, to := started.Add(time.Duration(prev*float64(time.Second))), started.Add(time.Duration(at*float64(time.Second)))
		prev = at
		// t is to the tenth of a second.
		for _, s := range []lockSpan{inside, past} {
			if from.After(s.seen.Add(100*time.Millisecond)) && to.Before(s.unlock.Add(-100*time.Millisecond)) {
				checked++
				if name := iv["top"].([]any)[0].(map[string]any)["name"]; name != "wait/lock/metadata/sql/mdl" {
					t.Errorf("the interval to %.1f s lies inside a hold and its top wait is %v", at, name)
				}
			}
		}
	}
	if checked < 2 {
		t.Errorf("%d progress intervals lie inside the holds, want one in each: %v", checked, w["intervals"])
	}

	// With --waits read the instrument stays as it is; where it is off, the notes say the
	// metadata-lock waits are not measured.
	code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "-c", "1", "-T", "1s", "--no-store")
	note := "waits: wait/lock/metadata/sql/mdl is off: waits for metadata locks (LOCK TABLES on InnoDB tables, DDL, FLUSH TABLES WITH READ LOCK) are not measured (--waits instrument turns it on for the run)"
	if code != 0 || strings.Contains(out, note) == mdlOn {
		t.Errorf("--waits read with the instrument on=%v: exit %d, note %q shown=%v\n%s%s", mdlOn, code, note, !mdlOn, out, stderr)
	}
}
