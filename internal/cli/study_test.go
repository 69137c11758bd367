package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/undo"
)

// setting reads one server setting as a study would find it.
func setting(t *testing.T, url, name string) string {
	t.Helper()
	tg, c := testutil.Open(t, url)
	s, err := tg.(target.Configurer).DescribeSetting(context.Background(), c, name)
	if err != nil {
		t.Fatal(err)
	}
	return s.Value
}

// fresh drops the workload's schema before a study that prepares its own, and after it.
func fresh(t *testing.T, workload, url string) {
	t.Helper()
	if code, _, stderr := cairn(t, workload, "cleanup", "--db", url); code != 0 {
		t.Fatalf("%s cleanup: %s", workload, stderr)
	}
	t.Cleanup(func() { cairn(t, workload, "cleanup", "--db", url) })
}

// writeStudy writes a study file into a test's directory.
func writeStudy(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "study.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readStudyDoc reads a study document written with --json.
func readStudyDoc(t *testing.T, path string) *results.Study {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st results.Study
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// TestStudySweepPG is the PostgreSQL acceptance: synchronous_commit on and off × 2 and 4
// VUs, twice each, interleaved; every applied value read back; the setting as found afterwards;
// the study stored and compared per level with a Mann-Whitney verdict, shown, exported and
// reported.
func TestStudySweepPG(t *testing.T) {
	url := testutil.PG(t)
	fresh(t, "tpcb", url)
	before := setting(t, url, "synchronous_commit")
	store := filepath.Join(t.TempDir(), "results.db")
	js := filepath.Join(t.TempDir(), "study.json")
	code, out, stderr := cairn(t, "study", "run", "../../studies/ci/postgres-synchronous-commit.yaml", "--set", "db="+url,
		"--results", store, "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"set synchronous_commit = off (reads off)", "stored as study", "A: synchronous_commit=on", "B: synchronous_commit=off"} {
		if !strings.Contains(out, want) {
			t.Errorf("study run output lacks %q:\n%s", want, out)
		}
	}
	if got := setting(t, url, "synchronous_commit"); got != before {
		t.Errorf("synchronous_commit is %s after the study, was %s", got, before)
	}
	st := readStudyDoc(t, js)
	if len(st.Cases) != 2 || !st.Restored || len(st.Steps) != 8 {
		t.Fatalf("study document: %d cases, restored %v, %d runs (want 2, true, 8)", len(st.Cases), st.Restored, len(st.Steps))
	}
	// Interleaved: each repeat visits every case and VU count once before the next repeat.
	var order []string
	for _, s := range st.Steps {
		order = append(order, fmt.Sprintf("%d/%d/%d", s.Case, s.VU, s.Repeat))
	}
	if got := strings.Join(order, " "); got != "0/2/0 0/4/0 1/2/0 1/4/0 0/2/1 0/4/1 1/2/1 1/4/1" {
		t.Errorf("running order %s", got)
	}
	for _, c := range st.Cases {
		if len(c.Applied) != 1 || !strings.EqualFold(c.Applied[0].Value, c.Levels[0].Value) {
			t.Errorf("case %s: applied %v", c.Label, c.Applied)
		}
		for _, step := range c.Profile.Steps {
			if step.Summary.Headline.N != 2 {
				t.Errorf("case %s, %d VUs: %d measured runs, want 2", c.Label, step.VU, step.Summary.Headline.N)
			}
		}
	}
	if st.Original[0].Name != "synchronous_commit" || st.Original[0].Value != before {
		t.Errorf("original settings %v", st.Original)
	}
	code, out, _ = cairn(t, "results", "compare", st.ID, "--results", store)
	rowsB := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "B ") {
			rowsB++
		}
	}
	if code != 0 || !strings.Contains(out, "Mann-Whitney") || rowsB != 2 {
		t.Errorf("compare STUDY: exit %d\n%s", code, out)
	}
	// Two runs a side cannot reach p < 0.05 however far apart: not "within the spread".
	if !strings.Contains(out, "untestable (n=2)") || strings.Contains(out, "~ (p=") || !strings.Contains(out, "it needs 4 runs") {
		t.Errorf("compare STUDY of 2 runs a step does not call the differences untestable:\n%s", out)
	}
	code, out, _ = cairn(t, "results", "show", st.ID, "--results", store)
	if code != 0 || strings.Count(out, ": result ") != 8 {
		t.Errorf("show STUDY: exit %d\n%s", code, out)
	}
	code, out, _ = cairn(t, "results", "export", st.ID, "--format", "csv", "--results", store)
	if code != 0 || strings.Count(strings.TrimSpace(out), "\n") != 8 || !strings.HasPrefix(out, "study_id,step,case,synchronous_commit,vu") {
		t.Errorf("export STUDY csv: exit %d\n%s", code, out)
	}
	html := filepath.Join(t.TempDir(), "study.html")
	code, out, _ = cairn(t, "report", st.ID, "-o", html, "--results", store)
	b, _ := os.ReadFile(html)
	if code != 0 || !strings.Contains(string(b), "profiles-headline") || !strings.Contains(string(b), "synchronous_commit=off") {
		t.Errorf("report STUDY: exit %d %s", code, out)
	}
	if code, _, stderr := cairn(t, "results", "compare", st.ID, st.Steps[0].Result, "--results", store); code != 2 {
		t.Errorf("compare of a study with a run: exit %d %s", code, stderr)
	}
}

// TestStudyLiveMariaDB runs the live-change study's CI variant on MariaDB: each run's window gets
// the four changes of innodb_spin_wait_delay, each seen by the server within 100 ms of its time,
// and the setting is as found afterwards. The report is written for a study id.
func TestStudyLiveMariaDB(t *testing.T) {
	url := testutil.MySQL(t)
	fresh(t, "oltp", url)
	before := setting(t, url, "innodb_spin_wait_delay")
	store := filepath.Join(t.TempDir(), "results.db")
	js := filepath.Join(t.TempDir(), "study.json")
	// An independent reader: the server's value every 10 ms. A new value is logged with the time
	// it was read and the time the poll before it was sent, which still read the old one: the
	// change came after that, however late this reader's own polls ran on a loaded host.
	type seen struct {
		at, after time.Time
		v         string
	}
	var log []seen
	stop := make(chan struct{})
	done := make(chan struct{})
	tg, c := testutil.Open(t, url)
	_ = tg
	go func() {
		defer close(done)
		var last time.Time // when the latest poll was sent
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			var v string
			sent := time.Now()
			if err := c.QueryRow(context.Background(), "SELECT @@GLOBAL.innodb_spin_wait_delay").Scan(&v); err == nil {
				if len(log) == 0 || log[len(log)-1].v != v {
					log = append(log, seen{at: time.Now(), after: last, v: v})
				}
				last = sent
			}
		}
	}()
	code, out, stderr := cairn(t, "study", "run", "../../studies/ci/spin-wait-delay-live.yaml", "--set", "db="+url,
		"--results", store, "--json", js)
	close(stop)
	<-done
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := setting(t, url, "innodb_spin_wait_delay"); got != before {
		t.Errorf("innodb_spin_wait_delay is %s after the study, was %s", got, before)
	}
	st := readStudyDoc(t, js)
	runs := 0
	for _, c := range st.Cases {
		for _, step := range c.Profile.Steps {
			for _, d := range step.Runs {
				runs++
				if len(d.Changes) != 4 {
					t.Fatalf("run %s: %d live changes, want 4", d.ID, len(d.Changes))
				}
				windowStart := d.StartedAt.Add(time.Duration(d.Window.RampupSeconds * float64(time.Second)))
				// A loaded host wakes cairn's timers late: the run's own clock says by how much
				// (its latest tick), and the margins below allow that beyond their own. They
				// allow the SET itself too, which the ticks do not show: with CI's two streams
				// on 2 CPUs it applied 0.13-0.17 s after the planned time while the ticks were
				// 0.001-0.042 s late (2026-11-29).
				slack := 0.0
				if c := d.Client.Clock; c != nil {
					slack = c.TickMaxMs / 1000
				}
				for i, ch := range d.Changes {
					if want := []string{"12", "24", "48", "96"}[i]; ch.Value != want || ch.ReadBack != want {
						t.Errorf("run %s change %d: %s read back %s, want %s", d.ID, i, ch.Value, ch.ReadBack, want)
					}
					if late := ch.AtSec - ch.Planned; late < 0 || late > 0.25+slack {
						t.Errorf("run %s: %s=%s took effect at %.3fs, planned %gs (the clock's latest tick %.3f s late)", d.ID, ch.Name, ch.Value, ch.AtSec, ch.Planned, slack)
					}
					// The server showed the value from the planned time on (the reader polls every
					// 10 ms, and the window's start is known to the millisecond): the poll before
					// the one that first read it, which still read the old value, was sent within
					// the margin of the planned time.
					planned := windowStart.Add(time.Duration(ch.Planned * float64(time.Second)))
					var first *seen
					for i, s := range log {
						if s.v == ch.Value && s.at.After(planned.Add(-50*time.Millisecond)) {
							first = &log[i]
							break
						}
					}
					if first == nil {
						t.Errorf("run %s: the server never showed %s=%s after %v", d.ID, ch.Name, ch.Value, planned)
					} else if first.after.Sub(planned) > 300*time.Millisecond+time.Duration(slack*float64(time.Second)) {
						t.Errorf("run %s: the server still showed %s's old value at %v, %v after the planned %v", d.ID, ch.Name, first.after, first.after.Sub(planned), planned)
					}
				}
			}
		}
	}
	if runs != 2 {
		t.Errorf("%d runs, want 2", runs)
	}
	if !strings.Contains(out, "live: innodb_spin_wait_delay = 96") {
		t.Errorf("output lacks the live changes:\n%s", out)
	}
	html := filepath.Join(t.TempDir(), "study.html")
	code, out, _ = cairn(t, "report", st.ID, "-o", html, "--results", store)
	b, _ := os.ReadFile(html)
	if code != 0 || !strings.Contains(string(b), "study-live-1") || !strings.Contains(string(b), "innodb_spin_wait_delay=96 at") {
		t.Errorf("report of the live study: exit %d %s", code, out)
	}
}

// TestStudyRestore: settings read back equal to the originals after Ctrl-C, and after SIGKILL
// once 'cairn study restore' has run; until then a new study on that server is refused.
func TestStudyRestore(t *testing.T) {
	bin := cairnBinary(t)
	url := testutil.PG(t)
	fresh(t, "tpcb", url)
	before := setting(t, url, "work_mem")
	changed := "7MB"
	if before == changed {
		changed = "9MB"
	}
	file := writeStudy(t, fmt.Sprintf(`name: restore
workload: tpcb
options: {script: select-only}
prepare: {scale: 1}
vu: [1]
rampup: 0s
duration: 60s
progress: 1s
settings:
  work_mem: [%q]
`, changed))
	start := func() *os.Process {
		cmd, _ := startUntil(t, bin, "(window ", "study", "run", file, "--set", "db="+url, "--no-store")
		t.Cleanup(func() { cmd.Process.Kill() })
		go cmd.Wait()
		if got := setting(t, url, "work_mem"); got != changed {
			t.Fatalf("work_mem is %s during the study, want %s", got, changed)
		}
		return cmd.Process
	}
	waitExit := func(p *os.Process) {
		for i := 0; i < 200 && p.Signal(syscall.Signal(0)) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
	}

	p := start()
	p.Signal(syscall.SIGINT)
	waitExit(p)
	if got := setting(t, url, "work_mem"); got != before {
		t.Errorf("after Ctrl-C work_mem is %s, was %s", got, before)
	}

	p = start()
	p.Kill()
	waitExit(p)
	if got := setting(t, url, "work_mem"); got != changed {
		t.Fatalf("after kill -9 work_mem is %s: the test cannot check the restore", got)
	}
	code, _, stderr := cairn(t, "study", "plan", file, "--set", "db="+url)
	if code != 2 || !strings.Contains(stderr, "cairn study restore") {
		t.Errorf("a study after a killed one: exit %d %q, want 2 and a pointer to 'cairn study restore'", code, stderr)
	}
	oneCleanLine(t, stderr)
	code, out, stderr := cairn(t, "study", "restore", "--db", url)
	if code != 0 || !strings.Contains(out, "restored: settings work_mem") {
		t.Errorf("study restore: exit %d %q %q", code, out, stderr)
	}
	if got := setting(t, url, "work_mem"); got != before {
		t.Errorf("after study restore work_mem is %s, was %s", got, before)
	}
	if pend, _ := undo.Pending(); len(pend) != 0 {
		t.Errorf("%d journal entries left after the restore", len(pend))
	}
	if code, out, _ := cairn(t, "study", "restore", "--db", url); code != 0 || !strings.Contains(out, "nothing to restore") {
		t.Errorf("restore again: exit %d %q", code, out)
	}
}

// TestStudyBadInput: every bad study is one line and exit 2, and the server's settings are as
// they were.
func TestStudyBadInput(t *testing.T) {
	pg := testutil.PG(t)
	my := testutil.MySQL(t)
	beforePG := setting(t, pg, "synchronous_commit")
	beforeMy := setting(t, my, "innodb_spin_wait_delay")
	base := "name: bad\nworkload: tpcb\nvu: [1]\nduration: 10s\n"
	for _, c := range []struct {
		name, db, text, want string
	}{
		{"unknown setting", pg, base + "settings: {synchronous_comit: [on]}\n", `has no setting "synchronous_comit"`},
		{"refused value", pg, base + "settings: {synchronous_commit: [maybe]}\n", "settings.synchronous_commit: maybe is not one of"},
		{"restart without restart", pg, base + "settings: {shared_buffers: [256MB]}\n", "takes effect only when PostgreSQL restarts"},
		{"value out of range", my, "name: bad\nworkload: oltp\nvu: [1]\nsettings: {innodb_spin_wait_delay: [7000]}\n", "above the server's maximum"},
		{"read-only on MariaDB", my, "name: bad\nworkload: oltp\nvu: [1]\nsettings: {innodb_sort_buffer_size: [2097152]}\n", "read-only"},
		{"not a MariaDB setting", my, "name: bad\nworkload: oltp\nvu: [1]\nsettings: {innodb_spin_wait_pause_multiplier: [5]}\n", "has no setting"},
		{"schedule outside the window", pg, base + "schedule: [{at: 20s, set: {work_mem: 8MB}}]\n", "outside the measured window"},
		{"schedule of a restart setting", pg, base + "schedule: [{at: 5s, set: {shared_buffers: 256MB}}]\n", "restart"},
		{"unknown key", pg, base + "setings: {work_mem: [8MB]}\n", `setings: unknown key`},
		{"no name", pg, "workload: tpcb\nvu: [1]\n", "name: missing"},
		{"bad order", pg, base + "order: shuffled\n", "order: use sequential, interleaved, random"},
		{"two documents", pg, base + "---\n" + base, "holds more than one YAML document (another begins at line 5)"},
		{"unreachable", "postgres://cairn:secret@127.0.0.1:1/cairn", base + "settings: {work_mem: [8MB]}\n", "127.0.0.1:1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := writeStudy(t, c.text)
			for _, cmd := range []string{"plan", "run"} {
				code, _, stderr := cairn(t, "study", cmd, file, "--set", "db="+c.db, "--no-store")
				if cmd == "plan" {
					code, _, stderr = cairn(t, "study", cmd, file, "--set", "db="+c.db)
				}
				if code != 2 || !strings.Contains(stderr, c.want) {
					t.Errorf("study %s: exit %d %q, want 2 and %q", cmd, code, stderr, c.want)
				}
				oneCleanLine(t, stderr)
				if strings.Contains(stderr, "secret") {
					t.Errorf("the password is in %q", stderr)
				}
			}
		})
	}
	if got := setting(t, pg, "synchronous_commit"); got != beforePG {
		t.Errorf("synchronous_commit is %s, was %s", got, beforePG)
	}
	if got := setting(t, my, "innodb_spin_wait_delay"); got != beforeMy {
		t.Errorf("innodb_spin_wait_delay is %s, was %s", got, beforeMy)
	}
	code, _, stderr := cairn(t, "study", "run", writeStudy(t, base), "--set", "duration=0s")
	if code != 2 {
		t.Errorf("--set duration=0s: exit %d %q", code, stderr)
	}
}

// TestStudyFiles: every study shipped in studies/ is valid, and plan says what it would do (or
// why this server cannot run it).
func TestStudyFiles(t *testing.T) {
	my := testutil.MySQL(t)
	pg := testutil.PG(t)
	// The studies whose schema is a factor plan only on a database without the workload's schema.
	fresh(t, "oltp", my)
	fresh(t, "tpcc", my)
	governor, governorWant := 0, "host.cpu_governor"
	// The MySQL 8 study plans on MySQL 8.0.16 or later; elsewhere the plan names the server, its
	// version and who has the setting.
	tg, _ := testutil.Open(t, my)
	v, _ := tg.Version(context.Background())
	multCode, multWant := 2, fmt.Sprintf("%s %s has no setting \"innodb_spin_wait_pause_multiplier\": MySQL 8.0.16 or later has it", tg.Name(), target.MajorMinor(tg.Name(), v))
	if has, _ := target.CatalogHas("innodb_spin_wait_pause_multiplier", tg.Name(), v); has {
		multCode, multWant = 0, "innodb_spin_wait_pause_multiplier  "
	}
	if _, err := os.Stat("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err != nil {
		governor, governorWant = 2, "host.cpu_governor: not possible on this host"
	}
	for _, c := range []struct {
		file, db string
		code     int
		want     string
	}{
		{"spin-wait-delay-live.yaml", my, 0, "innodb_spin_wait_delay"},
		{"ahi-spin-delay.yaml", my, 0, "innodb_adaptive_hash_index"},
		{"point-select-binding.yaml", my, 0, "server-cpus 0"},
		{"postgres-governor.yaml", pg, governor, governorWant},
		{"mysql8-spin-wait-pause-multiplier.yaml", my, multCode, multWant},
		{"fanout-spin-wait-delay.yaml", my, 0, "innodb_spin_wait_delay"},
	} {
		for _, dir := range []string{"../../studies/", "../../studies/ci/"} {
			path := dir + c.file
			if _, err := os.Stat(path); err != nil {
				continue
			}
			t.Setenv("CAIRN_PASSWORD", "cairn")
			code, out, stderr := cairn(t, "study", "plan", path, "--set", "db="+c.db)
			if code != c.code || !strings.Contains(out+stderr, c.want) {
				t.Errorf("plan %s: exit %d, want %d and %q\n%s%s", path, code, c.code, c.want, out, stderr)
			}
		}
	}
}

// TestStudyRestartSetting: a setting that takes effect only at a restart is applied with the
// study's restart command, in force during the run, and after the study back as found — in
// postgresql.auto.conf too — with the server restarted again.
func TestStudyRestartSetting(t *testing.T) {
	url := testutil.PG(t)
	restart := testutil.Restart(t, "postgres")
	fresh(t, "tpcb", url)
	before := setting(t, url, "shared_buffers")
	want := "96MB"
	if before == want {
		want = "112MB"
	}
	tg, c := testutil.Open(t, url)
	_ = tg
	autoLines := func() int {
		var n int
		if err := c.QueryRow(context.Background(), `SELECT count(*) FROM pg_file_settings WHERE name = 'shared_buffers' AND sourcefile LIKE '%postgresql.auto.conf'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	autoBefore := autoLines()
	js := filepath.Join(t.TempDir(), "study.json")
	file := writeStudy(t, fmt.Sprintf(`name: restart
workload: tpcb
options: {script: select-only}
prepare: {scale: 1}
vu: [1]
rampup: 0s
duration: 1s
restart: %q
settings:
  shared_buffers: [%q]
`, restart, want))
	code, out, stderr := cairn(t, "study", "run", file, "--set", "db="+url, "--no-store", "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	st := readStudyDoc(t, js)
	d := st.Runs()[0]
	if got := d.Target.Settings["shared_buffers"]; got != want {
		t.Errorf("the run saw shared_buffers %s, want %s", got, want)
	}
	if got := setting(t, url, "shared_buffers"); got != before {
		t.Errorf("shared_buffers is %s after the study, was %s", got, before)
	}
	// The test's own connection was cut by the restarts: a new one reads the file's state.
	_, c = testutil.Open(t, url)
	if n := autoLines(); n != autoBefore {
		t.Errorf("postgresql.auto.conf has %d shared_buffers lines after the study, had %d", n, autoBefore)
	}
	if !st.Restored {
		t.Error("the study says its settings were not restored")
	}
}

// TestStudyCIVariants runs the CI variants not run above end to end on MariaDB: two settings
// crossed in random order, and the server bound to each CPU in turn; afterwards every setting and
// the server's CPU binding are as found.
func TestStudyCIVariants(t *testing.T) {
	url := testutil.MySQL(t)
	fresh(t, "oltp", url)
	ahi, delay := setting(t, url, "innodb_adaptive_hash_index"), setting(t, url, "innodb_spin_wait_delay")
	srv, before := localServer(t, url)
	for _, c := range []struct {
		file  string
		runs  int
		cases int
	}{{"ahi-spin-delay.yaml", 8, 4}, {"point-select-binding.yaml", 2, 2}} {
		if c.file == "point-select-binding.yaml" && runtime.NumCPU() < 2 {
			continue
		}
		js := filepath.Join(t.TempDir(), "study.json")
		code, out, stderr := cairn(t, "study", "run", "../../studies/ci/"+c.file, "--set", "db="+url, "--no-store", "--json", js)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", c.file, code, out, stderr)
		}
		st := readStudyDoc(t, js)
		if len(st.Steps) != c.runs || len(st.Cases) != c.cases || !st.Restored {
			t.Errorf("%s: %d runs, %d cases, restored %v", c.file, len(st.Steps), len(st.Cases), st.Restored)
		}
		for _, d := range st.Runs() {
			if want := st.Cases[d.Study.Case].ServerCPUs; want != "" && (d.Binding == nil || d.Binding.ServerCPUs != want) {
				t.Errorf("%s: run %d bound the server to %+v, want %s", c.file, d.Study.Step, d.Binding, want)
			}
		}
	}
	if got := setting(t, url, "innodb_adaptive_hash_index"); got != ahi {
		t.Errorf("innodb_adaptive_hash_index is %s, was %s", got, ahi)
	}
	if got := setting(t, url, "innodb_spin_wait_delay"); got != delay {
		t.Errorf("innodb_spin_wait_delay is %s, was %s", got, delay)
	}
	if now, _ := observe.Affinity(srv.PID); now != before {
		t.Errorf("the server runs on CPUs %s, was %s", now, before)
	}
}

// exportStudy reads a stored study's document as 'results export' writes it.
func exportStudy(t *testing.T, store, id string) *results.Study {
	t.Helper()
	code, out, stderr := cairn(t, "results", "export", id, "--results", store)
	if code != 0 {
		t.Fatalf("export %s: exit %d %s", id, code, stderr)
	}
	var st results.Study
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// TestStudyKilledSaysSo: a study killed with SIGKILL is stored as not ended and not restored,
// with every stored run in steps[]; while it runs, a plan or a study from another state
// directory is refused, naming what holds the server; 'cairn study restore' puts the setting
// back and marks the stored study restored, with when and by what. On PostgreSQL and MariaDB.
func TestStudyKilledSaysSo(t *testing.T) {
	bin := cairnBinary(t)
	pg, my := testutil.PG(t), testutil.MySQL(t)
	for _, c := range []struct{ name, url, setting, holder string }{
		{"postgres", pg, "work_mem", "cairn study killed"},
		{"mariadb", my, "innodb_spin_wait_delay", "a cairn study's session"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fresh(t, "tpcb", c.url)
			before := setting(t, c.url, c.setting)
			changed := map[string]string{"work_mem": "7MB", "innodb_spin_wait_delay": "7"}[c.setting]
			if before == changed {
				changed = map[string]string{"work_mem": "9MB", "innodb_spin_wait_delay": "9"}[c.setting]
			}
			file := writeStudy(t, fmt.Sprintf("name: killed\nworkload: tpcb\noptions: {script: select-only}\nprepare: {scale: 1}\n"+
				"vu: [1]\nrampup: 0s\nduration: 2s\npause: 0s\nrepeat: 3\nprogress: 1s\nsettings:\n  %s: [%q]\n", c.setting, changed))
			store := filepath.Join(t.TempDir(), "results.db")
			stateA, stateB := t.TempDir(), t.TempDir()
			t.Setenv("CAIRN_STATE", stateA)
			cmd, _ := startUntil(t, bin, "run 2/3", "study", "run", file, "--set", "db="+c.url, "--results", store)
			t.Cleanup(func() { cmd.Process.Kill() })
			go cmd.Wait()

			t.Setenv("CAIRN_STATE", stateB)
			for _, sub := range []string{"plan", "run"} {
				args := []string{"study", sub, file, "--set", "db=" + c.url}
				if sub == "run" {
					args = append(args, "--no-store")
				}
				code, _, stderr := cairn(t, args...)
				if code != 2 || !strings.Contains(stderr, "another study is running on") || !strings.Contains(stderr, c.holder) {
					t.Errorf("study %s from another state directory: exit %d %q, want 2 naming %q", sub, code, stderr, c.holder)
				}
				oneCleanLine(t, stderr)
			}
			time.Sleep(500 * time.Millisecond) // inside run 2's window: run 1 is stored
			cmd.Process.Kill()
			for i := 0; i < 200 && cmd.Process.Signal(syscall.Signal(0)) == nil; i++ {
				time.Sleep(50 * time.Millisecond)
			}
			if got := setting(t, c.url, c.setting); got != changed {
				t.Fatalf("after kill -9 %s is %s: the test cannot check the restore", c.setting, got)
			}
			st := exportStudy(t, store, "1")
			if st.Restored || st.EndedAt != nil || st.RestoredAt != nil {
				t.Errorf("killed study stored as restored %v, ended %v, restored at %v", st.Restored, st.EndedAt, st.RestoredAt)
			}
			runs := st.Runs()
			if len(runs) == 0 || len(st.Steps) != len(runs) {
				t.Fatalf("killed study: %d runs stored, %d steps listed", len(runs), len(st.Steps))
			}
			for i, s := range st.Steps {
				if s.Result != runs[i].ID {
					t.Errorf("steps[%d] names result %q, the stored run is %s", i, s.Result, runs[i].ID)
				}
			}
			_, out, _ := cairn(t, "results", "show", "1", "--results", store)
			if !strings.Contains(out, "NOT ENDED") || !strings.Contains(out, "NOT restored yet") || strings.Contains(out, "restored and read back") {
				t.Errorf("show of the killed study:\n%s", out)
			}

			t.Setenv("CAIRN_STATE", stateA)
			code, out, stderr := cairn(t, "study", "restore", "--db", c.url)
			if code != 0 || !strings.Contains(out, "study 1 marked restored") {
				t.Fatalf("study restore: exit %d %q %q", code, out, stderr)
			}
			if got := setting(t, c.url, c.setting); got != before {
				t.Errorf("after study restore %s is %s, was %s", c.setting, got, before)
			}
			st = exportStudy(t, store, "1")
			if !st.Restored || st.RestoredAt == nil || st.RestoredBy != "cairn study restore" {
				t.Errorf("after study restore the document says restored %v at %v by %q", st.Restored, st.RestoredAt, st.RestoredBy)
			}
			// The server's lock went with the killed study's session: a plan runs again.
			if code, _, stderr := cairn(t, "study", "plan", file, "--set", "db="+c.url); code != 0 {
				t.Errorf("plan after the restore: exit %d %s", code, stderr)
			}
		})
	}
}

// TestStudyPlanRandomOrder: a random order without a seed is planned with a seed drawn for the
// plan, which the plan prints with how to run that very order; given that seed, plan and run
// list the same order.
func TestStudyPlanRandomOrder(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "r.db")
	file := writeStudy(t, "name: random\nworkload: tpcb\nvu: [1, 2, 3, 4]\nrepeat: 2\nduration: 1s\norder: random\n")
	code, out, stderr := cairn(t, "study", "plan", file, "--set", "db="+db)
	if code != 0 {
		t.Fatalf("plan: exit %d %s", code, stderr)
	}
	var seed string
	if _, err := fmt.Sscanf(out[strings.Index(out, "'--set seed=")+len("'--set seed="):], "%s", &seed); err != nil || !strings.Contains(out, "drawn for this plan") {
		t.Fatalf("plan of a random order without a seed does not say which seed it shows:\n%s", out)
	}
	seed = strings.TrimSuffix(seed, "'")
	steps := func(out string) string {
		var l []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasSuffix(line, ", run 1") || strings.HasSuffix(line, ", run 2") {
				l = append(l, strings.Join(strings.Fields(line)[1:], " "))
			}
		}
		return strings.Join(l, "; ")
	}
	_, again, _ := cairn(t, "study", "plan", file, "--set", "db="+db, "--set", "seed="+seed)
	if steps(again) != steps(out) || !strings.Contains(again, "the run follows it") {
		t.Errorf("plan with seed %s lists another order:\n%s\nthan\n%s", seed, again, out)
	}
}

// TestSetReachesPrepare: --set options.NAME changes the prepare's option of the same name, so
// the data prepared is what the run expects; a study that measured nothing is not stored.
func TestSetReachesPrepare(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "o.db")
	spec := filepath.Join(dir, "s.yaml")
	// prepare: before options in the file, and options changed by --set: the prepare follows both.
	if err := os.WriteFile(spec, []byte("workload: oltp\ndb: "+db+"\nprepare: true\noptions: {tables: 1, table-size: 2000}\nvu: 1\nrampup: 0s\nduration: 1s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := cairn(t, "run", "--spec", spec, "--no-store")
	if code != 0 || !strings.Contains(out, "1 table of 2000 rows") {
		t.Fatalf("run with prepare before options: exit %d %s%s", code, out, stderr)
	}
	if code, _, stderr := cairn(t, "oltp", "cleanup", "--db", db); code != 0 {
		t.Fatalf("cleanup: %s", stderr)
	}
	code, out, stderr = cairn(t, "run", "--spec", spec, "--set", "options.table-size=3000", "--no-store")
	if code != 0 || !strings.Contains(out, "1 table of 3000 rows") {
		t.Fatalf("run --set options.table-size=3000 with prepare: exit %d %s%s", code, out, stderr)
	}
	// A study whose only run cannot start (the schema is missing and it does not prepare) leaves
	// no stored study behind.
	store := filepath.Join(dir, "results.db")
	file := writeStudy(t, "name: empty\nworkload: oltp\ndb: sqlite://"+filepath.Join(dir, "none.db")+"\nvu: [1]\nduration: 1s\n")
	code, out, _ = cairn(t, "study", "run", file, "--results", store)
	if code == 0 || strings.Contains(out, "NOPM") || !strings.Contains(out, "not stored") {
		t.Errorf("a study that measured nothing: exit %d\n%s", code, out)
	}
	if _, list, _ := cairn(t, "results", "list", "--results", store); strings.Contains(list, "study") {
		t.Errorf("a study that measured nothing is listed:\n%s", list)
	}
}

// TestCutRunsMarked: a run whose window Ctrl-C cut short is marked so in the study's compare,
// show, list, export and report, and the comparison says its figures are not comparable.
func TestCutRunsMarked(t *testing.T) {
	bin := cairnBinary(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "results.db")
	file := writeStudy(t, "name: cut\nworkload: tpcb\ndb: sqlite://"+filepath.Join(dir, "c.db")+"\noptions: {script: select-only}\n"+
		"prepare: {scale: 1}\nvu: [1]\nrampup: 0s\nduration: 6s\npause: 0s\nprogress: 1s\nsettings:\n  cache_size: [\"-2000\", \"-4000\"]\n")
	cmd, _ := startUntil(t, bin, "run 2/2", "study", "run", file, "--results", store)
	t.Cleanup(func() { cmd.Process.Kill() })
	time.Sleep(2500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	code, out, stderr := cairn(t, "results", "compare", "1", "--results", store)
	if code != 0 || !strings.Contains(out, "1 (1 cut short)") || !strings.Contains(out, " cut") || !strings.Contains(out, "not comparable with full runs") {
		t.Errorf("compare of a study with a cut run: exit %d %s\n%s", code, stderr, out)
	}
	st := exportStudy(t, store, "1")
	runs := st.Runs()
	if len(runs) != 2 || runs[0].Cut() || !runs[1].Cut() {
		t.Fatalf("%d runs; want the second cut short", len(runs))
	}
	cut := runs[1].ID
	if _, out, _ := cairn(t, "results", "show", cut, "--results", store); !strings.Contains(out, "CUT SHORT") {
		t.Errorf("show of the cut run:\n%s", out)
	}
	if _, out, _ := cairn(t, "results", "list", "--steps", "--results", store); !strings.Contains(out, "cut short") {
		t.Errorf("list of the cut run:\n%s", out)
	}
	if _, out, _ := cairn(t, "results", "export", "1", "--format", "csv", "--results", store); !strings.Contains(out, ",cut,not_as_planned") || !strings.HasSuffix(strings.TrimSpace(out), ",true,cut_short") {
		t.Errorf("export of the study:\n%s", out)
	}
	if _, out, _ := cairn(t, "results", "compare", runs[0].ID, cut, "--results", store); !strings.Contains(out, "CUT SHORT: window") {
		t.Errorf("compare of a full and a cut run:\n%s", out)
	}
	html := filepath.Join(dir, "r.html")
	if code, _, stderr := cairn(t, "report", "1", "-o", html, "--results", store); code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	if b, _ := os.ReadFile(html); !strings.Contains(string(b), "1 cut short") {
		t.Error("the report does not mark the cut run")
	}
}
