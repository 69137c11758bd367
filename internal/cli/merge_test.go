package cli

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// Two parts of one TPC-C run, each a process of its own, on PostgreSQL: part 2 is stopped by
// SIGTERM in the middle of the window, and stores what it measured, cut short. 'results merge'
// of the two refuses in one line (exit 2), naming the part and what it measured, as it refuses a
// missing part; the parts of a run that both measured the whole window merge.
func TestMergeRefusesAPartCutShort(t *testing.T) {
	url := testutil.PG(t)
	prepared(t, url, "-w", "2") // a home warehouse for each part
	bin := cairnBinary(t)
	store := filepath.Join(t.TempDir(), "results.db")
	parts := func(name string, stop bool) {
		t.Helper()
		// Both must be connected and through their rampup by then: 4 s was too little on a host
		// with a load of 20 ("the run's window started … before this part was ready").
		start := fmt.Sprintf("@%d", time.Now().Add(8*time.Second).Unix())
		args := func(i int) []string {
			return []string{"tpcc", "run", "--db", url, "--results", store, "--vu", "2", "--rampup", "1s", "--duration", "6s",
				"--progress", "1s", "--seed", "9", "--part", fmt.Sprintf("%d/2", i), "--part-run", name, "--start-at", start}
		}
		one := exec.Command(bin, args(1)...)
		var out1 strings.Builder
		one.Stdout, one.Stderr = &out1, &out1
		if err := one.Start(); err != nil {
			t.Fatal(err)
		}
		two, out2 := startUntil(t, bin, "window 2s", args(2)...)
		if stop {
			if err := two.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		}
		err2 := two.Wait()
		if err := one.Wait(); err != nil {
			t.Fatalf("part 1: %v\n%s", err, out1.String())
		}
		if code := two.ProcessState.ExitCode(); stop && code != ExitInterrupted || !stop && err2 != nil {
			t.Fatalf("part 2: exit %d (%v)\n%s", code, err2, out2)
		}
	}
	ids := func() (string, string) {
		t.Helper()
		_, out, _ := cairn(t, "results", "list", "--results", store)
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				if _, err := strconv.Atoi(f[0]); err == nil {
					got = append(got, f[0])
				}
			}
		}
		if len(got) < 2 {
			t.Fatalf("stored results:\n%s", out)
		}
		return got[1], got[0] // newest first
	}

	parts("cut", true)
	a, b := ids()
	code, out, stderr := cairn(t, "results", "merge", "--results", store, a, b)
	re := regexp.MustCompile(`^cairn: part 2/2 \(result \d+\) of run "cut" measured only (\d+\.\d+) s of 6 s planned, interrupted: .*run the whole run again\)\n$`)
	m := re.FindStringSubmatch(stderr)
	if code != ExitUsage || m == nil {
		t.Fatalf("merge of a part cut short: exit %d, %q %q", code, out, stderr)
	}
	if s, _ := strconv.ParseFloat(m[1], 64); s < 0.5 || s > 5 {
		t.Errorf("part 2 measured %s s of the window, stopped about 2 s into it", m[1])
	}

	parts("whole", false)
	a, b = ids()
	if code, out, stderr := cairn(t, "results", "merge", "--results", store, a, b); code != 0 || !strings.Contains(out, "NOPM") {
		t.Errorf("merge of two whole parts: exit %d %q %q", code, out, stderr)
	}
}
