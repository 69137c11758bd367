package cli

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestStudyPlanHost plans the shipped POWER8 study on MariaDB: beside each CPU list, the threads
// per core of its cores and its NUMA node; then where the lists lie together, whether this host
// can vary SMT, and the original's SMT4 and DSCR=1 as reproducible here or not (DSCR on POWER
// alone).
func TestStudyPlanHost(t *testing.T) {
	// a database of its own: the file's schema factor (options.tables) plans only where no oltp
	// schema is, and other tests leave theirs in cairn_test
	url := testutil.Databases(t, testutil.MySQL(t), "cairn_study_host")[0]
	t.Setenv("CAIRN_PASSWORD", "cairn")
	code, out, stderr := cairn(t, "study", "plan", "../../studies/point-select-binding.yaml", "--set", "db="+url)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, stderr)
	}
	wants := []string{"\nSMT on this host: ", "\nhost.smt 4 (the original's threads per core): ", "\nhost.dscr 1 (the original's DSCR"}
	if runtime.GOARCH != "ppc64le" && runtime.GOARCH != "ppc64" {
		wants = append(wants, "NOT reproducible here: it exists only on ppc64 and ppc64le, and this host is "+runtime.GOARCH)
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	numa := false
	for _, s := range []string{"every CPU list of the file lies on one NUMA node of this host", "each CPU list lies within one NUMA node",
		"CPU lists across NUMA nodes", "NUMA nodes not readable on this host"} {
		numa = numa || strings.Contains(out, "\n"+s)
	}
	if !numa || !(strings.Contains(out, "\nclient-cpus 1 (1 core (") || strings.Contains(out, "topology not readable")) {
		t.Errorf("plan lacks where the CPU lists lie:\n%s", out)
	}
}
