package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// requestedCheckpoints reads the server's count of checkpoints asked for (CHECKPOINT among
// them): pg_stat_checkpointer from PostgreSQL 17, pg_stat_bgwriter before.
func requestedCheckpoints(t *testing.T, url string) int64 {
	t.Helper()
	_, c := testutil.Open(t, url)
	var n int64
	ctx := context.Background()
	if err := c.QueryRow(ctx, "SELECT num_requested FROM pg_stat_checkpointer").Scan(&n); err == nil {
		return n
	}
	c2 := func() int64 {
		_, c := testutil.Open(t, url)
		if err := c.QueryRow(ctx, "SELECT checkpoints_req FROM pg_stat_bgwriter").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	return c2()
}

// afterProfile runs a two-step tpcb profile with --after and returns its runs' housekeeping
// records, in order, and what it printed.
func afterProfile(t *testing.T, url, after string) ([][]results.Housekeeping, string) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "p.json")
	code, out, stderr := cairn(t, "tpcb", "profile", "--db", url, "--vu", "1,2", "--rampup", "0s", "--duration", "1s",
		"--pause", "0s", "--after", after, "--no-store", "--json", js)
	if code != 0 {
		t.Fatalf("profile --after %s: exit %d\n%s\n%s", after, code, out, stderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var p results.Profile
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	var hk [][]results.Housekeeping
	for _, st := range p.Steps {
		for _, d := range st.Runs {
			hk = append(hk, d.Housekeeping)
		}
	}
	if len(hk) != 2 {
		t.Fatalf("profile ran %d runs, want 2", len(hk))
	}
	return hk, out + stderr
}

func prepareTPCB(t *testing.T, url string) {
	t.Helper()
	cairn(t, "tpcb", "cleanup", "--db", url)
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
}

// checkTasks checks the runs' records: none before the first run, want's tasks in order before
// the second, each timed.
func checkTasks(t *testing.T, hk [][]results.Housekeeping, want ...string) {
	t.Helper()
	if len(hk[0]) != 0 {
		t.Errorf("the first run has housekeeping before it: %+v", hk[0])
	}
	if len(hk[1]) != len(want) {
		t.Fatalf("housekeeping before the second run: %+v, want %v", hk[1], want)
	}
	for i, h := range hk[1] {
		if h.Task != want[i] || h.Seconds <= 0 || h.Database == "" {
			t.Errorf("housekeeping %d: %+v, want task %s timed", i, h, want[i])
		}
	}
}

// A profile with --after checkpoint has PostgreSQL checkpoint between its steps (the server's
// own count of requested checkpoints rises), and says how long each task took, in its output and
// in the next run's document.
func TestAfterCheckpointPostgres(t *testing.T) {
	url := testutil.PG(t)
	prepareTPCB(t, url)
	before := requestedCheckpoints(t, url)
	hk, out := afterProfile(t, url, "checkpoint,vacuum,analyze")
	after := requestedCheckpoints(t, url)
	if after <= before {
		t.Errorf("requested checkpoints %d before the profile, %d after: none was run", before, after)
	}
	checkTasks(t, hk, "vacuum", "analyze", "checkpoint")
	for _, w := range []string{"after run 1: checkpoint on ", "housekeeping before 2 VUs: vacuum "} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestAfterMySQLAndSQLite(t *testing.T) {
	for _, c := range []struct {
		name, url string
		after     string
		want      []string
	}{
		{"mysql", testutil.MySQL(t), "checkpoint,analyze,wait-purge", []string{"wait-purge", "analyze", "checkpoint"}},
		{"sqlite", testutil.SQLite(t), "analyze,checkpoint", []string{"analyze", "checkpoint"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			prepareTPCB(t, c.url)
			hk, _ := afterProfile(t, c.url, c.after)
			checkTasks(t, hk, c.want...)
		})
	}
}

// What a database cannot do, and what is no task, is refused before anything runs: exit 2, one line.
func TestAfterRefused(t *testing.T) {
	for _, c := range []struct {
		url, after, want string
	}{
		{testutil.SQLite(t), "vacuum", "--after vacuum: SQLite cannot"},
		{testutil.SQLite(t), "wait-purge", "--after wait-purge: SQLite cannot"},
		{testutil.PG(t), "wait-purge", "--after wait-purge: PostgreSQL cannot"},
		{testutil.MySQL(t), "vacuum", "cannot: InnoDB has no VACUUM"},
		{testutil.SQLite(t), "checkpoint,defrag", `"defrag" is not a housekeeping task`},
	} {
		if !strings.HasPrefix(c.url, "postgres") && !strings.HasPrefix(c.url, "mysql") {
			cairn(t, "tpcb", "prepare", "--db", c.url)
		}
		code, _, stderr := cairn(t, "tpcb", "profile", "--db", c.url, "--vu", "1,2", "--duration", "1s", "--no-store", "--after", c.after)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("--after %s on %s: exit %d, %q; want exit 2 saying %q", c.after, c.url, code, stderr, c.want)
		}
		oneCleanLine(t, stderr)
	}
}

// A study's after key does its housekeeping between its runs, recorded in the next run's
// document, and a task its database cannot do is refused before the study begins.
func TestAfterStudy(t *testing.T) {
	url := testutil.SQLite(t)
	js := filepath.Join(t.TempDir(), "study.json")
	file := writeStudy(t, "name: after\nworkload: tpcb\nprepare: {scale: 1}\nvu: [1]\nrampup: 0s\nduration: 1s\npause: 0s\nrepeat: 2\nafter: checkpoint,analyze\n")
	code, out, stderr := cairn(t, "study", "run", file, "--set", "db="+url, "--no-store", "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	runs := readStudyDoc(t, js).Runs()
	if len(runs) != 2 {
		t.Fatalf("the study ran %d runs, want 2", len(runs))
	}
	checkTasks(t, [][]results.Housekeeping{runs[0].Housekeeping, runs[1].Housekeeping}, "analyze", "checkpoint")
	code, _, stderr = cairn(t, "study", "run", file, "--set", "db="+url, "--set", "after=vacuum", "--no-store")
	if code != ExitUsage || !strings.Contains(stderr, "--after vacuum: SQLite cannot") {
		t.Errorf("study with after=vacuum on SQLite: exit %d, %q", code, stderr)
	}
	oneCleanLine(t, stderr)
}
