package cli

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/oltp"
)

// A PostgreSQL TPC-C run handed on: 'results bundle' writes one file holding its spec (the
// password a ${VAR} reference, nowhere in the file), cairn's version, the server's version and
// settings, the host, the data's record (seed, sizes, the cairn that generated it) and the
// document with its histograms; 'run --bundle' on a fresh database prepares the same data and
// runs the same spec and seed, its result saying so; 'results compare' of the two lists no
// difference in conditions but the database and the time the data was prepared, and a rerun on
// a database with another work_mem lists that too.
func TestBundleRunAgain(t *testing.T) {
	admin := testutil.PG(t)
	const secret = "Bndl-Pw-5q8Zr"
	execOn(t, admin, "DROP ROLE IF EXISTS cairn_bundle_test", "CREATE ROLE cairn_bundle_test LOGIN SUPERUSER PASSWORD '"+secret+"'")
	// After the databases, which hold the role's tables, are dropped (cleanups run last first).
	t.Cleanup(func() { execOn(t, admin, "DROP ROLE IF EXISTS cairn_bundle_test") })
	dbs := testutil.Databases(t, admin, "cairn_bundle_a", "cairn_bundle_b", "cairn_bundle_c")
	execOn(t, admin, "ALTER DATABASE cairn_bundle_c SET work_mem = '7MB'")
	as := func(db, password string) string {
		u, err := url.Parse(db)
		if err != nil {
			t.Fatal(err)
		}
		return "postgres://cairn_bundle_test:" + password + "@" + u.Host + u.Path
	}
	dir := t.TempDir()
	store, file := filepath.Join(dir, "r.db"), filepath.Join(dir, "run.bundle.json")
	var said strings.Builder
	run := func(want int, args ...string) string {
		t.Helper()
		code, out, stderr := cairn(t, append(args, "--results", store)...)
		said.WriteString(out + stderr)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, stderr)
		}
		return out
	}
	// The password written literally in the URL: cairn must make it a reference itself.
	first := run(0, "tpcc", "run", "--db", as(dbs[0], secret), "--prepare", "--warehouses", "1", "--seed", "4242",
		"--vu", "2", "--rampup", "1s", "--duration", "4s", "--progress", "0")
	out := run(0, "results", "bundle", "1", "-o", file)
	if !strings.Contains(out, "wrote 1 run to "+file) {
		t.Errorf("bundle said %q", out)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), secret) || strings.Contains(said.String(), secret) {
		t.Fatalf("the password %s is in the bundle or the output", secret)
	}
	b, err := results.ReadBundle(text, file)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Runs) != 1 || b.Runs[0].ID != "1" {
		t.Fatalf("bundle holds %d runs", len(b.Runs))
	}
	r, d := b.Runs[0], b.Runs[0].Run
	if !strings.Contains(r.Spec, "${CAIRN_PASSWORD}") || !strings.Contains(r.Spec, "seed: 4242") {
		t.Errorf("the bundle's spec lacks its password's reference or its seed:\n%s", r.Spec)
	}
	switch {
	case d.Cairn.Version != Version:
		t.Errorf("cairn version %q, want %q", d.Cairn.Version, Version)
	case d.Target.Kind != "postgres" || d.Target.Version == "" || d.Target.Settings["work_mem"] == "":
		t.Errorf("target %+v lacks its version or settings", d.Target)
	case d.Host == nil || d.Host.Kernel == "":
		t.Errorf("no host facts: %+v", d.Host)
	case d.Data == nil:
		t.Fatalf("no data record")
	case d.Data.CairnVersion != Version || d.Data.PreparedAt.IsZero():
		t.Errorf("data prepared by cairn %q at %v, want %q", d.Data.CairnVersion, d.Data.PreparedAt, Version)
	case d.Data.Prepare["seed"] != "4242" || d.Data.Prepare["warehouses"] != "1":
		t.Errorf("data's prepare %v, want seed 4242 and 1 warehouse", d.Data.Prepare)
	case d.Histograms["new_order"] == "" || d.HeadlineFigure() == nil:
		t.Errorf("the document lacks its histograms or headline")
	}
	clientChecked(t, d, first)

	// Run again on a fresh database, its password now a reference read from the environment.
	t.Setenv("CAIRN_BUNDLE_PW", secret)
	out = run(0, "run", "--bundle", file, "--db", as(dbs[1], "${CAIRN_BUNDLE_PW}"))
	if !strings.Contains(out, "run again from bundle "+file+" (its run 1, sha256 ") || !strings.Contains(out, "stored as result 2") {
		t.Errorf("the rerun does not say where it came from:\n%s", out)
	}
	html := filepath.Join(dir, "again.html")
	run(0, "report", "2", "-o", html)
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run again from bundle", "by cairn " + Version + ": no-procs false, partition false, seed 4242, warehouses 1"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the rerun's report lacks %q", want)
		}
	}
	var again results.Document
	if err := json.Unmarshal([]byte(run(0, "results", "export", "2")), &again); err != nil {
		t.Fatal(err)
	}
	if f := again.Bundle; f == nil || f.File != file || f.Result != "1" || len(f.SHA256) != 64 {
		t.Errorf("the rerun's from_bundle is %+v", f)
	}
	if again.Seed != d.Seed || again.Data == nil || again.Data.Prepare["seed"] != "4242" || again.Target.Database != "cairn_bundle_b" {
		t.Errorf("the rerun ran seed %d on %s with data %+v", again.Seed, again.Target.Database, again.Data)
	}
	differ := func(out string) []string {
		t.Helper()
		_, rest, ok := strings.Cut(out, "conditions that differ (A #1 → B #")
		if !ok {
			t.Fatalf("compare lists no differing conditions:\n%s", out)
		}
		var keys []string
		for _, l := range strings.Split(rest, "\n")[1:] {
			if !strings.HasPrefix(l, "  ") {
				break
			}
			k, _, _ := strings.Cut(strings.TrimSpace(l), ":")
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys
	}
	// In the store the bundle came from, and as a receiver has it: the bundle's file.
	for _, a := range []string{"1", file} {
		out = run(0, "results", "compare", a, "2")
		if got, want := strings.Join(differ(out), " "), "config.db data.prepared_at target.database"; got != want {
			t.Errorf("compare %s 2: the rerun's conditions differ in %s, want %s:\n%s", a, got, want, out)
		}
	}
	// A database whose work_mem differs: compare says so.
	run(0, "run", "--bundle", file, "--db", as(dbs[2], "${CAIRN_BUNDLE_PW}"))
	out = run(0, "results", "compare", "1", "3")
	if !strings.Contains(out, "  target.settings.work_mem: 4MB → 7MB\n") {
		t.Errorf("compare does not list the other work_mem:\n%s", out)
	}
	if strings.Contains(said.String(), secret) {
		t.Errorf("the password %s was shown", secret)
	}
}

// Bad input to 'run --bundle' and 'results bundle': one line each, exit 2, nothing run.
func TestBundleBadInput(t *testing.T) {
	dir := t.TempDir()
	notBundle := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(notBundle, []byte("workload: tpcb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := "sqlite://" + filepath.Join(dir, "never.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bundle", filepath.Join(dir, "missing.json"), "--db", db}, "no such file"},
		{[]string{"run", "--bundle", notBundle, "--db", db}, "is not a cairn bundle"},
		{[]string{"run", "--bundle", notBundle}, "--bundle needs --db URL"},
		{[]string{"run", "--db", db}, "--db goes with --bundle"},
		{[]string{"results", "bundle", "1", "--results", filepath.Join(dir, "r.db")}, "needs -o FILE"},
	} {
		code, out, stderr := cairn(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q%q; want exit %d and %q", c.args, code, out, stderr, ExitUsage, c.want)
		}
		oneCleanLine(t, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "never.db")); err == nil {
		t.Errorf("a refused --bundle created the database file")
	}
}

// Prepare records the cairn that generated the data (the meta record's cairn_version) from the
// session's version, whichever way it is asked for: 'prepare', and 'run --prepare'.
func TestPrepareRecordsCairnVersion(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		db   string
		args []string
	}{
		{"p.db", []string{"oltp", "prepare", "--table-size", "100"}},
		{"r.db", []string{"oltp", "run", "--prepare", "--table-size", "100", "--vu", "1", "--rampup", "0s", "--duration", "1s", "--progress", "0", "--no-store"}},
	} {
		url := "sqlite://" + filepath.Join(dir, c.db)
		if code, out, stderr := cairn(t, append(c.args, "--db", url)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", c.args, code, out, stderr)
		}
		tg, _ := testutil.Open(t, url)
		m, err := workload.ReadMeta[oltp.Meta](context.Background(), tg, oltp.Footprint)
		if err != nil {
			t.Fatal(err)
		}
		if m.CairnVersion != Version || m.PreparedAt.IsZero() {
			t.Errorf("%v: the data's record says cairn %q at %v, want %q", c.args, m.CairnVersion, m.PreparedAt, Version)
		}
	}
}

// A bundle of two repeats, run again on a fresh SQLite file, compared with its reruns as groups:
// the conditions differ only in the database (SQLite's address is its file) and the time the data
// was prepared, and the headline's difference comes with its interval.
func TestBundleRepeatsCompare(t *testing.T) {
	dir := t.TempDir()
	store, file := filepath.Join(dir, "r.db"), filepath.Join(dir, "two.json")
	a, b := "sqlite://"+filepath.Join(dir, "a.db"), "sqlite://"+filepath.Join(dir, "b.db")
	for _, args := range [][]string{
		{"tpcb", "run", "--db", a, "--prepare", "--vu", "1", "--duration", "1s", "--progress", "0", "--seed", "5"},
		{"tpcb", "run", "--db", a, "--vu", "1", "--duration", "1s", "--progress", "0", "--seed", "5"},
		{"results", "bundle", "1", "2", "-o", file},
		{"run", "--bundle", file, "--db", b},
	} {
		if code, out, stderr := cairn(t, append(args, "--results", store)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	// --json writes one document: a bundle of two runs is refused before either runs.
	code, out, stderr := cairn(t, "run", "--bundle", file, "--db", "sqlite://"+filepath.Join(dir, "c.db"), "--json", filepath.Join(dir, "c.json"), "--results", store)
	if code != ExitUsage || !strings.Contains(stderr, "--json writes one document") {
		t.Errorf("--json with a bundle of two runs: exit %d %q%q", code, out, stderr)
	}
	oneCleanLine(t, stderr)
	code, out, stderr = cairn(t, "results", "compare", file, "3,4", "--results", store)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s%s", code, out, stderr)
	}
	want := "conditions that differ (A #1 → B #3):\n" +
		"  config.db: " + a + " → " + b + "\n" +
		"  data.prepared_at: "
	if !strings.Contains(out, want) {
		t.Errorf("compare lacks %q:\n%s", want, out)
	}
	_, rest, _ := strings.Cut(out, "  data.prepared_at: ")
	_, rest, _ = strings.Cut(rest, "\n")
	next := "  target.address: " + strings.TrimPrefix(a, "sqlite://") + " → " + strings.TrimPrefix(b, "sqlite://") + "\n" +
		"  target.database: " + strings.TrimPrefix(a, "sqlite://") + " → " + strings.TrimPrefix(b, "sqlite://") + "\n\n"
	if !strings.HasPrefix(rest, next) {
		t.Errorf("after data.prepared_at, want only %q:\n%s", next, out)
	}
	if !strings.Contains(out, "A: #"+file+":1,"+file+":2 (mean of 2)") || !strings.Contains(out, "TPS, B against A: ") || !strings.Contains(out, "(95%, Welch's t over the runs)") {
		t.Errorf("compare lacks the bundle's group or the interval of the difference:\n%s", out)
	}
}

// clientChecked checks a real run's issue lag and clock against what the run counted: the lag
// over the transactions started in the window (those that ended in it, give or take one a VU at
// each edge), its share of the VUs' time from its own mean and count; a clock tick for each point
// of the window's series but its end's; and the summary's lines.
func clientChecked(t *testing.T, d *results.Document, out string) {
	t.Helper()
	l, c := d.Client.IssueLag, d.Client.Clock
	if l == nil || c == nil {
		t.Fatalf("no issue lag (%v) or clock (%v) in the document", l, c)
	}
	var ended int64
	for _, tx := range d.Txns {
		ended += tx.Count + tx.Errors
	}
	if vu := int64(d.VU); l.Transactions < ended-2*vu || l.Transactions > ended+2*vu {
		t.Errorf("issue lag over %d transactions; %d ended in the window (%d VUs)", l.Transactions, ended, d.VU)
	}
	if share := l.MeanMs * float64(l.Transactions) / 1000 / (float64(d.VU) * d.Window.ClientSeconds); share-l.VUShare > 1e-9 || l.VUShare-share > 1e-9 || l.MaxMs < l.MeanMs {
		t.Errorf("issue lag %+v: vu_share, from its mean and count, is %v", l, share)
	}
	points := 0
	for _, s := range d.Series {
		if s.Window {
			points++
		}
	}
	if c.Ticks != points-1 || c.EndLateMs == nil || c.TickMaxMs < c.TickMeanMs {
		t.Errorf("clock %+v: want %d ticks (the window's %d points but its end's) and an end", c, points-1, points)
	}
	for _, want := range []string{"client issue lag: " + l.Text() + "\n", "client clock: " + c.Text() + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
}
