package serve_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/openmetrics"
	"github.com/cairn-bench/cairn/internal/serve"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// A job whose result did not measure what was planned — here one part of a run of two, whose
// other part never runs — says so wherever the service shows it: its job record, the results
// list, and /metrics (cairn_not_as_planned, one series per reason).
func TestMarkedResultInTheService(t *testing.T) {
	reg := openmetrics.New()
	s := start(t, serve.Config{Version: "test", Metrics: reg.Handler(),
		JobMetrics: func(id, workload, target string) serve.JobMetrics { return reg.Job(id, workload, target) }})
	db := testutil.SQLite(t)
	s.done("prepare", oltpSpec(db, "prepare: {tables: 1, table-size: 500}\n"))
	startAt := fmt.Sprintf("@%d", time.Now().Add(3*time.Second).Unix())
	j := s.done("run", strings.Replace(oltpSpec(db, "part: 1/2\npart-run: alone\nstart-at: \""+startAt+"\"\n"), "vu: 1", "vu: 2", 1))
	var rec struct {
		ResultID     string                        `json:"result_id"`
		NotAsPlanned []struct{ Code, Text string } `json:"not_as_planned"`
	}
	s.ok(200, "GET", "/api/v1/jobs/"+j.ID, nil, &rec)
	if len(rec.NotAsPlanned) != 1 || rec.NotAsPlanned[0].Code != "part_missing" || !strings.Contains(rec.NotAsPlanned[0].Text, "part 1/2") {
		t.Errorf("the job record's mark: %+v", rec.NotAsPlanned)
	}
	var list struct {
		Results []struct {
			ID           string   `json:"id"`
			NotAsPlanned []string `json:"not_as_planned"`
		}
	}
	s.ok(200, "GET", "/api/v1/results", nil, &list)
	found := false
	for _, e := range list.Results {
		if e.ID == rec.ResultID {
			found = len(e.NotAsPlanned) == 1 && e.NotAsPlanned[0] == "part_missing"
		}
	}
	if !found {
		t.Errorf("the results list does not mark result %s: %+v", rec.ResultID, list.Results)
	}
	_, b, _ := s.do("GET", "/metrics", nil)
	want := fmt.Sprintf(`cairn_not_as_planned{job_id=%q,reason="part_missing",target=`, j.ID)
	if !strings.Contains(string(b), want) {
		t.Errorf("/metrics lacks %s:\n%s", want, grepLines(string(b), "cairn_not_as_planned"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
