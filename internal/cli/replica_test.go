package cli

import (
	"strings"
	"testing"
)

// --replica is given once per replica and lands in the spec's replica list, its password a
// reference; --route is checked; a workload that takes no replicas refuses them as bad usage.
func TestReplicaFlags(t *testing.T) {
	code, out, stderr := cairn(t, "tpcc", "run", "--print-spec", "--db", "postgres://u:pw1@p:5432/d",
		"--replica", "postgres://u:pw1@r1:5432/d", "--replica", "postgres://u:pw1@r2:5432/d", "--route", "primary")
	want := "replica:\n  - postgres://u:${CAIRN_PASSWORD}@r1:5432/d\n  - postgres://u:${CAIRN_PASSWORD}@r2:5432/d\n"
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "route: primary\n") || strings.Contains(out, "pw1") {
		t.Errorf("exit %d, stderr %q, spec:\n%s", code, stderr, out)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"tpcc", "run", "--route", "sideways"}, "--route sideways: use reads or primary"},
		{[]string{"tpch", "run", "--db", "postgres://u@p/d", "--replica", "postgres://u@r/d"}, "--replica: tpch sends nothing to replicas"},
	} {
		code, _, stderr := cairn(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, stderr, c.msg)
		}
	}
}
