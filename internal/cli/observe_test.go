package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/observe"
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
	tg, _ := testutil.Open(t, url)
	const hold = 3 * time.Second // three quarters of the window
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

// A --waits instrument run killed with SIGKILL cannot put back what it turned on: the next plain
// run says how many instruments are still on and how to restore them, and 'cairn restore'
// restores them.
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
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/synch/%/innodb/%' AND ENABLED = 'YES'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := enabled()
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
	on := enabled() - before
	cmd.Process.Kill()
	cmd.Wait()
	code, out, stderr := cairn(t, "oltp", "run", "--db", url, "--workload", "point-select", "--vu", "1", "--rampup", "0s", "--duration", "1s", "--no-store")
	want := fmt.Sprintf("waits: %d performance_schema instruments a cairn that did not finish (pid %d, --waits instrument) turned on are still on: 'cairn restore --db URL' turns them off", on, cmd.Process.Pid)
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("the run after a killed --waits instrument run: exit %d, want %q in\n%s%s", code, want, out, stderr)
	}
	if code, out, stderr := cairn(t, "restore", "--db", url); code != 0 || !strings.Contains(out, "restored:") {
		t.Errorf("restore: exit %d %q %q", code, out, stderr)
	}
	if after := enabled(); after != before {
		t.Errorf("%d InnoDB instruments enabled after restore, %d before", after, before)
	}
	code, out, _ = cairn(t, "oltp", "run", "--db", url, "--workload", "point-select", "--vu", "1", "--rampup", "0s", "--duration", "1s", "--no-store")
	if code != 0 || strings.Contains(out, "are still on") {
		t.Errorf("after restore the run still warns:\n%s", out)
	}
}
