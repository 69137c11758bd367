package cli

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// --vu beyond what the database accepts is refused before any connection is opened, naming the
// limit: cairn's cap for SQLite, max_connections for the servers.
func TestVUsBeyondTheLimit(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			cairn(t, "tpcb", "cleanup", "--db", url)
			if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
				t.Fatalf("prepare: %d %s %s", code, out, stderr)
			}
			t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
			want := map[string]string{"sqlite": "cairn's cap for an SQLite file", "postgres": "max_connections", "mysql": "max_connections"}[tg.Name]
			for _, args := range [][]string{{"tpcb", "run", "--vu", "100000"}, {"tpcb", "profile", "--vu", "1,100000"}} {
				start := time.Now()
				code, _, stderr := cairn(t, append(args, "--db", url, "--no-store", "--duration", "1s")...)
				if code != ExitUsage || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--vu 100000") {
					t.Errorf("%v: exit %d, %q", args, code, stderr)
				}
				oneCleanLine(t, stderr)
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("%v took %s to refuse: it opened connections first", args, d)
				}
			}
		})
	}
}

// Ctrl-C stops a run within a second, in any phase: while the VUs connect, in the rampup with
// VUs queued for SQLite's one writer, and in the window.
func TestInterruptStopsWithinASecond(t *testing.T) {
	bin := cairnBinary(t)
	url := testutil.SQLite(t)
	if code, out, stderr := cairn(t, "tpcc", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	for _, c := range []struct {
		marker string
		delay  time.Duration
	}{{"running TPC-C", 0}, {"rampup", 0}, {"window", 0}} {
		cmd, _ := startUntil(t, bin, c.marker, "tpcc", "run", "--db", url, "--vu", "200", "--rampup", "2s", "--duration", "1m", "--progress", "1s", "--no-store")
		time.Sleep(c.delay)
		start := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		// One second is the promise; the margin is this shared machine's scheduling.
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Errorf("Ctrl-C after %q: stopped after %s", c.marker, d)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInterrupted {
			t.Errorf("Ctrl-C after %q: %v, want exit %d", c.marker, err, ExitInterrupted)
		}
	}
}
