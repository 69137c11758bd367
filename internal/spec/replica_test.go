package spec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/spec"
)

// A spec's replicas are read as one URL or a list, written back with their secrets as references
// named over db and replica together (one password shared is one variable), and refused where
// they cannot be used.
func TestReplicasInASpec(t *testing.T) {
	t.Setenv("CAIRN_TEST_REPLICA_PW", "r3plica")
	s, err := spec.Read([]byte("workload: tpcc\ndb: postgres://u:${CAIRN_TEST_REPLICA_PW}@p/d\nreplica:\n  - postgres://u:${CAIRN_TEST_REPLICA_PW}@r1/d\n  - postgres://u:lit2@r2/d\nroute: primary\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Replica != "postgres://u:r3plica@r1/d postgres://u:lit2@r2/d" || s.Route != "primary" {
		t.Fatalf("replica %q, route %q", s.Replica, s.Route)
	}
	cfg := s.Config()
	if got := fmt.Sprint(cfg["replica"]); got != "[postgres://u:${CAIRN_TEST_REPLICA_PW}@r1/d postgres://u:${CAIRN_PASSWORD}@r2/d]" {
		t.Errorf("replica written as %s", got)
	}
	if y := string(s.YAML()); strings.Contains(y, "r3plica") || strings.Contains(y, "lit2") || !strings.Contains(y, "route: primary") {
		t.Errorf("written:\n%s", y)
	}
	if v := s.SecretVars(); strings.Join(v, " ") != "CAIRN_PASSWORD CAIRN_TEST_REPLICA_PW" {
		t.Errorf("secret variables %v", v)
	}
	// A flag's literal password, the same on the primary and the replica, is one variable.
	f, err := spec.New("tpcc", false)
	if err != nil {
		t.Fatal(err)
	}
	f.DB, f.Replica = "postgres://u:same@p/d", "postgres://u:same@r/d"
	if c := f.Config(); c["db"] != "postgres://u:${CAIRN_PASSWORD}@p/d" || c["replica"] != "postgres://u:${CAIRN_PASSWORD}@r/d" || c["route"] != nil {
		t.Errorf("written as db %v, replica %v, route %v", c["db"], c["replica"], c["route"])
	}
	for text, want := range map[string]string{
		"workload: tpch\ndb: postgres://u@p/d\nreplica: postgres://u@r/d\n":                     "spec: replica: tpch sends nothing to replicas",
		"workload: tpcc\ndb: [postgres://u@p/a, postgres://u@p/b]\nreplica: postgres://u@r/d\n": "spec: replica: a primary with replicas is one database",
		"workload: tpcc\ndb: postgres://u@p/d\nreplica: nosuch://r/d\n":                         "spec: replica:",
		"workload: tpcc\ndb: postgres://u@p/d\nroute: sideways\n":                               "spec: route: use reads or primary",
	} {
		if _, err := spec.Read([]byte(text)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s…", text, err, want)
		}
	}
}
