package openmetrics

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestGrafanaDashboard: every metric the queries of the dashboard in docs/serve.md name is one
// /metrics serves (a histogram's _bucket, _sum and _count are its family's). That each query
// returns points from a real Prometheus: serve's TestPrometheusDrawsTheDashboard.
func TestGrafanaDashboard(t *testing.T) {
	var exprs []string
	for _, q := range testutil.Dashboard(t, "../../docs/serve.md") {
		exprs = append(exprs, q.Expr)
	}

	// Every series a job can have: one second of a run with everything measured.
	reg := New()
	set := metrics.NewSet(1, false)
	set.Add(&metrics.Sample{Type: 0, LatencyUs: 1500})
	reg.Job("j1", "oltp", "m.db").Tick(event.Tick{Types: []string{"t"}, Set: set, Measured: []metrics.Counts{{Count: 1}},
		VUs: 1, Phase: "window", Second: metrics.Second{CPU: &metrics.CPUShare{10, 5}, ServerCPU: 20, ServerCPUOK: true}})
	fams := scrape(t, reg.Handler())
	name := regexp.MustCompile(`\bcairn_[a-z_]+`)
	used := map[string]bool{}
	for _, e := range exprs {
		for _, n := range name.FindAllString(e, -1) {
			fam := n
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				if f := strings.TrimSuffix(n, suf); f != n && fams[f] != nil {
					fam = f
				}
			}
			if fams[fam] == nil {
				t.Errorf("the dashboard queries %s, which /metrics does not serve", n)
			}
			used[fam] = true
		}
	}
	if len(used) < 8 {
		t.Errorf("the dashboard queries %d of cairn's metrics: %v", len(used), used)
	}
}
