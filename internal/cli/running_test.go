package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// Every run samples the server's running threads and the host's run queue every 50 ms: with 4
// VUs busy the server's max is at least 1, the series has a point for each of the engine's
// seconds, the window's samples fit its length (the sampler stops with the run), and the
// summary prints the line; on PostgreSQL the sampler's session is gone after the run.
func TestRunningThreads(t *testing.T) {
	for _, srv := range testutil.Servers() {
		t.Run(srv.Name, func(t *testing.T) {
			url := srv.URL(t)
			oltpPrepared(t, url)
			js := filepath.Join(t.TempDir(), "r.json")
			code, out, stderr := cairn(t, "oltp", "run", "--db", url, "--workload", "read-only", "--vu", "4", "--duration", "3s", "--json", js)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
			}
			doc := readDoc(t, js)
			sec, _ := field(t, doc, "extra.observations.running-threads").(map[string]any)
			if sec == nil {
				t.Fatalf("no running-threads section: %v", doc["extra"])
			}
			if mx, _ := sec["max"].(float64); mx < 1 || sec["p99"] == nil || sec["mean"] == nil {
				t.Errorf("server's running threads: %v", sec)
			}
			if sec["interval_ms"].(float64) != 50 || !strings.Contains(sec["source"].(string), map[string]string{"postgres": "pg_stat_activity", "mysql": "Threads_running"}[srv.Name]) {
				t.Errorf("source %v, interval %v", sec["source"], sec["interval_ms"])
			}
			if h, _ := sec["host"].(map[string]any); h == nil || h["max"].(float64) < 1 {
				t.Errorf("host run queue %v", sec["host"])
			}
			series, _ := sec["series"].([]any)
			ts, _ := doc["timeseries"].([]any)
			if len(series) == 0 || len(series) != len(ts) {
				t.Errorf("%d seconds of running threads, %d of the run", len(series), len(ts))
			}
			var busy bool
			for _, p := range series {
				if m, _ := p.(map[string]any)["max"].(float64); m >= 1 {
					busy = true
				}
			}
			// The window's length at 20 samples a second, with a tick's slack: more means it sampled
			// on past the window (which can run a little longer than planned: its edges wait for
			// the VUs' transaction boundaries).
			secs, _ := field(t, doc, "window.seconds").(float64)
			if n := sec["samples"].(float64); !busy || n < 10 || n > secs*20+5 {
				t.Errorf("%v window samples, a busy second: %v", n, busy)
			}
			if !strings.Contains(out, "running threads: server max ") || !strings.Contains(out, "host run queue max ") {
				t.Errorf("no running-threads line:\n%s", out)
			}
			if srv.Name == "postgres" {
				_, c := testutil.Open(t, url)
				// A backend leaves pg_stat_activity a moment after its client hung up: on a loaded
				// host (PostgreSQL 12 in CI's matrix) one was still there when first read.
				var n int64
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
					if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(&n); err != nil {
						t.Fatal(err)
					}
					if n == 0 || time.Now().After(deadline) {
						break
					}
				}
				if n != 0 {
					t.Errorf("%d sessions left on the database after the run", n)
				}
			}
		})
	}
}
