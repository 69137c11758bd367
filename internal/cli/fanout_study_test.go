package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestFanoutStudy: the CI fan-out study on 2 MariaDB servers of the test's own × 4 databases.
// plan lists both servers; the run changes innodb_spin_wait_delay on each (seen there during the
// run) and restores each at the end, after Ctrl-C, and after SIGKILL with 'cairn study restore'.
func TestFanoutStudy(t *testing.T) {
	servers := testutil.MariaDBs(t, 2)
	var hosts []string
	for _, s := range servers {
		testutil.Databases(t, s+"mysql", "cairn_fan_0", "cairn_fan_1", "cairn_fan_2", "cairn_fan_3")
		hosts = append(hosts, strings.TrimSuffix(strings.TrimPrefix(s, "mysql://cairn:cairn@"), "/"))
	}
	db := "mysql://cairn:cairn@" + strings.Join(hosts, ",") + "/cairn_fan_{0..3}"
	first := func(i int) string { return servers[i] + "cairn_fan_0" }
	before := []string{setting(t, first(0), "innodb_spin_wait_delay"), setting(t, first(1), "innodb_spin_wait_delay")}
	restored := func(when string) {
		t.Helper()
		for i := range servers {
			if got := setting(t, first(i), "innodb_spin_wait_delay"); got != before[i] {
				t.Errorf("%s: innodb_spin_wait_delay on %s is %s, was %s", when, hosts[i], got, before[i])
			}
		}
	}
	// The file as it is: its servers from ${CAIRN_FANOUT_SERVERS}, expanded before the list is split.
	t.Setenv("CAIRN_PASSWORD", "cairn")
	const file = "../../studies/ci/fanout-spin-wait-delay.yaml"
	if code, _, stderr := cairn(t, "study", "plan", file); code != 2 || !strings.Contains(stderr, "${CAIRN_FANOUT_SERVERS} is not set") {
		t.Errorf("plan without CAIRN_FANOUT_SERVERS: exit %d %q", code, stderr)
	}
	t.Setenv("CAIRN_FANOUT_SERVERS", strings.Join(hosts, ","))
	code, out, stderr := cairn(t, "study", "plan", file)
	if code != 0 || !strings.Contains(out, "changed and restored on each of 2 servers: "+strings.Join(hosts, ", ")) || !strings.Contains(out, "(8 shards)") {
		t.Fatalf("plan: exit %d\n%s%s", code, out, stderr)
	}
	// --set db= with ${VAR} in its servers too.
	if code, out, stderr := cairn(t, "study", "plan", file, "--set", "db=mysql://cairn:${CAIRN_PASSWORD}@${CAIRN_FANOUT_SERVERS}/cairn_fan_{0..1}"); code != 0 ||
		!strings.Contains(out, "changed and restored on each of 2 servers") || !strings.Contains(out, "(4 shards)") {
		t.Errorf("plan --set db=: exit %d\n%s%s", code, out, stderr)
	}

	// Both servers are watched while the study runs: each must take both values.
	stop := make(chan struct{})
	seen := make([]map[string]bool, len(servers))
	var wg sync.WaitGroup
	for i := range servers {
		seen[i] = map[string]bool{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tg, err := target.Open(context.Background(), first(i))
			if err != nil {
				t.Error(err)
				return
			}
			defer tg.Close()
			c, err := tg.Conn(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			for {
				var v string
				if err := c.QueryRow(context.Background(), "SELECT @@GLOBAL.innodb_spin_wait_delay").Scan(&v); err == nil {
					seen[i][v] = true
				}
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()
	}
	// One shard is held by a table lock 40 ms of every 80 during the study: each case ranks it
	// the slowest shard, and its server the slowest server, by the time they add to the requests.
	if code, out, stderr := cairn(t, "fanout", "prepare", "--db", db, "--rows", "400"); code != 0 {
		t.Fatalf("prepare: exit %d\n%s%s", code, out, stderr)
	}
	slowShard := hosts[1] + "/cairn_fan_2"
	lockDone := make(chan error, 1)
	go func() {
		lockDone <- testutil.HoldLocks(servers[1]+"cairn_fan_2", "fanout_t", 40*time.Millisecond, stop)
	}()
	store := filepath.Join(t.TempDir(), "results.db")
	code, out, stderr = cairn(t, "study", "run", file, "--results", store)
	close(stop)
	wg.Wait()
	if err := <-lockDone; err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s%s", code, out, stderr)
	}
	fanoutStudyFigures(t, out, store, slowShard, hosts[1])
	for i := range servers {
		if !seen[i]["30"] || !seen[i]["6"] {
			t.Errorf("%s took %v during the study, want 30 and 6", hosts[i], seen[i])
		}
	}
	restored("after the study")

	// Ctrl-C, and SIGKILL then 'cairn study restore' or 'cairn restore'.
	bin := cairnBinary(t)
	long := writeStudy(t, fmt.Sprintf("name: fan-restore\nworkload: fanout\ndb: %s\nprepare: {rows: 400}\nvu: [1]\nrampup: 0s\nduration: 60s\nprogress: 1s\nsettings:\n  innodb_spin_wait_delay: [17]\n", db))
	start := func() *os.Process {
		cmd, _ := startUntil(t, bin, "] window ", "study", "run", long, "--no-store")
		t.Cleanup(func() { cmd.Process.Kill() })
		go cmd.Wait()
		for i := range servers {
			if got := setting(t, first(i), "innodb_spin_wait_delay"); got != "17" {
				t.Fatalf("innodb_spin_wait_delay on %s is %s during the study, want 17", hosts[i], got)
			}
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
	restored("after Ctrl-C")

	p = start()
	p.Kill()
	waitExit(p)
	code, out, stderr = cairn(t, "study", "restore", "--db", db)
	if code != 0 || !strings.Contains(out, "restored: settings innodb_spin_wait_delay") {
		t.Errorf("study restore: exit %d %q %q", code, out, stderr)
	}
	restored("after kill -9 and study restore")

	// cairn restore takes the set as --db repeated: here one database of each server.
	p = start()
	p.Kill()
	waitExit(p)
	code, out, stderr = cairn(t, "restore", "--db", first(0), "--db", first(1))
	if code != 0 || !strings.Contains(out, "restored: settings innodb_spin_wait_delay") {
		t.Errorf("restore --db --db: exit %d %q %q", code, out, stderr)
	}
	restored("after kill -9 and restore --db repeated")
}

// fanoutStudyFigures checks a stored fan-out study's own figures wherever the study is shown: the
// table its run printed (out), results compare, the CSV export and the report, each case ranking
// slowShard (on slowServer) first by the time it added.
func fanoutStudyFigures(t *testing.T, out, store, slowShard, slowServer string) {
	t.Helper()
	m := regexp.MustCompile(`stored as study (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no study id in\n%s", out)
	}
	id := m[1]
	// Each case's row names the slowed shard and its server, with logical and physical p95.
	table := func(what, text string) {
		t.Helper()
		_, tab, ok := strings.Cut(text, "fan-out per case and VU count")
		rows := regexp.MustCompile(`(?m)^\s*[AB]\s+2\s+[0-9.]+\s.*`+regexp.QuoteMeta(slowShard)+`\s.*\s`+regexp.QuoteMeta(slowServer)+`\s`).FindAllString(tab, -1)
		if !ok || len(rows) != 2 || !strings.Contains(tab, "logical p95") || !strings.Contains(tab, "physical p95") || !strings.Contains(tab, "short board p95") {
			t.Errorf("%s: the fan-out table does not rank %s first in both cases:\n%s", what, slowShard, text)
		}
	}
	table("study run", out)
	code, cmp, _ := cairn(t, "results", "compare", id, "--results", store)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, cmp)
	}
	table("results compare", cmp)
	code, csvText, _ := cairn(t, "results", "export", id, "--format", "csv", "--results", store)
	recs, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
	if code != 0 || err != nil || len(recs) != 3 {
		t.Fatalf("export: exit %d, %v\n%s", code, err, csvText)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		lp, _ := strconv.ParseFloat(r[col["logical_p95_ms"]], 64)
		pp, _ := strconv.ParseFloat(r[col["physical_p95_ms"]], 64)
		share, _ := strconv.ParseFloat(r[col["slowest_shard_added_percent"]], 64)
		if r[col["slowest_shard"]] != slowShard || r[col["slowest_server"]] != slowServer || lp <= 0 || pp <= 0 || lp < pp || share <= 0 || share > 100 {
			t.Errorf("export row %v (columns %v)", r, recs[0])
		}
	}
	html := filepath.Join(t.TempDir(), "study.html")
	if code, _, stderr := cairn(t, "report", id, "-o", html, "--results", store); code != 0 {
		t.Fatalf("report: exit %d %s", code, stderr)
	}
	b, _ := os.ReadFile(html)
	if page := string(b); !strings.Contains(page, "study-fanout-rt") || strings.Count(page, "<td>"+slowShard+"</td>") != 2 || !strings.Contains(page, "Fan-out per case and VU count") {
		t.Errorf("the report lacks the fan-out table or chart (%d rows naming %s)", strings.Count(page, "<td>"+slowShard+"</td>"), slowShard)
	}
}
