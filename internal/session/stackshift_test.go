package session

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestFunctionShiftsOfTwoRuns: two real MariaDB runs with --observe stacks, at 2 and 16 VUs, are
// compared function by function: the functions named are the runs' own, with the shares they
// stored.
func TestFunctionShiftsOfTwoRuns(t *testing.T) {
	url := testutil.MySQL(t)
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		t.Skip("perf sampling another user's server needs perf installed and root")
	}
	a, _ := stacksRun(t, url, "2")
	b, _ := stacksRun(t, url, "16")
	sa, sb := results.StacksOf(a), results.StacksOf(b)
	if sa == nil || sb == nil || sa.Samples == 0 || sb.Samples == 0 {
		t.Fatalf("the runs recorded no profile: %+v %+v", sa, sb)
	}
	var w bytes.Buffer
	summary.FunctionShifts(&w, "B against A", "A", "B", []*results.Document{a}, []*results.Document{b})
	out := w.String()
	t.Logf("\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], "changed most") {
		t.Fatalf("no function shifts between two profiles:\n%s", out)
	}
	shares := func(st *results.Stacks) map[string]float64 {
		m := map[string]float64{}
		for _, f := range st.Functions {
			m[f.Name] = f.Self
		}
		return m
	}
	ma, mb := shares(sa), shares(sb)
	checked := 0
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		name := strings.Join(f[4:], " ")
		if va, ok := ma[name]; ok {
			if got := f[0]; got != fmtShare(va) {
				t.Errorf("%s: A's share printed %s, stored %.2f", name, got, va)
			}
			checked++
		}
		if vb, ok := mb[name]; ok {
			if got := f[1]; got != fmtShare(vb) {
				t.Errorf("%s: B's share printed %s, stored %.2f", name, got, vb)
			}
		}
	}
	if checked == 0 {
		t.Errorf("no function printed is one the base profile ranked:\n%s", out)
	}
}

func fmtShare(v float64) string { return fmt.Sprintf("%.1f%%", v) }
