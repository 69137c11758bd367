package serve_test

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/serve"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// runServe runs a cairn serve that is expected to end by itself, within a minute, and returns
// its exit code and what it printed; one that keeps serving is stopped and fails the test.
func runServe(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Signal(syscall.SIGTERM)
		<-done
		t.Fatalf("cairn serve %s kept serving: %s", strings.Join(args, " "), out.String())
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// A second cairn serve on a store another serves exits non-zero at once with one line naming the
// other's pid; the first's running study is untouched: its setting as the study set it, its record
// still running, the undo journal as it was.
func TestSecondServeOnAServedStore(t *testing.T) {
	bin := cairnBinary(t)
	db, _ := serverDB(t, "postgres")
	admin := testutil.PG(t)
	text, err := os.ReadFile("../../studies/ci/postgres-synchronous-commit-live.yaml")
	if err != nil {
		t.Fatal(err)
	}
	study := strings.Replace(string(text), "duration: 6s", "duration: 40s", 1) + "db: " + db + "\n"
	dir := t.TempDir()
	store, state := filepath.Join(dir, "results.db"), filepath.Join(dir, "state")
	before := asFound(t, admin)
	a := startProcess(t, bin, store, state, "--allow-env", "CAIRN_SERVE_TEST_PW")
	tpcb := "workload: tpcb\ndb: " + db + "\n"
	a.done("cleanup", tpcb)
	j := a.submit("study", study)
	changed(t, a.service, j.ID, admin, before)
	set := asFound(t, admin)
	journal := func() string {
		var b strings.Builder
		entries, _ := os.ReadDir(state)
		for _, e := range entries {
			c, _ := os.ReadFile(filepath.Join(state, e.Name()))
			b.WriteString(e.Name() + "\n" + string(c) + "\n")
		}
		return b.String()
	}
	journalBefore := journal()
	if journalBefore == "" {
		t.Fatal("the running study has no journal entry: the test proves nothing")
	}
	records := filepath.Join(store+".jobs", "jobs.json")
	recordsBefore, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln.Addr().String()
	ln.Close()
	code, said := runServe(t, bin, "--listen", free, "--results", store, "--allow-env", "CAIRN_SERVE_TEST_PW")
	pid := strconv.Itoa(a.cmd.Process.Pid)
	if code == 0 || strings.Count(strings.TrimSpace(said), "\n") > 0 || !strings.Contains(said, "pid "+pid) || !strings.Contains(said, store) {
		t.Errorf("the second serve: exit %d, %q; want one line naming pid %s", code, said, pid)
	}
	if got := asFound(t, admin); got != set {
		t.Errorf("synchronous_commit after the second serve: %s, the study had set %s", got, set)
	}
	var jj job
	a.ok(200, "GET", "/api/v1/jobs/"+j.ID, nil, &jj)
	if jj.State != "running" {
		t.Errorf("the first serve's study after the second serve: %+v", jj)
	}
	var onDisk []job
	b, _ := os.ReadFile(records)
	if err := json.Unmarshal(b, &onDisk); err != nil || len(onDisk) != 2 || onDisk[1].State != "running" {
		t.Errorf("the job records after the second serve (%v):\n%s\nwere\n%s", err, b, recordsBefore)
	}
	if got := journal(); got != journalBefore {
		t.Errorf("the undo journal after the second serve:\n%s\nwas\n%s", got, journalBefore)
	}
	a.ok(202, "POST", "/api/v1/jobs/"+j.ID+"/stop", nil, nil)
	a.wait(j.ID, 2*time.Minute)
	if got := asFound(t, admin); got != before {
		t.Errorf("synchronous_commit after the study stopped: %s, as found %s", got, before)
	}
	a.done("cleanup", tpcb)
	// Once the first has ended, the store is free again.
	a.cmd.Process.Signal(syscall.SIGTERM)
	a.cmd.Wait()
	c := startProcess(t, bin, store, state, "--allow-env", "CAIRN_SERVE_TEST_PW")
	c.ok(200, "GET", "/api/v1/jobs/"+j.ID, nil, &jj)
	if jj.State != "stopped" {
		t.Errorf("the stopped study, read by the next serve: %+v", jj)
	}
}

// --listen with a host and no port listens on the default port; an address that cannot be listened
// on is refused before a token is made and printed.
func TestListenWithoutPort(t *testing.T) {
	bin := cairnBinary(t)
	store := filepath.Join(t.TempDir(), "results.db")
	code, said := runServe(t, bin, "--listen", "127.0.0.2:99999", "--results", store)
	if code != 2 || strings.Contains(said, "Bearer") || strings.Count(strings.TrimSpace(said), "\n") > 0 {
		t.Errorf("--listen with a bad port: exit %d, %q", code, said)
	}
	if ln, err := net.Listen("tcp", "127.0.0.2:8321"); err != nil {
		t.Skipf("127.0.0.2:8321 is taken (%v): the default port cannot be tried", err)
	} else {
		ln.Close()
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.2", "--results", store)
	cmd.Stdout, cmd.Stderr = &lockedWriter{w: &out}, &lockedWriter{w: &out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	for i := 0; ; i++ {
		resp, err := http.Get("http://127.0.0.2:" + "8321" + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i > 100 || cmd.ProcessState != nil {
			t.Fatalf("cairn serve --listen 127.0.0.2 does not answer on port 8321: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("cairn serve after SIGTERM: %v", err)
	}
	said = out.String()
	if strings.Count(said, "Bearer ") != 1 || !strings.Contains(said, "listening on http://127.0.0.2:8321") {
		t.Errorf("cairn serve --listen 127.0.0.2 said:\n%s", said)
	}
}

// The service's results store is never a job's database, named as it is or through a link: 400,
// field db, and no job.
func TestServeStoreIsNoTarget(t *testing.T) {
	s := start(t, serve.Config{Version: "test"})
	bench := testutil.SQLite(t)
	tpcb := "workload: tpcb\nduration: 1s\nrampup: 0s\nprogress: 0s\ndb: "
	s.done("prepare", tpcb+bench) // the store exists: a run stored in it
	s.done("run", tpcb+bench)
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(s.store, link); err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"sqlite://" + s.store, "sqlite://" + link} {
		for _, kind := range []string{"prepare", "run", "check", "cleanup"} {
			var e struct{ Error, Field string }
			s.ok(400, "POST", "/api/v1/jobs", map[string]string{"kind": kind, "spec": tpcb + db}, &e)
			if e.Field != "db" || !strings.Contains(e.Error, "is cairn serve's results store") {
				t.Errorf("%s on %s: %+v", kind, db, e)
			}
		}
	}
	var list struct{ Jobs []job }
	s.ok(200, "GET", "/api/v1/jobs", nil, &list)
	if len(list.Jobs) != 2 {
		t.Errorf("refused jobs were made: %+v", list.Jobs)
	}
}
