package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// On MariaDB with --waits instrument, the synch waits are kept apart: the result stores the
// waits by group and the synch events alone, whose first is a wait/synch/ event, and the
// summary prints both, though handler and I/O time take most of the window's waits.
func TestMariaDBSynchWaitsApart(t *testing.T) {
	url := testutil.MySQL(t)
	oltpPrepared(t, url)
	js := filepath.Join(t.TempDir(), "w.json")
	code, out, stderr := cairn(t, "oltp", "run", "--db", url, "--workload", "read-only", "--vu", "4", "--duration", "3s",
		"--waits", "instrument", "--json", js)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	w := field(t, readDoc(t, js), "waits").(map[string]any)
	if !strings.Contains(w["source"].(string), "performance_schema") {
		t.Skipf("performance_schema is off on this server: %v", w["notes"])
	}
	groups, _ := w["groups"].([]any)
	seen := map[string]bool{}
	for _, g := range groups {
		seen[g.(map[string]any)["group"].(string)] = true
	}
	if !seen["synch"] || !seen["io"] {
		t.Errorf("waits by group lack synch or io: %v", groups)
	}
	synch, _ := w["synch"].([]any)
	if len(synch) == 0 {
		b, _ := json.Marshal(w)
		t.Fatalf("no synch waits stored apart: %s", b)
	}
	first := synch[0].(map[string]any)
	if name := first["name"].(string); !strings.HasPrefix(name, "wait/synch/") || first["share"].(float64) <= 0 {
		t.Errorf("the first synch wait is %v", first)
	}
	if !strings.Contains(out, "waits by group: ") || !strings.Contains(out, "top synch waits: wait/synch/") {
		t.Errorf("the summary does not show the synch waits apart:\n%s", out)
	}
}
