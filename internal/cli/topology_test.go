package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// A bound run records what its CPU list covers on this host (cores, SMT siblings, package, NUMA
// node) and prints it on the binding line; every run records the CPUs' frequency over the window,
// from APERF/MPERF or, where they are not readable, /proc/cpuinfo with a note that says so.
func TestBindingTopologyAndFrequency(t *testing.T) {
	url := testutil.SQLite(t)
	oltpPrepared(t, url)
	js := filepath.Join(t.TempDir(), "b.json")
	code, out, stderr := cairn(t, "oltp", "run", "--db", url, "--workload", "read-only", "--vu", "1", "--duration", "1s",
		"--client-cpus", "0", "--json", js)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	doc := readDoc(t, js)
	topo, _ := field(t, doc, "binding.client_topology").(map[string]any)
	if topo == nil || topo["cpus"] != "0" || (topo["cores"] != 1.0 && !strings.Contains(topo["note"].(string), "not readable on this host")) {
		t.Errorf("client topology %v", topo)
	}
	if !strings.Contains(out, "binding: cairn on CPUs 0 (") {
		t.Errorf("no topology on the binding line:\n%s", out)
	}
	f, _ := field(t, doc, "extra.observations.frequency").(map[string]any)
	switch {
	case f == nil:
		t.Error("no frequency section")
	case f["source"] == "/proc/cpuinfo" && !strings.Contains(f["note"].(string), "APERF/MPERF not readable on this host"):
		t.Errorf("cpuinfo without the note: %v", f)
	case len(f["cores"].([]any)) == 0:
		t.Errorf("no cores: %v", f)
	}
	if !strings.Contains(out, "CPU frequency: ") {
		t.Errorf("no frequency line:\n%s", out)
	}
}

// A study's plan prints each of its CPU lists with what it covers on this host.
func TestStudyPlanTopology(t *testing.T) {
	url := testutil.PG(t)
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte("name: topology\ndb: "+url+"\nworkload: oltp\noptions: {workload: point-select, tables: 1, table-size: 1000}\n"+
		"vu: [1]\nduration: 2s\nserver_cpus: [\"0\"]\nclient_cpus: [\"0\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := cairn(t, "study", "plan", path)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"\nclient-cpus 0 (", "\nserver-cpus 0 ("} {
		if !strings.Contains(out, want) || !(strings.Contains(out, "1 core (") || strings.Contains(out, "topology not readable on this host")) {
			t.Errorf("plan lacks %q with its topology:\n%s", want, out)
		}
	}
}
