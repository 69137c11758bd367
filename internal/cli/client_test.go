package cli

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// The client checks itself: a run on PostgreSQL with cairn bound to one CPU beside two busy loops
// on that CPU (a constructed overload) records what its threads ran and waited for a CPU and how
// busy that CPU was, warns that its VUs waited for one, and is marked client_bound; the same run
// unbound beside the same busy loops shares every CPU with the server, and is not (the host, not
// the client, is short); each run's warning and mark follow from its own recorded figures by the
// documented thresholds (docs/result-format.md#client). The binary runs it, so that the binding
// stays out of the test process.
func TestClientChecksItself(t *testing.T) {
	url := testutil.PG(t)
	bin := cairnBinary(t)
	oltpPrepared(t, url)
	dir := t.TempDir()
	run := func(name string, extra ...string) (*results.Document, string) {
		t.Helper()
		js := filepath.Join(dir, name+".json")
		args := append([]string{"oltp", "run", "--db", url, "--workload", "point-select", "--vu", "4", "--rampup", "1s",
			"--duration", "6s", "--progress", "0", "--no-store", "--json", js}, extra...)
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		return readDocument(t, js), string(out)
	}
	// Two busy loops bound to CPU 0, stopped by their own ids.
	var hogs []*exec.Cmd
	for range 2 {
		c := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Skipf("taskset: %v", err)
		}
		hogs = append(hogs, c)
	}
	stop := func() {
		for _, c := range hogs {
			c.Process.Kill()
			c.Wait()
		}
		hogs = nil
	}
	defer stop()
	// The same run without the binding, beside the same busy loops: cairn may use the other CPU.
	bound, boundOut := run("bound", "--client-cpus", "0")
	free, freeOut := run("free")
	stop()

	for _, c := range []struct {
		name string
		d    *results.Document
		out  string
		cpus int
	}{{"bound", bound, boundOut, 1}, {"free", free, freeOut, 0}} {
		th := c.d.Client.Threads
		if th == nil {
			t.Fatalf("%s: no client.threads in the document", c.name)
		}
		win := c.d.Window.ClientSeconds
		if th.RunSeconds <= 0 || th.UsableCPUs < 1 || c.cpus > 0 && th.UsableCPUs != c.cpus {
			t.Errorf("%s: %+v (bound to %d CPUs)", c.name, th, c.cpus)
		}
		if want := th.WaitSeconds / (float64(c.d.VU) * win); !near(th.VUWaitShare, want) {
			t.Errorf("%s: vu_wait_share %v, wait_seconds / (vu × window) %v", c.name, th.VUWaitShare, want)
		}
		if want := th.RunSeconds / (win * float64(th.UsableCPUs)); !near(th.UseShare, want) {
			t.Errorf("%s: use_share %v, run_seconds / (window × CPUs) %v", c.name, th.UseShare, want)
		}
		if want := th.WaitSeconds / (win * float64(th.UsableCPUs)); !near(th.WaitPerCPU, want) {
			t.Errorf("%s: wait_per_cpu %v, wait_seconds / (window × CPUs) %v", c.name, th.WaitPerCPU, want)
		}
		line := fmt.Sprintf("client threads: VUs waited %.0f%% of the window for a CPU", 100*th.VUWaitShare)
		warned := strings.Contains(c.out, "warning: cairn's VUs waited")
		if !strings.Contains(c.out, line) || warned != (th.VUWaitShare >= results.ClientWaitWarn) {
			t.Errorf("%s: the summary lacks %q, or warns (%v) against its figure %.3f:\n%s", c.name, line, warned, th.VUWaitShare, c.out)
		}
		// The CPUs' busy share is read; the server runs here, and shares cairn's CPUs unless
		// cairn is bound to some of them.
		if th.CPUsBusy == nil || *th.CPUsBusy < 0 || *th.CPUsBusy > 1 || th.ServerShares != (c.cpus == 0) {
			t.Fatalf("%s: cpus_busy %v, server_shares_cpus %v (bound to %d CPUs)", c.name, th.CPUsBusy, th.ServerShares, c.cpus)
		}
		busy := *th.CPUsBusy
		if bound := th.UseShare >= results.ClientBoundUse || busy >= results.ClientBoundBusy && th.VUWaitShare >= results.ClientWaitWarn && !th.ServerShares; c.d.MarkedWith(results.ClientBound) != bound {
			t.Errorf("%s: marked client_bound %v with use_share %.3f, cpus_busy %.3f, vu_wait_share %.3f, server_shares_cpus %v", c.name, c.d.MarkedWith(results.ClientBound), th.UseShare, busy, th.VUWaitShare, th.ServerShares)
		}
		t.Logf("%s: %s", c.name, th.Text(win))
	}
	// The constructed overload: the VUs' thread ran on one CPU that two busy loops shared, which
	// was all busy.
	if b := *bound.Client.Threads.CPUsBusy; b < results.ClientBoundBusy {
		t.Errorf("bound beside two busy loops on its CPU, that CPU was %.1f%% busy", 100*b)
	}
	if !bound.Client.Threads.Waited() {
		t.Errorf("bound beside two busy loops, the VUs waited only %.1f%% of the window for a CPU", 100*bound.Client.Threads.VUWaitShare)
	}
	if !bound.MarkedWith(results.ClientBound) || free.MarkedWith(results.ClientBound) {
		t.Errorf("client_bound: bound beside two busy loops %v, unbound %v; want true, false", bound.MarkedWith(results.ClientBound), free.MarkedWith(results.ClientBound))
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// Every result records the commit its binary was built from (Go's build information), as git
// names this checkout's HEAD, for a run to be repeated with the same cairn.
func TestResultRecordsCommit(t *testing.T) {
	bin := cairnBinary(t)
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git rev-parse: %v", err)
	}
	dir := t.TempDir()
	url := "sqlite://" + dir + "/c.db"
	if out, err := exec.Command(bin, "tpcb", "prepare", "--db", url, "--scale", "1").CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	js := filepath.Join(dir, "r.json")
	if out, err := exec.Command(bin, "tpcb", "run", "--db", url, "--vu", "1", "--duration", "1s", "--progress", "0", "--no-store", "--json", js).CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	d := readDoc(t, js)
	if _, ok := d["cairn"].(map[string]any)["commit"]; !ok {
		if bi, err := exec.Command("go", "version", "-m", bin).Output(); err == nil && !strings.Contains(string(bi), "vcs.revision") {
			t.Skip("the binary carries no vcs.revision: Go records none in a git worktree (.git is a file) or with -buildvcs=false")
		}
	}
	if got, want := field(t, d, "cairn.commit"), strings.TrimSpace(string(head)); got != want {
		t.Errorf("cairn.commit %v, want HEAD %s", got, want)
	}
}
