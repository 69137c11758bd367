package testutil

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// DashboardQuery is one query of the Grafana dashboard docs/serve.md ships: a panel's target, or
// a template variable's definition (Panel "variable NAME").
type DashboardQuery struct {
	Panel string
	Expr  string
}

// Dashboard reads the Grafana dashboard of docs/serve.md (path: that file, from the test's
// package) and returns every query it makes; a dashboard that is not valid JSON, or a panel that
// queries nothing, fails the test.
func Dashboard(t testing.TB, path string) []DashboardQuery {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "### A Grafana dashboard")
	if i < 0 {
		t.Fatalf("%s has no Grafana dashboard section", path)
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
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal([]byte(m[1]), &dash); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	var out []DashboardQuery
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, DashboardQuery{p.Title, tg.Expr})
		}
	}
	for _, v := range dash.Templating.List {
		out = append(out, DashboardQuery{"variable " + v.Name, v.Definition})
	}
	return out
}
