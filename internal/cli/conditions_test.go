package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// results compare lists what differs in the conditions of the runs before their figures: two runs
// of one spec on one database differ in nothing; a third with another VU count differs in that.
func TestCompareListsConditions(t *testing.T) {
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "c.db")
	store := filepath.Join(dir, "results.db")
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url, "--scale", "1"); code != 0 {
		t.Fatalf("prepare: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, vu := range []string{"1", "1", "2"} {
		if code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "--vu", vu, "--duration", "1s", "--progress", "0", "--seed", "5", "--results", store); code != 0 {
			t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
		}
	}
	code, out, stderr := cairn(t, "results", "compare", "1", "2", "3", "--results", store)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"conditions: A #1 and B #2 ran under the same cairn, database, settings, host and spec\n",
		"conditions that differ (A #1 → C #3):\n  config.vu: 1 → 2\n\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare lacks %q:\n%s", want, out)
		}
	}
}
