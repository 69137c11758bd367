package openmetrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/metrics"
)

// TestGrafanaDashboard: the dashboard in docs/serve.md is valid JSON, and every metric its queries
// name is one /metrics serves (a histogram's _bucket, _sum and _count are its family's).
func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("../../docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "### A Grafana dashboard")
	if i < 0 {
		t.Fatal("docs/serve.md has no Grafana dashboard section")
	}
	m := regexp.MustCompile("(?s)```json\n(.*?)```").FindStringSubmatch(doc[i:])
	if m == nil {
		t.Fatal("the Grafana dashboard section has no JSON block")
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal([]byte(m[1]), &dash); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	var exprs []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		exprs = append(exprs, v.Definition)
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
