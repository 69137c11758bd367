package cli

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/oltp"
)

// schemaState reads the state of a workload's schema in the database at url.
func schemaState(t *testing.T, url string, f workload.Footprint) workload.State {
	t.Helper()
	tg, c := testutil.Open(t, url)
	s, err := workload.Inspect(context.Background(), c, tg, f)
	if err != nil {
		t.Fatal(err)
	}
	return s.State
}

// schemaStudy is a study whose schema is a factor: oltp on 1 table against 2, interleaved, so
// that the order prepares 1, 2 | 2, 1: three prepares.
const schemaStudy = `name: schema-factor
workload: oltp
options: {workload: point-select, tables: [1, 2], table-size: 500}
prepare: true
vu: [1]
rampup: 0s
duration: 2s
pause: 0s
repeat: 2
order: interleaved
`

// TestStudySchemaFactor: a schema factor prepares each level's schema in the study's order, runs
// each case on its own schema (the run documents say which), compares the cases per level, and
// leaves the database without the workload's schema, as found. A database that holds the schema
// already is refused before anything changes, and so is a level the workload rejects.
func TestStudySchemaFactor(t *testing.T) {
	url := testutil.MySQL(t)
	fresh(t, "oltp", url)
	file := writeStudy(t, schemaStudy)
	code, out, stderr := cairn(t, "study", "plan", file, "--set", "db="+url)
	if code != 0 || !strings.Contains(out, "options.tables  → 1, 2 (the schema: each level prepared)") ||
		!strings.Contains(out, "3 prepares (2 schemas, so some more than once in this order), each about 500 to 1000 rows") ||
		strings.Count(out, "after a prepare") != 3 {
		t.Errorf("plan: exit %d\n%s%s", code, out, stderr)
	}
	js := filepath.Join(t.TempDir(), "study.json")
	code, out, stderr = cairn(t, "study", "run", file, "--set", "db="+url, "--no-store", "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := strings.Count(out+stderr, "preparing sysbench-style OLTP"); got != 3 {
		t.Errorf("%d prepares, want 3:\n%s%s", got, out, stderr)
	}
	if got := strings.Count(out+stderr, "dropped the sysbench-style OLTP schema"); got != 3 {
		t.Errorf("%d schemas dropped, want 3 (two between levels, one at the end):\n%s%s", got, out, stderr)
	}
	if st := schemaState(t, url, oltp.Footprint); st != workload.StateNone {
		t.Errorf("after the study the database holds an oltp schema (state %d)", st)
	}
	doc := readStudyDoc(t, js)
	if len(doc.Factors) != 1 || doc.Factors[0].Name != "options.tables" || fmt.Sprint(doc.Factors[0].Levels) != "[1 2]" {
		t.Errorf("factors %+v", doc.Factors)
	}
	if len(doc.Cases) != 2 {
		t.Fatalf("%d cases, want 2", len(doc.Cases))
	}
	for _, cs := range doc.Cases {
		if len(cs.Levels) != 1 || cs.Levels[0].Name != "options.tables" {
			t.Fatalf("case %s: levels %+v", cs.Label, cs.Levels)
		}
		runs := 0
		for _, step := range cs.Profile.Steps {
			for _, d := range step.Runs {
				runs++
				x, _ := d.Extra["oltp"].(map[string]any)
				if got := fmt.Sprint(x["tables"]); got != cs.Levels[0].Value {
					t.Errorf("case %s ran on %s tables", cs.Label, got)
				}
			}
		}
		if runs != 2 {
			t.Errorf("case %s: %d runs, want 2", cs.Label, runs)
		}
	}

	// A schema the study did not prepare is not the study's to drop: refused, and kept.
	if code, _, stderr := cairn(t, "oltp", "prepare", "--db", url, "--tables", "1", "--table-size", "100"); code != 0 {
		t.Fatalf("prepare: %s", stderr)
	}
	for _, args := range [][]string{{"plan"}, {"run", "--no-store"}} {
		cmd := args[0]
		code, _, stderr = cairn(t, append(append([]string{"study"}, args...), file, "--set", "db="+url)...)
		if code != ExitUsage || !strings.Contains(stderr, "holds a sysbench-style OLTP schema") || !strings.Contains(stderr, "cairn oltp cleanup") {
			t.Errorf("study %s on a database with an oltp schema: exit %d %q", cmd, code, stderr)
		}
		oneCleanLine(t, stderr)
	}
	if st := schemaState(t, url, oltp.Footprint); st != workload.StateComplete {
		t.Errorf("the schema found was not kept (state %d)", st)
	}

	// A level the workload rejects, an option it lacks: one line, exit 2, before the server is asked.
	for _, c := range []struct{ from, to, want string }{
		{"tables: [1, 2]", "tables: [1, 0]", "options.tables"},
		{"tables: [1, 2]", "tablez: [1, 2]", "tablez"},
	} {
		bad := writeStudy(t, strings.Replace(schemaStudy, c.from, c.to, 1))
		code, _, stderr := cairn(t, "study", "plan", bad, "--set", "db=mysql://nobody@127.0.0.1:1/x")
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d %q", c.to, code, stderr)
		}
		oneCleanLine(t, stderr)
	}
}

// longSchemaStudy readies the schema-factor study with a 60 s window and a changed
// innodb_spin_wait_delay on a database without oltp's schema: it returns the database, the
// setting as found, and start, which runs the study until its first window opens.
func longSchemaStudy(t *testing.T) (url, before string, start func() (*exec.Cmd, *bytes.Buffer)) {
	t.Helper()
	bin := cairnBinary(t)
	url = testutil.MySQL(t)
	fresh(t, "oltp", url)
	before = setting(t, url, "innodb_spin_wait_delay")
	changed := "7"
	if before == changed {
		changed = "9"
	}
	file := writeStudy(t, strings.Replace(schemaStudy, "duration: 2s", "duration: 60s\nprogress: 1s", 1)+
		"settings: {innodb_spin_wait_delay: ["+changed+"]}\n")
	return url, before, func() (*exec.Cmd, *bytes.Buffer) {
		cmd, out := startUntil(t, bin, "] window ", "study", "run", file, "--set", "db="+url, "--no-store")
		t.Cleanup(func() { cmd.Process.Kill() })
		return cmd, out
	}
}

// TestStudySchemaFactorInterrupted: Ctrl-C in a study whose schema is a factor drops the schema
// it prepared, as it restores its settings: the database holds no oltp schema afterwards.
func TestStudySchemaFactorInterrupted(t *testing.T) {
	url, before, start := longSchemaStudy(t)
	cmd, out := start()
	if st := schemaState(t, url, oltp.Footprint); st != workload.StateComplete {
		t.Fatalf("no oltp schema while the study runs (state %d): the test cannot check its drop", st)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the study did not end within 60 s of Ctrl-C:\n%s", out)
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("exit %d after Ctrl-C, want %d", code, ExitInterrupted)
	}
	if st := schemaState(t, url, oltp.Footprint); st != workload.StateNone {
		t.Errorf("after Ctrl-C the database holds an oltp schema (state %d):\n%s", st, out)
	}
	if got := setting(t, url, "innodb_spin_wait_delay"); got != before {
		t.Errorf("after Ctrl-C innodb_spin_wait_delay is %s, was %s", got, before)
	}
}

// TestStudySchemaFactorKilled: a study whose schema is a factor, killed (SIGKILL) while a level's
// schema is in the database, leaves it there with its settings; 'cairn restore --db URL' drops
// the schema from the undo journal, as it puts the settings back, and the journal is empty after.
// Killed again, 'cairn study restore --db URL' does the same.
func TestStudySchemaFactorKilled(t *testing.T) {
	t.Setenv("CAIRN_STATE", filepath.Join(t.TempDir(), "undo")) // this test's journal alone
	url, before, start := longSchemaStudy(t)
	cmd, out := start()
	cmd.Process.Kill()
	cmd.Wait()
	if st := schemaState(t, url, oltp.Footprint); st != workload.StateComplete {
		t.Fatalf("after the kill the database holds no complete oltp schema (state %d): the test cannot check restore's drop\n%s", st, out)
	}
	code, stdout, stderr := cairn(t, "restore", "--db", url)
	if code != 0 || !strings.Contains(stdout, "restored: the sysbench-style OLTP schema a study prepared on ") {
		t.Errorf("restore: exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, ":cairn@") {
		t.Errorf("restore printed the password:\n%s", stdout)
	}
	if st := schemaState(t, url, oltp.Footprint); st != workload.StateNone {
		t.Errorf("after restore the database holds an oltp schema (state %d):\n%s", st, stdout)
	}
	if got := setting(t, url, "innodb_spin_wait_delay"); got != before {
		t.Errorf("after restore innodb_spin_wait_delay is %s, was %s", got, before)
	}
	if code, stdout, _ := cairn(t, "restore", "--db", url); code != 0 || !strings.Contains(stdout, "nothing to restore") {
		t.Errorf("a second restore: exit %d\n%s", code, stdout)
	}

	// Killed again: 'cairn study restore --db URL' drops the schema beside the settings.
	cmd, out = start()
	cmd.Process.Kill()
	cmd.Wait()
	if st := schemaState(t, url, oltp.Footprint); st != workload.StateComplete {
		t.Fatalf("after the second kill the database holds no complete oltp schema (state %d)\n%s", st, out)
	}
	code, stdout, stderr = cairn(t, "study", "restore", "--db", url)
	if code != 0 || !strings.Contains(stdout, "restored: the sysbench-style OLTP schema a study prepared on ") || !strings.Contains(stdout, "restored: settings innodb_spin_wait_delay") {
		t.Errorf("study restore: exit %d\n%s%s", code, stdout, stderr)
	}
	if st := schemaState(t, url, oltp.Footprint); st != workload.StateNone {
		t.Errorf("after study restore the database holds an oltp schema (state %d):\n%s", st, stdout)
	}
	if got := setting(t, url, "innodb_spin_wait_delay"); got != before {
		t.Errorf("after study restore innodb_spin_wait_delay is %s, was %s", got, before)
	}
}
