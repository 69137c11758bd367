package session_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/spec"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/testutil"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// Binding cairn's threads is the process's, not a run's: Open takes the CPUs the front end
// bound and never binds the process itself, so two runs in one process (a web service) do not
// move each other; a spec with client CPUs that no front end bound is refused.
func TestOpenLeavesTheProcessBindingAlone(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: binding to CPU 0 would not show")
	}
	s, err := spec.New("tpcb", false)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"db": testutil.SQLite(t), "client-cpus": "0"} {
		if err := s.Set(k, v); err != nil {
			t.Fatalf("set %s: %v", k, err)
		}
	}
	before, err := observe.Affinity(os.Getpid())
	if err != nil {
		t.Skip("cannot read this process's CPU binding: ", err)
	}
	procs := runtime.GOMAXPROCS(0)
	se, err := session.Open(context.Background(), s, "test", nil)
	if se != nil {
		se.Close()
	}
	var ue *session.UnboundError
	if !errors.As(err, &ue) {
		t.Errorf("Open of client CPUs no front end bound: %v, want an UnboundError", err)
	}
	after, _ := observe.Affinity(os.Getpid())
	if after != before || runtime.GOMAXPROCS(0) != procs {
		t.Errorf("Open changed the process: CPUs %s -> %s, GOMAXPROCS %d -> %d", before, after, procs, runtime.GOMAXPROCS(0))
		_ = observe.PinSelf(mustCPUs(t, before))
		runtime.GOMAXPROCS(procs)
	}
	if cpus, err := session.CPUs(s); err != nil || len(cpus) != 1 || cpus[0] != 0 {
		t.Errorf("CPUs = %v, %v; want [0]", cpus, err)
	}
}

func mustCPUs(t *testing.T, list string) []int {
	cpus, err := observe.HostCPUs("cpus", list)
	if err != nil {
		t.Fatal(err)
	}
	return cpus
}
