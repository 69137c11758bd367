package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestMain keeps every test's results out of the user's own store.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cairn-cli-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("CAIRN_RESULTS", filepath.Join(dir, "results.db"))
	os.Setenv("CAIRN_STATE", filepath.Join(dir, "undo")) // the undo journal of the runs these tests make
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestProfileStoreReport is the acceptance path on each target: a profile of 1, 2 and 4
// VUs, listed, shown, exported, compared with a second profile, and reported as HTML and PNG.
func TestProfileStoreReport(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel() // the targets are independent servers and files: CI's time
			url := tg.URL(t)
			prepared(t, url)
			store := filepath.Join(t.TempDir(), "results.db")
			js := filepath.Join(t.TempDir(), "p.json")
			profile := func(extra ...string) string {
				args := append([]string{"tpcc", "profile", "--db", url, "--results", store, "--vu", "1,2,4", "--rampup", "1s",
					"--duration", "3s", "--pause", "0", "--seed", "5"}, extra...)
				code, out, stderr := cairn(t, args...)
				if code != 0 {
					t.Fatalf("profile: exit %d\n%s\n%s", code, out, stderr)
				}
				return out
			}
			out := profile("--json", js)
			for _, want := range []string{"peak: ", "stored as profile 1 in", "VUs", "NOPM", "new_order p50"} {
				if !strings.Contains(out, want) {
					t.Errorf("profile output lacks %q:\n%s", want, out)
				}
			}
			var p results.Profile
			b, _ := os.ReadFile(js)
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if p.ID != "1" || p.Kind != "profile" || len(p.Steps) != 3 || p.Marks.Peak == 0 || p.Host == nil || p.Target.Version == "" {
				t.Fatalf("profile document: id %q kind %q, %d steps, marks %+v, host %v", p.ID, p.Kind, len(p.Steps), p.Marks, p.Host)
			}
			for i, st := range p.Steps {
				if st.VU != []int{1, 2, 4}[i] || len(st.Runs) != 1 || st.Runs[0].ID == "" || st.Runs[0].ProfileID != "1" ||
					st.Runs[0].VU != st.VU || st.Summary.Headline.Mean <= 0 || len(st.Runs[0].Histograms) != 5 {
					t.Fatalf("step %d: %+v", i, st)
				}
			}

			code, out, _ := cairn(t, "results", "list", "--results", store)
			if code != 0 || !strings.Contains(out, "profile") || !strings.Contains(out, "1,2,4") || !strings.Contains(out, "peak ") {
				t.Fatalf("list: exit %d\n%s", code, out)
			}
			code, out, _ = cairn(t, "results", "list", "--results", store, "--steps", "--workload", "tpcc", "--target", p.Target.Kind)
			if code != 0 || strings.Count(out, "step of 1") != 3 {
				t.Fatalf("list --steps: exit %d\n%s", code, out)
			}
			code, out, _ = cairn(t, "results", "show", "1", "--results", store)
			if code != 0 || !strings.Contains(out, "peak: ") || !strings.Contains(out, "host: ") {
				t.Fatalf("show profile: exit %d\n%s", code, out)
			}
			code, out, _ = cairn(t, "results", "show", p.Steps[0].Runs[0].ID, "--results", store)
			if code != 0 || !strings.Contains(out, "TEST RESULT") {
				t.Fatalf("show run: exit %d\n%s", code, out)
			}
			code, out, _ = cairn(t, "results", "export", "1", "--format", "csv", "--results", store)
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if code != 0 || err != nil || len(recs) != 4 || recs[0][1] != "vu" {
				t.Fatalf("export csv: exit %d, %v\n%s", code, err, out)
			}
			code, out, _ = cairn(t, "results", "export", p.Steps[2].Runs[0].ID, "--format", "json", "--results", store)
			var d results.Document
			if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.VU != 4 || d.ID != p.Steps[2].Runs[0].ID {
				t.Fatalf("export json: exit %d\n%.300s", code, out)
			}

			profile("--vu", "1,2") // overrides the first --vu: a second profile of two steps
			code, out, _ = cairn(t, "results", "compare", "1", "5", "--results", store)
			if code != 0 {
				t.Fatalf("compare: exit %d\n%s", code, out)
			}
			for _, want := range []string{"steps matched by VU count", "overall (geometric mean over 2 matched steps)", "4 VUs"} {
				if !strings.Contains(out, want) {
					t.Errorf("compare output lacks %q:\n%s", want, out)
				}
			}
			// One line per matched step, each with two changes.
			lines := 0
			for _, l := range strings.Split(out, "\n") {
				f := strings.Fields(l)
				if len(f) > 0 && (f[0] == "1" || f[0] == "2") && strings.Count(l, "%") >= 2 {
					lines++
				}
			}
			if lines != 2 {
				t.Errorf("want 2 per-step lines with changes:\n%s", out)
			}

			dir := t.TempDir()
			html := filepath.Join(dir, "r.html")
			pngs := filepath.Join(dir, "png")
			code, out, stderr := cairn(t, "report", "1", "5", "-o", html, "--png", pngs, "--results", store)
			if code != 0 {
				t.Fatalf("report: exit %d\n%s%s", code, out, stderr)
			}
			page, _ := os.ReadFile(html)
			if !bytes.Contains(page, []byte("echarts")) || bytes.Contains(page, []byte("<script src=")) {
				t.Errorf("report is not a self-contained ECharts page (%d bytes)", len(page))
			}
			files, _ := filepath.Glob(filepath.Join(pngs, "*.png"))
			if len(files) == 0 {
				t.Fatal("no PNG written")
			}
			for _, f := range files {
				fh, _ := os.Open(f)
				if _, err := png.Decode(fh); err != nil {
					t.Errorf("%s: %v", f, err)
				}
				fh.Close()
			}

			code, out, _ = cairn(t, "results", "rm", "5", "--results", store)
			if code != 0 || !strings.Contains(out, "removed result 5") {
				t.Fatalf("rm: exit %d %s", code, out)
			}
			code, out, _ = cairn(t, "results", "list", "--results", store, "--steps", "--limit", "0")
			if code != 0 || strings.Count(out, "\n") != 5 {
				t.Fatalf("after rm, want the header and 4 rows:\n%s", out)
			}
		})
	}
}

// storeDump is a store's content, for checking that a failed command changed nothing.
func storeDump(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, q := range []string{"SELECT id || kind || workload || hex(document) FROM results ORDER BY id",
		"SELECT result_id || ':' || t FROM series ORDER BY 1", "SELECT result_id || txn || hdr FROM histograms ORDER BY 1",
		"SELECT user_version FROM pragma_user_version"} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			b.WriteString(s + "\n")
		}
		rows.Close()
	}
	return b.String()
}

func TestResultsBadInput(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "results.db")
	// A store with a TPC-C run, a profile of one step, and a run of another workload.
	s, err := resultstore.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	nopm, tpm := int64(1000), int64(2000)
	mk := func(workload string) *results.Document {
		return &results.Document{Format: 1, Workload: workload, VU: 1, MainTxn: "new_order", TxnOrder: []string{"new_order"},
			Result: results.Result{NOPM: &nopm, TPM: &tpm}, Txns: map[string]*results.Txn{"new_order": {Count: 10}},
			Target: results.Target{Kind: "sqlite", Name: "SQLite"}}
	}
	for _, w := range []string{"tpcc", "tpcb"} {
		if err := s.SaveRun(ctx, mk(w), 0); err != nil {
			t.Fatal(err)
		}
	}
	p := &results.Profile{Workload: "tpcc", VUs: []int{1}, Repeat: 1, Target: results.Target{Kind: "sqlite"}}
	if err := s.BeginProfile(ctx, p); err != nil {
		t.Fatal(err)
	}
	step := mk("tpcc")
	step.ProfileID = p.ID
	if err := s.SaveRun(ctx, step, 0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := storeDump(t, store)

	foreign := filepath.Join(dir, "notes.txt")
	os.WriteFile(foreign, []byte(strings.Repeat("hello\n", 200)), 0o644)
	missing := filepath.Join(dir, "none", "results.db")
	r := []string{"--results", store}
	cases := []struct {
		args []string
		want string
	}{
		{append([]string{"results", "show", "42"}, r...), "no result 42"},
		{append([]string{"results", "show", "x1"}, r...), `no result "x1"`},
		{append([]string{"results", "rm", "42"}, r...), "no result 42"},
		{append([]string{"results", "rm", "4"}, r...), "is a step of profile 3"},
		{append([]string{"results", "export", "42"}, r...), "no result 42"},
		{append([]string{"results", "export", "1", "--format", "xml"}, r...), "--format"},
		{append([]string{"results", "compare", "1", "42"}, r...), "no result 42"},
		{append([]string{"results", "compare", "1"}, r...), "at least two"},
		{append([]string{"results", "compare", "1", "2"}, r...), "one workload"},
		{append([]string{"results", "compare", "1", "3"}, r...), "runs with runs"},
		{append([]string{"results", "list", "--target", "oracle"}, r...), "--target"},
		{append([]string{"report", "-o", filepath.Join(dir, "r.html")}, r...), "at least one id"},
		{append([]string{"report", "42", "-o", filepath.Join(dir, "r.html")}, r...), "no result 42"},
		{append([]string{"report", "1", "2", "-o", filepath.Join(dir, "r.html")}, r...), "one workload"},
		{[]string{"results", "list", "--results", foreign}, "not a cairn results store"},
		{[]string{"results", "show", "1", "--results", missing}, "no results store"},
		{[]string{"tpcc", "run", "--results", foreign, "--db", "sqlite://" + dir + "/none.db"}, "not a cairn results store"},
		{[]string{"tpcc", "profile", "--vu", "1,,2"}, "--vu"},
		{[]string{"tpcc", "profile", "--vu", "2,2"}, "twice"},
		{[]string{"tpcc", "profile", "--vu", "0,1"}, "at least 1"},
		{[]string{"tpcc", "profile", "--repeat", "0"}, "--repeat"},
	}
	for _, c := range cases {
		code, _, stderr := cairn(t, c.args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, ExitUsage, stderr)
			continue
		}
		oneCleanLine(t, stderr)
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, c.want)
		}
	}
	if after := storeDump(t, store); after != before {
		t.Error("a failed command changed the store")
	}
	if b, _ := os.ReadFile(foreign); string(b) != strings.Repeat("hello\n", 200) {
		t.Error("a foreign file given as --results was changed")
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("reading a missing store created it")
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("a failed report left a file")
	}
}

// asReader runs the binary without write access to dir: as nobody when the tests run as root
// (root writes anywhere), else with dir made read-only for the duration.
func asReader(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(cairnBinary(t), args...)
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Env = append(os.Environ(), "HOME=/nonexistent")
	} else {
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
	}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// A store cairn cannot write is still readable: list, show and report open it read-only; a run
// that would write it fails before measuring, saying write access is missing and how to go on.
func TestReadOnlyStore(t *testing.T) {
	url := testutil.SQLite(t)
	dir := filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // t.TempDir is 0700: let the other user in
	}
	store := filepath.Join(dir, "results.db")
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	if code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "--duration", "1s", "--rampup", "0s", "--results", store); code != 0 {
		t.Fatalf("run: %d %s %s", code, out, stderr)
	}
	for _, f := range []string{store, store + "-wal", store + "-shm"} {
		os.Chmod(f, 0o644)
	}
	html, err := os.CreateTemp("", "cairn-ro-*.html") // /tmp: anyone may write there
	if err != nil {
		t.Fatal(err)
	}
	html.Close()
	os.Remove(html.Name())
	defer os.Remove(html.Name())
	for _, args := range [][]string{{"results", "list"}, {"results", "show", "1"}, {"results", "export", "1"}, {"report", "1", "-o", html.Name()}} {
		code, out := asReader(t, dir, append(args, "--results", store)...)
		if code != 0 {
			t.Errorf("%v on a store it cannot write: exit %d\n%s", args, code, out)
		}
	}
	for _, f := range []string{store + "-wal", store + "-shm"} {
		if _, err := os.Stat(f); err == nil && os.Geteuid() == 0 {
			if fi, _ := os.Stat(f); fi.Sys().(*syscall.Stat_t).Uid != 0 {
				t.Errorf("a reading command created %s", f)
			}
		}
	}
	dbDir := filepath.Dir(strings.TrimPrefix(url, "sqlite://"))
	os.Chmod(dbDir, 0o777)
	start := time.Now()
	code, out := asReader(t, dir, "tpcb", "run", "--db", url, "--duration", "30s", "--results", store)
	if code != ExitUsage || !strings.Contains(out, "no write access") || !strings.Contains(out, "--no-store") {
		t.Errorf("a run into a store it cannot write: exit %d\n%s", code, out)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the run measured before failing on the store (%s)", time.Since(start))
	}
}
