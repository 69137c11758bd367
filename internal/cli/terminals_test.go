package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestTerminalsOverPooledConnections is issue 31's acceptance run on PostgreSQL, shortened: 100
// keying and thinking TPC-C terminals over 10 connections, with the default observers. The server
// never sees more than the pool's 10 connections: the window's snapshots and the observers'
// samples ride them (run.Lender), and the observers' sections are there to show they sampled. The
// summary and the document give the efficiency, the response-time constraints and the client's
// peak RSS.
func TestTerminalsOverPooledConnections(t *testing.T) {
	url := testutil.PG(t)
	prepared(t, url)
	runURL, peak := testutil.PeakSessions(t, url, 100*time.Millisecond)
	out := filepath.Join(t.TempDir(), "t.json")
	code, stdout, stderr := cairn(t, "tpcc", "run", "--db", runURL, "--terminals", "100", "--connections", "10", "--keying-thinking",
		"--rampup", "1s", "--duration", "15s", "--progress", "5s", "--json", out, "--results", filepath.Join(t.TempDir(), "r.db"))
	most := peak()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("at most %d server connections of the run's", most)
	if n := most; n == 0 || n > 10 {
		t.Errorf("at most %d server connections seen during the run, want the pool's 10 and no more", n)
	}
	d := readDoc(t, out)
	// The observers sampled over the pool: the running threads at their cadence, the waits
	// without a failed read.
	rt := field(t, d, "extra.observations.running-threads").(map[string]any)
	if n := rt["samples"].(float64); n < 15*1000/50/2 {
		t.Errorf("running-threads samples %v in a 15 s window at 50 ms, want at least half of 300", n)
	}
	if notes := fmt.Sprint(field(t, d, "waits").(map[string]any)["notes"], rt["notes"]); strings.Contains(notes, "failed") {
		t.Errorf("an observer's read failed over the pool: %s", notes)
	}
	for _, want := range []string{"100 terminals over 10 connections", "100 terminals over 10 pooled connections", "efficiency: ",
		"of the spec's ceiling of 13 (12.86 per warehouse)", "response-time constraints (90th percentile, clause 5.2.5.3): new_order",
		"client memory: peak RSS "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if n := field(t, d, "terminals.terminals").(float64); n != 100 {
		t.Errorf("terminals.terminals %v, want 100", n)
	}
	if n := field(t, d, "vu").(float64); n != 10 {
		t.Errorf("vu %v, want the 10 connections' executors", n)
	}
	if rss := field(t, d, "client.peak_rss_bytes").(float64); rss < 1<<20 {
		t.Errorf("client.peak_rss_bytes %v", rss)
	}
	if k := field(t, d, "terminals.transactions.payment.keying_s"); k.(float64) < 3 || k.(float64) > 3.2 {
		t.Errorf("Payment's measured keying time %v s, want the spec's 3", k)
	}
	// The window is too short for many New-Orders (a think, then 18 s of keying): the figures are
	// there, their size is not tested.
	field(t, d, "extra.tpcc.spec.efficiency_pct")
	if c := field(t, d, "extra.tpcc.spec.ceiling_tpmc").(float64); c != 12.86 {
		t.Errorf("extra.tpcc.spec.ceiling_tpmc %v, want 12.86 for one warehouse", c)
	}
	field(t, d, "extra.tpcc.spec.response_time_constraints")
}
