package ui_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestUITPCHJobStreamsItsQueries: a TPC-H power test started from the form (SQLite, SF 0.01,
// prepared by the job) shows each timed query in the job's view as it ends, while the job runs,
// with the per-second ticks' per-core CPU; at its end the view lists the test's 24 timings, as
// the stored result keeps them, and links to the result.
func TestUITPCHJobStreamsItsQueries(t *testing.T) {
	s, _, ctx := openForm(t)
	fillSpec(t, ctx, "workload: tpch\ndb: sqlite://tpch.db\nseed: 7\noptions:\n  power: true\nprepare:\n  sf: 0.01\n")
	if err := chromedp.Do(ctx, chromedp.Click("#start")); err != nil {
		t.Fatal(err)
	}
	id := until[string](t, ctx, "the job's page", 15*time.Second, `(location.hash.match(/^#\/jobs\/(.+)$/) || [])[1] || ""`)

	// The queries appear one by one while the job runs.
	type seen struct {
		Rows  int    `json:"rows"`
		State string `json:"state"`
		First string `json:"first"`
	}
	const look = `(function () {
	  var rows = document.querySelectorAll("#queries tbody tr");
	  var st = document.querySelector("#job-state .state");
	  return { rows: rows.length, state: st ? st.dataset.state : "", first: rows.length ? rows[0].textContent : "" };
	})()`
	var growing []int
	var first string
	deadline := time.Now().Add(4 * time.Minute)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[seen](look))
		if err != nil {
			t.Fatalf("read the job's view: %v", err)
		}
		if v.State != "running" && v.State != "queued" && v.State != "" {
			break
		}
		if v.Rows > 0 && (len(growing) == 0 || v.Rows > growing[len(growing)-1]) {
			growing = append(growing, v.Rows)
			first = v.First
		}
		if time.Now().After(deadline) {
			shot(t, ctx, "tpch-timeout")
			t.Fatalf("job %s still running after 4 minutes; queries seen %v", id, growing)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(growing) < 2 {
		t.Errorf("while job %s ran, its view showed queries %v times: want them to appear as they end, more than once", id, growing)
	}
	t.Logf("job %s: the queries table grew through %v rows while it ran", id, growing)
	if !regexp.MustCompile(`^powerRF1[0-9]+\.[0-9]{3}[0-9]+$`).MatchString(first) {
		t.Errorf("the first query row reads %q: want the power stream's RF1, its seconds and rows", first)
	}
	state := until[string](t, ctx, "the job's end", time.Minute, `(function () {
	  var st = document.querySelector("#job-state .state").dataset.state;
	  return document.querySelector("#open-result") ? st : "";
	})()`)
	if state != "done" {
		t.Fatalf("job %s ended %s, want done", id, state)
	}
	rows := until[int](t, ctx, "the queries table", 10*time.Second, `document.querySelectorAll("#queries tbody tr").length`)
	if rows != 24 {
		t.Errorf("the queries table lists %d timings, want the power test's 24 (RF1, 22 queries, RF2)", rows)
	}
	cores := until[int](t, ctx, "the per-core chart", 10*time.Second, `(function () {
	  var inst = echarts.getInstanceByDom(document.querySelector('[data-chart-id="cores"]'));
	  return inst ? inst.getOption().series[0].data.length : 0;
	})()`)
	t.Logf("per-core chart: %d cores", cores)
	result := until[string](t, ctx, "the result link", 5*time.Second, `(document.querySelector("#open-result").getAttribute("href").match(/^#\/results\/(.+)$/) || [])[1] || ""`)
	show := s.cli(t, "results", "show", result)
	if !strings.Contains(show, "Power@0.01GB = ") {
		t.Errorf("results show %s lacks the power figure:\n%s", result, show)
	}
	shot(t, ctx, "tpch-job")
}
