package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestLoadSchedule is the acceptance of load that changes in a run, on SQLite and PostgreSQL: a
// run of 4 → 16 → 4 VUs records its two changes as live changes, splits its window into three
// segments whose spans count the window's transactions exactly and whose length-weighted TPS is
// the run's (within 1%), and reports after each change the time the throughput took to recover,
// as docs/result-format.md#segments defines it, which the test checks against the series.
func TestLoadSchedule(t *testing.T) {
	for _, db := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", testutil.SQLite}, {"postgres", testutil.PG}} {
		t.Run(db.name, func(t *testing.T) {
			url := db.url(t)
			oltpPrepared(t, url)
			js := filepath.Join(t.TempDir(), "run.json")
			code, out, stderr := cairn(t, "oltp", "run", "--db", url, "--workload", "read-only", "--vu", "4", "--rampup", "2s",
				"--duration", "15s", "--schedule", "33%:vu=16,67%:vu=4", "--progress", "0", "--no-store", "--json", js)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			var d results.Document
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, "4 → 16 → 4 VUs") || !strings.Contains(out, "load segments") {
				t.Errorf("the summary does not show the load schedule and its segments:\n%s", out)
			}
			if d.Client.Reconnects != 0 {
				t.Errorf("%d reconnects: parked VUs keep their connections", d.Client.Reconnects)
			}
			if len(d.Changes) != 2 || d.Changes[0].Value != "16" || d.Changes[1].Value != "4" {
				t.Fatalf("changes %+v, want vu 16 then 4", d.Changes)
			}
			for _, c := range d.Changes {
				if c.Name != results.LoadSetting || c.AtSec < c.Planned {
					t.Errorf("change %+v: want %s, made at its planned time or after", c, results.LoadSetting)
				}
			}
			if len(d.Segments) != 3 {
				t.Fatalf("%d segments, want 3", len(d.Segments))
			}
			var spanTxns, seriesTxns, runTxns int64
			for i, g := range d.Segments {
				if want := "vu=" + []string{"4", "16", "4"}[i]; g.Label() != want || g.Seconds <= 0 || g.TPS <= 0 {
					t.Errorf("segment %d: %s over %v s at %v TPS, want %s measured", i+1, g.Label(), g.Seconds, g.TPS, want)
				}
				spanTxns += g.SpanTxns
			}
			for _, x := range d.Series {
				if x.Window {
					seriesTxns += x.Txns
				}
			}
			for _, tx := range d.Txns {
				runTxns += tx.Count
			}
			if spanTxns != seriesTxns || seriesTxns != runTxns {
				t.Errorf("segments' spans count %d transactions, the window's seconds %d, the run %d: want one count", spanTxns, seriesTxns, runTxns)
			}
			if got, run := results.WeightedTPS(d.Segments), *d.Result.TPS; math.Abs(got-run) > 0.01*run {
				t.Errorf("segments weigh back to %.2f TPS, the run's is %.2f: more than 1%% apart", got, run)
			}
			for _, g := range d.Segments[1:] {
				checkRecovery(t, &d, &g)
			}
		})
	}
}

// checkRecovery checks a segment's recovery against its definition on the run's series: every
// second of the segment from the recovery on within the band of the steady throughput, and the
// one before it (if the recovery is not at the first second after the change) outside; not
// recovered only when the segment's last second is outside.
func checkRecovery(t *testing.T, d *results.Document, g *results.Segment) {
	t.Helper()
	r := g.Recovery
	if r == nil || r.Band != results.RecoveryBand || r.SteadyTPS <= 0 {
		t.Errorf("segment %d: recovery %+v, want one with the band %v and a steady throughput", g.Index, r, results.RecoveryBand)
		return
	}
	out := func(tps float64) bool { return tps < r.SteadyTPS*(1-r.Band) || tps > r.SteadyTPS*(1+r.Band) }
	type tick struct{ start, end, tps float64 }
	var ticks []tick
	prev := 0.0
	for _, x := range d.Series {
		if dt := x.T - prev; x.Window && min(x.T, g.To)-max(prev, g.From) >= 0.75*dt {
			ticks = append(ticks, tick{prev, x.T, float64(x.Txns) / dt})
		}
		prev = x.T
	}
	if len(ticks) == 0 {
		t.Fatalf("segment %d: no second of the series in it", g.Index)
	}
	if !r.Recovered {
		if r.Seconds != nil || !out(ticks[len(ticks)-1].tps) {
			t.Errorf("segment %d: not recovered, yet its last second (%.1f TPS) is within %.0f%% of %.1f", g.Index, ticks[len(ticks)-1].tps, 100*r.Band, r.SteadyTPS)
		}
		t.Logf("segment %d: the throughput was not back within the band by the segment's end", g.Index)
		return
	}
	at := g.From + *r.Seconds
	for i, k := range ticks {
		switch {
		case k.start >= at-0.0005 && out(k.tps):
			t.Errorf("segment %d: recovered after %.3f s, yet the second ending at %.3f ran %.1f TPS, outside %.0f%% of %.1f", g.Index, *r.Seconds, k.end, k.tps, 100*r.Band, r.SteadyTPS)
		case i > 0 && math.Abs(ticks[i].start-at) < 0.0005 && !out(ticks[i-1].tps):
			t.Errorf("segment %d: recovered after %.3f s, yet the second before (%.1f TPS) was already within the band", g.Index, *r.Seconds, ticks[i-1].tps)
		}
	}
	t.Logf("segment %d (%s): steady %.1f TPS, recovered %.3f s after the change", g.Index, g.Label(), r.SteadyTPS, *r.Seconds)
}

// TestLoadScheduleRefused: what a load schedule cannot combine with, or cannot read, is refused
// in one line with exit 2, before anything connects.
func TestLoadScheduleRefused(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "x.db")
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile.yaml")
	if err := os.WriteFile(profile, []byte("workload: oltp\ndb: "+db+"\nvu: [1, 2]\nschedule: [{at: 30%, vu: 8}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(list, []byte("workload: oltp\ndb: "+db+"\nvu: 2\nduration: 10s\nschedule: [{at: 30%, vu: 8}, {at: 2s, vu: 1}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"oltp", "run", "--db", db, "--schedule", "30%:vu=8", "--terminals", "8"}, "--terminals"},
		{[]string{"oltp", "run", "--db", db, "--schedule", "30%:rate=100"}, "give --rate"},
		{[]string{"oltp", "run", "--db", db, "--schedule", "30%:vu=8:vu=4"}, "once"},
		{[]string{"oltp", "run", "--db", db, "--schedule", "30%:vu=8", "--part", "1/2"}, "--part"},
		{[]string{"oltp", "run", "--db", db, "--schedule", "30%:vus=8"}, "vu=N"},
		{[]string{"oltp", "run", "--db", db, "--duration", "10s", "--schedule", "12s:vu=8"}, "outside the measured window"},
		{[]string{"oltp", "run", "--db", db, "--schedule", "60%:vu=8,30%:vu=2"}, "rising order"},
		{[]string{"oltp", "run", "--db", db, "--schedule", "30%:vu=0"}, "from 1"},
		{[]string{"oltp", "profile", "--db", db, "--schedule", "30%:vu=8"}, "unknown flag"},
		{[]string{"run", "--spec", profile}, "a profile runs each step at its VU count"},
		{[]string{"run", "--spec", list}, "rising order"},
		{[]string{"tpch", "run", "--db", db, "--schedule", "30%:vu=8"}, "unknown flag"},
	} {
		code, out, stderr := cairn(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q (want 2 and %q)\n%s", c.args, code, stderr, c.want, out)
			continue
		}
		oneCleanLine(t, stderr)
	}
}

// TestStudyLoadSchedule: a study's schedule changes the load (vu) as a run's does, beside a live
// setting change planned for the same instant (PostgreSQL's synchronous_commit): each run's
// segments are cut at both, labelled with both, placed at the study's VU count, weigh back to
// the run's TPS, and report a recovery after each change; the setting is restored.
func TestStudyLoadSchedule(t *testing.T) {
	url := testutil.PG(t)
	oltpPrepared(t, url)
	js := filepath.Join(t.TempDir(), "study.json")
	path := writeStudy(t, "name: load-step\nworkload: oltp\ndb: "+url+"\noptions: {workload: read-only}\nvu: [2]\nrampup: 1s\nduration: 12s\npause: 0s\n"+
		"schedule:\n  - {at: 33%, vu: 6, set: {synchronous_commit: \"off\"}}\n  - {at: 67%, vu: 2}\n")
	code, out, stderr := cairn(t, "study", "run", path, "--no-store", "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "recovered after") {
		t.Errorf("the study's per-segment table has no recovery:\n%s", out)
	}
	st := readStudyDoc(t, js)
	runs := st.Runs()
	if len(runs) != 1 || len(st.Schedule) != 2 || st.Schedule[0].VU != 6 || st.Schedule[1].VU != 2 {
		t.Fatalf("%d runs, schedule %+v: want 1 run and the two load changes", len(runs), st.Schedule)
	}
	d := runs[0]
	if d.VU != 2 || len(d.Segments) != 3 {
		t.Fatalf("run at %d VUs with %d segments, want 2 VUs and 3 segments", d.VU, len(d.Segments))
	}
	for i, g := range d.Segments {
		want := []string{"vu=2", "synchronous_commit=off, vu=6", "synchronous_commit=off, vu=2"}[i]
		if !strings.HasSuffix(g.Label(), want) || g.Seconds <= 0 {
			t.Errorf("segment %d: %s over %v s, want %s measured", i+1, g.Label(), g.Seconds, want)
		}
		if i > 0 {
			checkRecovery(t, d, &g)
		}
	}
	if got, run := results.WeightedTPS(d.Segments), *d.Result.TPS; math.Abs(got-run) > 0.01*run {
		t.Errorf("segments weigh back to %.2f TPS, the run's is %.2f", got, run)
	}
	if !st.Restored {
		t.Error("the study did not restore synchronous_commit")
	}
}
